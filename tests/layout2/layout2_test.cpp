// Layout 2 (kernel-direct projects): tikicpulib.h's GmAlloc / ICPU_SET_TILING_KEY /
// ICPU_RUN_KF on sim, the hardware errors it reports, the timing file, and the add_direct
// sample built from examples/ops/add_direct as its CPU-debug build.
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "tikicpulib.h"

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

struct scale_params {
  float factor;
  uint32_t per_block;  // float elements per block (multiple of 8)
};

// Every block writes one int32: idx * 100 + block_num * 10 + (key 7 ? 7 : 0).
extern "C" __global__ __aicore__ void block_writer(GM_ADDR out) {
  AscendC::GlobalTensor<int32_t> g;
  g.SetGlobalBuffer(reinterpret_cast<__gm__ int32_t*>(out), AscendC::GetBlockNum());
  const int32_t key = TILING_KEY_IS(7) ? 7 : 0;
  g.SetValue(AscendC::GetBlockIdx(),
             static_cast<int32_t>(AscendC::GetBlockIdx() * 100 + AscendC::GetBlockNum() * 10) + key);
}

// y = x * factor, one tile per block, through a VECIN and a VECOUT queue.
extern "C" __global__ __aicore__ void scale_kernel(GM_ADDR x, GM_ADDR y, scale_params p) {
  const uint32_t start = static_cast<uint32_t>(AscendC::GetBlockIdx()) * p.per_block;
  AscendC::GlobalTensor<float> xg;
  AscendC::GlobalTensor<float> yg;
  xg.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(x) + start, p.per_block);
  yg.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(y) + start, p.per_block);
  AscendC::TPipe pipe;
  AscendC::TQue<AscendC::TPosition::VECIN, 1> in;
  AscendC::TQue<AscendC::TPosition::VECOUT, 1> out;
  pipe.InitBuffer(in, 1, p.per_block * sizeof(float));
  pipe.InitBuffer(out, 1, p.per_block * sizeof(float));
  AscendC::LocalTensor<float> a = in.AllocTensor<float>();
  AscendC::DataCopy(a, xg, p.per_block);
  in.EnQue(a);
  AscendC::LocalTensor<float> b = in.DeQue<float>();
  AscendC::LocalTensor<float> c = out.AllocTensor<float>();
  AscendC::Muls(c, b, p.factor, p.per_block);
  out.EnQue(c);
  in.FreeTensor(b);
  AscendC::LocalTensor<float> d = out.DeQue<float>();
  AscendC::DataCopy(yg, d, p.per_block);
  out.FreeTensor(d);
}

// Asks for more UB than a core has: ub_overflow.
extern "C" __global__ __aicore__ void ub_hog(GM_ADDR x) {
  AscendC::TPipe pipe;
  AscendC::TBuf<AscendC::TPosition::VECCALC> buf;
  pipe.InitBuffer(buf, 4u << 20);
  AscendC::LocalTensor<float> t = buf.Get<float>();
  t.SetValue(0, 1.0f);
}

// Sets the same flag twice without a wait: double_set_event.
extern "C" __global__ __aicore__ void double_set(GM_ADDR x) {
  AscendC::SetFlag<AscendC::HardEvent::V_MTE3>(0);
  AscendC::SetFlag<AscendC::HardEvent::V_MTE3>(0);
}

