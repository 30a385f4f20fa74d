// Feasible Stage I end to end: the real `aopt optimize` (Stage I only) on the fixture
// tests/integration/packages/stage1_unaligned, whose kernel splits the tensor by the block dim,
// the tile count and its double buffer without remainders. With the screen, variants whose
// tiling breaks that split are rejected before they cost an evaluation: Stage I's failed
// evaluations drop against the same run with --no-screen.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "../support/aopt_process.h"

namespace fs = std::filesystem;

namespace {

struct stage1_counts {
  int evaluated = 0;
  int failed = 0;
  int screened = 0;
  double speedup = 0;
};

stage1_counts run(const fs::path& root, const std::string& name, bool screen) {
  const fs::path out = root / name;
  std::vector<std::string> args = {"optimize", std::string(AOPT_TEST_SOURCE_DIR) + "/tests/integration/packages/stage1_unaligned",
                                   "--budget", "12", "--no-stage2", "--no-verify", "--seed", "5", "-q",
                                   "--cache-dir", (root / ("cache-" + name)).string(), "--out", out.string()};
  if (!screen) args.push_back("--no-screen");
  const auto o = aopt::testing::run_aopt(args, 1200);
  EXPECT_EQ(o.exit_code, 0) << o.out << o.err;
  std::ifstream in(out / "report.json");
  const auto rep = nlohmann::json::parse(in);
  const auto& r = rep["result"];
  stage1_counts c;
  for (const auto& p : r["trajectory"]) {
    if (p["stage"] != "tiling" || p["memo"].get<bool>()) continue;
    ++c.evaluated;
    if (p["status"] != "ok") ++c.failed;
  }
  c.screened = r["screened"].get<int>();
  c.speedup = r["speedup"].get<double>();
  return c;
}

TEST(AoptScreen, FailedStageIEvaluationsDropOnAnUnalignedKernel) {
  const fs::path root = fs::temp_directory_path() / ("aopt-screen-it-" + std::to_string(::getpid()));
  fs::remove_all(root);
  fs::create_directories(root);
  const auto without = run(root, "without", false);
  const auto with = run(root, "with", true);
  EXPECT_EQ(without.screened, 0);
  EXPECT_GT(with.screened, 0);
  EXPECT_GT(without.failed, 2) << "the fixture no longer breaks naive variants";
  EXPECT_LT(with.failed, without.failed);
  // Under 10% of the screened run's Stage I evaluations fail.
  EXPECT_LT(with.failed * 10, with.evaluated) << with.failed << " of " << with.evaluated;
  EXPECT_GE(with.speedup, 1.0);
  fs::remove_all(root);
}

}  // namespace
