// The cann backend's logic without running anything: the command profile (and its errors),
// templates, ACL error codes, the ops-info signature, msprof op CSVs, measurement statistics.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <random>

#include "aopt/common/error.h"
#include "aopt/common/stats.h"
#include "aopt/evaluation/cann.h"

namespace fs = std::filesystem;
namespace ev = aopt::evaluation;

namespace {

class CannUnit : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("aopt-cann-unit-" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path write(const std::string& name, const std::string& text) {
    std::ofstream(dir_ / name) << text;
    return dir_ / name;
  }
  std::string load_error(const std::string& toml) {
    try {
      ev::load_cann_profile(write("p.toml", toml));
    } catch (const aopt::error& e) {
      return e.what();
    }
    return "no error";
  }
  static constexpr const char* good =
      "[cann]\ntoolkit = \"tk\"\nproject_template = \"proj\"\n"
      "[commands]\nbuild = \"cd {project} && bash build.sh\"\ninstall = \"x --install-path={install}\"\nrun = \"r {run_json}\"\n";
  fs::path dir_;
};

TEST_F(CannUnit, ProfileReadsEveryKeyWithDefaults) {
  const auto p = ev::load_cann_profile(write("site.toml", std::string(good) +
                                                            "[measure]\nwarmup = 3\nrepeat = 11\n[timeouts]\nrun = 7.5\n"
                                                            "[environment]\nFOO = \"bar\"\n[acl_errors]\n\"507035\" = \"runtime_error\"\n"));
  EXPECT_EQ(p.name, "site");
  EXPECT_EQ(p.toolkit, dir_ / "tk");  // relative to the file
  EXPECT_EQ(p.set_env, dir_ / "tk" / "set_env.sh");
  EXPECT_EQ(p.soc_version, "Ascend910B4");
  EXPECT_EQ(p.soc_short(), "ascend910b");
  EXPECT_EQ(p.warmup, 3);
  EXPECT_EQ(p.repeat, 11);
  EXPECT_DOUBLE_EQ(p.run.timeout_s, 7.5);
  EXPECT_EQ(p.environment.at("FOO"), "bar");
  EXPECT_EQ(p.acl_status.at(507035), "runtime_error");
  EXPECT_EQ(p.acl_status.at(507015), "runtime_error");  // a default stays
  EXPECT_EQ(p.acl_status.at(561002), "tiling_error");
}

TEST_F(CannUnit, ProfileErrorsNameFileLineKeyAndFix) {
  auto e = load_error(std::string(good) + "[measure]\nrepeats = 3\n");
  EXPECT_NE(e.find("p.toml:9"), std::string::npos) << e;
  EXPECT_NE(e.find("unknown key 'repeats' in [measure]"), std::string::npos) << e;
  EXPECT_NE(e.find("known keys: warmup, repeat"), std::string::npos) << e;
  e = load_error(std::string(good) + "[measure]\nrepeat = \"20\"\n");
  EXPECT_NE(e.find("[measure] repeat: expected an integer"), std::string::npos) << e;
  e = load_error(std::string(good) + "[measure]\nrepeat = 0\n");
  EXPECT_NE(e.find("outside [1,"), std::string::npos) << e;
  e = load_error("[cann]\ntoolkit = \"tk\"\nproject_template = \"p\"\n[commands]\nbuild = \"b\"\ninstall = \"i\"\n");
  EXPECT_NE(e.find("[commands] run is empty"), std::string::npos) << e;
  e = load_error(std::string(good) + "[acl_errors]\n\"507015\" = \"crash\"\n");
  EXPECT_NE(e.find("'crash' is not a status"), std::string::npos) << e;
  e = load_error("[cann\n");
  EXPECT_NE(e.find("p.toml:1"), std::string::npos) << e;
  e = load_error(std::string(good) + "[device]\nid = 1\n");
  EXPECT_NE(e.find("unknown section [device]"), std::string::npos) << e;
}

TEST_F(CannUnit, TemplatesQuoteValuesAndRejectUnknownPlaceholders) {
  const std::map<std::string, std::string> vars = {{"project", "/w/it's here"}, {"app", "r 'x'"}};
  EXPECT_EQ(ev::expand_command("cd {project} && bash build.sh", vars, "t"), "cd '/w/it'\\''s here' && bash build.sh");
  EXPECT_EQ(ev::expand_command("msprof op {app}", vars, "t", {"app"}), "msprof op r 'x'");
  try {
    ev::expand_command("run {run_jsn}", vars, "site.toml: [commands] run");
    FAIL() << "no error";
  } catch (const aopt::error& e) {
    EXPECT_NE(std::string(e.what()).find("site.toml: [commands] run: unknown placeholder {run_jsn}; known: {app}, {project}"),
              std::string::npos)
        << e.what();
  }
}

TEST_F(CannUnit, AclErrorCodesAsTheToolsPrintThem) {
  EXPECT_EQ(ev::find_acl_error_code("[ERROR] aclrtSynchronizeStream failed, error code 507015\n"), 507015);
  EXPECT_EQ(ev::find_acl_error_code("RuntimeError: ACL stream synchronize failed, error code:507035"), 507035);
  EXPECT_EQ(ev::find_acl_error_code("aclnnAddCustomGetWorkspaceSize failed. ERROR: 561002"), 561002);
  EXPECT_FALSE(ev::find_acl_error_code("Segmentation fault (core dumped) at 0x507015"));
}

TEST_F(CannUnit, SignatureFromOpsInfo) {
  const auto f = write("ops.json", R"({"AddCustom": {
    "input0": {"name": "x", "dtype": "float16,float", "format": "ND,ND", "paramType": "required"},
    "input1": {"name": "y", "dtype": "float16,float", "format": "ND,ND", "paramType": "required"},
    "output0": {"name": "z", "dtype": "float16,float", "format": "ND,ND", "paramType": "required"},
    "attr": {"list": "alpha,keep,n,dims,flags,mode"},
    "attr_alpha": {"type": "float", "paramType": "optional", "defaultValue": 1.0},
    "attr_keep": {"type": "bool", "paramType": "optional", "defaultValue": "false"},
    "attr_n": {"type": "int", "paramType": "optional", "defaultValue": "3"},
    "attr_dims": {"type": "listInt", "paramType": "optional", "defaultValue": "[0,2]"},
    "attr_flags": {"type": "listBool", "paramType": "optional", "defaultValue": "true,false"},
    "attr_mode": {"type": "str", "paramType": "optional", "defaultValue": "fast"},
    "opFile": {"value": "add_custom"}}})");
  const auto sig = ev::signature_from_ops_info(f, "add_custom");
  // Defaults as values of their types (installed files often write them as strings): the runner
  // passes them as it passes a case's attributes.
  EXPECT_EQ(sig["attrs"][1]["default"], false);
  EXPECT_EQ(sig["attrs"][2]["default"], 3);
  EXPECT_EQ(sig["attrs"][3]["default"], nlohmann::json({0, 2}));
  EXPECT_EQ(sig["attrs"][4]["default"], nlohmann::json({true, false}));
  EXPECT_EQ(sig["attrs"][5]["default"], "fast");
  EXPECT_EQ(sig["op_type"], "AddCustom");
  ASSERT_EQ(sig["inputs"].size(), 2u);
  EXPECT_EQ(sig["inputs"][1]["dtypes"], nlohmann::json({"float16", "float32"}));
  EXPECT_EQ(sig["outputs"][0]["name"], "z");
  EXPECT_EQ(sig["attrs"][0]["name"], "alpha");
  EXPECT_EQ(sig["attrs"][0]["default"], 1.0);
  const auto bad = write("bad.json", R"({"AddCustom": {"input0": {"name": "x", "dtype": "complex64", "format": "ND"}}})");
  try {
    ev::signature_from_ops_info(bad, "k");
    FAIL() << "no error";
  } catch (const aopt::error& e) {
    EXPECT_NE(std::string(e.what()).find("dtype 'complex64'"), std::string::npos) << e.what();
  }
}

