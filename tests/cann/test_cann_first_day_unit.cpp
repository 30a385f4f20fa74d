// The pieces of issue 36 that need no toolchain: where each CANN version puts set_env.sh, msprof
// op's per-core CSV rows and N/A cells (the backend's reading and calibration's), the runner's
// path given to msprof op, and the stand-in runtime's clock (a launch costs the host time; an
// event pair around one launch on an idle stream measures it, launches on a busy stream do not).
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <functional>

#include "acl/standin_acl.h"
#include "aopt/calibrate/msprof_csv.h"
#include "aopt/common/subprocess.h"
#include "aopt/evaluation/cann.h"
#include "error_text.h"

namespace fs = std::filesystem;
namespace ev = aopt::evaluation;

namespace {

using aopt::testing::message_of;

class CannFirstDayUnit : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("aopt-day1-unit-" + std::to_string(::getpid()) + "-" +
                                         ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root_);
    fs::create_directories(root_);
  }
  void TearDown() override { fs::remove_all(root_); }
  static void touch(const fs::path& f) {
    fs::create_directories(f.parent_path());
    std::ofstream(f) << "# set_env\n";
  }
  fs::path root_;
};

TEST_F(CannFirstDayUnit, SetEnvIsFoundWhereEachCannVersionInstallsIt) {
  // 8.0-8.3: <root>/ascend-toolkit/set_env.sh beside latest/.
  const fs::path old = root_ / "a" / "ascend-toolkit";
  fs::create_directories(old / "latest");
  touch(old / "set_env.sh");
  EXPECT_EQ(ev::default_set_env(old / "latest"), old / "set_env.sh");
  // A profile that names the toolkit only sources that one.
  const fs::path prof = root_ / "site.toml";
  std::ofstream(prof) << "[cann]\ntoolkit = \"" << (old / "latest").string() << "\"\nproject_template = \"/tmp\"\n"
                      << "[commands]\nbuild = \"b\"\ninstall = \"i\"\nrun = \"r\"\n";
  EXPECT_EQ(ev::load_cann_profile(prof).set_env, old / "set_env.sh");
  // 8.5 and later: <root>/cann/set_env.sh.
  const fs::path neu = root_ / "b" / "cann";
  touch(neu / "set_env.sh");
  EXPECT_EQ(ev::default_set_env(neu), neu / "set_env.sh");
  // A script inside the toolkit wins over one beside it.
  touch(old / "latest" / "set_env.sh");
  EXPECT_EQ(ev::default_set_env(old / "latest"), old / "latest" / "set_env.sh");
  // Nowhere: the documented place, for the error to name.
  EXPECT_EQ(ev::default_set_env(root_ / "none"), root_ / "none" / "set_env.sh");
}

TEST_F(CannFirstDayUnit, DefaultInstallsAreSearchedNewestLayoutFirst) {
  const auto c = ev::default_toolkits({root_ / "usr", root_ / "home"});
  ASSERT_EQ(c.size(), 4u);
  EXPECT_EQ(c[0], root_ / "usr" / "cann");
  EXPECT_EQ(c[1], root_ / "usr" / "ascend-toolkit" / "latest");
  EXPECT_EQ(c[3], root_ / "home" / "ascend-toolkit" / "latest");
  EXPECT_FALSE(ev::find_toolkit(c).has_value());
  fs::create_directories(root_ / "home" / "ascend-toolkit" / "latest");
  touch(root_ / "home" / "ascend-toolkit" / "set_env.sh");
  EXPECT_EQ(ev::find_toolkit(c), root_ / "home" / "ascend-toolkit" / "latest");
  touch(root_ / "usr" / "cann" / "set_env.sh");
  EXPECT_EQ(ev::find_toolkit(c), root_ / "usr" / "cann");
}

// The OPPROF directory of one launch of a vector kernel on 4 cores, as msprof op writes it.
void write_opprof(const fs::path& dir) {
  fs::create_directories(dir);
  std::ofstream(dir / "OpBasicInfo.csv") << "Op Name,Op Type,Task Type,Task Duration(us),Task Wait Time(us),Block Dim,Mix Block Dim\n"
                                         << "AddCustom_8f1c_0,AddCustom,AI_VECTOR_CORE,41.5,N/A,4,N/A\n";
  std::ofstream(dir / "PipeUtilization.csv")
      << "block_id,sub_block_id,aic_time(us),aic_mac_ratio,aiv_time(us),aiv_vec_ratio,aiv_mte2_time(us)\n"
      << "0,0,N/A,N/A,40,0.5,30\n"
      << "1,0,N/A,N/A,38,0.4,N/A\n"
      << "2,0,N/A,N/A,36,0.6,26\n"
      << "3,0,N/A,N/A,42,0.5,28\n";
}

