// End-to-end tests of the sim harness (docs/harness-protocol.md) on real operator packages:
// examples/ops/add_custom (layout 1), examples/ops/mul_v3 (layout 3, templated kernel), and two
// test operators (a dynamic tensor-list input with attributes; a kernel that trips a hardware
// error). Each run's inputs are random (seed printed), outputs are checked bit-exactly against
// a computation written here.
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

struct run_out {
  int exit_code = -1;
  std::string stdout_text;
};

run_out run_cmd(const std::string& cmd) {
  run_out r;
  FILE* p = popen((cmd + " 2>/dev/null").c_str(), "r");
  if (p == nullptr) return r;
  std::array<char, 4096> buf{};
  std::size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) r.stdout_text.append(buf.data(), n);
  const int st = pclose(p);
  r.exit_code = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  return r;
}

class HarnessTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = (fs::temp_directory_path() / "aopt_sim_host_XXXXXX").string();
    ASSERT_NE(mkdtemp(tmpl.data()), nullptr);
    dir_ = tmpl;
    const unsigned seed = std::random_device{}();
    std::cout << "[ seed ] " << seed << "\n";
    rng_.seed(seed);
  }
  void TearDown() override {
    std::error_code ec;
    if (!HasFailure()) fs::remove_all(dir_, ec);
    else std::cout << "kept work dir " << dir_ << "\n";
  }

  template <class T>
  std::vector<T> random_tensor(std::size_t n, float lo, float hi) {
    std::uniform_real_distribution<float> d(lo, hi);
    std::vector<T> v(n);
    for (auto& e : v) e = static_cast<T>(d(rng_));
    return v;
  }
  template <class T>
  void write_file(const std::string& name, const std::vector<T>& v) {
    std::ofstream f(dir_ / name, std::ios::binary);
    f.write(reinterpret_cast<const char*>(v.data()), static_cast<std::streamsize>(v.size() * sizeof(T)));
  }
  template <class T>
  std::vector<T> read_file(const std::string& name) {
    std::ifstream f(dir_ / name, std::ios::binary);
    std::vector<char> bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    std::vector<T> v(bytes.size() / sizeof(T));
    std::memcpy(v.data(), bytes.data(), v.size() * sizeof(T));
    return v;
  }
  // Runs `host --run` on `req`; returns result.json (or null with the exit code on failure).
  json run(const char* host, json req, int* exit_code = nullptr) {
    req["profile"] = std::string(AOPT_FX_PROFILE_DIR) + "/910b4.json";
    req["result"] = "result.json";
    {
      std::ofstream f(dir_ / "run.json");
      f << req.dump(1);
    }
    const run_out r = run_cmd(std::string(host) + " --run " + (dir_ / "run.json").string());
    if (exit_code != nullptr) *exit_code = r.exit_code;
    if (r.exit_code != 0) return nullptr;
    std::ifstream f(dir_ / "result.json");
    return json::parse(f);
  }

  fs::path dir_;
  std::mt19937 rng_;
};

TEST_F(HarnessTest, SignatureOfAddCustom) {
  const run_out r = run_cmd(std::string(AOPT_FX_SIM_HOST_ADD_CUSTOM) + " --signature");
  ASSERT_EQ(r.exit_code, 0);
  const json j = json::parse(r.stdout_text);
  EXPECT_EQ(j["op_type"], "AddCustom");
  EXPECT_EQ(j["kernel"], "add_custom");
  ASSERT_EQ(j["inputs"].size(), 2u);
  EXPECT_EQ(j["inputs"][1]["name"], "y");
  EXPECT_EQ(j["inputs"][0]["dtypes"], json({"float16", "float32"}));
  EXPECT_EQ(j["outputs"][0]["name"], "z");
  EXPECT_EQ(j["outputs"][0]["formats"], json({"ND", "ND"}));
  EXPECT_TRUE(j["attrs"].empty());
  EXPECT_TRUE(j["has_tiling"].get<bool>());
  EXPECT_TRUE(j["has_infer_shape"].get<bool>());
  EXPECT_EQ(j["socs"], json({"ascend910b"}));
}