std::string read_file(const fs::path& p) {
  std::ifstream f(p);
  return std::string(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
}

fs::path fresh_dir(const std::string& name) {
  const fs::path d = fs::temp_directory_path() / ("aopt_layout2_" + name + "_" + std::to_string(::getpid()));
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

// Runs a shell command; returns its exit status (-1 if it did not exit normally) and stdout.
int run_command(const std::string& cmd, std::string& out) {
  out.clear();
  FILE* p = ::popen(cmd.c_str(), "r");
  if (p == nullptr) return -1;
  std::array<char, 4096> buf{};
  size_t n = 0;
  while ((n = std::fread(buf.data(), 1, buf.size(), p)) > 0) out.append(buf.data(), n);
  const int st = ::pclose(p);
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

class Layout2 : public ::testing::Test {
 protected:
  void SetUp() override {
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    ::unsetenv("AOPT_TIMING_OUT");
    ::unsetenv("AOPT_PROFILE");
  }
};

TEST_F(Layout2, RunsKernelOnEveryBlockWithTilingKey) {
  constexpr uint32_t blocks = 5;
  auto* out = static_cast<uint8_t*>(AscendC::GmAlloc(blocks * sizeof(int32_t)));
  ICPU_SET_TILING_KEY(7);
  AscendC::SetKernelMode(KernelMode::AIV_MODE);
  ICPU_RUN_KF(block_writer, blocks, out);
  const auto* v = reinterpret_cast<const int32_t*>(out);
  for (uint32_t b = 0; b < blocks; ++b) EXPECT_EQ(v[b], static_cast<int32_t>(b * 100 + blocks * 10 + 7)) << b;

  ICPU_SET_TILING_KEY(0);
  ICPU_RUN_KF(block_writer, 2, out);
  EXPECT_EQ(v[1], 100 + 20);
  AscendC::GmFree(out);

  const auto l = aopt::sim::cpu_debug::launches();
  ASSERT_GE(l.size(), 2u);
  EXPECT_EQ(l[l.size() - 2].tiling_key, 7u);
  EXPECT_EQ(l.back().tiling_key, 0u);
  EXPECT_EQ(l.back().block_dim, 2u);
  EXPECT_EQ(l.back().kernel, "block_writer");
}

TEST_F(Layout2, VectorKernelWithStructArgumentAndLambda) {
  const uint32_t seed = 20240611;
  std::printf("seed %u\n", seed);
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(-4.0f, 4.0f);
  constexpr uint32_t blocks = 3;
  constexpr uint32_t per_block = 256;
  constexpr size_t n = blocks * per_block;
  auto* x = static_cast<float*>(GmAlloc(n * sizeof(float)));  // unqualified form of older samples
  auto* y = static_cast<float*>(AscendC::GmAlloc(n * sizeof(float)));
  for (size_t i = 0; i < n; ++i) x[i] = dist(gen);
  const scale_params p{-1.5f, per_block};
  ICPU_RUN_KF(scale_kernel, blocks, reinterpret_cast<uint8_t*>(x), reinterpret_cast<uint8_t*>(y), p);
  for (size_t i = 0; i < n; ++i) ASSERT_FLOAT_EQ(y[i], x[i] * -1.5f) << i;

  // A capturing callable with no arguments, as CANN's own API tests launch.
  std::fill(y, y + n, 0.0f);
  auto kernel = [&] { scale_kernel(reinterpret_cast<uint8_t*>(x), reinterpret_cast<uint8_t*>(y), {2.0f, per_block}); };
  ICPU_RUN_KF(kernel, blocks);
  for (size_t i = 0; i < n; ++i) ASSERT_FLOAT_EQ(y[i], x[i] * 2.0f) << i;
  EXPECT_GT(aopt::sim::cpu_debug::launches().back().ub_bytes, 2 * per_block * sizeof(float) - 1);
  AscendC::GmFree(x);
  AscendC::GmFree(y);
}

TEST_F(Layout2, WritesTimingFile) {
  const fs::path dir = fresh_dir("timing");
  const fs::path file = dir / "timing.json";
  ::setenv("AOPT_TIMING_OUT", file.c_str(), 1);
  constexpr uint32_t blocks = 4;
  constexpr uint32_t per_block = 2048;
  constexpr size_t n = blocks * per_block;
  auto* x = static_cast<uint8_t*>(AscendC::GmAlloc(n * sizeof(float)));
  auto* y = static_cast<uint8_t*>(AscendC::GmAlloc(n * sizeof(float)));
  ICPU_RUN_KF(scale_kernel, blocks, x, y, scale_params{3.0f, per_block});
  ::unsetenv("AOPT_TIMING_OUT");
  AscendC::GmFree(x);
  AscendC::GmFree(y);

  ASSERT_TRUE(fs::exists(file));
  const json j = json::parse(read_file(file));
  EXPECT_EQ(j.at("status"), "ok");
  EXPECT_EQ(j.at("kernel"), "scale_kernel");
  EXPECT_EQ(j.at("profile"), "910b4");
  EXPECT_EQ(j.at("Block Dim"), blocks);
  EXPECT_TRUE(j.at("simulated").get<bool>());
  EXPECT_GT(j.at("Task Duration(us)").get<double>(), j.at("aiv_time(us)").get<double>());
  EXPECT_GT(j.at("aiv_mte2_time(us)").get<double>(), 0.0);
  EXPECT_GT(j.at("aiv_vec_time(us)").get<double>(), 0.0);
  EXPECT_DOUBLE_EQ(j.at("GM_to_UB_datas(KB)").get<double>(), n * sizeof(float) / 1024.0);
  EXPECT_DOUBLE_EQ(j.at("UB_to_GM_datas(KB)").get<double>(), n * sizeof(float) / 1024.0);
  ASSERT_TRUE(j.at("launches").is_array());
  EXPECT_EQ(j.at("launches").back().at("Task Duration(us)"), j.at("Task Duration(us)"));
  fs::remove_all(dir);
}

TEST_F(Layout2, HardwareErrorExitsNonZeroWithSite) {
  // A threadsafe death test re-runs this body in a new process: the child must use the
  // parent's directory, handed down in the environment.
  const char* inherited = std::getenv("AOPT_LAYOUT2_HWERR_DIR");
  const fs::path dir = inherited != nullptr ? fs::path(inherited) : fresh_dir("hwerr");
  ::setenv("AOPT_LAYOUT2_HWERR_DIR", dir.c_str(), 1);
  const fs::path file = dir / "timing.json";
  auto* x = static_cast<uint8_t*>(AscendC::GmAlloc(64));
  EXPECT_EXIT(
      {
        ::setenv("AOPT_TIMING_OUT", file.c_str(), 1);
        ICPU_RUN_KF(ub_hog, 2, x);
      },
      ::testing::ExitedWithCode(1),
      "ICPU_RUN_KF\\(ub_hog\\) at .*layout2_test\\.cpp:[0-9]+: hardware error \\(ub_overflow\\): "
      ".*layout2_test\\.cpp:[0-9]+");
  AscendC::GmFree(x);
  ::unsetenv("AOPT_LAYOUT2_HWERR_DIR");
  // The child wrote the failed launch into the timing file before exiting.
  ASSERT_TRUE(fs::exists(file));
  const json j = json::parse(read_file(file));
  EXPECT_EQ(j.at("status"), "runtime_error");
  EXPECT_EQ(j.at("hw_error").at("kind"), "ub_overflow");
  EXPECT_NE(j.at("hw_error").at("file").get<std::string>().find("layout2_test.cpp"), std::string::npos);
  fs::remove_all(dir);
}

TEST_F(Layout2, BadArgumentsFailLoudly) {
  auto* x = static_cast<uint8_t*>(AscendC::GmAlloc(64));
  EXPECT_EXIT(ICPU_RUN_KF(block_writer, 0, x), ::testing::ExitedWithCode(1), "blockDim is 0");
  int on_stack = 0;
  EXPECT_EXIT(AscendC::GmFree(&on_stack), ::testing::ExitedWithCode(1), "GmFree.*not returned by gm_alloc");
  EXPECT_EXIT(
      {
        ::setenv("AOPT_PROFILE", "no_such_profile_xyz", 1);
        ICPU_RUN_KF(block_writer, 1, x);
      },
      ::testing::ExitedWithCode(1), "cannot load device profile 'no_such_profile_xyz'");
  EXPECT_EXIT(ICPU_RUN_KF(double_set, 1, x), ::testing::ExitedWithCode(1),
              "hardware error \\(double_set_event\\): .*layout2_test\\.cpp:[0-9]+: in double_set: SetFlag");
  AscendC::GmFree(x);
}

TEST_F(Layout2, AddDirectSampleRunsAndChecks) {
  const fs::path dir = fresh_dir("sample");
  const fs::path file = dir / "timing.json";
  std::string out;
  const int rc = run_command("AOPT_TIMING_OUT='" + file.string() + "' '" + AOPT_ADD_DIRECT_EXE + "' 2>&1", out);
  EXPECT_EQ(rc, 0) << out;
  EXPECT_NE(out.find("check: PASS"), std::string::npos) << out;
  EXPECT_NE(out.find("0 mismatches"), std::string::npos) << out;
  ASSERT_TRUE(fs::exists(file)) << out;
  const json j = json::parse(read_file(file));
  EXPECT_EQ(j.at("kernel"), "add_custom");
  EXPECT_EQ(j.at("Block Dim"), 8);
  EXPECT_EQ(j.at("status"), "ok");
  EXPECT_DOUBLE_EQ(j.at("GM_to_UB_datas(KB)").get<double>(), 73728.0 * 2 * 2 / 1024.0);
  EXPECT_GT(j.at("Task Duration(us)").get<double>(), 0.0);

  // Another profile, and a tail length the tiling gives the last core less of.
  const int rc2 = run_command("AOPT_PROFILE=a2 AOPT_TIMING_OUT='" + file.string() + "' '" +
                                  AOPT_ADD_DIRECT_EXE + "' 1040 7 2>&1",
                              out);
  EXPECT_EQ(rc2, 0) << out;
  EXPECT_NE(out.find("check: PASS"), std::string::npos) << out;
  EXPECT_EQ(json::parse(read_file(file)).at("profile"), "a2");

  // The sample's own input validation.
  EXPECT_EQ(run_command("'" + std::string(AOPT_ADD_DIRECT_EXE) + "' 100 2>&1", out), 1) << out;
  fs::remove_all(dir);
}

}  // namespace
