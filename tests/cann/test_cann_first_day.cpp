// The cann backend's first day on a real NPU (issue 36), end to end on the stand-in toolchain,
// which answers as CANN's tools do where the first version went wrong: the .run installer asks
// without --quiet, msprof op matches --kernel-name as a prefix of the kernel's name
// (AddCustom_<hash>_0) and looks an application without a path up in the current directory,
// PipeUtilization.csv has one row per core with N/A cube columns, and a launch costs the host
// AOPT_STANDIN_LAUNCH_US before the kernel can start. The command lines are
// config/cann.example.toml's (standin_profile.h), so what a site copies is what is tested.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>

#include <nlohmann/json.hpp>

#include "aopt/common/subprocess.h"
#include "standin_profile.h"

namespace fs = std::filesystem;
using aopt::common::process_outcome;

namespace {

constexpr std::uint64_t k_seed = 3636;

class CannFirstDay : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    root_ = fs::temp_directory_path() / ("aopt-cann-day1-" + std::to_string(::getpid()));
    fs::remove_all(root_);
    fs::create_directories(root_ / "state");
    std::cout << "stand-in seed " << k_seed << "\n";
  }
  static void TearDownTestSuite() { fs::remove_all(root_); }

  static fs::path profile(const std::string& name, std::map<std::string, std::string> env = {}) {
    const fs::path f = root_ / (name + ".toml");
    env.emplace("AOPT_STANDIN_SEED", std::to_string(k_seed));
    env.emplace("AOPT_STANDIN_STATE", (root_ / "state").string());
    env.emplace("AOPT_STANDIN_NOISE", "0.02");
    aopt::testing::write_standin_profile(f, {.soc_version = "Ascend910B4", .warmup = 2, .repeat = 5, .environment = env});
    return f;
  }

  static process_outcome aopt(std::vector<std::string> args, std::vector<std::pair<std::string, std::string>> env = {}) {
    aopt::common::process_request r;
    r.argv = {AOPT_BINARY};
    r.argv.insert(r.argv.end(), args.begin(), args.end());
    r.env = std::move(env);
    r.limits.wall_timeout = std::chrono::seconds(300);
    r.limits.max_output_bytes = 4 << 20;
    return aopt::common::run_process(r);
  }
  static nlohmann::json eval(const fs::path& prof) {
    const auto o = aopt({"eval", std::string(AOPT_TEST_SOURCE_DIR) + "/examples/ops/add_custom", "--backend", "cann", "--cann-config",
                         prof.string(), "--case", "perf_fp32", "--json", "--no-cache"});
    try {
      return nlohmann::json::parse(o.out);
    } catch (const std::exception& e) {
      ADD_FAILURE() << "aopt printed no JSON (" << e.what() << "): " << o.describe() << "\n" << o.out << "\n" << o.err;
      return nlohmann::json::object();
    }
  }
  static std::string warnings(const nlohmann::json& r) { return r.value("warnings", nlohmann::json::array()).dump(); }

  static fs::path root_;
};
fs::path CannFirstDay::root_;

// Problem 6: the example's install command runs the .run package without a terminal.
TEST_F(CannFirstDay, TheExampleInstallCommandNeverWaitsForAnAnswer) {
  const auto r = eval(profile("install"));
  EXPECT_EQ(r.value("status", ""), "ok") << r.dump(2);
  EXPECT_EQ(r.dump().find("installation cancelled"), std::string::npos) << r.dump(2);
}

// Problem 1: msprof op finds the runner and the kernel, so the profile has its pipe fields.
TEST_F(CannFirstDay, TheExampleProfileCommandMatchesTheKernelAndFindsTheRunner) {
  const auto r = eval(profile("profile"));
  ASSERT_EQ(r.value("status", ""), "ok") << r.dump(2);
  EXPECT_EQ(warnings(r).find("profile_missing"), std::string::npos) << warnings(r);
  const auto& p = r["cases"][0]["profile"];
  EXPECT_TRUE(p.contains("msprof Task Duration(us)")) << p.dump();
  EXPECT_TRUE(p.contains("aiv_vec_ratio")) << p.dump();
  EXPECT_EQ(p.value("Op Name", std::string()).rfind("AddCustom_", 0), 0u) << p.dump();
}

