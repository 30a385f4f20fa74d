// An evaluation's request and report (vocab/verdict.h): their one JSON form reads back exactly,
// unknown statuses and stages are refused, and the records written before reports were typed
// (data/: report.json's and the journal's reports with the evaluator's whole result record under
// "result", and a screen's) still read, their facts typed.
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "aopt/vocab/verdict.h"

namespace {

using namespace aopt::vocab;
using nlohmann::json;

json data(const std::string& name) {
  std::ifstream in(std::string(AOPT_VOCAB_TEST_DATA) + "/" + name);
  EXPECT_TRUE(in.good()) << name;
  std::stringstream ss;
  ss << in.rdbuf();
  return json::parse(ss.str());
}

TEST(Verdict, StagesAndStatusesHaveOneSpelling) {
  for (const auto s : {eval_stage::base, eval_stage::tiling, eval_stage::kernel,
                       eval_stage::tiling_kernel, eval_stage::random, eval_stage::verify,
                       eval_stage::remeasure, eval_stage::screen, eval_stage::rewind}) {
    EXPECT_EQ(parse_eval_stage(to_string(s)), s) << to_string(s);
  }
  EXPECT_EQ(to_string(eval_stage::tiling_kernel), "tiling+kernel");
  for (const auto s :
       {eval_status::ok, eval_status::compile_error, eval_status::tiling_error,
        eval_status::runtime_error, eval_status::timeout, eval_status::precision_error,
        eval_status::resource_error, eval_status::unsupported, eval_status::built}) {
    EXPECT_EQ(parse_eval_status(to_string(s)), s) << to_string(s);
  }
  EXPECT_FALSE(parse_eval_stage("boom"));
  EXPECT_FALSE(parse_eval_status("fine"));
}

TEST(Verdict, RequestReadsBackExactly) {
  eval_request r;
  r.files = {{"op_kernel/k.cpp", "int x;"}, {"op_host/bin.dat", std::string("\xff\x00\x01", 3)}};
  r.stage = eval_stage::remeasure;
  r.round = 3;
  r.proposal = "double buffer";
  r.input_seed = 42;
  r.package = "j000001";
  r.device = "node/sim0";
  r.search_form = {{"op_host/tunables.h", "#define T 1"}};
  const json j = to_json(r);
  EXPECT_EQ(j.at("stage"), "remeasure");
  const auto back = j.get<eval_request>();
  EXPECT_EQ(back.files, r.files);
  EXPECT_EQ(back.stage, r.stage);
  EXPECT_EQ(back.round, 3);
  EXPECT_EQ(back.proposal, r.proposal);
  EXPECT_EQ(back.input_seed, r.input_seed);
  EXPECT_EQ(back.package, r.package);
  EXPECT_EQ(back.device, r.device);
  EXPECT_EQ(back.search_form, r.search_form);
  json bad = j;
  bad["stage"] = "boom";
  EXPECT_THROW(bad.get<eval_request>(), json::exception);
}

TEST(Verdict, ReportReadsBackExactly) {
  eval_report r;
  r.ok = true;
  r.status = eval_status::ok;
  r.latency_us = 12.345678901234567;
  r.bound_us = 3.25;
  r.cached = true;
  r.backend = "sim";
  r.profile_name = "910b4";
  r.profile = {{"Task Duration(us)", 12.345678901234567}};
  r.kernel = "swish_custom";
  case_facts c;
  c.name = "perf";
  c.timed = true;
  c.status = eval_status::ok;
  c.output_elements = 8388608;
  c.latency_us = 12.5;
  c.block_dim = 40;
  c.tiling_key = 1;
  c.words = {1, -2, 3};
  c.ub_reserved = 98304;
  c.ub_usable = 196352;
  c.core_count = 40;
  c.elements = 1 << 20;
  c.elem_bytes = 2;
  c.tunables_given = 2;
  case_facts tail;
  tail.name = "tail";
  r.cases = {c, tail};
  r.samples_us = {12.0, 12.5, 13.0};
  r.warnings = {
      harness_warning("perf", "gm_out_of_bounds", "k.cpp", 17,
                      "GM read of 512 bytes ... runs 32 bytes past it and its padding (64 bytes)"),
      eval_warning{warning_kind::other, {}, "isolation: no user namespaces"}};
  r.build_seconds = 1.5;
  r.seconds = 2.25;
  r.device = "sim1";
  const json j = to_json(r);
  EXPECT_EQ(j.at("version"), eval_report_version);
  const auto back = j.get<eval_report>();
  EXPECT_EQ(to_json(back), j);
  EXPECT_EQ(back.latency_us, r.latency_us);  // bit-equal
  EXPECT_EQ(back.ub_reserved("perf"), 98304u);
  EXPECT_EQ(back.ub_reserved("tail"), 0u);
  EXPECT_EQ(back.samples(), r.samples_us);
  EXPECT_EQ(back.over_read_sites(), std::set<std::string>{"k.cpp:17"});
  json bad = j;
  bad["status"] = "fine";
  EXPECT_THROW(bad.get<eval_report>(), json::exception);
}

TEST(Verdict, HarnessWarningsAreTypedOnce) {
  const auto w = harness_warning("perf", "gm_out_of_bounds", "op_kernel/k.cpp", 17,
                                 "GM read of 512 bytes at byte offset 0 of 'x' runs 32 bytes past "
                                 "it and its padding (64 bytes)");
  EXPECT_EQ(w.kind, warning_kind::gm_over_read);
  EXPECT_EQ(w.site, "op_kernel/k.cpp:17");
  EXPECT_EQ(w.text,
            "case 'perf': gm_out_of_bounds at op_kernel/k.cpp:17: GM read of 512 bytes at byte "
            "offset 0 of 'x' "
            "runs 32 bytes past it and its padding (64 bytes)");
  EXPECT_EQ(warning_from_text(w.text), w);
  EXPECT_EQ(harness_warning("perf", "truncated_copy", "k.cpp", 3, "tail dropped").kind,
            warning_kind::truncated_copy);
  const auto plain = warning_from_text("aopt.json:4:3: unknown key 'x'");
  EXPECT_EQ(plain.kind, warning_kind::other);
  EXPECT_EQ(plain.site, "");
}

// report.json's base (and the daemon's journal) as written before reports were typed: the
// evaluator's whole result record under "result".
TEST(Verdict, ReportOfVersionOneReadsItsFactsFromTheResultRecord) {
  const auto r = data("report-v1.json").get<eval_report>();
  EXPECT_TRUE(r.ok);
  EXPECT_EQ(r.status, eval_status::ok);
  EXPECT_EQ(r.kernel, "swish_custom");
  ASSERT_FALSE(r.cases.empty());
  EXPECT_EQ(r.cases.front().name, "perf");
  std::size_t timed = 0;
  for (const auto& c : r.cases) {
    EXPECT_TRUE(c.ub_reserved) << c.name;
    EXPECT_TRUE(c.ub_usable) << c.name;
    EXPECT_TRUE(c.block_dim) << c.name;
    EXPECT_EQ(c.status, eval_status::ok) << c.name;
    EXPECT_GT(c.output_elements, 0u) << c.name;
    timed += c.timed;
  }
  EXPECT_EQ(timed, 1u);
  EXPECT_GT(r.ub_reserved(), 0u);
  EXPECT_GT(r.build_seconds, 0.0);
  EXPECT_EQ(r.samples(), std::vector<double>{r.latency_us});  // a simulated latency: one sample
  EXPECT_EQ(r.over_read_sites(), std::set<std::string>{"op_kernel/swish_custom.cpp:61"});
  // Written again in today's form, it reads back the same.
  EXPECT_EQ(to_json(to_json(r).get<eval_report>()), to_json(r));
}

// A screen's report as the daemon's journal kept it before reports were typed.
TEST(Verdict, ScreenOfVersionOneReadsItsTilingFacts) {
  const auto r = data("screen-v1.json").get<eval_report>();
  EXPECT_TRUE(r.ok);
  ASSERT_EQ(r.cases.size(), 2u);
  const auto& c = r.cases.front();
  EXPECT_EQ(c.name, "small");
  EXPECT_EQ(c.block_dim, 8u);
  EXPECT_EQ(c.tiling_key, 1);
  EXPECT_EQ(c.words, (std::vector<std::int64_t>{2048, 256, 8}));
  EXPECT_EQ(c.core_count, 40u);
  EXPECT_EQ(c.ub_capacity, 196608u);
  EXPECT_EQ(c.ub_usable, 196352u);
  EXPECT_EQ(c.elements, 16384u);
  EXPECT_EQ(c.elem_bytes, 2u);
  EXPECT_EQ(c.tunables_given, 0u);
}

// A measured latency (cann): its repeated timings are the samples.
TEST(Verdict, MeasuredReportOfVersionOneKeepsItsSamples) {
  auto j = data("report-v1.json");
  j["result"]["measurement"] = {{"samples_us", {10.0, 11.0, 12.0}}, {"median_us", 11.0}};
  EXPECT_EQ(j.get<eval_report>().samples(), (std::vector<double>{10.0, 11.0, 12.0}));
}

}  // namespace
