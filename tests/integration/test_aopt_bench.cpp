// The real `aopt bench` end to end on two suite operators at a tiny budget: every method runs,
// the table (marked simulated), per-operator JSON and both plots are written, the --ops filter
// keeps exactly the named operators, a second run reuses the stored results, and a partial
// --stored-only table says it is partial.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "aopt/common/subprocess.h"

namespace fs = std::filesystem;

namespace {

aopt::common::process_outcome aopt(const std::vector<std::string>& args) {
  aopt::common::process_request r;
  r.argv = {AOPT_BINARY};
  r.argv.insert(r.argv.end(), args.begin(), args.end());
  r.limits.wall_timeout = std::chrono::seconds(1500);
  r.limits.max_output_bytes = 16 << 20;
  return aopt::common::run_process(r);
}

TEST(AoptBench, EveryMethodRunsAndTheTableIsWritten) {
  const fs::path root = fs::temp_directory_path() / ("aopt-bench-it-" + std::to_string(::getpid()));
  fs::remove_all(root);
  const std::string src = AOPT_TEST_SOURCE_DIR;
  const fs::path out = root / "out", bank = root / "bank";
  ASSERT_EQ(aopt({"bank", "--bank", bank.string(), "import", src + "/examples/bank/experts.jsonl"}).exit_code, 0);
  const std::vector<std::string> cmd = {"bench",       src + "/examples/ops", "--ops",       "silu,abs",
                                        "--budget",    "4",                   "--out",       out.string(),
                                        "--bank",      bank.string(),         "--cache-dir", (root / "cache").string(),
                                        "--seed",      "2"};
  const auto o = aopt(cmd);
  ASSERT_EQ(o.exit_code, 0) << o.out << o.err;
  EXPECT_NE(o.out.find("SIMULATED"), std::string::npos) << o.out;
  for (const char* m : {"AscendOptimizer", "Stage I only", "Stage II only", "Random search", "Best-of-N", "OpenEvolve-style"}) {
    EXPECT_NE(o.out.find(m), std::string::npos) << m;
  }
  for (const char* f : {"table.md", "bench.json", "speedup_cdf.svg", "trajectory.svg"}) EXPECT_TRUE(fs::exists(out / f)) << f;
  std::ifstream in(out / "bench.json");
  const auto j = nlohmann::json::parse(in);
  ASSERT_EQ(j["operators"].size(), 12u);  // 2 operators x 6 methods, nothing else
  for (const auto& r : j["operators"]) {
    EXPECT_TRUE(r["operator"] == "silu" || r["operator"] == "abs") << r["operator"];
    EXPECT_LE(r["evaluations"].get<int>(), 4);
    EXPECT_GE(r["speedup"].get<double>(), 1.0);
  }
  // Resumable: the second run evaluates nothing new.
  const auto again = aopt(cmd);
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_NE(again.out.find("(stored)"), std::string::npos);
  const auto partial = aopt({"bench", src + "/examples/ops", "--ops", "silu,sqrt", "--budget", "4", "--out", out.string(),
                             "--bank", bank.string(), "--seed", "2", "--stored-only"});
  ASSERT_EQ(partial.exit_code, 0) << partial.err;
  EXPECT_NE(partial.out.find("PARTIAL: 6 of 12"), std::string::npos) << partial.out;
  const auto bad = aopt({"bench", src + "/examples/ops", "--ops", "nosuchop", "--out", out.string()});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("no operator nosuchop"), std::string::npos) << bad.err;
  fs::remove_all(root);
}

}  // namespace
