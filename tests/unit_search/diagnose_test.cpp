// The Diagnoser: each bottleneck class from a crafted profile, with its score and evidence text;
// parsing of profile fields (numbers, numeric strings, the harness result.json wrapper).
#include <gtest/gtest.h>

#include "aopt/common/error.h"
#include "aopt/search/diagnose.h"

namespace aopt::search {
namespace {

nlohmann::json base() {
  // A balanced, well-overlapped kernel: nothing should fire.
  return {{"Task Duration(us)", 100.0}, {"aiv_time(us)", 95.0},   {"aiv_vec_ratio", 0.5},
          {"aiv_scalar_ratio", 0.1},    {"aiv_mte2_ratio", 0.55}, {"aiv_mte3_ratio", 0.45},
          {"aiv_vec_bankgroup_cflt_ratio", 0.0}, {"GM_to_UB_datas(KB)", 4096.0},
          {"UB_to_GM_datas(KB)", 2048.0}, {"Block Dim", 40}, {"core_count", 40},
          {"ub_bytes", 120000}};
}

TEST(Diagnose, HealthyProfileHasNoFinding) {
  const auto d = diagnose(base());
  EXPECT_TRUE(d.findings.empty()) << d.summary;
  EXPECT_EQ(d.primary(), nullptr);
  EXPECT_NE(d.summary.find("no bottleneck"), std::string::npos);
}

TEST(Diagnose, Mte2BoundQuotesTheRatioAndTheRoofline) {
  auto p = base();
  p["aiv_mte2_ratio"] = 0.91;
  p["aiv_vec_ratio"] = 0.2;
  p["aiv_mte3_ratio"] = 0.3;
  p["bound_us"] = 80.0;
  const auto d = diagnose(p);
  ASSERT_NE(d.primary(), nullptr);
  EXPECT_EQ(d.primary()->kind, bottleneck_class::mte2_bound);
  EXPECT_DOUBLE_EQ(d.primary()->score, 0.91);
  EXPECT_EQ(d.primary()->evidence,
            "aiv_mte2_ratio 0.91: the copy-in pipe (GM->UB) is busy 91% of the kernel; "
            "GM_to_UB_datas 4096.0 KB; Task Duration 100.0 us is 1.25x the roofline bound 80.0 us");
  ASSERT_TRUE(d.roofline_headroom);
  EXPECT_DOUBLE_EQ(*d.roofline_headroom, 1.25);
  EXPECT_EQ(d.findings.size(), 1u) << d.summary;
}

TEST(Diagnose, Mte3Bound) {
  auto p = base();
  p["aiv_mte3_ratio"] = 0.75;
  p["aiv_mte2_ratio"] = 0.3;
  const auto d = diagnose(p);
  ASSERT_NE(d.primary(), nullptr);
  EXPECT_EQ(d.primary()->kind, bottleneck_class::mte3_bound);
  EXPECT_EQ(d.primary()->evidence,
            "aiv_mte3_ratio 0.75: the copy-out pipe (UB->GM) is busy 75% of the kernel; "
            "UB_to_GM_datas 2048.0 KB");
}

TEST(Diagnose, VectorBound) {
  auto p = base();
  p["aiv_vec_ratio"] = 0.82;
  const auto d = diagnose(p);
  ASSERT_NE(d.primary(), nullptr);
  EXPECT_EQ(d.primary()->kind, bottleneck_class::vector_bound);
  EXPECT_EQ(d.primary()->evidence, "aiv_vec_ratio 0.82: the vector pipe is busy 82% of the kernel");
}

TEST(Diagnose, ScalarBound) {
  auto p = base();
  p["aiv_scalar_ratio"] = 0.97;
  p["aiv_vec_ratio"] = 0.01;
  p["aiv_mte2_ratio"] = 0.02;
  p["aiv_mte3_ratio"] = 0.01;
  const auto d = diagnose(p);
  ASSERT_NE(d.primary(), nullptr);
  EXPECT_EQ(d.primary()->kind, bottleneck_class::scalar_bound);
  EXPECT_NE(d.primary()->evidence.find("aiv_scalar_ratio 0.97: the scalar pipe is busy 97% of the kernel"),
            std::string::npos);
  EXPECT_FALSE(d.has(bottleneck_class::serialized_pipes));  // sum 0.04: not serialized
}

TEST(Diagnose, SerializedPipes) {
  auto p = base();
  p["aiv_vec_ratio"] = 0.3;
  p["aiv_mte2_ratio"] = 0.4;
  p["aiv_mte3_ratio"] = 0.3;
  const auto d = diagnose(p);
  ASSERT_NE(d.primary(), nullptr);
  EXPECT_EQ(d.primary()->kind, bottleneck_class::serialized_pipes);
  EXPECT_NEAR(d.primary()->score, 1.0 * (1.0 - 0.4 / 1.0), 1e-12);
  EXPECT_EQ(d.primary()->evidence,
            "aiv_vec_ratio 0.30 + aiv_mte2_ratio 0.40 + aiv_mte3_ratio 0.30 = 1.00 with none above "
            "0.60: the pipes take turns instead of overlapping (barriers such as "
            "PipeBarrier<PIPE_ALL>, or single buffering)");
  // Overlapping pipes (sum well above 1) are not serialized.
  p["aiv_vec_ratio"] = 0.55;
  p["aiv_mte2_ratio"] = 0.58;
  p["aiv_mte3_ratio"] = 0.5;
  EXPECT_FALSE(diagnose(p).has(bottleneck_class::serialized_pipes));
}

TEST(Diagnose, LoadImbalanceFromCoreTimes) {
  auto p = base();
  p["core_times_us"] = {100.0, 50.0, 50.0, 50.0};
  const auto d = diagnose(p);
  ASSERT_NE(d.primary(), nullptr);
  EXPECT_EQ(d.primary()->kind, bottleneck_class::load_imbalance);
  EXPECT_NEAR(d.primary()->score, 1.0 - 62.5 / 100.0, 1e-12);
  EXPECT_EQ(d.primary()->evidence,
            "core times max 100.0 us vs mean 62.5 us (max/mean 1.60 over 4 cores): the cores "
            "wait 38% of the slowest core's time");
}

TEST(Diagnose, LoadImbalanceFromIdleCores) {
  auto p = base();
  p["Task Duration(us)"] = 6909.6;
  p["aiv_time(us)"] = 6900.0;
  p["Block Dim"] = 1;
  const auto d = diagnose(p);
  ASSERT_TRUE(d.has(bottleneck_class::load_imbalance)) << d.summary;
  EXPECT_EQ(d.primary()->kind, bottleneck_class::load_imbalance);
  EXPECT_NEAR(d.primary()->score, 1.0 - 1.0 / 40.0, 1e-12);
  EXPECT_EQ(d.primary()->evidence, "Block Dim 1 of 40 cores: 39 cores idle for a 6909.6 us task");
  // A tiny task on few cores is not flagged (spreading it would not help).
  p["Task Duration(us)"] = 8.0;
  p["aiv_time(us)"] = 7.5;
  EXPECT_FALSE(diagnose(p).has(bottleneck_class::load_imbalance));
}

TEST(Diagnose, LaunchBound) {
  auto p = base();
  p["Task Duration(us)"] = 12.0;
  p["aiv_time(us)"] = 4.0;
  const auto d = diagnose(p);
  ASSERT_NE(d.primary(), nullptr);
  EXPECT_EQ(d.primary()->kind, bottleneck_class::launch_bound);
  EXPECT_NEAR(d.primary()->score, 8.0 / 12.0, 1e-12);
  EXPECT_EQ(d.primary()->evidence,
            "Task Duration 12.0 us vs aiv_time 4.0 us: launch and head overhead take 67% of the "
            "task (Block Dim 40)");
}

TEST(Diagnose, BankConflict) {
  auto p = base();
  p["aiv_vec_bankgroup_cflt_ratio"] = 0.45;
  const auto d = diagnose(p);
  ASSERT_NE(d.primary(), nullptr);
  EXPECT_EQ(d.primary()->kind, bottleneck_class::bank_conflict);
  EXPECT_EQ(d.primary()->evidence,
            "aiv_vec_bankgroup_cflt_ratio 0.45 with aiv_vec_ratio 0.50: UB bank-group conflicts "
            "stall 45% of vector time (operands in the same bank group; offset one buffer)");
  // Conflicts in a kernel whose vector pipe is nearly idle do not matter.
  p["aiv_vec_ratio"] = 0.05;
  EXPECT_FALSE(diagnose(p).has(bottleneck_class::bank_conflict));
}

TEST(Diagnose, UbUnderusedWhileMteBound) {
  auto p = base();
  p["aiv_mte2_ratio"] = 0.9;
  p["aiv_vec_ratio"] = 0.1;
  p["aiv_mte3_ratio"] = 0.2;
  p["ub_bytes"] = 16384;
  const auto d = diagnose(p);
  ASSERT_TRUE(d.has(bottleneck_class::ub_underused)) << d.summary;
  ASSERT_TRUE(d.has(bottleneck_class::mte2_bound));
  const auto& f = *std::find_if(d.findings.begin(), d.findings.end(),
                                [](const finding& x) { return x.kind == bottleneck_class::ub_underused; });
  EXPECT_NEAR(f.score, (1.0 - 16384.0 / 196608.0) * 0.9, 1e-12);
  EXPECT_EQ(f.evidence,
            "ub_bytes 16384 of 196608 (8%) while aiv_mte2_ratio 0.90: copies are small; larger "
            "tiles would use more of UB and reach better DMA bandwidth");
  // Findings sorted by score: mte2 (0.90) before ub (0.825).
  EXPECT_EQ(d.findings[0].kind, bottleneck_class::mte2_bound);
  EXPECT_EQ(d.findings[1].kind, bottleneck_class::ub_underused);
  // Same footprint with a large UB budget used: no finding.
  p["ub_bytes"] = 180000;
  EXPECT_FALSE(diagnose(p).has(bottleneck_class::ub_underused));
}

TEST(Diagnose, ThresholdsComeFromTheConfig) {
  auto p = base();
  p["aiv_vec_ratio"] = 0.5;
  diagnosis_config cfg;
  cfg.pipe_bound_ratio = 0.45;
  cfg.serial_sum_max = 1.0;
  EXPECT_TRUE(diagnose(p, cfg).has(bottleneck_class::vector_bound));
  cfg.pipe_bound_ratio = 1.5;
  EXPECT_THROW(diagnose(p, cfg), aopt::error);
}

TEST(ProfileParse, NumericStringsHarnessWrapperAndErrors) {
  nlohmann::json result = {{"status", "ok"},
                           {"ub_bytes", 8192},
                           {"tiling", {{"block_dim", 8}}},
                           {"bound", {{"bound_us", 40.0}, {"headroom", 0.79}}},
                           {"timing", {{"Task Duration(us)", "50.5"}, {"aiv_mte2_ratio", "0.8"}}}};
  const auto m = parse_profile(result);
  EXPECT_DOUBLE_EQ(m.task_us, 50.5);
  EXPECT_DOUBLE_EQ(*m.mte2_ratio, 0.8);
  EXPECT_EQ(*m.ub_bytes, 8192u);
  EXPECT_EQ(*m.block_dim, 8u);
  EXPECT_DOUBLE_EQ(*m.bound_us, 40.0);
  try {
    parse_profile({{"Task Duration(us)", 1.0}, {"aiv_mte2_ratio", "lots"}});
    FAIL() << "no error";
  } catch (const aopt::error& e) {
    EXPECT_EQ(std::string(e.what()), "profile field 'aiv_mte2_ratio': expected a number, found the string \"lots\"");
  }
  EXPECT_THROW(parse_profile({{"aiv_mte2_ratio", 0.5}}), aopt::error);  // no Task Duration
  EXPECT_THROW(parse_profile({{"Task Duration(us)", 1.0}, {"core_times_us", {1.0, "x"}}}), aopt::error);
}

TEST(Diagnose, QueryTextAndJson) {
  auto p = base();
  p["aiv_vec_ratio"] = 0.82;
  const auto d = diagnose(p);
  EXPECT_EQ(retrieval_query_text(d), "vector_bound: " + d.findings[0].evidence);
  const auto j = to_json(d);
  EXPECT_EQ(j["findings"][0]["bottleneck"], "vector_bound");
  EXPECT_TRUE(j["roofline_headroom"].is_null());
}

}  // namespace
}  // namespace aopt::search
