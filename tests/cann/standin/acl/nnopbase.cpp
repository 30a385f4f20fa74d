// libnnopbase.so of the stand-in CANN runtime (standin_acl.h): aclnn's tensor and attribute
// objects, and the executor behind every generated aclnn<Op>GetWorkspaceSize / aclnn<Op>.
//
// GetWorkspaceSize does what the real one does first (check the arguments, run the tiling) and
// what the device would do later (run the kernel): it hands the tensors' current "device"
// contents to aopt's emulator, `$AOPT_STANDIN_DEVICE run REQUEST` (docs/cann.md, "The runner",
// warmup 0 / repeat 1), once per distinct input (memoized per process, so warm-up and timed
// launches cost one emulation). aclnn<Op> then plays the launch: copies the emulator's outputs
// into the output tensors and advances the stream's clock by the noise-free latency times
// (1 + AOPT_STANDIN_NOISE * z), z standard normal from AOPT_STANDIN_SEED and a per-process count.
//
// AOPT_STANDIN_FAULT: tiling_error (GetWorkspaceSize returns 561002), acl_error (the launch
// leaves 507015 on the stream), hang (the stream never finishes). The emulator runs without the
// fault variable, except missing_csv, which is the device's (msprof's CSVs) business.
#include <dlfcn.h>
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <random>
#include <regex>
#include <set>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "standin_acl.h"

namespace fs = std::filesystem;

namespace {

// aclnn's return codes (aclnn/aclnn_base.h as documented).
constexpr aclnnStatus param_nullptr = 161001, param_invalid = 161002, inner = 561000, tiling_error = 561002;
constexpr aclError aicore_exception = 507015;

std::string env_or(const char* name, const std::string& fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::string(v) : fallback;
}

aclnnStatus fail(aclnnStatus code, const std::string& text) {
  aopt_standin_error(text.c_str());
  return code;
}

// aopt's dtype names (the runner contract) and element sizes; "" for what aopt has no name for.
std::pair<std::string, std::size_t> dtype_of(aclDataType t) {
  switch (t) {
    case ACL_FLOAT: return {"float32", 4};
    case ACL_FLOAT16: return {"float16", 2};
    case ACL_BF16: return {"bfloat16", 2};
    case ACL_INT8: return {"int8", 1};
    case ACL_UINT8: return {"uint8", 1};
    case ACL_INT16: return {"int16", 2};
    case ACL_UINT16: return {"uint16", 2};
    case ACL_INT32: return {"int32", 4};
    case ACL_UINT32: return {"uint32", 4};
    case ACL_INT64: return {"int64", 8};
    case ACL_UINT64: return {"uint64", 8};
    case ACL_BOOL: return {"bool", 1};
    default: return {"", 0};
  }
}

std::uint64_t hash_bytes(const void* p, std::size_t n, std::uint64_t h) {
  const auto* b = static_cast<const unsigned char*>(p);
  for (std::size_t i = 0; i < n; ++i) h = (h ^ b[i]) * 0x100000001B3ull;
  return h;
}

// What one emulation gave: outputs' bytes, or the failure the device would show at run time.
struct emulation {
  std::vector<std::pair<std::string, std::string>> outputs;  // name (or name.k for lists) -> bytes
  double latency_us = 0;
  std::uint64_t workspace = 0;
  aclError fail_code = ACL_SUCCESS;
  std::string fail_text;
};

}  // namespace

struct aclOpExecutor {
  std::string op_type;
  bool repeatable = false;  // aclSetAclOpExecutorRepeatable: not consumed by a launch
  bool outputs_written = false;  // a repeatable executor's later launches write the same bytes: not copied again
  std::shared_ptr<const emulation> result;
  std::vector<std::pair<std::string, const aclTensor*>> outputs;  // name as in the emulation
  aclError fail_code = ACL_SUCCESS;                               // found before any emulation
  std::string fail_text;
};

