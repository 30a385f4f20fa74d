// Issue 34: the StageScale fixture operator (fixtures/stage_scale) end to end through the sim
// harness: a kernel using vector APIs as function-pointer template arguments, a TQueBind reused
// with the EnQue/DeQue position forms and passed by value, get_block_idx(), the kernel assert and
// a CrossCore barrier; a tiling using GetComputeNodeInfo, GetPrimaryFormat, ge::Shape,
// AlogCheckDebugLevel and memset_s. Random input (seed printed), output checked exactly.
#include <cstdio>
#include <cstdlib>
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

TEST(StageScaleFixture, RunsAndMatchesXTimesScalePlusOne) {
  std::string tmpl = (fs::temp_directory_path() / "aopt_stage_scale_XXXXXX").string();
  ASSERT_NE(mkdtemp(tmpl.data()), nullptr);
  const fs::path dir = tmpl;
  const unsigned seed = std::random_device{}();
  std::cout << "[ seed ] " << seed << "\n";
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> d(-4.0f, 4.0f);
  constexpr std::size_t n = 2 * 64 * 5;
  std::vector<float> x(n);
  for (auto& e : x) e = d(rng);
  {
    std::ofstream f(dir / "x.bin", std::ios::binary);
    f.write(reinterpret_cast<const char*>(x.data()), static_cast<std::streamsize>(n * sizeof(float)));
  }
  const json req = {{"kernel_so", AOPT_FX_SIM_HOST_STAGE_SCALE_FP32},
                    {"inputs", {{{"name", "x"}, {"shape", {5, 128}}, {"dtype", "float32"}, {"file", "x.bin"}}}},
                    {"outputs", {{{"name", "y"}, {"dtype", "float32"}, {"file", "y.bin"}}}},
                    {"attrs", {{"scale", 0.75f}}},
                    {"profile", std::string(AOPT_FX_PROFILE_DIR) + "/910b4.json"},
                    {"result", "result.json"}};
  {
    std::ofstream f(dir / "run.json");
    f << req.dump(1);
  }
  const std::string cmd =
      std::string(AOPT_FX_SIM_HOST_STAGE_SCALE) + " --run " + (dir / "run.json").string() + " > /dev/null 2>&1";
  ASSERT_EQ(std::system(cmd.c_str()), 0);
  std::ifstream rf(dir / "result.json");
  const json res = json::parse(rf);
  ASSERT_EQ(res["status"], "ok") << res.dump(1);
  EXPECT_EQ(res["tiling"]["block_dim"], 2) << res.dump(1);
  std::ifstream yf(dir / "y.bin", std::ios::binary);
  std::vector<float> y(n);
  yf.read(reinterpret_cast<char*>(y.data()), static_cast<std::streamsize>(n * sizeof(float)));
  for (std::size_t i = 0; i < n; ++i) EXPECT_EQ(y[i], x[i] * 0.75f + 1.0f) << i;
  std::error_code ec;
  if (!::testing::Test::HasFailure()) fs::remove_all(dir, ec);
}

}  // namespace