TEST_F(HarnessTest, SignatureOfLayout3MulV3MergesImplRegistrations) {
  const run_out r = run_cmd(std::string(AOPT_FX_SIM_HOST_MUL_V3) + " --signature");
  ASSERT_EQ(r.exit_code, 0);
  const json j = json::parse(r.stdout_text);
  EXPECT_EQ(j["op_type"], "MulV3");
  EXPECT_EQ(j["kernel"], "mul_v3");
  EXPECT_EQ(j["inputs"][0]["name"], "x1");
  EXPECT_TRUE(j["has_tiling"].get<bool>());
  EXPECT_TRUE(j["has_infer_shape"].get<bool>());
}

TEST_F(HarnessTest, AddCustomFp16TailCaseMatchesExactly) {
  const std::size_t rows = 37, cols = 1001, n = rows * cols;  // 74074 B: not a multiple of 32
  const auto x = random_tensor<_Float16>(n, -1, 1);
  const auto y = random_tensor<_Float16>(n, -1, 1);
  write_file("in_x.bin", x);
  write_file("in_y.bin", y);
  const json req = {{"kernel_so", AOPT_FX_SIM_HOST_ADD_CUSTOM_FP16},
                    {"kernel", "add_custom"},
                    {"inputs", {{{"name", "x"}, {"shape", {rows, cols}}, {"dtype", "float16"}, {"file", "in_x.bin"}},
                                {{"name", "y"}, {"shape", {rows, cols}}, {"dtype", "float16"}, {"file", "in_y.bin"}}}},
                    {"outputs", {{{"name", "z"}, {"dtype", "float16"}, {"file", "out_z.bin"}}}},
                    {"attrs", json::object()},
                    {"timing", true}};
  const json res = run(AOPT_FX_SIM_HOST_ADD_CUSTOM, req);
  ASSERT_FALSE(res.is_null());
  ASSERT_EQ(res["status"], "ok") << res.dump(1);
  EXPECT_EQ(res["outputs"][0]["shape"], json({rows, cols})) << "InferShape decides the output shape";
  EXPECT_EQ(res["tiling"]["block_dim"], 40);
  EXPECT_EQ(res["tiling"]["tiling_key"], 1);
  EXPECT_EQ(res["tiling"]["tiling_bytes"], 24) << "five uint32 fields, 20 bytes, padded to 8 as GetDataSize does";
  EXPECT_EQ(res["tiling"]["workspace_bytes"], 0);
  EXPECT_GT(res["ub_bytes"].get<int>(), 0);
  EXPECT_LE(res["ub_bytes"].get<int>(), 196608);
  ASSERT_TRUE(res["timing"].is_object());
  EXPECT_GT(res["timing"].value("Task Duration(us)", 0.0), 0.0) << res["timing"].dump();
  const auto z = read_file<_Float16>("out_z.bin");
  ASSERT_EQ(z.size(), n);
  std::size_t bad = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const _Float16 want = static_cast<_Float16>(x[i] + y[i]);
    if (std::memcmp(&want, &z[i], 2) != 0) ++bad;
  }
  EXPECT_EQ(bad, 0u) << "of " << n;
}

TEST_F(HarnessTest, AddCustomFp32SmallAndGivenShape) {
  const std::size_t n = 7;
  const auto x = random_tensor<float>(n, -10, 10);
  const auto y = random_tensor<float>(n, -10, 10);
  write_file("x.bin", x);
  write_file("y.bin", y);
  const json req = {{"kernel_so", AOPT_FX_SIM_HOST_ADD_CUSTOM_FP32},
                    {"inputs", {{{"name", "x"}, {"shape", {n}}, {"dtype", "float32"}, {"file", "x.bin"}},
                                {{"name", "y"}, {"shape", {n}}, {"dtype", "float32"}, {"file", "y.bin"}}}},
                    {"outputs", {{{"name", "z"}, {"shape", {n}}, {"dtype", "float32"}, {"file", "z.bin"}}}},
                    {"timing", false}};
  const json res = run(AOPT_FX_SIM_HOST_ADD_CUSTOM, req);
  ASSERT_FALSE(res.is_null());
  ASSERT_EQ(res["status"], "ok") << res.dump(1);
  EXPECT_EQ(res["tiling"]["block_dim"], 1);
  EXPECT_TRUE(res["timing"].is_null());
  const auto z = read_file<float>("z.bin");
  ASSERT_EQ(z.size(), n);
  for (std::size_t i = 0; i < n; ++i) EXPECT_EQ(z[i], x[i] + y[i]) << i;
}