TEST_F(CannUnit, MsprofCsvsBecomeFieldNames) {
  std::string why;
  EXPECT_FALSE(ev::read_msprof_op(dir_, why));
  EXPECT_NE(why.find("no OPPROF_"), std::string::npos);
  fs::create_directories(dir_ / "OPPROF_20260101000000_1");
  fs::create_directories(dir_ / "OPPROF_20260102000000_7");
  write("OPPROF_20260102000000_7/OpBasicInfo.csv",
        "Op Name,Op Type,Task Type,Task Duration(us),Block Dim,Current Freq\nAddCustom_0,AddCustom,AI_VECTOR_CORE,12.5,40,1800\n");
  EXPECT_FALSE(ev::read_msprof_op(dir_, why));
  EXPECT_NE(why.find("PipeUtilization.csv"), std::string::npos) << why;
  write("OPPROF_20260102000000_7/PipeUtilization.csv", "block_id,aiv_time(us),aiv_vec_ratio\n0,10.25,0.31\n");
  const auto f = ev::read_msprof_op(dir_, why);
  ASSERT_TRUE(f) << why;
  EXPECT_DOUBLE_EQ((*f)["Task Duration(us)"].get<double>(), 12.5);
  EXPECT_DOUBLE_EQ((*f)["Block Dim"].get<double>(), 40);
  EXPECT_DOUBLE_EQ((*f)["aiv_vec_ratio"].get<double>(), 0.31);
  EXPECT_EQ((*f)["Op Type"], "AddCustom");
}

