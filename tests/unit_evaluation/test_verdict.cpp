// The evaluator fills the verdict the search reads (eval_result::report, vocab/verdict.h): each
// fact of the result record becomes a field (the kernel, each case's UB and tiling, the timed
// case's samples and profile, the build's seconds, the warnings typed with their sites), and a
// record read back from the result cache (its warnings as text) gives the same typed warnings.
#include <gtest/gtest.h>

#include "aopt/evaluation/result.h"

namespace {

namespace ev = aopt::evaluation;
using aopt::vocab::eval_status;
using aopt::vocab::warning_kind;

ev::eval_result passed_record() {
  ev::eval_result r;
  r.status = "ok";
  r.kernel = "swish_custom";
  r.backend = "sim";
  r.profile = "910b4";
  ev::case_result perf;
  perf.name = "perf";
  perf.timed = true;
  perf.latency_us = 20.0;
  perf.block_dim = 40;
  perf.tiling_key = 1;
  perf.ub_bytes = 98304;
  perf.ub_usable = 196352;
  perf.profile = {{"Task Duration(us)", 20.0}, {"aiv_vec_ratio", 0.4}};
  ev::output_check z;
  z.name = "z";
  z.elements = 4096 * 2048;
  perf.outputs = {z};
  ev::case_result small;
  small.name = "small";
  small.ub_bytes = 1024;
  small.ub_usable = 196352;
  r.cases = {perf, small};
  r.timed_case = "perf";
  r.latency_us = 20.0;
  r.measurement = {{"samples_us", {19.5, 20.0, 20.5}}};
  r.bound = {{"bound_us", 12.5}};
  r.build = {{"seconds", 3.5}, {"stage", "done"}};
  r.total_seconds = 4.0;
  r.warn(aopt::vocab::harness_warning("perf", "gm_out_of_bounds", "op_kernel/swish_custom.cpp", 61,
                                      "GM read of 64 bytes at byte offset 16384 of 'x' runs 32 bytes "
                                      "past it and its padding (16416 bytes): the chip reads junk"));
  r.warn({warning_kind::other, {}, "aopt.json:3:5: unknown key 'x'"});
  return r;
}

TEST(Verdict, TheEvaluatorFillsEveryFactTheSearchReads) {
  const auto rep = passed_record().report();
  EXPECT_TRUE(rep.ok);
  EXPECT_EQ(rep.status, eval_status::ok);
  EXPECT_EQ(rep.latency_us, 20.0);
  EXPECT_EQ(rep.bound_us, 12.5);
  EXPECT_FALSE(rep.suspect);
  EXPECT_EQ(rep.kernel, "swish_custom");
  EXPECT_EQ(rep.profile.value("aiv_vec_ratio", 0.0), 0.4);
  EXPECT_EQ(rep.profile.value("bound_us", 0.0), 12.5);
  ASSERT_EQ(rep.cases.size(), 2u);
  EXPECT_TRUE(rep.cases[0].timed);
  EXPECT_EQ(rep.cases[0].status, eval_status::ok);
  EXPECT_EQ(rep.cases[0].output_elements, 4096u * 2048u);
  EXPECT_EQ(rep.cases[0].block_dim, 40u);
  EXPECT_EQ(rep.cases[0].ub_usable, 196352u);
  EXPECT_EQ(rep.ub_reserved("perf"), 98304u);
  EXPECT_EQ(rep.ub_reserved(), 98304u);
  EXPECT_EQ(rep.ub_reserved("small"), 1024u);
  EXPECT_EQ(rep.samples(), (std::vector<double>{19.5, 20.0, 20.5}));
  EXPECT_EQ(rep.build_seconds, 3.5);
  EXPECT_EQ(rep.seconds, 4.0);
  // The GM over-read reaches the search as a typed site; other warnings keep their text.
  EXPECT_EQ(rep.over_read_sites(), std::set<std::string>{"op_kernel/swish_custom.cpp:61"});
  ASSERT_EQ(rep.warnings.size(), 2u);
  EXPECT_EQ(rep.warnings[1].kind, warning_kind::other);
  EXPECT_EQ(rep.warnings[1].text, "aopt.json:3:5: unknown key 'x'");
}

TEST(Verdict, APassWithoutLatencyOrUnderTheBoundIsNoPass) {
  auto r = passed_record();
  r.latency_us.reset();
  const auto none = r.report();
  EXPECT_FALSE(none.ok);
  EXPECT_EQ(none.status, eval_status::runtime_error);
  EXPECT_EQ(none.diagnostic, "no timed case ran ok (no latency)");
  r = passed_record();
  r.bound = {{"bound_us", 25.0}};
  EXPECT_TRUE(r.report().suspect);
  r.status = "precision_error";
  EXPECT_EQ(r.report().status, eval_status::precision_error);
  EXPECT_FALSE(r.report().ok);
  r.status = "a_status_nobody_knows";
  EXPECT_EQ(r.report().status, eval_status::runtime_error);
}

// The result cache holds the record's JSON (DESIGN.md §4: warnings as text, unchanged); a
// cached answer gives the search the same typed warnings as a fresh one.
TEST(Verdict, ACachedRecordGivesTheSameTypedWarnings) {
  const auto fresh = passed_record();
  const auto j = fresh.to_json();
  ASSERT_TRUE(j.at("warnings").at(0).is_string());
  EXPECT_EQ(j.at("warnings").at(0).get<std::string>(), fresh.warnings.at(0).text);
  const auto cached = ev::eval_result::from_json(j);
  EXPECT_EQ(cached.warnings, fresh.warnings);
  EXPECT_EQ(cached.report().over_read_sites(), fresh.report().over_read_sites());
}

}  // namespace