namespace {

struct nnopbase {
  std::mutex m;
  std::map<std::string, std::shared_ptr<const emulation>> memo;
  std::set<aclOpExecutor*> live;  // executors are single use: a launch consumes its executor
  std::unique_ptr<std::mt19937_64> rng;
};
nnopbase& nn() {
  static nnopbase n;
  return n;
}

// The launch noise's generator: AOPT_STANDIN_SEED, the operator and a count kept across
// processes in AOPT_STANDIN_STATE (each runner process draws new noise, reproducibly).
std::mt19937_64& noise_rng(nnopbase& n, const std::string& op_type) {
  if (n.rng) return *n.rng;
  const std::uint64_t base = std::strtoull(env_or("AOPT_STANDIN_SEED", "1").c_str(), nullptr, 10);
  const fs::path counter = fs::path(env_or("AOPT_STANDIN_STATE", fs::temp_directory_path().string())) / "aopt-standin-launches";
  std::uint64_t count = 0;
  std::ifstream(counter) >> count;
  std::ofstream(counter, std::ios::trunc) << count + 1;
  n.rng = std::make_unique<std::mt19937_64>(base * 0x9E3779B97F4A7C15ull ^ hash_bytes(op_type.data(), op_type.size(), 0xCBF29CE484222325ull) ^
                                            count * 0xBF58476D1CE4E5B9ull);
  return *n.rng;
}

bool contiguous(const aclTensor& t) {
  int64_t expect = 1;
  for (std::size_t d = t.view_dims.size(); d-- > 0;) {
    if (t.view_dims[d] != 1 && t.strides[d] != expect) return false;
    expect *= t.view_dims[d];
  }
  return t.offset == 0;
}

uint64_t elements(const aclTensor& t) {
  uint64_t n = 1;
  for (auto d : t.view_dims) n *= static_cast<uint64_t>(d);
  return n;
}

// Runs `device run REQUEST` in `dir`, output to dir/device.log; the exit status.
int run_device(const std::string& device, const fs::path& dir, const fs::path& request) {
  std::vector<std::string> env;
  const std::string fault = env_or("AOPT_STANDIN_FAULT", "");
  for (char** e = environ; *e; ++e) {
    const std::string kv = *e;
    if (kv.rfind("AOPT_STANDIN_FAULT=", 0) == 0 && fault != "missing_csv") continue;  // the runtime's faults, not the device's
    env.push_back(kv);
  }
  std::vector<char*> envp;
  for (auto& kv : env) envp.push_back(kv.data());
  envp.push_back(nullptr);
  std::string dev = device, run = "run", req = request.string();
  char* argv[] = {dev.data(), run.data(), req.data(), nullptr};
  const std::string log = (dir / "device.log").string();
  const pid_t pid = ::fork();
  if (pid < 0) return -1;
  if (pid == 0) {
    const int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0 || ::chdir(dir.c_str()) != 0) ::_exit(127);
    ::dup2(fd, 1);
    ::dup2(fd, 2);
    ::execve(argv[0], argv, envp.data());
    ::_exit(127);
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

std::string read_file(const fs::path& f) {
  std::ifstream in(f, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// The emulation of `request` (written in `dir`); a failure to tile is returned as a status.
aclnnStatus emulate(const std::string& op_type, const fs::path& dir, const nlohmann::json& request, std::shared_ptr<emulation>& out) {
  std::ofstream(dir / "request.json") << request.dump();
  const std::string device = env_or("AOPT_STANDIN_DEVICE", "");
  if (device.empty()) return fail(inner, "EZ9999: aclnn" + op_type + "GetWorkspaceSize: AOPT_STANDIN_DEVICE names no stand-in device binary");
  const int rc = run_device(device, dir, dir / "request.json");
  auto e = std::make_shared<emulation>();
  if (rc != 0) {
    // The device's diagnostic, without the lines where device.cpp plays the runner ("...
    // failed, error code N"): the runner prints its own.
    const std::string full = read_file(dir / "device.log");
    std::string log;
    std::istringstream lines(full);
    for (std::string line; std::getline(lines, line);) {
      if (line.find("failed, error code") == std::string::npos && line.find("failed, ERROR:") == std::string::npos) log += line + "\n";
    }
    std::smatch m;
    static const std::regex code(R"((?:error code|ERROR:)\s*(\d{6}))");
    const long c = std::regex_search(full, m, code) ? std::stol(m[1].str()) : 0;
    if (c == tiling_error) return fail(tiling_error, "EZ9999: aclnn" + op_type + "GetWorkspaceSize: the tiling failed:\n" + log);
    if (c == aicore_exception) {  // the kernel failed: the device reports it at the stream's synchronization
      e->fail_code = aicore_exception;
      e->fail_text = log.rfind("EZ9999", 0) == 0 ? log : "EZ9999: Inner Error!\n" + log;
      out = e;
      return ACL_SUCCESS;
    }
    return fail(c ? static_cast<aclnnStatus>(c) : inner, "EZ9999: aclnn" + op_type + "GetWorkspaceSize failed (stand-in device exit " +
                                                            std::to_string(rc) + "):\n" + log);
  }
  nlohmann::json res;
  try {
    res = nlohmann::json::parse(read_file(dir / "result.json"));
  } catch (const std::exception& x) {
    return fail(inner, std::string("EZ9999: the stand-in device wrote no usable result.json: ") + x.what());
  }
  // The outputs, then the inputs the kernel wrote (the device writes them back into their tensors).
  auto outs = res.value("outputs", nlohmann::json::array());
  for (const auto& w : res.value("written_inputs", nlohmann::json::array())) outs.push_back(w);
  for (const auto& o : outs) {
    const std::string name = o.value("name", "");
    if (o.contains("list")) {
      int k = 0;
      for (const auto& t : o["list"]) e->outputs.emplace_back(name + "." + std::to_string(k++), read_file(dir / t.value("file", "")));
    } else {
      e->outputs.emplace_back(name, read_file(dir / o.value("file", "")));
    }
  }
  e->latency_us = res.value("latency_us", 0.0);
  e->workspace = res.value("workspace_bytes", std::uint64_t{0});
  out = e;
  return ACL_SUCCESS;
}

}  // namespace

extern "C" {

aclTensor* aclCreateTensor(const int64_t* view_dims, uint64_t view_num, aclDataType dtype, const int64_t* stride, int64_t offset,
                           aclFormat format, const int64_t* storage_dims, uint64_t storage_num, void* data) {
  if ((view_num && !view_dims) || (storage_num && !storage_dims)) {
    fail(param_nullptr, "EZ1001: aclCreateTensor: viewDims or storageDims is nullptr");
    return nullptr;
  }
  auto* t = new aclTensor;
  t->view_dims.assign(view_dims, view_dims + view_num);
  t->dtype = dtype;
  // nullptr strides: contiguous, as aclnn takes them.
  t->strides.resize(view_num);
  int64_t s = 1;
  for (std::size_t d = view_num; d-- > 0;) {
    t->strides[d] = stride ? stride[d] : s;
    s *= view_dims[d];
  }
  t->offset = offset;
  t->format = format;
  t->storage_dims.assign(storage_dims, storage_dims + storage_num);
  t->data = data;
  return t;
}
aclnnStatus aclDestroyTensor(const aclTensor* t) {
  delete t;
  return ACL_SUCCESS;
}

aclTensorList* aclCreateTensorList(const aclTensor* const* value, uint64_t size) {
  if (size && !value) return nullptr;
  return new aclTensorList{std::vector<const aclTensor*>(value, value + size)};
}
aclnnStatus aclDestroyTensorList(const aclTensorList* l) {
  // As in aclnn, destroying the list destroys its tensors.
  if (l) {
    for (const auto* t : l->tensors) delete t;
  }
  delete l;
  return ACL_SUCCESS;
}

aclScalar* aclCreateScalar(void* value, aclDataType dtype) {
  const std::size_t n = dtype == ACL_DOUBLE ? 8 : dtype_of(dtype).second;
  if (!value || n == 0) return nullptr;
  auto* s = new aclScalar;
  s->dtype = dtype;
  std::memcpy(s->bytes, value, n);
  return s;
}
aclnnStatus aclDestroyScalar(const aclScalar* s) {
  delete s;
  return ACL_SUCCESS;
}

aclIntArray* aclCreateIntArray(const int64_t* value, uint64_t size) {
  if (size && !value) return nullptr;
  return new aclIntArray{std::vector<int64_t>(value, value + size)};
}
aclnnStatus aclDestroyIntArray(const aclIntArray* a) {
  delete a;
  return ACL_SUCCESS;
}
aclFloatArray* aclCreateFloatArray(const float* value, uint64_t size) {
  if (size && !value) return nullptr;
  return new aclFloatArray{std::vector<float>(value, value + size)};
}
aclnnStatus aclDestroyFloatArray(const aclFloatArray* a) {
  delete a;
  return ACL_SUCCESS;
}
aclBoolArray* aclCreateBoolArray(const bool* value, uint64_t size) {
  if (size && !value) return nullptr;
  return new aclBoolArray{std::vector<bool>(value, value + size)};
}
aclnnStatus aclDestroyBoolArray(const aclBoolArray* a) {
  delete a;
  return ACL_SUCCESS;
}

aclnnStatus aopt_standin_get_workspace(const char* op_type_c, const aopt_standin_param* params, uint64_t count,
                                       uint64_t* workspace_size, aclOpExecutor** executor) {
  const std::string op_type = op_type_c;
  const std::string where = "aclnn" + op_type + "GetWorkspaceSize";
  // The host's tiling and argument checks: time on the host clock, none on the stream's.
  aopt_standin_host_work(std::max(0.0, std::strtod(env_or("AOPT_STANDIN_TILING_US", "20").c_str(), nullptr)));
  if (!workspace_size || !executor) return fail(param_nullptr, "EZ1001: " + where + ": workspaceSize or executor is nullptr");
  if (env_or("AOPT_STANDIN_FAULT", "") == "tiling_error") {
    return fail(tiling_error, "EZ9999: " + where + ": the tiling of " + op_type + " failed (AOPT_STANDIN_FAULT=tiling_error)");
  }
  // The installed package this operator library belongs to: <install>/vendors/<vendor>/op_api/lib/.
  Dl_info info{};
  if (!::dladdr(op_type_c, &info) || !info.dli_fname) return fail(inner, "EZ9999: " + where + ": cannot locate the operator library");
  const fs::path lib_dir = fs::absolute(info.dli_fname).parent_path();

  auto ex = std::make_unique<aclOpExecutor>();
  ex->op_type = op_type;
  nlohmann::json request = {{"op_type", op_type},
                            {"install", lib_dir.parent_path().parent_path().parent_path().parent_path().string()},
                            {"vendor", lib_dir.parent_path().parent_path().filename().string()},
                            {"device", std::max(0, aopt_standin_current_device())},
                            {"warmup", 0},
                            {"repeat", 1},
                            {"attrs", nlohmann::json::object()},
                            {"inputs", nlohmann::json::array()},
                            {"outputs", nlohmann::json::array()},
                            {"result", "result.json"}};
  // The key of the emulation: everything the kernel sees. Inputs are read from "device" memory;
  // one that is not there is what a kernel would fault on.
  std::uint64_t key = hash_bytes(lib_dir.c_str(), std::strlen(lib_dir.c_str()), 0xCBF29CE484222325ull);
  std::vector<std::pair<fs::path, const aclTensor*>> files;
  std::vector<std::pair<fs::path, std::string>> value_files;  // ValueDepend inputs' values
  auto tensor_json = [&](const aclTensor* t, const std::string& name, bool input, nlohmann::json& j) -> aclnnStatus {
    if (!t) return fail(param_nullptr, "EZ1001: " + where + ": tensor " + name + " is nullptr");
    const auto [dt, size] = dtype_of(t->dtype);
    if (dt.empty()) return fail(param_invalid, "EZ1001: " + where + ": tensor " + name + " has a dtype (" + std::to_string(t->dtype) + ") the operator does not take");
    if (!contiguous(*t) || t->storage_dims != t->view_dims) {
      return fail(param_invalid, "EZ1001: " + where + ": tensor " + name + " is not contiguous (the stand-in takes contiguous ND tensors only)");
    }
    const uint64_t bytes = elements(*t) * size;
    j = {{"shape", t->view_dims}, {"dtype", dt}};
    key = hash_bytes(name.data(), name.size(), key);
    key = hash_bytes(t->view_dims.data(), t->view_dims.size() * sizeof(int64_t), key);
    key = hash_bytes(dt.data(), dt.size(), key);
    if (!input) return ACL_SUCCESS;
    if (bytes && !aopt_standin_is_device_memory(t->data, bytes)) {
      ex->fail_code = aicore_exception;
      ex->fail_text = "EZ9999: Inner Error!\nEZ9999: the kernel of " + op_type + " read input " + name + " at " +
                      std::to_string(reinterpret_cast<std::uintptr_t>(t->data)) + ", " + std::to_string(bytes) +
                      " bytes, outside device memory (an MTE out-of-range error on the chip)";
      return ACL_SUCCESS;
    }
    key = hash_bytes(t->data, bytes, key);
    const std::string file = "in_" + name + "_" + std::to_string(files.size()) + ".bin";
    j["file"] = file;
    files.emplace_back(file, t);
    return ACL_SUCCESS;
  };
  for (uint64_t i = 0; i < count; ++i) {
    const auto& p = params[i];
    const std::string name = p.name;
    nlohmann::json j;
    aclnnStatus s = ACL_SUCCESS;
    switch (p.kind) {
      case aopt_standin_input:
        if (!p.value) break;  // an absent optional input
        s = tensor_json(static_cast<const aclTensor*>(p.value), name, true, j);
        j["name"] = name;
        request["inputs"].push_back(j);
        // The kernel may write it (in place, no output of its own): what the emulation reports
        // under written_inputs lands there.
        ex->outputs.emplace_back(name, static_cast<const aclTensor*>(p.value));
        break;
      case aopt_standin_input_ref: {
        // In place: the kernel reads the input and writes its output of the same name into it.
        const auto* t = static_cast<const aclTensor*>(p.value);
        s = tensor_json(t, name, true, j);
        if (s != ACL_SUCCESS) break;
        j["name"] = name;
        request["inputs"].push_back(j);
        nlohmann::json o = {{"name", name}, {"shape", j["shape"]}, {"dtype", j["dtype"]}, {"file", "out_" + name + ".bin"}};
        request["outputs"].push_back(o);
        ex->outputs.emplace_back(name, t);
        break;
      }
      case aopt_standin_value_ints:
      case aopt_standin_value_floats: {
        // A ValueDepend input: the host passes values; the kernel (and its tiling) sees a tensor.
        if (!p.value) break;
        const bool ints = p.kind == aopt_standin_value_ints;
        std::string bytes;
        std::size_t n = 0;
        if (ints) {
          const auto& v = static_cast<const aclIntArray*>(p.value)->values;
          bytes.assign(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(int64_t));
          n = v.size();
        } else {
          const auto& v = static_cast<const aclFloatArray*>(p.value)->values;
          bytes.assign(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(float));
          n = v.size();
        }
        const std::string file = "in_" + name + "_values.bin";
        j = {{"name", name}, {"shape", {n}}, {"dtype", ints ? "int64" : "float32"}, {"file", file}, {"value_depend", true}};
        key = hash_bytes(name.data(), name.size(), key);
        key = hash_bytes(bytes.data(), bytes.size(), key);
        value_files.emplace_back(file, bytes);
        request["inputs"].push_back(j);
        break;
      }
      case aopt_standin_input_list:
      case aopt_standin_output_list: {
        const auto* l = static_cast<const aclTensorList*>(p.value);
        if (!l) return fail(param_nullptr, "EZ1001: " + where + ": tensor list " + name + " is nullptr");
        const bool input = p.kind == aopt_standin_input_list;
        nlohmann::json items = nlohmann::json::array();
        for (std::size_t k = 0; k < l->tensors.size() && s == ACL_SUCCESS; ++k) {
          nlohmann::json t;
          s = tensor_json(l->tensors[k], name + "." + std::to_string(k), input, t);
          items.push_back(t);
          ex->outputs.emplace_back(name + "." + std::to_string(k), l->tensors[k]);  // an input list: if written
        }
        j = {{"name", name}, {"dtype", items.empty() ? nlohmann::json("float32") : items[0]["dtype"]}, {"list", items}};
        request[input ? "inputs" : "outputs"].push_back(j);
        break;
      }
      case aopt_standin_output:
        s = tensor_json(static_cast<const aclTensor*>(p.value), name, false, j);
        j["name"] = name;
        j["file"] = "out_" + name + ".bin";
        request["outputs"].push_back(j);
        ex->outputs.emplace_back(name, static_cast<const aclTensor*>(p.value));
        break;
      case aopt_standin_float: request["attrs"][name] = *static_cast<const double*>(p.value); break;
      case aopt_standin_int: request["attrs"][name] = *static_cast<const int64_t*>(p.value); break;
      case aopt_standin_bool: request["attrs"][name] = *static_cast<const bool*>(p.value); break;
      // A pointer-typed attr left nullptr (the header's <name>Optional) takes its default: the
      // emulator applies it when the request does not name the attr.
      case aopt_standin_string:
        if (p.value) request["attrs"][name] = static_cast<const char*>(p.value);
        break;
      case aopt_standin_list_int:
      case aopt_standin_list_float:
      case aopt_standin_list_bool:
        if (!p.value) break;
        if (p.kind == aopt_standin_list_int) request["attrs"][name] = static_cast<const aclIntArray*>(p.value)->values;
        if (p.kind == aopt_standin_list_float) request["attrs"][name] = static_cast<const aclFloatArray*>(p.value)->values;
        if (p.kind == aopt_standin_list_bool) request["attrs"][name] = static_cast<const aclBoolArray*>(p.value)->values;
        break;
    }
    if (s != ACL_SUCCESS) return s;
  }
  const std::string attrs = request["attrs"].dump();
  key = hash_bytes(attrs.data(), attrs.size(), key);

  auto& n = nn();
  std::lock_guard g(n.m);
  if (ex->fail_code == ACL_SUCCESS) {
    const std::string k = op_type + "/" + std::to_string(key);
    auto it = n.memo.find(k);
    if (it == n.memo.end()) {
      std::string tmpl = (fs::temp_directory_path() / "aopt-standin-launch-XXXXXX").string();
      if (!::mkdtemp(tmpl.data())) return fail(inner, "EZ9999: " + where + ": cannot create a directory for the emulator");
      const fs::path dir = tmpl;
      for (const auto& [file, t] : files) {
        std::ofstream(dir / file, std::ios::binary)
            .write(static_cast<const char*>(t->data), static_cast<std::streamsize>(elements(*t) * dtype_of(t->dtype).second));
      }
      for (const auto& [file, bytes] : value_files) std::ofstream(dir / file, std::ios::binary) << bytes;
      // The device runs elsewhere (its own working directory): the request names files absolutely.
      auto absolute = [&](nlohmann::json& t) { t["file"] = (dir / t["file"].get<std::string>()).string(); };
      for (auto& in : request["inputs"]) {
        if (in.contains("list")) {
          for (auto& t : in["list"]) absolute(t);
        } else {
          absolute(in);
        }
      }
      std::shared_ptr<emulation> e;
      const aclnnStatus s = emulate(op_type, dir, request, e);
      std::error_code ec;
      fs::remove_all(dir, ec);
      if (s != ACL_SUCCESS) return s;
      it = n.memo.emplace(k, e).first;
    }
    ex->result = it->second;
    *workspace_size = ex->result->workspace;
  } else {
    *workspace_size = 0;
  }
  *executor = ex.get();
  n.live.insert(ex.release());
  return ACL_SUCCESS;
}

aclnnStatus aopt_standin_launch(void* workspace, uint64_t workspace_size, aclOpExecutor* executor, aclrtStream stream) {
  auto& n = nn();
  std::unique_lock g(n.m);
  if (!n.live.count(executor)) {
    return fail(param_invalid, "EZ1001: aclnn launch: the executor is not live (aclnn executors are single use: one "
                               "GetWorkspaceSize per launch, unless made repeatable by aclSetAclOpExecutorRepeatable)");
  }
  // A single-use executor is consumed by its launch; a repeatable one lives until aclDestroyAclOpExecutor.
  std::unique_ptr<aclOpExecutor> consumed;
  if (!executor->repeatable) {
    n.live.erase(executor);
    consumed.reset(executor);
  }
  aclOpExecutor* const ex = executor;
  const std::string fault = env_or("AOPT_STANDIN_FAULT", "");
  const auto& r = ex->result;
  if (r && workspace_size < r->workspace) {
    return fail(param_invalid, "EZ1001: aclnn" + ex->op_type + ": workspaceSize " + std::to_string(workspace_size) + " is below the " +
                                   std::to_string(r->workspace) + " bytes GetWorkspaceSize asked for");
  }
  aclError code = ex->fail_code;
  std::string text = ex->fail_text;
  if (code == ACL_SUCCESS && r) {
    code = r->fail_code;
    text = r->fail_text;
  }
  if (code == ACL_SUCCESS && r && r->workspace && !aopt_standin_is_device_memory(workspace, r->workspace)) {
    code = aicore_exception;
    text = "EZ9999: Inner Error!\nEZ9999: the kernel of " + ex->op_type + " used a workspace outside device memory";
  }
  if (code == ACL_SUCCESS && fault == "acl_error") {
    code = aicore_exception;
    text = "EZ9999: Inner Error!\nEZ9999: The error from device(chipId:0, dieId:0), serial number is 1, there is an exception of "
           "aivec error, core id is 3 (AOPT_STANDIN_FAULT=acl_error)";
  }
  // The kernel writes its outputs; a tensor too small for them is an out-of-range write.
  for (std::size_t i = 0; code == ACL_SUCCESS && r && i < ex->outputs.size(); ++i) {
    const auto& [name, t] = ex->outputs[i];
    const auto it = std::find_if(r->outputs.begin(), r->outputs.end(), [&](const auto& o) { return o.first == name; });
    if (it == r->outputs.end()) continue;
    const uint64_t bytes = elements(*t) * dtype_of(t->dtype).second;
    if (it->second.size() > bytes || !aopt_standin_is_device_memory(t->data, it->second.size())) {
      code = aicore_exception;
      text = "EZ9999: Inner Error!\nEZ9999: the kernel of " + ex->op_type + " wrote " + std::to_string(it->second.size()) +
             " bytes of output " + name + " to a tensor of " + std::to_string(bytes) + " bytes" +
             (bytes >= it->second.size() ? " outside device memory" : "");
      break;
    }
    if (!ex->outputs_written) std::memcpy(t->data, it->second.data(), it->second.size());
  }
  if (code == ACL_SUCCESS && ex->repeatable) ex->outputs_written = true;
  double us = 0;
  if (code == ACL_SUCCESS && r) {
    const double noise = std::strtod(env_or("AOPT_STANDIN_NOISE", "0.02").c_str(), nullptr);
    std::normal_distribution<double> z(0.0, 1.0);
    us = std::max(0.01, r->latency_us * (1.0 + noise * z(noise_rng(n, ex->op_type))));
  }
  g.unlock();
  return aopt_standin_stream_launch(stream, us, code, text.c_str(), fault == "hang");
}

aclnnStatus aclSetAclOpExecutorRepeatable(aclOpExecutor* executor) {
  auto& n = nn();
  std::lock_guard g(n.m);
  if (!executor || !n.live.count(executor)) {
    return fail(param_invalid, "EZ1001: aclSetAclOpExecutorRepeatable: the executor is not live (call it right after GetWorkspaceSize, "
                               "before the launch consumes it)");
  }
  executor->repeatable = true;
  return ACL_SUCCESS;
}

aclnnStatus aclDestroyAclOpExecutor(aclOpExecutor* executor) {
  auto& n = nn();
  std::lock_guard g(n.m);
  if (!executor || !n.live.erase(executor)) return fail(param_invalid, "EZ1001: aclDestroyAclOpExecutor: the executor is not live");
  delete executor;
  return ACL_SUCCESS;
}

}  // extern "C"
