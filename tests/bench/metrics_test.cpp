// Bench metrics on hand-computed data: geomean, fast_p (strictly greater), groups, curves,
// table rendering and JSON.
#include <cmath>
#include <string>

#include <gtest/gtest.h>

#include "aopt/bench/metrics.h"
#include "aopt/common/error.h"

namespace aopt::bench {
namespace {

operator_record rec(const std::string& op, const std::string& method, bool seeded, double speedup,
                    std::size_t evals = 40, std::size_t failures = 0) {
  operator_record r;
  r.op = op;
  r.method = method;
  r.seeded = seeded;
  r.speedup = speedup;
  r.evaluations = evals;
  r.failures = failures;
  return r;
}

TEST(Metrics, Geomean) {
  EXPECT_DOUBLE_EQ(*geomean({1.0, 4.0}), 2.0);
  EXPECT_NEAR(*geomean({2.0, 2.0, 2.0}), 2.0, 1e-12);
  EXPECT_NEAR(*geomean({0.5, 2.0, 8.0}), 2.0, 1e-12);  // (0.5 * 2 * 8)^(1/3) = 8^(1/3)
  EXPECT_FALSE(geomean({}).has_value());
  EXPECT_THROW(geomean({1.0, 0.0}), aopt::error);
}

TEST(Metrics, FastPIsStrictlyGreater) {
  const std::vector<double> s{1.0, 1.2, 1.5, 2.5};
  EXPECT_DOUBLE_EQ(*fast_p(s, 1.0), 0.75);  // 1.0 itself is not faster than the reference
  EXPECT_DOUBLE_EQ(*fast_p(s, 1.2), 0.5);
  EXPECT_DOUBLE_EQ(*fast_p(s, 1.4), 0.5);
  EXPECT_DOUBLE_EQ(*fast_p(s, 2.0), 0.25);
  EXPECT_FALSE(fast_p({}, 1.0).has_value());
}

TEST(Metrics, SummaryPerMethodAndGroup) {
  const std::vector<operator_record> records{
      rec("a", "aopt", true, 2.0, 40, 3), rec("b", "aopt", false, 1.0, 40, 1), rec("c", "aopt", false, 1.5, 38, 0),
      rec("a", "random", true, 1.0), rec("b", "random", false, 1.0), rec("c", "random", false, 1.21)};
  const auto rows = summarize(records);
  ASSERT_EQ(rows.size(), 6u);  // 2 methods x 3 groups
  const auto& all = rows[0];
  EXPECT_EQ(all.method, "aopt");
  EXPECT_EQ(all.subset, group::all);
  EXPECT_EQ(all.operators, 3u);
  EXPECT_NEAR(*all.geomean, std::cbrt(2.0 * 1.0 * 1.5), 1e-12);
  ASSERT_EQ(all.fast.size(), 4u);
  EXPECT_NEAR(*all.fast[0], 2.0 / 3.0, 1e-12);  // > 1.0: a, c
  EXPECT_NEAR(*all.fast[1], 2.0 / 3.0, 1e-12);  // > 1.2: a, c
  EXPECT_NEAR(*all.fast[2], 2.0 / 3.0, 1e-12);  // > 1.4: a, c
  EXPECT_NEAR(*all.fast[3], 0.0, 1e-12);        // > 2.0: none (2.0 is not strictly greater)
  EXPECT_EQ(all.evaluations, 118u);
  EXPECT_EQ(all.failures, 4u);
  const auto& seeded = rows[1];
  EXPECT_EQ(seeded.subset, group::seeded);
  EXPECT_EQ(seeded.operators, 1u);
  EXPECT_DOUBLE_EQ(*seeded.geomean, 2.0);
  const auto& unseeded = rows[2];
  EXPECT_EQ(unseeded.operators, 2u);
  EXPECT_NEAR(*unseeded.geomean, std::sqrt(1.5), 1e-12);
  EXPECT_DOUBLE_EQ(*unseeded.fast[0], 0.5);
  const auto& rnd = rows[3];
  EXPECT_EQ(rnd.method, "random");
  EXPECT_NEAR(*rnd.fast[0], 1.0 / 3.0, 1e-12);
  EXPECT_NEAR(*rnd.fast[1], 1.0 / 3.0, 1e-12);  // 1.21 > 1.2
  EXPECT_NEAR(*rnd.fast[2], 0.0, 1e-12);

  // An explicit method order, and a method without records gives empty groups.
  const auto ordered = summarize(records, {"random", "best_of_n"});
  ASSERT_EQ(ordered.size(), 6u);
  EXPECT_EQ(ordered[0].method, "random");
  EXPECT_EQ(ordered[3].operators, 0u);
  EXPECT_FALSE(ordered[3].geomean.has_value());
}

TEST(Metrics, CurveFromTrajectory) {
  optimize::optimize_result r;
  r.base_us = 100;
  auto point = [&](std::size_t evals, double best, bool memo = false, const std::string& stage = "tiling") {
    optimize::trajectory_point p;
    p.evaluations = evals;
    p.best_us = best;
    p.memo = memo;
    p.stage = stage;
    r.trajectory.push_back(p);
  };
  point(1, 100, false, "base");
  point(2, 80);
  point(2, 80, true);  // a memo answer: no budget
  point(3, 50);
  point(4, 50);
  point(4, 80, false, "verify");  // the 50 us winner failed verification
  r.evaluations = 4;
  r.best_us = 80;
  r.speedup = 100.0 / 80.0;
  const auto c = speedup_curve(r, 6);
  ASSERT_EQ(c.size(), 6u);
  EXPECT_DOUBLE_EQ(c[0], 1.0);
  EXPECT_DOUBLE_EQ(c[1], 1.25);
  EXPECT_DOUBLE_EQ(c[2], 2.0);
  EXPECT_DOUBLE_EQ(c[3], 1.25);  // after verification
  EXPECT_DOUBLE_EQ(c[4], 1.25);  // flat after the method stopped
  EXPECT_DOUBLE_EQ(c[5], 1.25);

  const auto x = record_of("op", "random", true, r, 6);
  EXPECT_EQ(x.curve, c);
  EXPECT_DOUBLE_EQ(x.speedup, 1.25);
  EXPECT_TRUE(x.seeded);
  EXPECT_FALSE(x.verified.has_value());

  optimize::optimize_result failed;  // base failed: nothing was improved
  failed.evaluations = 1;
  EXPECT_EQ(speedup_curve(failed, 3), std::vector<double>(3, 1.0));
}

TEST(Metrics, TableRendering) {
  const std::vector<operator_record> records{rec("a", "aopt", true, 2.0), rec("b", "aopt", false, 1.0),
                                             rec("c", "aopt", false, 1.5), rec("a", "best_of_n", true, 1.1),
                                             rec("b", "best_of_n", false, 1.0), rec("c", "best_of_n", false, 1.0)};
  const auto rows = summarize(records);
  table_notes notes;
  notes.budget = 40;
  notes.backend = "sim";
  notes.profile_name = "910b4";
  notes.labels = {{"aopt", "AscendOptimizer"}, {"best_of_n", "Best-of-N"}};
  const std::string md = render_markdown(rows, notes);
  EXPECT_NE(md.find("# Bench results"), std::string::npos);
  EXPECT_NE(md.find("SIMULATED"), std::string::npos);
  EXPECT_NE(md.find("strictly greater than p"), std::string::npos);
  EXPECT_NE(md.find("| Method | Operators | Geomean speedup | fast_1.0 | fast_1.2 | fast_1.4 | fast_2.0 |"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("| AscendOptimizer | 3 | 1.442x | 66.7% | 66.7% | 66.7% | 0.0% |"), std::string::npos) << md;
  EXPECT_NE(md.find("| Best-of-N | 3 | 1.032x | 33.3% | 0.0% | 0.0% | 0.0% |"), std::string::npos) << md;
  EXPECT_NE(md.find("## Operators with an expert seed in the bank"), std::string::npos);
  EXPECT_NE(md.find("## Operators without a seed"), std::string::npos);

  const std::string txt = render_text(rows, notes);
  EXPECT_NE(txt.find("AscendOptimizer"), std::string::npos);
  EXPECT_NE(txt.find("1.442x"), std::string::npos);
  EXPECT_EQ(txt.find('|'), std::string::npos) << "plain text has no Markdown bars";

  notes.backend = "cann";
  EXPECT_EQ(render_markdown(rows, notes).find("SIMULATED"), std::string::npos);
}

TEST(Metrics, PerOperatorTableAndCommonOperators) {
  const std::vector<operator_record> rs = {rec("add", "aopt", true, 1.5),   rec("add", "random", true, 1.2),
                                           rec("abs", "aopt", false, 1.1),  rec("abs", "random", false, 1.1),
                                           rec("gelu", "aopt", false, 2.0)};
  table_notes n;
  n.labels = {{"aopt", "AscendOptimizer"}, {"random", "Random search"}};
  const std::string md = render_per_operator_markdown(rs, {"aopt", "random"}, n);
  EXPECT_EQ(md,
            "| Operator | Seeded | AscendOptimizer | Random search |\n"
            "|---|---|---:|---:|\n"
            "| add | yes | **1.500x** | 1.200x |\n"
            "| abs | no | **1.100x** | **1.100x** |\n"
            "| gelu | no | **2.000x** | - |\n");
  // gelu has no random-search result: compared on add and abs only.
  const auto common = common_operators(rs, {"aopt", "random"});
  ASSERT_EQ(common.size(), 4u);
  for (const auto& r : common) EXPECT_NE(r.op, "gelu");
  EXPECT_EQ(common_operators(rs, {"aopt"}).size(), 3u);
  const auto rows = summarize(common, {"aopt", "random"});
  EXPECT_EQ(rows.front().operators, 2u);
}

TEST(Metrics, Json) {
  auto r = rec("a", "aopt", true, 2.0);
  r.curve = {1.0, 2.0};
  r.verified = true;
  const auto j = to_json(r);
  EXPECT_EQ(j.at("operator"), "a");
  EXPECT_EQ(j.at("speedup"), 2.0);
  EXPECT_EQ(j.at("trajectory").size(), 2u);
  EXPECT_EQ(j.at("verified"), true);
  const auto rows = summarize({r});
  table_notes notes;
  notes.backend = "sim";
  const auto all = bench_json({r}, rows, notes);
  EXPECT_EQ(all.at("notes").at("simulated"), true);
  EXPECT_EQ(all.at("summary").size(), 3u);
  EXPECT_EQ(all.at("summary")[0].at("fast_p").at("fast_1.0"), 1.0);
  EXPECT_TRUE(all.at("summary")[1].at("geomean").is_number());  // seeded group
  EXPECT_TRUE(all.at("summary")[2].at("geomean").is_null());    // unseeded: empty
  EXPECT_EQ(all.at("operators").size(), 1u);
}

}  // namespace
}  // namespace aopt::bench

namespace aopt::bench {
namespace {
TEST(MetricsJson, RecordRoundTrips) {
  operator_record r;
  r.op = "silu";
  r.method = "aopt";
  r.seeded = true;
  r.base_ok = true;
  r.base_us = 130;
  r.best_us = 32.5;
  r.speedup = 4;
  r.evaluations = 28;
  r.failures = 2;
  r.accepted = 3;
  r.verified = true;
  r.curve = {1.0, 2.0, 4.0};
  const auto back = record_from_json(to_json(r));
  EXPECT_EQ(to_json(back), to_json(r));
  auto broken = to_json(r);
  broken.erase("speedup");
  EXPECT_THROW(record_from_json(broken), aopt::error);
}
}  // namespace
}  // namespace aopt::bench
