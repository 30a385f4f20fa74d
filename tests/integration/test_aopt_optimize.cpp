// The real `aopt optimize` end to end on a small suite operator (swish: a PIPE_ALL barrier in
// its tile loop, 40 cores): a bank with one imported tuple, a small budget, an isolated cache.
// Checks the verified speedup, the drop-in output (it evaluates to the reported latency), the
// report files, and the clear errors of bad input.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "aopt/common/subprocess.h"
#include "../support/aopt_process.h"

namespace fs = std::filesystem;
using aopt::common::process_outcome;

namespace {

process_outcome aopt(const std::vector<std::string>& args, int timeout_s = 1200) {
  return aopt::testing::run_aopt(args, timeout_s);
}

class AoptOptimize : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    root_ = fs::temp_directory_path() / ("aopt-opt-it-" + std::to_string(::getpid()));
    fs::remove_all(root_);
    fs::create_directories(root_);
  }
  static void TearDownTestSuite() { fs::remove_all(root_); }
  static fs::path root_;
};
fs::path AoptOptimize::root_;

const std::string kSrc = AOPT_TEST_SOURCE_DIR;

TEST_F(AoptOptimize, SwishGetsAVerifiedDropInSpeedup) {
  const fs::path bank = root_ / "bank", cache = root_ / "cache", out = root_ / "out";
  auto imp = aopt({"bank", "--bank", bank.string(), "import", kSrc + "/tests/integration/data/pipe_all_tuple.jsonl"});
  ASSERT_EQ(imp.exit_code, 0) << imp.out << imp.err;
  const auto o = aopt({"optimize", kSrc + "/examples/ops/swish/baseline", "--budget", "8", "--stage1-steps", "1", "--bank", bank.string(),
                       "--cache-dir", cache.string(), "--out", out.string(), "--seed", "3"});
  ASSERT_EQ(o.exit_code, 0) << o.out << o.err;
  EXPECT_NE(o.out.find("simulated"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("verified on fresh inputs"), std::string::npos) << o.out;
  // The summary line names the operator (swish), not its baseline/ directory.
  EXPECT_NE(o.out.find("swish: "), std::string::npos) << o.out;
  EXPECT_EQ(o.out.find("baseline: "), std::string::npos) << o.out;

  std::ifstream in(out / "report.json");
  const auto rep = nlohmann::json::parse(in);
  const auto& r = rep["result"];
  EXPECT_TRUE(rep["simulated"].get<bool>());
  EXPECT_LE(r["evaluations"].get<int>(), 8);
  EXPECT_GT(r["speedup"].get<double>(), 1.2) << r.dump(1).substr(0, 4000);
  EXPECT_TRUE(r["verification"]["ok"].get<bool>());
  bool kernel_change = false;
  for (const auto& c : r["changes"]) {
    EXPECT_FALSE(c["diff"].get<std::string>().empty());
    EXPECT_LT(c["after_us"].get<double>(), c["before_us"].get<double>());
    if (c["stage"] == "kernel") {
      kernel_change = true;
      // From the imported tuple when the diagnosis retrieves it, else from the engine's own motif
      // (the same PIPE_ALL removal): since issue 13 the warm L2 of the timing model serves swish's
      // inputs, its base is diagnosed vector_bound and the serialized_pipes tuple is not retrieved.
      EXPECT_LE(c["experience_ids"].size(), 1u);
    }
  }
  EXPECT_TRUE(kernel_change);
  EXPECT_TRUE(fs::exists(out / "report.md"));

  // Drop-in: the written package evaluates (correct against the same reference) to the
  // reported latency.
  const auto e = aopt({"eval", out.string(), "--json", "--cache-dir", cache.string()});
  ASSERT_EQ(e.exit_code, 0) << e.out << e.err;
  const auto ej = nlohmann::json::parse(e.out);
  EXPECT_EQ(ej["status"], "ok");
  EXPECT_NEAR(ej["latency_us"].get<double>(), r["best_us"].get<double>(), 1e-6);
  // The accepted kernel change learned into the bank (provenance refinement).
  const auto l = aopt({"bank", "--bank", bank.string(), "list"});
  EXPECT_NE(l.out.find("refinement"), std::string::npos) << l.out;
}

TEST_F(AoptOptimize, BadInputGetsAClearError) {
  auto o = aopt({"optimize", kSrc + "/examples/ops/swish/baseline", "--budget", "0", "--bank", (root_ / "b2").string()});
  EXPECT_EQ(o.exit_code, 2);
  EXPECT_NE(o.err.find("budget"), std::string::npos) << o.err;
  o = aopt({"optimize", kSrc + "/examples/ops/swish/baseline", "--engine", "gpt", "--bank", (root_ / "b2").string()});
  EXPECT_EQ(o.exit_code, 2);
  EXPECT_NE(o.err.find("--engine gpt"), std::string::npos) << o.err;
  o = aopt({"optimize", kSrc + "/examples/ops/swish/baseline", "--out", kSrc + "/examples/ops/swish/baseline"});
  EXPECT_EQ(o.exit_code, 2);
  EXPECT_NE(o.err.find("is the input package"), std::string::npos) << o.err;
}

}  // namespace