TEST(MeasurementStats, MedianIntervalFromOrderStatistics) {
  std::vector<double> v;
  for (int i = 20; i >= 1; --i) v.push_back(i);
  const auto s = aopt::common::summarize(v);
  EXPECT_EQ(s.n, 20u);
  EXPECT_DOUBLE_EQ(s.median, 10.5);
  // n = 20, 95%: P(B(20, 1/2) <= 5) = 0.0207 <= 0.025 < P(B <= 6): [x_(6), x_(15)].
  EXPECT_DOUBLE_EQ(s.low, 6);
  EXPECT_DOUBLE_EQ(s.high, 15);
  const auto one = aopt::common::summarize({5.0});
  EXPECT_DOUBLE_EQ(one.low, 5.0);
  EXPECT_DOUBLE_EQ(one.spread(), 0.0);
}

TEST(MeasurementStats, SingleSamplesReduceToThePlainRule) {
  const auto a = aopt::common::summarize({99.0}), b = aopt::common::summarize({100.0});
  EXPECT_TRUE(aopt::common::faster_beyond_noise(a, b, 0.001));
  EXPECT_FALSE(aopt::common::faster_beyond_noise(a, b, 0.02));
  EXPECT_TRUE(aopt::common::slower_beyond_noise(b, a, 0.001));
}

TEST(MeasurementStats, NoiseAloneIsNeverFasterBeyondNoise) {
  const std::uint64_t seed = 20261126;
  std::cout << "seed " << seed << "\n";
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> z(0.0, 1.0);
  auto draw = [&](double us, double sd) {
    std::vector<double> v;
    for (int i = 0; i < 20; ++i) v.push_back(us * (1 + sd * z(rng)));
    return aopt::common::summarize(v, aopt::common::acceptance_confidence);
  };
  int false_accepts = 0, true_accepts = 0;
  for (int trial = 0; trial < 500; ++trial) {
    if (aopt::common::faster_beyond_noise(draw(100, 0.03), draw(100, 0.03), 0.001)) ++false_accepts;
    if (aopt::common::faster_beyond_noise(draw(90, 0.03), draw(100, 0.03), 0.001)) ++true_accepts;
  }
  EXPECT_EQ(false_accepts, 0);
  EXPECT_GE(true_accepts, 495);  // a real 10% gain at 3% noise is found
}

}  // namespace
