// The real `aopt bench` end to end on two suite operators at a tiny budget: every method runs,
// the table (marked simulated), per-operator JSON and both plots are written, the --ops filter
// keeps exactly the named operators, a second run reuses the stored results, and a partial
// --stored-only table says it is partial.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>

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

// The paper's table (issue 39): several seeds, Best-of-N at its own budget, a budget sweep, the
// operator's level; the table shows the seeds' range and the lead, the sweep and the per-operator
// trajectories are plotted, and each seed's result is stored apart.
TEST(AoptBench, SeedsBudgetsAndLevelsMakeThePapersTable) {
  const fs::path root = fs::temp_directory_path() / ("aopt-bench-paper-" + std::to_string(::getpid()));
  fs::remove_all(root);
  const std::string src = AOPT_TEST_SOURCE_DIR;
  const fs::path out = root / "out", bank = root / "bank";
  ASSERT_EQ(aopt({"bank", "--bank", bank.string(), "import", src + "/examples/bank/experts.jsonl"}).exit_code, 0);
  const auto o = aopt({"bench", src + "/examples/ops", "--ops", "abs", "--methods", "aopt,best_of_n@3", "--budget", "4",
                       "--seeds", "1,2", "--budgets", "3", "--out", out.string(), "--bank", bank.string(), "--cache-dir",
                       (root / "cache").string()});
  ASSERT_EQ(o.exit_code, 0) << o.out << o.err;
  std::ifstream in(out / "bench.json");
  const auto j = nlohmann::json::parse(in);
  std::map<std::string, int> runs;  // label -> seeds
  for (const auto& r : j["operators"]) {
    ++runs[r["method"].get<std::string>()];
    EXPECT_EQ(r["level"], 1) << r;  // abs: one input, one output, elementwise
  }
  EXPECT_EQ(runs, (std::map<std::string, int>{{"aopt", 2}, {"best_of_n@3", 2}, {"aopt@3", 2}}));
  for (const char* f : {"table.md", "budget_sweep.svg", "trajectories/abs.svg", "ops/abs.aopt.json", "ops/abs.aopt.s2.json",
                        "ops/abs.best_of_n@3.json", "ops/abs.aopt@3.s2.json"}) {
    EXPECT_TRUE(fs::exists(out / f)) << f;
  }
  std::ifstream t(out / "table.md");
  const std::string md((std::istreambuf_iterator<char>(t)), std::istreambuf_iterator<char>());
  EXPECT_NE(md.find("2 seeds)"), std::string::npos) << md;
  EXPECT_NE(md.find("Best-of-N @ 3"), std::string::npos) << md;
  EXPECT_NE(md.find("## Level 1"), std::string::npos) << md;
  EXPECT_NE(md.find("## Budget sweep"), std::string::npos) << md;
  EXPECT_NE(md.find("AscendOptimizer leads") == std::string::npos ? md.find("AscendOptimizer trails") : md.find("AscendOptimizer leads"),
            std::string::npos)
      << md;
  const auto bad = aopt({"bench", src + "/examples/ops", "--ops", "abs", "--methods", "best_of_n@x", "--out", out.string()});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("the budget after @"), std::string::npos) << bad.err;
  fs::remove_all(root);
}

