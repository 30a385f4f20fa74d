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

// Stage I without a compile (docs/stage1.md, "Variants without a build"): the same seed with
// and without the search form gives the same trajectory (every status and simulated latency)
// and the same result package, while the search form builds only the variants that change a
// kernel constant; each
// run has its own artifact cache, so the second cannot reuse the first's builds.
TEST_F(AoptOptimize, TilingVariantsRunOnOneBuildWithTheSameResults) {
  const fs::path bank = root_ / "bank-sf";
  auto imp = aopt({"bank", "--bank", bank.string(), "import", kSrc + "/tests/integration/data/pipe_all_tuple.jsonl"});
  ASSERT_EQ(imp.exit_code, 0) << imp.out << imp.err;
  nlohmann::json runs[2];
  for (int k = 0; k < 2; ++k) {
    const fs::path out = root_ / ("sf-out" + std::to_string(k));
    std::vector<std::string> args = {"optimize", kSrc + "/examples/ops/add_custom", "--budget", "10", "--bank",
                                     bank.string(), "--cache-dir", (root_ / ("sf-cache" + std::to_string(k))).string(),
                                     "--out", out.string(), "--seed", "2", "--no-learn", "-q"};
    if (k == 1) args.push_back("--no-search-form");
    ::setenv("AOPT_ARTIFACT_CACHE", (root_ / ("sf-art" + std::to_string(k))).c_str(), 1);
    const auto o = aopt(args);
    ::unsetenv("AOPT_ARTIFACT_CACHE");
    ASSERT_EQ(o.exit_code, 0) << o.out << o.err;
    std::ifstream in(out / "report.json");
    runs[k] = nlohmann::json::parse(in)["result"];
  }
  const auto& form = runs[0];
  const auto& built = runs[1];
  EXPECT_GT(form["tiling_variants"]["unbuilt"].get<int>(), 0) << form["tiling_variants"];
  EXPECT_EQ(built["tiling_variants"]["unbuilt"].get<int>(), 0) << built["tiling_variants"];
  // add_custom's BLOCK_BYTES and BUFFER_NUM are kernel constants too: their variants build the
  // kernel (the host is the form's); the other variants build nothing.
  EXPECT_EQ(form["tiling_variants"]["built"].get<int>() + form["tiling_variants"]["unbuilt"].get<int>(),
            built["tiling_variants"]["built"].get<int>());
  ASSERT_EQ(form["trajectory"].size(), built["trajectory"].size());
  for (std::size_t i = 0; i < form["trajectory"].size(); ++i) {
    const auto& a = form["trajectory"][i];
    const auto& b = built["trajectory"][i];
    EXPECT_EQ(a["proposal"], b["proposal"]) << i;
    EXPECT_EQ(a["status"], b["status"]) << i;
    EXPECT_EQ(a["latency_us"], b["latency_us"]) << i << " " << a["proposal"];
  }
  EXPECT_EQ(form["best_us"], built["best_us"]);
  // The result package is the instantiated source, never the search form: the same bytes.
  for (const char* f : {"op_host/add_custom.cpp", "op_kernel/add_custom.cpp"}) {
    auto text = [&](int k) {
      std::ifstream in(root_ / ("sf-out" + std::to_string(k)) / f, std::ios::binary);
      return std::string(std::istreambuf_iterator<char>(in), {});
    };
    EXPECT_EQ(text(0), text(1)) << f;
    EXPECT_EQ(text(0).find("AOPT_TUNABLE"), std::string::npos) << f;
  }
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