TEST_F(HarnessTest, TilingFailureIsAResult) {
  write_file("x.bin", std::vector<float>(8, 1.0f));
  write_file("y.bin", std::vector<float>(4, 1.0f));
  const json req = {{"kernel_so", AOPT_FX_SIM_HOST_ADD_CUSTOM_FP32},
                    {"inputs", {{{"name", "x"}, {"shape", {8}}, {"dtype", "float32"}, {"file", "x.bin"}},
                                {{"name", "y"}, {"shape", {4}}, {"dtype", "float32"}, {"file", "y.bin"}}}},
                    {"outputs", {{{"name", "z"}, {"dtype", "float32"}, {"file", "z.bin"}}}}};
  const json res = run(AOPT_FX_SIM_HOST_ADD_CUSTOM, req);
  ASSERT_FALSE(res.is_null());
  EXPECT_EQ(res["status"], "tiling_error");
  EXPECT_NE(res["message"].get<std::string>().find("returned failure"), std::string::npos) << res["message"];
  EXPECT_TRUE(res["hw_error"].is_null());
}

TEST_F(HarnessTest, MalformedRequestExitsWithTwo) {
  write_file("x.bin", std::vector<float>(8, 1.0f));
  const json req = {{"kernel_so", AOPT_FX_SIM_HOST_ADD_CUSTOM_FP32},
                    {"inputs", {{{"name", "x"}, {"shape", {8}}, {"dtype", "float32"}, {"file", "x.bin"}}}},
                    {"outputs", {{{"name", "z"}, {"dtype", "float32"}, {"file", "z.bin"}}}}};
  int code = 0;
  const json res = run(AOPT_FX_SIM_HOST_ADD_CUSTOM, req, &code);
  EXPECT_TRUE(res.is_null());
  EXPECT_EQ(code, 2) << "required input y is missing";
}

TEST_F(HarnessTest, HardwareErrorIsAResult) {
  write_file("x.bin", std::vector<_Float16>(64, static_cast<_Float16>(1.0f)));
  const json req = {{"kernel_so", AOPT_FX_SIM_HOST_TRIP_CUSTOM_FP16},
                    {"inputs", {{{"name", "x"}, {"shape", {64}}, {"dtype", "float16"}, {"file", "x.bin"}}}},
                    {"outputs", {{{"name", "y"}, {"dtype", "float16"}, {"file", "y.bin"}}}}};
  const json res = run(AOPT_FX_SIM_HOST_TRIP_CUSTOM, req);
  ASSERT_FALSE(res.is_null());
  EXPECT_EQ(res["status"], "runtime_error") << res.dump(1);
  ASSERT_TRUE(res["hw_error"].is_object()) << res.dump(1);
  EXPECT_EQ(res["hw_error"]["kind"], "gm_out_of_bounds");
  EXPECT_NE(res["hw_error"]["file"].get<std::string>().find("trip_custom.cpp"), std::string::npos);
  EXPECT_GT(res["hw_error"]["line"].get<int>(), 0);
  EXPECT_LT(res["hw_error"]["block_idx"].get<int>(), 2);
  EXPECT_EQ(res["tiling"]["tiling_key"], 3);
  EXPECT_EQ(res["tiling"]["tiling_bytes"], 8) << "GetTilingData<T>() sets the data size";
}

TEST_F(HarnessTest, DynamicListInputAndAttributes) {
  const std::size_t n = 15;
  std::vector<std::vector<float>> xs;
  json list = json::array();
  for (int i = 0; i < 3; ++i) {
    xs.push_back(random_tensor<float>(n, -4, 4));
    const std::string f = "x" + std::to_string(i) + ".bin";
    write_file(f, xs.back());
    list.push_back({{"shape", {5, 3}}, {"dtype", "float32"}, {"file", f}});
  }
  for (const float alpha : {2.5f, 1.0f}) {
    SCOPED_TRACE(alpha);
    json req = {{"kernel_so", AOPT_FX_SIM_HOST_SUM_LIST_FP32},
                {"inputs", {{{"name", "x"}, {"list", list}}}},
                {"outputs", {{{"name", "y"}, {"dtype", "float32"}, {"file", "y.bin"}}}},
                {"timing", false}};
    if (alpha != 1.0f) req["attrs"] = {{"alpha", alpha}};  // else the OpDef default (1.0)
    const json res = run(AOPT_FX_SIM_HOST_SUM_LIST, req);
    ASSERT_FALSE(res.is_null());
    ASSERT_EQ(res["status"], "ok") << res.dump(1);
    EXPECT_EQ(res["outputs"][0]["shape"], json({5, 3}));
    EXPECT_EQ(res["tiling"]["workspace_bytes"], 64);
    const auto y = read_file<float>("y.bin");
    ASSERT_EQ(y.size(), n);
    for (std::size_t e = 0; e < n; ++e) {
      float s = 0.0f;
      for (const auto& x : xs) s += x[e];
      EXPECT_EQ(y[e], alpha * s) << e;
    }
  }
}

