// Which op_kernel/*.cpp is the kernel (evaluation/src/package.cpp, pick_kernel_source): with
// several sources and no hint (no aopt.json "kernel", no <op>_tiling.h), the one named as the
// operator's directory, as cann-ops' rnn/dynamic_rnn lays it out (op_host/dynamic_rnn.h holds
// the tiling struct; op_kernel/ has dynamic_rnn.cpp, LstmFP16.cpp, LstmFP32.cpp). Issue 38.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "aopt/common/error.h"
#include "aopt/evaluation/package.h"

namespace ev = aopt::evaluation;
namespace fs = std::filesystem;

namespace {

class KernelSourceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("aopt-kernel-source-" + std::to_string(::getpid()));
    fs::remove_all(root_);
    pkg_ = root_ / "dyn_op";
    fs::create_directories(pkg_ / "op_host");
    fs::create_directories(pkg_ / "op_kernel");
    std::ofstream(pkg_ / "op_host" / "dyn_op.h") << "BEGIN_TILING_DATA_DEF(DynOpTilingData)\nEND_TILING_DATA_DEF;\n";
    std::ofstream(pkg_ / "op_host" / "dyn_op.cpp") << "// host\n";
    std::ofstream(pkg_ / "op_kernel" / "LstmA.cpp") << "// a helper\n";
    std::ofstream(pkg_ / "op_kernel" / "LstmB.cpp") << "// another\n";
  }
  void TearDown() override { fs::remove_all(root_); }
  ev::op_package load() {
    ev::package_options o;
    o.without_cases = true;
    return ev::load_package(pkg_, o);
  }
  fs::path root_, pkg_;
};

}  // namespace

TEST_F(KernelSourceTest, SeveralSourcesAndNoHintTakeTheOneNamedAsTheDirectory) {
  std::ofstream(pkg_ / "op_kernel" / "dyn_op.cpp") << "extern \"C\" __global__ __aicore__ void dyn_op() {}\n";
  const auto p = load();
  EXPECT_EQ(p.kernel_source, "op_kernel/dyn_op.cpp");
}

TEST_F(KernelSourceTest, SeveralSourcesNoneNamedAsTheDirectoryStillAskForAName) {
  try {
    load();
    FAIL() << "loaded without telling which .cpp is the kernel";
  } catch (const aopt::error& e) {
    EXPECT_NE(std::string(e.what()).find("cannot tell which .cpp is the kernel"), std::string::npos) << e.what();
  }
}