TEST_F(CannFirstDayUnit, BackendReadsEveryCoresRowAndNaAsNoValue) {
  write_opprof(root_ / "msprof" / "OPPROF_20261128000000_1");
  std::string why;
  const auto f = ev::read_msprof_op(root_ / "msprof", why);
  ASSERT_TRUE(f.has_value()) << why;
  EXPECT_DOUBLE_EQ((*f)["Task Duration(us)"].get<double>(), 41.5);
  EXPECT_FALSE(f->contains("Task Wait Time(us)")) << f->dump();  // N/A: absent
  EXPECT_DOUBLE_EQ((*f)["aiv_time(us)"].get<double>(), 39.0);     // the mean over the cores, not core 0's 40
  EXPECT_DOUBLE_EQ((*f)["aiv_vec_ratio"].get<double>(), 0.5);
  EXPECT_DOUBLE_EQ((*f)["aiv_mte2_time(us)"].get<double>(), 28.0);  // over the cores that have a value
  EXPECT_FALSE(f->contains("aic_time(us)")) << f->dump();
  EXPECT_FALSE(f->contains("block_id")) << f->dump();
  EXPECT_EQ((*f)["msprof_cores"], 4);
  EXPECT_EQ((*f)["core_times_us"], nlohmann::json({40.0, 38.0, 36.0, 42.0}));
  EXPECT_TRUE(ev::msprof_absent(" n/a "));
  EXPECT_TRUE(ev::msprof_absent("-"));
  EXPECT_FALSE(ev::msprof_absent("0"));
  // No directory: the message says why a profile can be missing.
  EXPECT_FALSE(ev::read_msprof_op(root_ / "none", why).has_value());
  EXPECT_NE(why.find("prefix of the kernel's name"), std::string::npos) << why;
}

TEST_F(CannFirstDayUnit, CalibrationTakesNaCellsAsNoValue) {
  namespace cal = aopt::calibrate;
  write_opprof(root_ / "case" / "OPPROF_20261128000000_1");
  const auto m = cal::read_case_dir(root_ / "case", {"Task Duration(us)", "aiv_mte2_time(us)", "aiv_time(us)", "Block Dim", "aic_time(us)"});
  EXPECT_DOUBLE_EQ(m.fields.at("aiv_mte2_time(us)"), 28.0);
  EXPECT_DOUBLE_EQ(m.fields.at("aiv_time(us)"), 39.0);
  EXPECT_FALSE(m.fields.contains("aic_time(us)"));  // N/A on every core
  // Anything else that is not a number still stops it, naming the file and line.
  const auto t = cal::parse_csv("a,b\n1,N/A\n3,x4\n", "N.csv");
  EXPECT_NE(message_of([&] { cal::column_means(t, {"b"}, "N.csv"); }).find("N.csv:3: column 'b' is 'x4', not a number"), std::string::npos);
}

TEST_F(CannFirstDayUnit, MsprofIsGivenTheRunnersPath) {
  EXPECT_EQ(ev::with_program_path("aopt-acl-run '/w/aopt_run.json'"),
            "\"$(command -v 'aopt-acl-run' || echo 'aopt-acl-run')\" '/w/aopt_run.json'");
  EXPECT_EQ(ev::with_program_path("/opt/aopt/bin/aopt-acl-run x"), "/opt/aopt/bin/aopt-acl-run x");
  EXPECT_EQ(ev::with_program_path("$HOME/bin/run x"), "$HOME/bin/run x");
  // What bash makes of it: the absolute path on PATH.
  const fs::path bin = root_ / "bin";
  fs::create_directories(bin);
  std::ofstream(bin / "my-runner") << "#!/bin/sh\n";
  fs::permissions(bin / "my-runner", fs::perms::owner_all);
  aopt::common::process_request r;
  r.argv = {"/bin/bash", "-c", "PATH='" + bin.string() + "':$PATH; printf '%s\\n' " + ev::with_program_path("my-runner arg")};
  const auto o = aopt::common::run_process(r);
  EXPECT_EQ(o.out, (bin / "my-runner").string() + "\narg\n") << o.err;
}

TEST_F(CannFirstDayUnit, TheExampleProfileHasTheFirstDayFixes) {
  const auto p = ev::load_cann_profile(std::string(AOPT_TEST_SOURCE_DIR) + "/config/cann.example.toml");
  EXPECT_NE(p.install.line.find("--quiet"), std::string::npos) << p.install.line;
  EXPECT_NE(p.profile.line.find("--kernel-name={op_type}"), std::string::npos) << p.profile.line;
  EXPECT_EQ(p.launches, 10);
}