// A suite of real operators keeps only our aopt.json per operator and a sources.json; the
// sources come from --sources (here the examples' own packages stand in for cann-ops' tree).
// `--no-screen` is a setting of the stored results.
// `aopt eval --spec` and `--timed-shape` are the same mechanism for one operator.
TEST(AoptBench, RealOperatorSuiteTakesItsSourcesFromElsewhere) {
  const fs::path root = fs::temp_directory_path() / ("aopt-bench-real-" + std::to_string(::getpid()));
  fs::remove_all(root);
  const std::string src = AOPT_TEST_SOURCE_DIR;
  const fs::path suite = root / "suite", out = root / "out", bank = root / "bank", cache = root / "cache";
  fs::create_directories(suite / "abs");
  std::ofstream(suite / "abs" / "aopt.json") << R"({"kernel": "abs_custom", "cases": [
    {"name": "ours", "timed": true, "inputs": {"x": {"shape": [96, 1000], "dtype": "float16", "range": [-3, 3]}}},
    {"name": "odd", "inputs": {"x": {"shape": [5, 77], "dtype": "float16", "range": [-3, 3]}}}]})";
  std::ofstream(suite / "sources.json") << R"({"operators": {"abs": "abs/baseline"}})";
  ASSERT_EQ(aopt({"bank", "--bank", bank.string(), "import", src + "/examples/bank/experts.jsonl"}).exit_code, 0);

  const auto no_sources = aopt({"bench", suite.string(), "--out", out.string(), "--bank", bank.string()});
  EXPECT_EQ(no_sources.exit_code, 2) << no_sources.out << no_sources.err;
  EXPECT_NE(no_sources.err.find("--sources"), std::string::npos) << no_sources.err;

  const auto o = aopt({"bench", suite.string(), "--sources", src + "/examples/ops", "--methods", "aopt", "--budget", "3",
                       "--out", out.string(), "--bank", bank.string(), "--cache-dir", cache.string()});
  ASSERT_EQ(o.exit_code, 0) << o.out << o.err;
  std::ifstream in(out / "ops" / "abs.aopt.json");
  const auto j = nlohmann::json::parse(in);
  std::string timed_case;
  for (const auto& c : j["result"]["base"]["cases"]) {
    if (c.value("timed", false)) timed_case = c.value("name", std::string());
  }
  EXPECT_EQ(timed_case, "ours") << j["result"]["base"].dump().substr(0, 2000);
  // The aopt methods screen Stage I variants (as aopt optimize does), and the stored settings say
  // so: a run without the screen is another experiment, not a stored result.
  EXPECT_EQ(j["settings"]["screen"], true) << j["settings"].dump();
  const auto unscreened = aopt({"bench", suite.string(), "--sources", src + "/examples/ops", "--methods", "aopt", "--budget", "3",
                                "--out", out.string(), "--bank", bank.string(), "--cache-dir", cache.string(), "--no-screen"});
  ASSERT_EQ(unscreened.exit_code, 0) << unscreened.out << unscreened.err;
  EXPECT_EQ(unscreened.out.find("(stored)"), std::string::npos) << unscreened.out;
  std::ifstream in2(out / "ops" / "abs.aopt.json");
  const auto j2 = nlohmann::json::parse(in2);
  EXPECT_EQ(j2["settings"]["screen"], false) << j2["settings"].dump();
  EXPECT_EQ(j2["result"]["screened"].get<int>(), 0) << "without the screen nothing is screened out";

  // One operator: the same spec with --spec, then its timed case at another shape.
  const auto e1 = aopt({"eval", src + "/examples/ops/abs/baseline", "--spec", (suite / "abs" / "aopt.json").string(), "--json",
                        "--cache-dir", cache.string()});
  ASSERT_EQ(e1.exit_code, 0) << e1.err;
  const auto r1 = nlohmann::json::parse(e1.out);
  EXPECT_EQ(r1["timed_case"], "ours");
  const auto e2 = aopt({"eval", src + "/examples/ops/abs/baseline", "--spec", (suite / "abs" / "aopt.json").string(), "--json",
                        "--timed-shape", "1536x1000", "--cache-dir", cache.string()});
  ASSERT_EQ(e2.exit_code, 0) << e2.err;
  const auto r2 = nlohmann::json::parse(e2.out);
  EXPECT_EQ(r2["status"], "ok");
  EXPECT_GT(r2["latency_us"].get<double>(), 1.2 * r1["latency_us"].get<double>()) << "16x the data must take longer";
  const auto bad = aopt({"eval", src + "/examples/ops/abs/baseline", "--timed-shape", "384x", "--cache-dir", cache.string()});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("--timed-shape"), std::string::npos) << bad.err;
  fs::remove_all(root);
}

}  // namespace

