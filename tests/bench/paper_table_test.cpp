// The paper's table (issue 39, item 1) on hand-computed data: the level rule and the kernel and
// host scans it reads, several seeds summarized per seed then averaged with their range, the
// lead over the best other method stated against the spread, level groups, the budget sweep,
// and its plot and per-operator trajectory charts.
#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>
#include <unistd.h>

#include "aopt/bench/metrics.h"
#include "aopt/bench/plots.h"

namespace aopt::bench {
namespace {

operator_record run(const std::string& op, const std::string& method, double speedup, std::uint64_t seed = 1,
                    int level = 0, std::size_t budget = 4) {
  operator_record r;
  r.op = op;
  r.method = method;
  r.speedup = speedup;
  r.seed = seed;
  r.level = level;
  r.curve.assign(budget, speedup);
  return r;
}

TEST(PaperTable, LevelRule) {
  level_facts unary{1, 1, false, false, false};
  EXPECT_EQ(level_of(unary), 1);  // an elementwise operator or a cast
  level_facts binary{2, 1, false, false, false};
  EXPECT_EQ(level_of(binary), 2);  // multi-input
  level_facts softmax{1, 1, false, true, false};
  EXPECT_EQ(level_of(softmax), 2);  // one reduction
  level_facts list{1, 1, true, false, false};
  EXPECT_EQ(level_of(list), 2);  // a tensor list
  level_facts gather{2, 1, false, false, true};
  EXPECT_EQ(level_of(gather), 2);
  level_facts rms_norm{2, 2, false, true, false};
  EXPECT_EQ(level_of(rms_norm), 3);  // a reduction and two outputs: fused
  level_facts lerp{3, 1, false, false, false};
  EXPECT_EQ(level_of(lerp), 2);  // three inputs alone are one trait
  level_facts add_layer_norm{4, 3, false, true, false};
  EXPECT_EQ(level_of(add_layer_norm), 3);
}

TEST(PaperTable, ScansFindCalledApisAndOpDefOutputs) {
  level_facts f;
  scan_kernel("Add(z, x, y, n); // ReduceSum is only named here\nMuls(z, z, 2.0f, n);", f);
  EXPECT_FALSE(f.reduces);  // a name without a call is not a call
  EXPECT_FALSE(f.indexes);
  scan_kernel("AscendC::WholeReduceMax<float>(dst, src, mask, 1, 1, 1, 8);", f);
  EXPECT_TRUE(f.reduces);
  scan_kernel("MyGatherHelper(x); GatherMaskx(y);", f);
  EXPECT_FALSE(f.indexes);  // other identifiers that contain the name are not it
  scan_kernel("Gather (dst, src, offsets, 0, n);", f);
  EXPECT_TRUE(f.indexes);
  level_facts h;
  h.outputs = 1;
  scan_host("this->Input(\"x\");\nthis->Output(\"y\").DataType({ge::DT_FLOAT});\nthis->Output(\"rstd\");\n"
            "this->Output(\"y\");  // declared twice in two branches",
            h);
  EXPECT_EQ(h.outputs, 2u);
  level_facts none;
  none.outputs = 1;
  scan_host("no OpDef here", none);
  EXPECT_EQ(none.outputs, 1u);
}

TEST(PaperTable, SeedsAreSummarizedApartThenAveragedWithTheirRange) {
  // aopt: seed 1 geomean sqrt(2*2)=2, seed 2 geomean sqrt(1.5*1.5)... per seed, then mean.
  std::vector<operator_record> rs{run("a", "aopt", 2.0, 1), run("b", "aopt", 2.0, 1), run("a", "aopt", 1.0, 2),
                                  run("b", "aopt", 4.0, 2), run("a", "random", 1.1, 1), run("b", "random", 1.1, 1),
                                  run("a", "random", 1.3, 2), run("b", "random", 1.3, 2)};
  const auto rows = summarize(rs, {"aopt", "random"});
  const auto& aopt_all = rows[0];
  ASSERT_EQ(aopt_all.subset, group::all);
  EXPECT_EQ(aopt_all.seeds, 2u);
  EXPECT_EQ(aopt_all.operators, 2u);  // per seed, not runs
  ASSERT_TRUE(aopt_all.geomean);
  EXPECT_NEAR(*aopt_all.geomean, 2.0, 1e-12);  // seeds: 2.0 and sqrt(1*4) = 2.0
  EXPECT_NEAR(*aopt_all.geomean_min, 2.0, 1e-12);
  EXPECT_NEAR(*aopt_all.geomean_max, 2.0, 1e-12);
  EXPECT_NEAR(*aopt_all.fast[0], 0.75, 1e-12);  // fast_1.0: seed 1 100%, seed 2 50%
  const auto& random_all = rows[3];
  ASSERT_EQ(random_all.method, "random");
  EXPECT_NEAR(*random_all.geomean, 1.2, 1e-12);
  EXPECT_NEAR(*random_all.geomean_min, 1.1, 1e-12);
  EXPECT_NEAR(*random_all.geomean_max, 1.3, 1e-12);
  table_notes notes;
  notes.ours = "aopt";
  const std::string md = render_markdown(rows, notes);
  EXPECT_NE(md.find("2.000x (2.000-2.000, 2 seeds)"), std::string::npos) << md;
  EXPECT_NE(md.find("aopt leads the best other method (random, 1.200x) by 0.800; the larger spread of the two over "
                    "their seeds is 0.200: a lead larger than the spread."),
            std::string::npos)
      << md;
  // A lead smaller than the spread says so.
  rs[2].speedup = 1.0;
  rs[3].speedup = 1.0;  // aopt seed 2: 1.0, so mean 1.5, range 1.0-2.0
  const std::string md2 = render_markdown(summarize(rs, {"aopt", "random"}), notes);
  EXPECT_NE(md2.find("leads the best other method (random, 1.200x) by 0.300; the larger spread of the two over their "
                     "seeds is 1.000: NOT a lead larger than the spread."),
            std::string::npos)
      << md2;
  EXPECT_NE(render_text(summarize(rs, {"aopt", "random"}), notes).find("NOT a lead"), std::string::npos);
}

TEST(PaperTable, LevelGroupsAppearWhenOperatorsHaveLevels) {
  std::vector<operator_record> rs{run("a", "aopt", 2.0)};
  auto rows = summarize(rs, {"aopt"});
  EXPECT_EQ(rows.size(), 3u);  // all, seeded, unseeded: no level known
  rs.push_back(run("b", "aopt", 1.5, 1, 1));
  rs.push_back(run("c", "aopt", 3.0, 1, 3));
  rows = summarize(rs, {"aopt"});
  ASSERT_EQ(rows.size(), 6u);
  EXPECT_EQ(rows[3].subset, group::level1);
  EXPECT_EQ(rows[3].operators, 1u);
  EXPECT_NEAR(*rows[3].geomean, 1.5, 1e-12);
  EXPECT_EQ(rows[4].operators, 0u);  // level 2: empty, skipped in the table
  EXPECT_NEAR(*rows[5].geomean, 3.0, 1e-12);
  const std::string md = render_markdown(rows, {});
  EXPECT_NE(md.find("## Level 1"), std::string::npos) << md;
  EXPECT_EQ(md.find("## Level 2"), std::string::npos) << md;
  EXPECT_NE(md.find("## Level 3"), std::string::npos) << md;
  EXPECT_EQ(to_json(rows[5])["group"], "level3");
}

TEST(PaperTable, BudgetSweepReadsEachBudgetsRuns) {
  std::vector<operator_record> rs{run("a", "aopt", 2.0, 1, 0, 40),   run("b", "aopt", 8.0, 1, 0, 40),
                                  run("a", "aopt@10", 1.0, 1, 0, 10), run("b", "aopt@10", 4.0, 1, 0, 10),
                                  run("a", "aopt@10", 1.0, 2, 0, 10), run("b", "aopt@10", 1.0, 2, 0, 10),
                                  run("a", "aoptx@20", 9.0, 1, 0, 20), run("a", "aopt@x", 9.0)};
  const auto sweep = budget_sweep(rs, "aopt");
  ASSERT_EQ(sweep.size(), 2u);  // "aoptx@20" and "aopt@x" are not aopt's
  EXPECT_EQ(sweep[0].first, 10u);
  EXPECT_NEAR(sweep[0].second, 1.5, 1e-12);  // seeds: sqrt(1*4) = 2 and 1
  EXPECT_EQ(sweep[1].first, 40u);
  EXPECT_NEAR(sweep[1].second, 4.0, 1e-12);
  table_notes notes;
  notes.title = "t";
  const std::string svg = budget_sweep_svg(rs, {"aopt"}, notes);
  EXPECT_NE(svg.find("data-method=\"aopt\""), std::string::npos);
  EXPECT_TRUE(budget_sweep_svg({run("a", "aopt", 2.0)}, {"aopt"}, notes).empty());  // one budget: no sweep

  const auto dir = std::filesystem::temp_directory_path() / ("aopt-paper-table-" + std::to_string(::getpid()));
  const auto paths = write_plots(dir, rs, {"aopt"}, notes);
  EXPECT_TRUE(std::filesystem::exists(dir / "budget_sweep.svg"));
  EXPECT_TRUE(std::filesystem::exists(dir / "trajectories" / "a.svg"));
  EXPECT_TRUE(std::filesystem::exists(dir / "trajectories" / "b.svg"));
  std::ifstream in(dir / "trajectories" / "a.svg");
  const std::string a_svg((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(a_svg.find("t: a"), std::string::npos);
  std::filesystem::remove_all(dir);
}

TEST(PaperTable, RecordsKeepSeedAndLevelInJson) {
  auto r = run("a", "aopt", 2.0, 3, 2);
  const auto back = record_from_json(to_json(r));
  EXPECT_EQ(back.seed, 3u);
  EXPECT_EQ(back.level, 2);
  auto j = to_json(r);
  j.erase("seed");
  j.erase("level");
  const auto old = record_from_json(j);  // a result stored before seeds and levels
  EXPECT_EQ(old.seed, 1u);
  EXPECT_EQ(old.level, 0);
}

}  // namespace
}  // namespace aopt::bench
