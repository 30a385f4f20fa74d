#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "aopt/common/error.h"
#include "aopt/evaluation/candidate.h"
#include "aopt/evaluation/package.h"

namespace ev = aopt::evaluation;
namespace fs = std::filesystem;

namespace {

class CandidateTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("aopt-cand-test-" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_ / "pkg" / "op_host");
    fs::create_directories(dir_ / "pkg" / "op_kernel");
    std::ofstream(dir_ / "pkg" / "op_host" / "my_op_tiling.h") << "// tiling\n";
    std::ofstream(dir_ / "pkg" / "op_host" / "my_op.cpp") << "// host\n";
    std::ofstream(dir_ / "pkg" / "op_kernel" / "my_op.cpp") << "// kernel\n";
    // aopt.json in the parent directory, as the suite lays it out.
    std::ofstream(dir_ / "aopt.json") << R"({"kernel": "my_op", "cases": [{"name": "p", "timed": true,
        "inputs": {"x": {"shape": [4], "dtype": "float16"}}}]})";
    pkg_ = std::make_shared<const ev::op_package>(ev::load_package(dir_ / "pkg"));
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
  std::shared_ptr<const ev::op_package> pkg_;
};

}  // namespace

TEST_F(CandidateTest, PackageLayoutOneDetected) {
  EXPECT_EQ(pkg_->layout, ev::package_layout::msopgen);
  EXPECT_EQ(pkg_->tiling_header, "op_host/my_op_tiling.h");
  EXPECT_EQ(pkg_->kernel_source, "op_kernel/my_op.cpp");
  EXPECT_EQ(pkg_->host_sources, std::vector<std::string>{"op_host/my_op.cpp"});
  EXPECT_EQ(pkg_->spec_file, dir_ / "aopt.json");
}

// The op_api library's sources are not host sources: aclnn_*.cpp by name, and whatever the
// package's own CMakeLists.txt gives to `target_sources(opapi ...)` (cann-ops' <op>_l0.cpp).
TEST_F(CandidateTest, OpApiSourcesOfThePackageCMakeListsAreNotHostSources) {
  const fs::path pkg = dir_ / "pkg";
  std::ofstream(pkg / "op_host" / "my_op_l0.cpp") << "// op_api level 0\n";
  std::ofstream(pkg / "op_host" / "aclnn_my_op.cpp") << "// aclnn\n";
  std::ofstream(pkg / "op_host" / "my_op_def.cc") << "// OpDef\n";
  std::ofstream(pkg / "op_host" / "my_op_infer.cc") << "// a stray InferShape no library compiles\n";
  std::ofstream(pkg / "op_host" / "my_op_opdef.cpp") << "// the OpDef, left out of the CMakeLists\nOP_ADD(MyOp);\n";
  std::ofstream(pkg / "CMakeLists.txt") << "target_sources(optiling PRIVATE op_host/my_op.cpp)\n"
                                           "target_sources(opsproto PRIVATE op_host/my_op_def.cc)\n"
                                           "target_sources(opapi PRIVATE\n  op_host/my_op_l0.cpp\n"
                                           "  op_host/aclnn_my_op.cpp\n)\n";
  const auto p = ev::load_package(pkg);
  // Exactly what the tiling and proto libraries compile (issue 34).
  // The OpDef registration is built even when the CMakeLists does not name it.
  EXPECT_EQ(p.host_sources, (std::vector<std::string>{"op_host/my_op.cpp", "op_host/my_op_def.cc", "op_host/my_op_opdef.cpp"}));
  // Without the CMakeLists.txt every op_host source but aclnn_*.cpp is a host source again.
  fs::remove(pkg / "CMakeLists.txt");
  const auto q = ev::load_package(pkg);
  EXPECT_EQ(q.host_sources, (std::vector<std::string>{"op_host/my_op.cpp", "op_host/my_op_def.cc",
                                                      "op_host/my_op_infer.cc", "op_host/my_op_l0.cpp", "op_host/my_op_opdef.cpp"}));
}

TEST_F(CandidateTest, KeyDependsOnContentBackendProfileSeed) {
  ev::candidate base(pkg_);
  const auto k0 = base.key("sim", "910b4", 1, "tc");
  EXPECT_EQ(k0.size(), 64u);
  EXPECT_EQ(k0, ev::candidate(pkg_).key("sim", "910b4", 1, "tc"));  // deterministic
  EXPECT_NE(k0, base.key("sim", "a2", 1, "tc"));
  EXPECT_NE(k0, base.key("cann", "910b4", 1, "tc"));
  EXPECT_NE(k0, base.key("sim", "910b4", 2, "tc"));
  EXPECT_NE(k0, base.key("sim", "910b4", 1, "tc2"));
  ev::candidate changed(pkg_);
  changed.replace("op_kernel/my_op.cpp", "// kernel v2\n");
  EXPECT_NE(k0, changed.key("sim", "910b4", 1, "tc"));
  ev::candidate same(pkg_);
  same.replace("op_kernel/my_op.cpp", "// kernel\n");  // same content as the base file
  EXPECT_EQ(k0, same.key("sim", "910b4", 1, "tc"));
}