namespace {

// Operators searched at the same time (sharing -j evaluations in flight) give the same results
// as one after another: the same speedup, best latency, evaluation count and, point for point,
// the same trajectory (proposal, status, latency).
TEST(AoptBench, OperatorsAtOnceGiveTheSameResultsAsOneAfterAnother) {
  const fs::path root = fs::temp_directory_path() / ("aopt-bench-once-" + std::to_string(::getpid()));
  fs::remove_all(root);
  const std::string src = AOPT_TEST_SOURCE_DIR;
  const fs::path bank = root / "bank";
  ASSERT_EQ(aopt({"bank", "--bank", bank.string(), "import", src + "/examples/bank/experts.jsonl"}).exit_code, 0);
  auto bench = [&](const std::string& at_once) {
    const fs::path out = root / ("out" + at_once);
    const auto o = aopt({"bench", src + "/examples/ops", "--ops", "silu,abs,sqrt", "--methods", "aopt", "--budget", "6",
                         "--out", out.string(), "--bank", bank.string(), "--cache-dir", (root / ("cache" + at_once)).string(),
                         "-j", "2", "--operators-at-once", at_once});
    EXPECT_EQ(o.exit_code, 0) << o.out << o.err;
    std::map<std::string, nlohmann::json> by_op;
    for (const auto& e : fs::directory_iterator(out / "ops")) {
      std::ifstream in(e.path());
      by_op[e.path().filename().string()] = nlohmann::json::parse(in);
    }
    return by_op;
  };
  const auto one = bench("1");
  const auto three = bench("3");
  ASSERT_EQ(one.size(), 3u);
  ASSERT_EQ(three.size(), one.size());
  for (const auto& [file, a] : one) {
    ASSERT_TRUE(three.count(file)) << file;
    const auto& b = three.at(file);
    EXPECT_EQ(a["record"]["speedup"], b["record"]["speedup"]) << file;
    EXPECT_EQ(a["record"]["best_us"], b["record"]["best_us"]) << file;
    EXPECT_EQ(a["record"]["evaluations"], b["record"]["evaluations"]) << file;
    const auto& ta = a["result"]["trajectory"];
    const auto& tb = b["result"]["trajectory"];
    ASSERT_EQ(ta.size(), tb.size()) << file;
    for (std::size_t i = 0; i < ta.size(); ++i) {
      EXPECT_EQ(ta[i]["proposal"], tb[i]["proposal"]) << file << " " << i;
      EXPECT_EQ(ta[i]["status"], tb[i]["status"]) << file << " " << i;
      EXPECT_EQ(ta[i]["latency_us"], tb[i]["latency_us"]) << file << " " << i;
    }
  }
  const auto bad = aopt({"bench", src + "/examples/ops", "--ops", "silu", "--operators-at-once", "0", "--out",
                         (root / "bad").string()});
  EXPECT_NE(bad.exit_code, 0) << bad.out << bad.err;  // a command-line error (CLI11's code, as every option's)
  EXPECT_NE(bad.err.find("--operators-at-once"), std::string::npos) << bad.err;
  fs::remove_all(root);
}

}  // namespace

namespace {

// A real-operator suite's operators are built in their tree, as `aopt eval --tree` builds them:
// the fixture tree_b's typed_scale finds its shared headers (src/common/inc, added by its
// CMakeLists) only when --sources is its tree root. Before: the package was loaded without its tree
// and the bench ended at the first such operator (cann-ops' foreach operators).
TEST(AoptBench, RealOperatorsAreBuiltInTheirTree) {
  const fs::path root = fs::temp_directory_path() / ("aopt-bench-tree-" + std::to_string(::getpid()));
  fs::remove_all(root);
  const std::string src = AOPT_TEST_SOURCE_DIR;
  const fs::path tree = fs::path(src) / "tests/integration/packages/tree_b/src";
  const fs::path suite = root / "suite", out = root / "out", bank = root / "bank";
  fs::create_directories(suite / "typed_scale");
  const auto init = aopt({"init", (tree / "image/typed_scale").string(), "--tree", tree.string(), "--elements", "8192", "--out",
                          (suite / "typed_scale" / "aopt.json").string()});
  ASSERT_EQ(init.exit_code, 0) << init.out << init.err;
  // An operator that does not load (the tree's common/ has no op_host/) is a missing row, not the
  // end of the bench.
  fs::create_directories(suite / "broken");
  fs::copy_file(suite / "typed_scale" / "aopt.json", suite / "broken" / "aopt.json");
  std::ofstream(suite / "sources.json") << R"({"operators": {"typed_scale": "image/typed_scale", "broken": "common"}})";
  ASSERT_EQ(aopt({"bank", "--bank", bank.string(), "import", src + "/examples/bank/experts.jsonl"}).exit_code, 0);
  const auto o = aopt({"bench", suite.string(), "--sources", tree.string(), "--methods", "aopt", "--budget", "2", "--out",
                       out.string(), "--bank", bank.string(), "--cache-dir", (root / "cache").string()});
  ASSERT_EQ(o.exit_code, 0) << o.out << o.err;
  std::ifstream in(out / "ops" / "typed_scale.aopt.json");
  ASSERT_TRUE(in.good()) << o.out;
  const auto j = nlohmann::json::parse(in);
  EXPECT_EQ(j["result"]["base"]["status"], "ok") << j["result"]["base"].dump().substr(0, 2000);
  EXPECT_GE(j["record"]["speedup"].get<double>(), 1.0);
  EXPECT_NE(o.out.find("broken"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("ERROR"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("PARTIAL"), std::string::npos) << o.out;
  fs::remove_all(root);
}

}  // namespace