// Problem 5: PipeUtilization.csv's one row per core is read whole (the mean, the per-core times),
// its N/A cube cells are absent values.
TEST_F(CannFirstDay, EveryCoresRowIsReadAndNaCellsAreAbsent) {
  const auto r = eval(profile("cores"));
  ASSERT_EQ(r.value("status", ""), "ok") << r.dump(2);
  const auto& c = r["cases"][0];
  const auto& p = c["profile"];
  ASSERT_TRUE(p.contains("msprof_cores")) << p.dump();
  EXPECT_EQ(p["msprof_cores"].get<int>(), c["block_dim"].get<int>()) << p.dump();
  ASSERT_TRUE(p.contains("core_times_us") && p["core_times_us"].is_array()) << p.dump();
  const auto& t = p["core_times_us"];
  ASSERT_EQ(t.size(), p["msprof_cores"].get<std::size_t>());
  double sum = 0, lo = 1e300, hi = 0;
  for (const auto& v : t) sum += v.get<double>(), lo = std::min(lo, v.get<double>()), hi = std::max(hi, v.get<double>());
  EXPECT_GT(hi, lo * 1.05) << t.dump();  // the cores differ (the stand-in spreads them by +-10%)
  EXPECT_NEAR(p["aiv_time(us)"].get<double>(), sum / static_cast<double>(t.size()), 1e-6 * sum) << p.dump();
  EXPECT_FALSE(p.contains("aic_time(us)")) << p.dump();  // N/A on every core: no value, not the text "N/A"
  EXPECT_EQ(p.dump().find("N/A"), std::string::npos) << p.dump();
}

// Problem 2: the latency is kernel time (msprof's Task Duration, here the stand-in's noise-free
// kernel time), not the host's launch plus the kernel. The stand-in's launch costs the host
// 8 us: timing one launch between two events on an idle stream (the first version) reports
// kernel + 8 us, more than 5% above a kernel of tens of microseconds.
TEST_F(CannFirstDay, ASmallKernelsLatencyIsItsKernelTime) {
  const double launch_us = 8.0;
  const auto r = eval(profile("latency", {{"AOPT_STANDIN_NOISE", "0"}, {"AOPT_STANDIN_LAUNCH_US", "8"}, {"AOPT_STANDIN_TILING_US", "20"}}));
  ASSERT_EQ(r.value("status", ""), "ok") << r.dump(2);
  const auto& m = r["measurement"];
  const auto& p = r["cases"][0]["profile"];
  ASSERT_TRUE(p.contains("msprof Task Duration(us)")) << p.dump();
  const double kernel = p["msprof Task Duration(us)"].get<double>(), median = m["median_us"].get<double>();
  std::cout << "kernel " << kernel << " us, reported " << median << " us, launch overhead " << launch_us << " us\n";
  // A small kernel: longer than the launch (else no event timing can see it: docs/cann.md), and
  // short enough that the launch overhead would move it by more than 5%.
  ASSERT_GT(kernel, launch_us);
  ASSERT_GT(launch_us, 0.05 * kernel);
  EXPECT_NEAR(median / kernel, 1.0, 0.05) << m.dump();
  EXPECT_EQ(m.value("method", std::string()), "events_busy_stream") << m.dump();
  EXPECT_EQ(m.value("launches_per_sample", 0), 10) << m.dump();
  EXPECT_TRUE(m.contains("submit_us")) << m.dump();
  EXPECT_EQ(warnings(r).find("timing_includes_launch"), std::string::npos) << warnings(r);
}