// With the baseline as reference, the same files checked against another base are another
// evaluation: a hand-edited package evaluated alone (its own reference, error 0) must not answer
// for the same files as a candidate of the original operator.
TEST_F(CandidateTest, KeyNamesTheBaselineItIsCheckedAgainst) {
  ev::candidate edited(pkg_);
  edited.replace("op_kernel/my_op.cpp", "// kernel, edited\n");
  const fs::path copy = dir_ / "copy";
  fs::create_directories(copy);
  fs::copy(dir_ / "pkg", copy / "pkg", fs::copy_options::recursive);
  std::ofstream(copy / "pkg" / "op_kernel" / "my_op.cpp") << "// kernel, edited\n";
  fs::copy_file(dir_ / "aopt.json", copy / "aopt.json");
  const auto alone = std::make_shared<const ev::op_package>(ev::load_package(copy / "pkg"));
  ASSERT_EQ(ev::candidate(alone).file_hashes(), edited.file_hashes()) << "same files";
  EXPECT_NE(ev::candidate(alone).key("sim", "910b4", 1, "tc"), edited.key("sim", "910b4", 1, "tc"));
}

TEST_F(CandidateTest, RejectsPathsOutsideTheSources) {
  ev::candidate c(pkg_);
  EXPECT_THROW(c.replace("../evil.cpp", "x"), aopt::error);
  EXPECT_THROW(c.replace("/etc/passwd", "x"), aopt::error);
  EXPECT_THROW(c.replace("aopt.json", "x"), aopt::error);
  EXPECT_NO_THROW(c.replace("op_kernel/helper.h", "x"));
}

TEST_F(CandidateTest, MaterializeWritesReplacements) {
  ev::candidate c(pkg_);
  c.replace("op_kernel/my_op.cpp", "// new\n");
  const fs::path out = dir_ / "out";
  c.materialize(out);
  std::ifstream k(out / "op_kernel" / "my_op.cpp");
  std::string s((std::istreambuf_iterator<char>(k)), std::istreambuf_iterator<char>());
  EXPECT_EQ(s, "// new\n");
  EXPECT_TRUE(fs::exists(out / "op_host" / "my_op_tiling.h"));
}

TEST(Package, KernelDirectLayoutIsUnsupportedWithAMessage) {
  const fs::path d = fs::temp_directory_path() / ("aopt-l2-test-" + std::to_string(::getpid()));
  fs::create_directories(d);
  std::ofstream(d / "add_custom.cpp") << "// kernel\n";
  try {
    ev::load_package(d);
    FAIL();
  } catch (const aopt::error& e) {
    EXPECT_EQ(e.code(), aopt::ec::unsupported);
    EXPECT_NE(std::string(e.what()).find("layout 2"), std::string::npos) << e.what();
  }
  fs::remove_all(d);
}

TEST(Package, ASuiteOperatorDirectoryNamesItsPackages) {
  // examples/ops/<op>/ holds aopt.json, reference.cpp and baseline/ (+ expert/): the error names
  // the package to pass instead of guessing a layout from reference.cpp.
  const fs::path d = fs::temp_directory_path() / ("aopt-suite-op-test-" + std::to_string(::getpid()));
  for (const char* sub : {"baseline/op_host", "baseline/op_kernel", "expert/op_host", "expert/op_kernel"}) {
    fs::create_directories(d / sub);
  }
  std::ofstream(d / "reference.cpp") << "// reference\n";
  std::ofstream(d / "aopt.json") << "{}\n";
  try {
    ev::load_package(d);
    FAIL();
  } catch (const aopt::error& e) {
    EXPECT_EQ(e.code(), aopt::ec::invalid_argument);
    const std::string what = e.what();
    EXPECT_NE(what.find("suite operator directory"), std::string::npos) << what;
    EXPECT_NE(what.find((d / "baseline").string()), std::string::npos) << what;
    EXPECT_NE(what.find((d / "expert").string()), std::string::npos) << what;
  }
  fs::remove_all(d);
}

// --spec: another aopt.json wins over the package's own; --timed-shape scales its timed case.
TEST_F(CandidateTest, SpecAndTimedShapeOptions) {
  const fs::path other = dir_ / "elsewhere" / "aopt.json";
  fs::create_directories(other.parent_path());
  std::ofstream(other) << R"({"kernel": "my_op", "cases": [{"name": "big", "timed": true,
      "inputs": {"x": {"shape": [16], "dtype": "float32"}}}]})";
  const auto p = ev::load_package(dir_ / "pkg", {other, {}});
  EXPECT_EQ(p.spec_file, other);
  EXPECT_EQ(p.spec.cases.at(0).name, "big");
  const auto q = ev::load_package(dir_ / "pkg", {{}, {2, 8}});
  EXPECT_EQ(q.spec_file, dir_ / "aopt.json");
  EXPECT_EQ(q.spec.cases.at(0).inputs.at(0).tensors.at(0).shape, (std::vector<std::int64_t>{2, 8}));
  EXPECT_NE(ev::candidate(std::make_shared<const ev::op_package>(q)).key("sim", "910b4", 1, "tc"),
            ev::candidate(pkg_).key("sim", "910b4", 1, "tc"));
  EXPECT_THROW(ev::load_package(dir_ / "pkg", {dir_ / "missing.json", {}}), aopt::error);
}
