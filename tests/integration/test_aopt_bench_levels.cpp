// `aopt bench` over a real-operator suite takes each operator's level from sources.json's
// "levels" (docs/real-ops.md, "Levels"), not from its own rule: the table of fixed stored rows
// (--stored-only) is split by the declared levels. Before: abs (one input, one output) was level 1
// by the rule whatever the suite said.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>

#include <nlohmann/json.hpp>

#include "../support/aopt_process.h"

namespace fs = std::filesystem;

namespace {

aopt::common::process_outcome aopt(const std::vector<std::string>& args) { return aopt::testing::run_aopt(args, 600); }

// A stored result of `aopt bench` (ops/<op>.<method>.json) with the settings of a bench at budget
// 4, seed 1, profile 910b4, screened: what a run of the same settings reuses.
void store(const fs::path& out, const std::string& op, double speedup) {
  const nlohmann::json settings{{"budget", 4}, {"seed", 1}, {"profile", "910b4"}, {"method", "aopt"}, {"screen", true},
                                {"version", 3}};
  const nlohmann::json record{{"operator", op},        {"method", "aopt"},     {"seeded", false},
                              {"base_ok", true},       {"base_us", 10.0 * speedup}, {"best_us", 10.0},
                              {"speedup", speedup},    {"evaluations", 4},     {"failures", 0},
                              {"trajectory", {1.0, speedup, speedup, speedup}}, {"level", 0}};
  std::ofstream(out / "ops" / (op + ".aopt.json")) << nlohmann::json{{"settings", settings}, {"record", record}}.dump();
}

TEST(AoptBenchLevels, TheTableIsSplitByTheLevelsTheSuiteDeclares) {
  const fs::path root = fs::temp_directory_path() / ("aopt-bench-levels-" + std::to_string(::getpid()));
  fs::remove_all(root);
  const std::string src = AOPT_TEST_SOURCE_DIR;
  const fs::path suite = root / "suite", out = root / "out", bank = root / "bank";
  for (const char* op : {"abs", "add", "sqrt"}) {
    fs::create_directories(suite / op);
    std::ifstream spec(fs::path(src) / "examples/ops" / op / "aopt.json");
    auto j = nlohmann::json::parse(spec);
    j.erase("reference");  // the package's reference.cpp is not beside this copy: the baseline is
    std::ofstream(suite / op / "aopt.json") << j.dump();
  }
  // abs and sqrt are level 1 by the bench's rule; the suite says 3 and 2. add is not declared:
  // the rule decides (two inputs: level 2).
  std::ofstream(suite / "sources.json") << R"({"operators": {"abs": "abs/baseline", "add": "add/baseline",
      "sqrt": "sqrt/baseline"}, "levels": {"abs": 3, "sqrt": 2}})";
  fs::create_directories(out / "ops");
  store(out, "abs", 2.25);
  store(out, "add", 1.0);
  store(out, "sqrt", 1.44);
  const auto o = aopt({"bench", suite.string(), "--sources", src + "/examples/ops", "--methods", "aopt", "--budget", "4",
                       "--out", out.string(), "--bank", bank.string(), "--stored-only"});
  ASSERT_EQ(o.exit_code, 0) << o.out << o.err;
  EXPECT_EQ(o.out.find("PARTIAL"), std::string::npos) << o.out;
  std::ifstream in(out / "bench.json");
  const auto j = nlohmann::json::parse(in);
  std::map<std::string, int> level;
  for (const auto& r : j["operators"]) level[r["operator"].get<std::string>()] = r["level"].get<int>();
  EXPECT_EQ(level, (std::map<std::string, int>{{"abs", 3}, {"add", 2}, {"sqrt", 2}}));
  std::map<std::string, std::pair<int, double>> groups;  // group -> operators, geomean
  for (const auto& s : j["summary"]) {
    if (!s["geomean"].is_null()) groups[s["group"].get<std::string>()] = {s["operators"].get<int>(), s["geomean"].get<double>()};
  }
  EXPECT_EQ(groups.count("level1"), 0u);
  EXPECT_EQ(groups["level2"].first, 2);
  EXPECT_NEAR(groups["level2"].second, 1.2, 1e-9);  // sqrt(1.0 * 1.44)
  EXPECT_EQ(groups["level3"].first, 1);
  EXPECT_NEAR(groups["level3"].second, 2.25, 1e-9);
  std::ifstream t(out / "table.md");
  const std::string md((std::istreambuf_iterator<char>(t)), std::istreambuf_iterator<char>());
  EXPECT_EQ(md.find("## Level 1"), std::string::npos) << md;
  EXPECT_NE(md.find("## Level 2"), std::string::npos) << md;
  EXPECT_NE(md.find("## Level 3"), std::string::npos) << md;

  // A bad level stops the bench before anything runs, naming the file and the field.
  std::ofstream(suite / "sources.json") << R"({"operators": {"abs": "abs/baseline", "add": "add/baseline",
      "sqrt": "sqrt/baseline"}, "levels": {"abs": 0}})";
  const auto bad = aopt({"bench", suite.string(), "--sources", src + "/examples/ops", "--methods", "aopt", "--budget", "4",
                         "--out", out.string(), "--bank", bank.string(), "--stored-only"});
  EXPECT_NE(bad.exit_code, 0) << bad.out;
  EXPECT_NE(bad.err.find("levels.abs: expected 1, 2 or 3"), std::string::npos) << bad.err;
  fs::remove_all(root);
}

}  // namespace
