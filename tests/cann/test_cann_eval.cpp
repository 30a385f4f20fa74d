// `aopt eval --backend cann` end to end: the real binary, the stand-in CANN toolchain (build.sh,
// the .run installer, the runner, msprof op), every failure the real toolchain shows mapped to
// its status, latencies measured (repetitions, spread), never simulated.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iostream>

#include <nlohmann/json.hpp>

#include "aopt/common/subprocess.h"
#include "standin_profile.h"

namespace fs = std::filesystem;
using aopt::common::process_outcome;

namespace {

constexpr std::uint64_t k_seed = 16016;

class CannEval : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    root_ = fs::temp_directory_path() / ("aopt-cann-it-" + std::to_string(::getpid()));
    fs::remove_all(root_);
    fs::create_directories(root_ / "state");
    std::cout << "stand-in seed " << k_seed << "\n";
  }
  static void TearDownTestSuite() { fs::remove_all(root_); }

  // A command profile for the stand-in toolchain; `fault` makes it fail one way.
  static fs::path profile(const std::string& name, const std::string& fault = "", const std::string& extra = "") {
    const fs::path f = root_ / (name + ".toml");
    aopt::testing::write_standin_profile(f, {.soc_version = "Ascend910B4",
                                             .warmup = 2,
                                             .repeat = 9,
                                             .timeouts = "run = 12\n",
                                             .environment = {{"AOPT_STANDIN_SEED", std::to_string(k_seed)},
                                                             {"AOPT_STANDIN_STATE", (root_ / "state").string()},
                                                             {"AOPT_STANDIN_NOISE", "0.03"},
                                                             {"AOPT_STANDIN_FAULT", fault}},
                                             .extra = extra});
    return f;
  }

  static process_outcome aopt(std::vector<std::string> args) {
    aopt::common::process_request r;
    r.argv = {AOPT_BINARY};
    r.argv.insert(r.argv.end(), args.begin(), args.end());
    r.limits.wall_timeout = std::chrono::seconds(240);
    r.limits.max_output_bytes = 4 << 20;
    return aopt::common::run_process(r);
  }
  static nlohmann::json eval(const fs::path& prof, const std::string& case_name = "perf_fp32") {
    const auto o = aopt({"eval", std::string(AOPT_TEST_SOURCE_DIR) + "/examples/ops/add_custom", "--backend", "cann",
                         "--cann-config", prof.string(), "--case", case_name, "--json", "--no-cache"});
    EXPECT_EQ(o.end, aopt::common::process_end::exited) << o.describe() << "\n" << o.err;
    try {
      return nlohmann::json::parse(o.out);
    } catch (const std::exception& e) {
      ADD_FAILURE() << "aopt printed no JSON (" << e.what() << "): " << o.out << "\n" << o.err;
      return nlohmann::json::object();
    }
  }
  static fs::path root_;
};
fs::path CannEval::root_;

TEST_F(CannEval, MeasuredNotSimulatedWithStatisticsAndMsprofFields) {
  const auto r = eval(profile("ok"));
  ASSERT_EQ(r.value("status", ""), "ok") << r.dump(2);
  EXPECT_EQ(r["backend"], "cann");
  EXPECT_EQ(r["profile"], "ok");
  EXPECT_FALSE(r["simulated"].get<bool>());
  EXPECT_EQ(r["latency_label"].get<std::string>().rfind("measured", 0), 0u) << r["latency_label"];
  const auto& m = r["measurement"];
  ASSERT_TRUE(m.is_object()) << r.dump(2);
  EXPECT_EQ(m["repetitions"], 9);
  EXPECT_EQ(m["warmups"], 2);
  EXPECT_EQ(m["samples_us"].size(), 9u);
  EXPECT_GT(m["spread"].get<double>(), 0.0);  // 3% noise: never a zero-width interval
  EXPECT_LE(m["ci_low_us"].get<double>(), m["median_us"].get<double>());
  EXPECT_GE(m["ci_high_us"].get<double>(), m["median_us"].get<double>());
  EXPECT_DOUBLE_EQ(r["latency_us"].get<double>(), m["median_us"].get<double>());
  const auto& c = r["cases"][0];
  EXPECT_EQ(c["status"], "ok");
  EXPECT_EQ(c["mismatch_ratio"].get<double>(), 0.0);  // the outputs are the operator's, checked
  EXPECT_GT(c["block_dim"].get<int>(), 0);
  // Parsed from the stand-in msprof op's OpBasicInfo.csv and PipeUtilization.csv.
  EXPECT_TRUE(c["profile"].contains("aiv_vec_ratio")) << c["profile"].dump();
  EXPECT_TRUE(c["profile"].contains("aiv_mte2_time(us)")) << c["profile"].dump();
  EXPECT_TRUE(c["profile"].contains("msprof Task Duration(us)")) << c["profile"].dump();
  EXPECT_EQ(c["profile"]["Op Type"], "AddCustom");
  EXPECT_TRUE(r["bound"].is_null());  // no roofline model of a real chip
}