TEST_F(HarnessTest, MissingKernelSymbolIsARuntimeError) {
  std::vector<float> x(15, 1.0f);
  write_file("x0.bin", x);
  const json req = {{"kernel_so", AOPT_FX_SIM_HOST_ADD_CUSTOM_FP32},
                    {"inputs", {{{"name", "x"}, {"list", {{{"shape", {15}}, {"dtype", "float32"}, {"file", "x0.bin"}}}}}}},
                    {"outputs", {{{"name", "y"}, {"dtype", "float32"}, {"file", "y.bin"}}}}};
  const json res = run(AOPT_FX_SIM_HOST_SUM_LIST, req);
  ASSERT_FALSE(res.is_null());
  EXPECT_EQ(res["status"], "runtime_error");
  EXPECT_NE(res["message"].get<std::string>().find("sum_list"), std::string::npos) << res["message"];
}

TEST_F(HarnessTest, MulV3BothTemplateInstancesMatchExactly) {
  struct mcase {
    std::size_t n;
    const char* dtype;
    int key;
  };
  // fp32 64x1000 fits one tile per core (key 1); fp16 beyond 40 x 32768 elements streams (key 0)
  for (const mcase mc : {mcase{64 * 1000, "float32", 1}, mcase{40 * 32768 + 999, "float16", 0}}) {
    SCOPED_TRACE(mc.dtype);
    const bool half = std::string(mc.dtype) == "float16";
    json req = {{"kernel_so", half ? AOPT_FX_SIM_HOST_MUL_V3_FP16 : AOPT_FX_SIM_HOST_MUL_V3_FP32},
                {"inputs", {{{"name", "x1"}, {"shape", {mc.n}}, {"dtype", mc.dtype}, {"file", "a.bin"}},
                            {{"name", "x2"}, {"shape", {mc.n}}, {"dtype", mc.dtype}, {"file", "b.bin"}}}},
                {"outputs", {{{"name", "y"}, {"dtype", mc.dtype}, {"file", "y.bin"}}}},
                {"timing", false}};
    std::size_t bad = 0;
    if (half) {
      const auto a = random_tensor<_Float16>(mc.n, -2, 2);
      const auto b = random_tensor<_Float16>(mc.n, -2, 2);
      write_file("a.bin", a);
      write_file("b.bin", b);
      const json res = run(AOPT_FX_SIM_HOST_MUL_V3, req);
      ASSERT_FALSE(res.is_null());
      ASSERT_EQ(res["status"], "ok") << res.dump(1);
      EXPECT_EQ(res["tiling"]["tiling_key"], mc.key);
      const auto y = read_file<_Float16>("y.bin");
      ASSERT_EQ(y.size(), mc.n);
      for (std::size_t i = 0; i < mc.n; ++i) {
        const _Float16 want = static_cast<_Float16>(a[i] * b[i]);
        if (std::memcmp(&want, &y[i], 2) != 0) ++bad;
      }
    } else {
      const auto a = random_tensor<float>(mc.n, -2, 2);
      const auto b = random_tensor<float>(mc.n, -2, 2);
      write_file("a.bin", a);
      write_file("b.bin", b);
      const json res = run(AOPT_FX_SIM_HOST_MUL_V3, req);
      ASSERT_FALSE(res.is_null());
      ASSERT_EQ(res["status"], "ok") << res.dump(1);
      EXPECT_EQ(res["tiling"]["tiling_key"], mc.key);
      const auto y = read_file<float>("y.bin");
      ASSERT_EQ(y.size(), mc.n);
      for (std::size_t i = 0; i < mc.n; ++i) bad += (y[i] != a[i] * b[i]);
    }
    EXPECT_EQ(bad, 0u);
  }
}

}  // namespace
