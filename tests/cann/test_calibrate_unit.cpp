// The pieces of `aopt calibrate` without a device: strict msprof CSV reading (file:line errors,
// per-core means, the median over launches), the linear solve, the fit on synthetic traces
// (recovers the constants a known profile generated), and the calibrated profile's sources.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>

#include "aopt/calibrate/fit.h"
#include "aopt/calibrate/msprof_csv.h"
#include "aopt/calibrate/profile_out.h"
#include "aopt/common/error.h"
#include "aopt_sim/profile.h"
#include "aopt_sim/trace_io.h"

namespace fs = std::filesystem;
namespace cal = aopt::calibrate;
using aopt::sim::core_trace;
using aopt::sim::trace_rec;

namespace {

std::string message_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(CalibrateCsv, ParsesQuotedFieldsAndAveragesRows) {
  const auto t = cal::parse_csv("block_id,\"aiv_vec_time(us)\",name\r\n0, 2.0 ,\"a,b\"\n1,4.0,c\n\n", "P.csv");
  ASSERT_EQ(t.header.size(), 3u);
  ASSERT_EQ(t.rows.size(), 2u);
  EXPECT_EQ(t.rows[0][2], "a,b");
  EXPECT_EQ(t.lines[1], 3);
  EXPECT_DOUBLE_EQ(cal::column_means(t, {"aiv_vec_time(us)"}, "P.csv").at("aiv_vec_time(us)"), 3.0);
}

TEST(CalibrateCsv, ErrorsNameFileLineAndWhatToDo) {
  EXPECT_NE(message_of([] { cal::parse_csv("", "E.csv"); }).find("E.csv:1: the file is empty"), std::string::npos);
  EXPECT_NE(message_of([] { cal::parse_csv("a,b\n", "H.csv"); }).find("H.csv:1: the file has a header but no data row"),
            std::string::npos);
  const auto cut = message_of([] { cal::parse_csv("a,b\n1,2\n3\n", "C.csv"); });
  EXPECT_NE(cut.find("C.csv:3: this row has 1 columns, the header 2"), std::string::npos) << cut;
  EXPECT_NE(cut.find("profile the case again"), std::string::npos) << cut;
  const auto t = cal::parse_csv("a,b\n1,2\n3,x4\n", "N.csv");
  EXPECT_NE(message_of([&] { cal::column_means(t, {"b"}, "N.csv"); }).find("N.csv:3: column 'b' is 'x4', not a number"),
            std::string::npos);
  EXPECT_NE(message_of([&] { cal::column_means(t, {"aiv_mte2_time(us)"}, "N.csv"); })
                .find("N.csv:1: no column 'aiv_mte2_time(us)' in the header"),
            std::string::npos);
}

TEST(CalibrateCsv, CaseDirectoryTakesTheMedianOverLaunches) {
  const fs::path dir = fs::temp_directory_path() / ("aopt-calib-csv-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  const double td[] = {10.0, 30.0, 11.0};
  for (int i = 0; i < 3; ++i) {
    const fs::path d = dir / "k" / ("OPPROF_2026112600000" + std::to_string(i) + "_1");
    fs::create_directories(d);
    std::ofstream(d / "OpBasicInfo.csv") << "Op Name,Task Duration(us),Block Dim\nk," << td[i] << ",48\n";
    std::ofstream(d / "PipeUtilization.csv") << "block_id,aiv_vec_time(us)\n0,1\n1," << 2 * i + 1 << "\n";
  }
  const auto m = cal::read_case_dir(dir / "k", {"Task Duration(us)", "aiv_vec_time(us)", "Block Dim"});
  EXPECT_EQ(m.launches, 3);
  EXPECT_DOUBLE_EQ(m.fields.at("Task Duration(us)"), 11.0);
  EXPECT_DOUBLE_EQ(m.fields.at("aiv_vec_time(us)"), 2.0);  // per-launch means 1, 2, 3
  EXPECT_DOUBLE_EQ(m.fields.at("Block Dim"), 48.0);
  fs::remove(dir / "k" / "OPPROF_20261126000001_1" / "PipeUtilization.csv");
  EXPECT_NE(message_of([&] { cal::read_case_dir(dir / "k", {"aiv_vec_time(us)"}); })
                .find("OPPROF_20261126000001_1/PipeUtilization.csv: missing"),
            std::string::npos);
  EXPECT_NE(message_of([&] { cal::read_case_dir(dir / "none", {"Task Duration(us)"}); }).find("none: no OPPROF_* directory"),
            std::string::npos);
  fs::remove_all(dir);
}

TEST(CalibrateFit, SolvesALinearSystem) {
  std::vector<double> x;
  ASSERT_TRUE(cal::solve_linear({{0, 2, 1}, {1, 1, 0}, {3, 0, 1}}, {7, 3, 6}, x));
  EXPECT_NEAR(x[0], 1.0, 1e-12);
  EXPECT_NEAR(x[1], 2.0, 1e-12);
  EXPECT_NEAR(x[2], 3.0, 1e-12);
  EXPECT_FALSE(cal::solve_linear({{1, 2}, {2, 4}}, {1, 2}, x));
}

// One core issuing `n` records made by `rec(i)`, all from one call site of `api`.
core_trace one_core(int n, const char* api, const std::function<trace_rec(int)>& rec) {
  core_trace t;
  t.sites.push_back({"k.cpp", 1, "k", api});
  for (int i = 0; i < n; ++i) t.recs.push_back(rec(i));
  return t;
}

// `n` binary fp32 vector instructions of 64 repeats.
core_trace vector_trace(int n) {
  return one_core(n, "Add", [](int) {
    trace_rec r;
    r.kind = aopt::sim::rec_kind::vector;
    r.p = aopt::sim::pipe::v;
    r.vclass = aopt::sim::vec_class::binary;
    r.dtype_bytes = 4;
    r.repeats = 64;
    return r;
  });
}

// `n` contiguous 32 KiB copies GM -> UB.
core_trace copy_trace(int n) {
  return one_core(n, "DataCopy", [](int i) {
    trace_rec r;
    r.kind = aopt::sim::rec_kind::copy_in;
    r.p = aopt::sim::pipe::mte2;
    r.blocks = 1;
    r.block_bytes = 32768;
    r.gm_addr = static_cast<std::uint64_t>(i) * 32768;
    r.gm_buf = 1;
    return r;
  });
}

std::vector<cal::fit_param> some_params() {
  return {cal::param_named("vector.cycles_per_repeat.binary.b32"), cal::param_named("dma.gm_to_ub_gibs"),
          cal::param_named("launch.base_us"), cal::param_named("scalar.elem_access_cycles")};
}

TEST(CalibrateFit, RecoversTheConstantsOfAKnownProfile) {
  const auto base = aopt::sim::load_profile("a2").raw;
  const auto params = some_params();
  auto truth = base;
  cal::write_param(truth, params[0], 1.3);
  cal::write_param(truth, params[1], 0.7);
  cal::write_param(truth, params[2], 0.9);
  std::vector<cal::fit_case> cases;
  for (auto [name, trace] : {std::pair{"vec", vector_trace(40)}, std::pair{"copy", copy_trace(12)}}) {
    const std::vector<core_trace> traces{trace};
    auto m = cal::simulate_fields(traces, truth);
    cases.push_back({name, traces, {{"Task Duration(us)", m["Task Duration(us)"]},
                                    {name == std::string("vec") ? "aiv_vec_time(us)" : "aiv_mte2_time(us)",
                                     m[name == std::string("vec") ? "aiv_vec_time(us)" : "aiv_mte2_time(us)"]}}});
  }
  const auto fit = cal::fit_profile(base, params, cases);
  EXPECT_NEAR(fit.values[0], 1.3, 1e-3);
  EXPECT_NEAR(fit.values[1], 0.7, 1e-3);
  EXPECT_NEAR(fit.values[2], 0.9, 1e-3);
  // No case has scalar element accesses: not identifiable, kept.
  EXPECT_TRUE(fit.kernels[3].empty());
  EXPECT_DOUBLE_EQ(fit.values[3], fit.base_values[3]);
  EXPECT_EQ(fit.kernels[0], std::vector<std::string>{"vec"});
  EXPECT_LT(fit.rms_fitted, 1e-4);
  EXPECT_GT(fit.rms_base, 0.05);
  // Deterministic: the same inputs, the same numbers.
  EXPECT_EQ(cal::fit_profile(base, params, cases).values, fit.values);

  const auto out = cal::calibrated_profile(base, params, fit, {"a2-test", "2026-11-26", "a unit test"});
  EXPECT_EQ(out["name"]["value"], "a2-test");
  const auto& cpr = out["timing"]["vector"]["cycles_per_repeat"];
  EXPECT_NEAR(cpr["value"]["binary"]["b32"].get<double>(), 1.3, 1e-3);
  EXPECT_EQ(cpr["source"].get<std::string>().rfind("binary.b32: [FITTED] aopt calibrate 2026-11-26 on a unit test", 0), 0u)
      << cpr["source"];
  EXPECT_EQ(out["timing"]["scalar"]["elem_access_cycles"], base["timing"]["scalar"]["elem_access_cycles"]);
  const double first = out["timing"]["dma"]["gm_to_ub_gibs"]["value"][0][1].get<double>();
  EXPECT_NEAR(first / base["timing"]["dma"]["gm_to_ub_gibs"]["value"][0][1].get<double>(), 0.7, 1e-3);
}

TEST(CalibrateFit, TracesSurviveTheFile) {
  const fs::path f = fs::temp_directory_path() / ("aopt-calib-trace-" + std::to_string(::getpid()) + ".bin");
  const std::vector<core_trace> in{vector_trace(3), copy_trace(2)};
  aopt::sim::save_traces(f, in);
  const auto out = aopt::sim::load_traces(f);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[1].recs.size(), 2u);
  EXPECT_EQ(out[1].recs[1].gm_addr, 32768u);
  EXPECT_EQ(out[0].sites[0].api, "Add");
  EXPECT_EQ(cal::simulate_fields(out, aopt::sim::load_profile("a2").raw), cal::simulate_fields(in, aopt::sim::load_profile("a2").raw));
  std::ofstream(f, std::ios::trunc) << "not a trace";
  EXPECT_NE(message_of([&] { aopt::sim::load_traces(f); }).find("not a trace file of this aopt"), std::string::npos);
  fs::remove(f);
}

}  // namespace
