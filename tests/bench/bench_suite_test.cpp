// A real-operator suite's sources.json with the operators' levels (issue 39, item 1; the rule in
// docs/real-ops.md, "Levels"): declared levels are read, bad ones are refused naming the file and
// the field, the paper's table splits fixed rows by the declared levels, and every operator of
// examples/real-ops has its level.
#include <cmath>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>

#include <gtest/gtest.h>
#include <unistd.h>

#include "aopt/bench/metrics.h"
#include "aopt/common/error.h"
#include "bench_suite.h"

namespace aopt::app {
namespace {

namespace fs = std::filesystem;

struct suite_dir {
  fs::path dir = fs::temp_directory_path() / ("aopt-bench-suite-" + std::to_string(::getpid()));
  explicit suite_dir(const std::string& sources_json) {
    fs::create_directories(dir);
    std::ofstream(dir / "sources.json") << sources_json;
  }
  ~suite_dir() { fs::remove_all(dir); }
};

TEST(RealSuite, DeclaredLevelsAreRead) {
  suite_dir s(R"({"operators": {"abs": "math/abs", "add_rms_norm": "norm/add_rms_norm", "gather_v3": "index/gather_v3"},
                  "levels": {"abs": 1, "add_rms_norm": 3}})");
  const auto ops = read_real_suite(s.dir);
  ASSERT_EQ(ops.size(), 3u);
  EXPECT_EQ(ops.at("abs").dir, "math/abs");
  EXPECT_EQ(ops.at("abs").level, 1);
  EXPECT_EQ(ops.at("add_rms_norm").level, 3);
  EXPECT_EQ(ops.at("gather_v3").level, 0) << "not declared: the bench's rule decides";
  suite_dir none(R"({"operators": {"abs": "math/abs"}})");
  EXPECT_EQ(read_real_suite(none.dir).at("abs").level, 0);
}

TEST(RealSuite, BadLevelsNameTheFileAndTheField) {
  const struct {
    const char* json;
    const char* says;
  } cases[] = {
      {R"({"operators": {"abs": "math/abs"}, "levels": {"abs": 4}})", "levels.abs: expected 1, 2 or 3"},
      {R"({"operators": {"abs": "math/abs"}, "levels": {"abs": "1"}})", "levels.abs: expected 1, 2 or 3"},
      {R"({"operators": {"abs": "math/abs"}, "levels": {"abs": 1.5}})", "levels.abs: expected 1, 2 or 3"},
      {R"({"operators": {"abs": "math/abs"}, "levels": {"abs": 4294967297}})", "levels.abs: expected 1, 2 or 3"},
      {R"({"operators": {"abs": "math/abs"}, "levels": {"sqrt": 1}})", "levels.sqrt: no operator sqrt"},
      {R"({"operators": {"abs": "math/abs"}, "levels": [1]})", "levels: expected"},
      {R"({"operators": {"abs": "../abs"}})", "operators.abs: expected a relative directory"},
      {R"({"operators": {"abs": "/abs"}})", "operators.abs: expected a relative directory"},
      {R"({"ops": {}})", "expected {\"operators\""},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.json);
    suite_dir s(c.json);
    try {
      read_real_suite(s.dir);
      ADD_FAILURE() << "accepted";
    } catch (const aopt::error& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find((s.dir / "sources.json").string()), std::string::npos) << what;
      EXPECT_NE(what.find(c.says), std::string::npos) << what;
    }
  }
}

// Fixed rows whose levels come from the suite: per level, the geometric mean and fast_p of the
// operators declared at that level; a level the rule would give (abs: level 1) does not matter.
TEST(RealSuite, TheTableSplitsFixedRowsByTheDeclaredLevels) {
  suite_dir s(R"({"operators": {"abs": "math/abs", "lerp": "math/lerp", "gather_v3": "index/gather_v3",
                                "add_rms_norm": "norm/add_rms_norm"},
                  "levels": {"abs": 3, "lerp": 2, "gather_v3": 2, "add_rms_norm": 3}})");
  const auto ops = read_real_suite(s.dir);
  const struct {
    const char* op;
    double speedup;
  } rows[] = {{"abs", 2.25}, {"lerp", 1.0}, {"gather_v3", 1.44}, {"add_rms_norm", 1.0}};
  std::vector<bench::operator_record> records;
  for (const auto& r : rows) {
    bench::operator_record rec;
    rec.op = r.op;
    rec.method = "aopt";
    rec.speedup = r.speedup;
    rec.level = ops.at(r.op).level;
    rec.curve.assign(4, r.speedup);
    records.push_back(rec);
  }
  const auto summary = bench::summarize(records, {"aopt"});
  const auto find = [&](bench::group g) -> const bench::method_summary& {
    for (const auto& m : summary) {
      if (m.subset == g) return m;
    }
    throw std::runtime_error("no row");
  };
  EXPECT_EQ(find(bench::group::level1).operators, 0u);
  const auto& l2 = find(bench::group::level2);
  EXPECT_EQ(l2.operators, 2u);
  EXPECT_NEAR(*l2.geomean, 1.2, 1e-9);  // sqrt(1.0 * 1.44)
  EXPECT_DOUBLE_EQ(*l2.fast[0], 0.5);    // fast_1.0: gather_v3 only
  EXPECT_DOUBLE_EQ(*l2.fast[1], 0.5);    // fast_1.2: 1.44 > 1.2
  EXPECT_DOUBLE_EQ(*l2.fast[2], 0.5);    // fast_1.4
  EXPECT_DOUBLE_EQ(*l2.fast[3], 0.0);    // fast_2.0
  const auto& l3 = find(bench::group::level3);
  EXPECT_EQ(l3.operators, 2u);
  EXPECT_NEAR(*l3.geomean, 1.5, 1e-9);  // sqrt(2.25 * 1.0)
  EXPECT_DOUBLE_EQ(*l3.fast[3], 0.5);    // fast_2.0: abs at 2.25
  const auto& all = find(bench::group::all);
  EXPECT_NEAR(*all.geomean, std::pow(2.25 * 1.44, 0.25), 1e-9);
  const std::string md = bench::render_markdown(summary, {});
  EXPECT_EQ(md.find("## Level 1"), std::string::npos) << md;
  EXPECT_NE(md.find("## Level 2"), std::string::npos) << md;
  EXPECT_NE(md.find("## Level 3"), std::string::npos) << md;
  EXPECT_NE(md.find("1.500x"), std::string::npos) << md;
}

// examples/real-ops: every operator has a declared level, each level holds operators, and the
// bench holds at least 100 operators (issue 34's "Done when").
TEST(RealSuite, EveryRealOperatorHasALevel) {
  const auto ops = read_real_suite(fs::path(AOPT_TEST_SOURCE_DIR) / "examples" / "real-ops");
  EXPECT_GE(ops.size(), 100u);
  std::size_t per_level[4] = {0, 0, 0, 0};
  for (const auto& [op, o] : ops) {
    EXPECT_NE(o.level, 0) << op << ": no level in examples/real-ops/sources.json (docs/real-ops.md, \"Levels\")";
    ++per_level[o.level];
  }
  for (int l = 1; l <= 3; ++l) EXPECT_GE(per_level[l], 10u) << "level " << l;
}

}  // namespace
}  // namespace aopt::app