// ---- the stand-in runtime's clocks ----

void ready() {
  const aclError e = aclInit(nullptr);
  ASSERT_TRUE(e == ACL_SUCCESS || e == ACL_ERROR_REPEAT_INITIALIZE) << e;
  ASSERT_EQ(aclrtSetDevice(0), ACL_SUCCESS);
  aclGetRecentErrMsg();
}

float elapsed_ms(aclrtEvent a, aclrtEvent b) {
  float ms = -1;
  EXPECT_EQ(aclrtEventElapsedTime(&ms, a, b), ACL_SUCCESS);
  return ms;
}

TEST(StandinClock, ALaunchCostsTheHostTimeAndABusyStreamHidesIt) {
  ready();
  ::setenv("AOPT_STANDIN_LAUNCH_US", "5", 1);
  aclrtStream s = nullptr;
  aclrtEvent a = nullptr, b = nullptr;
  ASSERT_EQ(aclrtCreateStream(&s), ACL_SUCCESS);
  ASSERT_EQ(aclrtCreateEvent(&a), ACL_SUCCESS);
  ASSERT_EQ(aclrtCreateEvent(&b), ACL_SUCCESS);
  // One launch between two events on an idle stream: the host's enqueue plus the kernel.
  ASSERT_EQ(aclrtSynchronizeStream(s), ACL_SUCCESS);
  ASSERT_EQ(aclrtRecordEvent(a, s), ACL_SUCCESS);
  ASSERT_EQ(aopt_standin_stream_launch(s, 20.0, 0, nullptr, false), ACL_SUCCESS);
  ASSERT_EQ(aclrtRecordEvent(b, s), ACL_SUCCESS);
  ASSERT_EQ(aclrtSynchronizeStream(s), ACL_SUCCESS);
  EXPECT_FLOAT_EQ(elapsed_ms(a, b), 0.025f);
  // Host work between them (a GetWorkspaceSize) counts too: the stream waits for the host.
  ASSERT_EQ(aclrtRecordEvent(a, s), ACL_SUCCESS);
  aopt_standin_host_work(30.0);
  ASSERT_EQ(aopt_standin_stream_launch(s, 20.0, 0, nullptr, false), ACL_SUCCESS);
  ASSERT_EQ(aclrtRecordEvent(b, s), ACL_SUCCESS);
  ASSERT_EQ(aclrtSynchronizeStream(s), ACL_SUCCESS);
  EXPECT_FLOAT_EQ(elapsed_ms(a, b), 0.055f);
  // The stream kept busy: two launches ahead, then K launches between the events: K kernels.
  ASSERT_EQ(aopt_standin_stream_launch(s, 20.0, 0, nullptr, false), ACL_SUCCESS);
  ASSERT_EQ(aopt_standin_stream_launch(s, 20.0, 0, nullptr, false), ACL_SUCCESS);
  ASSERT_EQ(aclrtRecordEvent(a, s), ACL_SUCCESS);
  for (int k = 0; k < 4; ++k) ASSERT_EQ(aopt_standin_stream_launch(s, 20.0, 0, nullptr, false), ACL_SUCCESS);
  ASSERT_EQ(aclrtRecordEvent(b, s), ACL_SUCCESS);
  ASSERT_EQ(aclrtSynchronizeStream(s), ACL_SUCCESS);
  EXPECT_FLOAT_EQ(elapsed_ms(a, b), 0.080f);
  // A kernel shorter than the launch cannot be hidden: the stream waits for the host.
  ASSERT_EQ(aopt_standin_stream_launch(s, 2.0, 0, nullptr, false), ACL_SUCCESS);
  ASSERT_EQ(aclrtRecordEvent(a, s), ACL_SUCCESS);
  for (int k = 0; k < 4; ++k) ASSERT_EQ(aopt_standin_stream_launch(s, 2.0, 0, nullptr, false), ACL_SUCCESS);
  ASSERT_EQ(aclrtRecordEvent(b, s), ACL_SUCCESS);
  ASSERT_EQ(aclrtSynchronizeStream(s), ACL_SUCCESS);
  EXPECT_GT(elapsed_ms(a, b), 0.015f);
  ::unsetenv("AOPT_STANDIN_LAUNCH_US");
  for (auto* e : {a, b}) EXPECT_EQ(aclrtDestroyEvent(e), ACL_SUCCESS);
  EXPECT_EQ(aclrtDestroyStream(s), ACL_SUCCESS);
}

}  // namespace