// Problem 3: doctor finds set_env.sh where each CANN version's default install puts it.
TEST_F(CannFirstDay, DoctorFindsTheToolkitOfEachDocumentedLayout) {
  const std::string standin = std::string(AOPT_TEST_SOURCE_DIR) + "/tests/cann/standin/toolkit";
  // CANN 8.0-8.3: <root>/ascend-toolkit/set_env.sh beside latest/ (ASCEND_TOOLKIT_HOME is latest).
  const fs::path old_root = root_ / "layout-8.0" / "Ascend" / "ascend-toolkit";
  fs::create_directories(old_root / "latest");
  std::ofstream(old_root / "set_env.sh") << ". '" << standin << "/set_env.sh'\n";
  std::ofstream(old_root / "latest" / "version.cfg") << "version=8.0.0\n";
  auto o = aopt({"doctor"}, {{"ASCEND_TOOLKIT_HOME", (old_root / "latest").string()}});
  EXPECT_NE(o.out.find("ok       toolkit      " + (old_root / "latest").string()), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("ok       msprof"), std::string::npos) << o.out;
  // CANN 8.5 and later: <root>/cann/set_env.sh, found without ASCEND_TOOLKIT_HOME (a user install
  // under $HOME/Ascend).
  const fs::path home = root_ / "layout-8.5";
  fs::create_directories(home / "Ascend" / "cann");
  std::ofstream(home / "Ascend" / "cann" / "set_env.sh") << ". '" << standin << "/set_env.sh'\n";
  o = aopt({"doctor"}, {{"ASCEND_TOOLKIT_HOME", ""}, {"HOME", home.string()}});
  EXPECT_NE(o.out.find("ok       toolkit      " + (home / "Ascend" / "cann").string()), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("ok       msprof"), std::string::npos) << o.out;
}

// Problem 6: doctor says when the operator's project would build no binary package.
TEST_F(CannFirstDay, DoctorChecksThatTheProjectBuildsTheBinaryPackage) {
  const fs::path prof = profile("binary");
  auto o = aopt({"doctor", "--cann-config", prof.string()});
  EXPECT_NE(o.out.find("ok       project"), std::string::npos) << o.out;
  const fs::path tpl = root_ / "no-binary-project";
  fs::copy(std::string(AOPT_TEST_SOURCE_DIR) + "/tests/cann/standin/project", tpl, fs::copy_options::recursive);
  std::string presets;
  {
    std::ifstream in(tpl / "CMakePresets.json");
    presets.assign(std::istreambuf_iterator<char>(in), {});
  }
  const std::string on = R"("ENABLE_BINARY_PACKAGE": {"type": "BOOL", "value": "True"})";
  ASSERT_NE(presets.find(on), std::string::npos) << presets;
  presets.replace(presets.find(on), on.size(), R"("ENABLE_BINARY_PACKAGE": {"type": "BOOL", "value": "False"})");
  std::ofstream(tpl / "CMakePresets.json") << presets;
  std::string text;
  {
    std::ifstream in(prof);
    text.assign(std::istreambuf_iterator<char>(in), {});
  }
  const std::string from = std::string(AOPT_TEST_SOURCE_DIR) + "/tests/cann/standin/project";
  text.replace(text.find(from), from.size(), tpl.string());
  const fs::path prof2 = root_ / "no-binary.toml";
  std::ofstream(prof2) << text;
  o = aopt({"doctor", "--cann-config", prof2.string()});
  EXPECT_NE(o.out.find("MISSING  project"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("ENABLE_BINARY_PACKAGE is not True"), std::string::npos) << o.out;
}

// Problem 3: the runner loads the runtime under CANN 8.5's name (libacl_rt.so) or the older one.
TEST_F(CannFirstDay, TheRunnerLoadsTheRuntimeOfEitherLayout) {
  for (const char* runtime : {"libascendcl.so", "libacl_rt.so"}) {
    const fs::path lib = root_ / (std::string("lib64-") + runtime);
    fs::create_directories(lib);
    fs::create_symlink(fs::path(AOPT_STANDIN_LIB64_DIR) / "libascendcl.so", lib / runtime);
    fs::create_symlink(fs::path(AOPT_STANDIN_LIB64_DIR) / "libnnopbase.so", lib / "libnnopbase.so");
    aopt::common::process_request r;
    r.argv = {AOPT_ACL_RUN_BINARY, "--check"};
    r.env = {{"LD_LIBRARY_PATH", lib.string()}};
    const auto o = aopt::common::run_process(r);
    EXPECT_TRUE(o.ok()) << runtime << ": " << o.describe() << o.out << o.err;
    EXPECT_NE(o.out.find(std::string("CANN runtime loaded: ") + runtime), std::string::npos) << o.out << o.err;
  }
}

}  // namespace