TEST_F(CannEval, HumanOutputSaysMeasuredWithRepetitionsAndSpread) {
  const auto o = aopt({"eval", std::string(AOPT_TEST_SOURCE_DIR) + "/examples/ops/add_custom", "--backend", "cann",
                       "--cann-config", profile("human").string(), "--case", "perf_fp32", "--no-cache"});
  EXPECT_EQ(o.exit_code, 0) << o.out << o.err;
  EXPECT_NE(o.out.find("measured latency"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("median of 9 timed launches after 2 warm-up(s)"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("spread"), std::string::npos) << o.out;
  EXPECT_EQ(o.out.find("simulated"), std::string::npos) << o.out;
}

struct fault_case {
  const char* fault;
  const char* status;
  const char* says;
};

TEST_F(CannEval, EveryFailureOfTheToolchainMapsToItsStatus) {
  const fault_case cases[] = {
      {"compile_error", "compile_error", "standin_fault"},
      {"acl_error", "runtime_error", "ACL error 507015"},
      {"device_busy", "resource_error", "ACL error 507033"},
      {"tiling_error", "tiling_error", "ACL error 561002"},
      {"hang", "timeout", "did not finish within 12 s"},
  };
  for (const auto& fc : cases) {
    SCOPED_TRACE(fc.fault);
    const auto r = eval(profile(std::string("fault_") + fc.fault, fc.fault));
    EXPECT_EQ(r.value("status", ""), fc.status) << r.dump(2);
    EXPECT_NE(r.value("diagnostic", "").find(fc.says), std::string::npos) << r.value("diagnostic", "");
    EXPECT_FALSE(r.contains("latency_us") && r["latency_us"].is_number());
  }
}

TEST_F(CannEval, MissingMsprofCsvKeepsTheMeasurementAndWarns) {
  const auto r = eval(profile("nocsv", "missing_csv"));
  ASSERT_EQ(r.value("status", ""), "ok") << r.dump(2);
  EXPECT_GT(r["latency_us"].get<double>(), 0.0);
  bool warned = false;
  for (const auto& w : r["warnings"]) warned = warned || w.get<std::string>().find("no OPPROF_") != std::string::npos;
  EXPECT_TRUE(warned) << r["warnings"].dump();
  EXPECT_FALSE(r["cases"][0]["profile"].contains("aiv_vec_ratio"));
}

TEST_F(CannEval, BadProfilesAreUsageErrorsThatSayWhatToDo) {
  const std::string op = std::string(AOPT_TEST_SOURCE_DIR) + "/examples/ops/add_custom";
  auto o = aopt({"eval", op, "--backend", "cann"});
  EXPECT_EQ(o.exit_code, 2);
  EXPECT_NE(o.err.find("--backend cann needs --cann-config FILE"), std::string::npos) << o.err;
  o = aopt({"eval", op, "--backend", "cann", "--cann-config", profile("typo", "", "[measures]\nrepeat = 3\n").string()});
  EXPECT_EQ(o.exit_code, 2);
  EXPECT_NE(o.err.find("typo.toml:"), std::string::npos) << o.err;
  EXPECT_NE(o.err.find("unknown section [measures]"), std::string::npos) << o.err;
  const fs::path none = root_ / "none.toml";
  std::ofstream(none) << "[cann]\ntoolkit = \"/nonexistent/ascend-toolkit/latest\"\nproject_template = \"/tmp\"\n"
                      << "[commands]\nbuild = \"b\"\ninstall = \"i\"\nrun = \"r\"\n";
  o = aopt({"eval", op, "--backend", "cann", "--cann-config", none.string(), "--no-cache"});
  EXPECT_EQ(o.exit_code, 2);
  EXPECT_NE(o.err.find("no CANN toolkit at /nonexistent/ascend-toolkit/latest"), std::string::npos) << o.err;
  EXPECT_NE(o.err.find("aopt doctor"), std::string::npos) << o.err;
}

}  // namespace

namespace {

process_outcome aopt_env(std::vector<std::string> args, std::vector<std::pair<std::string, std::string>> env) {
  aopt::common::process_request r;
  r.argv = {AOPT_BINARY};
  r.argv.insert(r.argv.end(), args.begin(), args.end());
  r.env = std::move(env);
  r.limits.wall_timeout = std::chrono::seconds(60);
  return aopt::common::run_process(r);
}

}  // namespace

TEST_F(CannEval, DoctorWithoutToolkitSaysWhatToInstall) {
  const auto o = aopt_env({"doctor"}, {{"ASCEND_TOOLKIT_HOME", "/nonexistent/aopt-doctor-toolkit"}});
  EXPECT_EQ(o.exit_code, 1) << o.out << o.err;
  EXPECT_NE(o.out.find("MISSING  toolkit      no CANN toolchain is present: /nonexistent/aopt-doctor-toolkit/set_env.sh"),
            std::string::npos)
      << o.out;
  EXPECT_NE(o.out.find("install the CANN toolkit"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("the cann backend cannot run here (no CANN toolchain; --backend sim works without one)"), std::string::npos)
      << o.out;
}

TEST_F(CannEval, DoctorFindsTheStandInToolkitAndItsDevice) {
  const auto o = aopt_env({"doctor", "--cann-config", profile("doctor").string()}, {});
  EXPECT_NE(o.out.find("ok       toolkit"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("8.0.0-standin"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("ok       msprof"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("ok       devices      1 visible (0: 910B4 OK)"), std::string::npos) << o.out;
  // The real runner finds every function it calls in the (stand-in) runtime set_env.sh exposes.
  EXPECT_NE(o.out.find("ok       runner"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("CANN runtime loaded"), std::string::npos) << o.out;
  if (!fs::exists("/dev/davinci0")) {
    EXPECT_EQ(o.exit_code, 1);
    EXPECT_NE(o.out.find("MISSING  dev nodes"), std::string::npos) << o.out;
  }
}
