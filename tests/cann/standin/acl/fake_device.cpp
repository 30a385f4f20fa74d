// A fake `aopt-standin-device run REQUEST` for test_standin_acl.cpp: what the stand-in runtime
// asks the device, without the emulator. It appends the request (and the AOPT_STANDIN_FAULT it
// was given) as one JSON line to $AOPT_STANDIN_FAKE_LOG
// (with the values of its ValueDepend inputs), and answers per AOPT_STANDIN_FAKE_MODE:
//   ok (default)  each output = the first input's bytes, repeated to the output's size;
//                 latency_us 10, workspace_bytes 4096
//   tiling        the tiling fails (561002), as device.cpp prints it
//   runtime       the kernel fails (507015), as device.cpp prints it
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

int main(int argc, char** argv) {
  if (argc != 3 || std::string(argv[1]) != "run") return 2;
  const auto env = [](const char* n) { return std::string(std::getenv(n) ? std::getenv(n) : ""); };
  std::ifstream in(argv[2]);
  const auto rq = nlohmann::json::parse(in);
  // A ValueDepend input's values, as the kernel would read them (its file is gone after the run).
  nlohmann::json values = nlohmann::json::object();
  for (const auto& i : rq["inputs"]) {
    if (!i.value("value_depend", false)) continue;
    std::ifstream f(i["file"].get<std::string>(), std::ios::binary);
    std::ostringstream s;
    s << f.rdbuf();
    const std::string b = s.str();
    auto& v = values[i["name"].get<std::string>()] = nlohmann::json::array();
    for (std::size_t k = 0; i["dtype"] == "int64" && k + 8 <= b.size(); k += 8) v.push_back(*reinterpret_cast<const long long*>(b.data() + k));
    for (std::size_t k = 0; i["dtype"] == "float32" && k + 4 <= b.size(); k += 4) v.push_back(*reinterpret_cast<const float*>(b.data() + k));
  }
  std::ofstream(env("AOPT_STANDIN_FAKE_LOG"), std::ios::app)
      << nlohmann::json{{"request", rq}, {"fault", env("AOPT_STANDIN_FAULT")}, {"values", values}}.dump() << "\n";
  const std::string mode = env("AOPT_STANDIN_FAKE_MODE");
  if (mode == "tiling") {
    std::cerr << "[ERROR] TilingFunc of " << rq["op_type"].get<std::string>() << " failed: tile 0 too small\n"
              << "[ERROR] aclnn" << rq["op_type"].get<std::string>() << "GetWorkspaceSize failed, ERROR: 561002\n";
    return 1;
  }
  if (mode == "runtime") {
    std::cerr << "EZ9999: Inner Error!\nEZ9999: fake kernel fault\n[ERROR] aclrtSynchronizeStream failed, error code 507015\n";
    return 1;
  }
  std::string first;
  if (!rq["inputs"].empty()) {
    const auto& i0 = rq["inputs"][0].contains("list") ? rq["inputs"][0]["list"][0] : rq["inputs"][0];
    std::ifstream f(i0["file"].get<std::string>(), std::ios::binary);
    std::ostringstream s;
    s << f.rdbuf();
    first = s.str();
  }
  static const std::map<std::string, std::size_t> sizes = {{"float32", 4}, {"float16", 2}, {"bfloat16", 2}, {"int32", 4},
                                                            {"int64", 8},   {"int8", 1},    {"uint8", 1},    {"bool", 1}};
  nlohmann::json res = {{"outputs", nlohmann::json::array()}, {"samples_us", {10.0}}, {"latency_us", 10.0},
                        {"workspace_bytes", 4096}, {"block_dim", 8}, {"warmup", 0}};
  for (const auto& o : rq["outputs"]) {
    std::size_t bytes = sizes.at(o["dtype"].get<std::string>());
    for (auto d : o["shape"]) bytes *= d.get<std::size_t>();
    std::string data;
    while (data.size() < bytes && !first.empty()) data += first;
    data.resize(bytes);
    const std::string file = "out_" + o["name"].get<std::string>() + ".bin";
    std::ofstream(file, std::ios::binary) << data;
    res["outputs"].push_back({{"name", o["name"]}, {"dtype", o["dtype"]}, {"shape", o["shape"]}, {"file", file}});
  }
  std::ofstream("result.json") << res.dump();
  return 0;
}
