// The real `aopt corpus` on the fixture tree tests/corpus/tree (one operator per idiom real
// kernels rely on), and `aopt eval` on the padding fixtures: each idiom runs as on the chip.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <map>

#include <nlohmann/json.hpp>

#include "aopt/common/json.h"
#include "aopt/common/subprocess.h"

namespace fs = std::filesystem;

namespace {

aopt::common::process_outcome aopt_run(std::vector<std::string> args) {
  aopt::common::process_request r;
  r.argv = {AOPT_BINARY};
  r.argv.insert(r.argv.end(), args.begin(), args.end());
  r.limits.wall_timeout = std::chrono::seconds(600);
  r.limits.max_output_bytes = 4 << 20;
  return aopt::common::run_process(r);
}

class AoptCorpus : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("aopt-it-corpus-" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

}  // namespace

TEST_F(AoptCorpus, EveryIdiomRunsAndFailuresAreClassified) {
  const std::string tree = std::string(AOPT_TEST_SOURCE_DIR) + "/tests/corpus/tree";
  const std::string out = (dir_ / "c").string();
  const std::vector<std::string> common = {"corpus", tree, "-j", "2", "--out", out, "--cache-dir", (dir_ / "cache").string()};
  const auto o = aopt_run(common);
  ASSERT_EQ(o.exit_code, 0) << o.describe() << "\n" << o.out << o.err;
  EXPECT_NE(o.err.find("[8/8]"), std::string::npos) << "a progress line per operator: " << o.err;
  EXPECT_NE(o.out.find("corpus: 6 of 7 supported operators ok (8 operators, 1 unsupported)"), std::string::npos) << o.out;
  const auto j = aopt::common::read_json_file(out + ".json");
  std::map<std::string, nlohmann::json> by_op;
  for (const auto& e : j["operators"]) by_op[e["op"].get<std::string>()] = e;
  ASSERT_EQ(by_op.size(), 8u) << j.dump(1);
  for (const char* ok : {"src/math/tanh", "src/math/assert_tail", "src/math/pad_overread", "src/math/unaligned_copy",
                         "src/norm/raw_reduce", "src/math/sort32_topk"}) {
    EXPECT_EQ(by_op[ok]["status"], "ok") << ok << ": " << by_op[ok].dump();
  }
  EXPECT_EQ(by_op["src/math/broken"]["cause"], "missing_api");
  EXPECT_NE(by_op["src/math/broken"]["first_error"].get<std::string>().find("NoSuchVectorInstruction"), std::string::npos);
  EXPECT_EQ(by_op["src/matmul/cube_mm"]["cause"], "cube");
  EXPECT_TRUE(fs::exists(out + ".md"));

  // Resumed: everything is in the table already, nothing runs again.
  const auto again = aopt_run(common);
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_EQ(again.err.find("[1/8]"), std::string::npos) << again.err;
  EXPECT_NE(again.out.find("6 of 7"), std::string::npos) << again.out;
}

// The chip drops the tail of an unaligned DataCopy: the result says where, as a warning.
TEST_F(AoptCorpus, UnalignedCopyIsAWarning) {
  const auto o = aopt_run({"eval", std::string(AOPT_TEST_SOURCE_DIR) + "/tests/corpus/tree/src/math/unaligned_copy", "--json",
                           "--cache-dir", (dir_ / "cache").string()});
  const auto r = nlohmann::json::parse(o.out);
  EXPECT_EQ(r["status"], "ok") << r.dump(1);
  bool warned = false;
  for (const auto& w : r["warnings"]) warned |= w.get<std::string>().find("truncated_copy at") != std::string::npos;
  EXPECT_TRUE(warned) << r["warnings"].dump(1);
}

// A kernel whose result depends on the padding's contents fails the output check (the padding
// holds junk, as on the chip).
TEST_F(AoptCorpus, KernelReadingPaddingJunkFails) {
  const auto o = aopt_run({"eval", std::string(AOPT_TEST_SOURCE_DIR) + "/tests/integration/packages/pad_junk", "--json",
                           "--cache-dir", (dir_ / "cache").string()});
  const auto r = nlohmann::json::parse(o.out);
  EXPECT_EQ(r["status"], "precision_error") << r.dump(1);
  EXPECT_EQ(o.exit_code, 1);
}

// sim builds a kernel as the NPU build does: __CCE_KT_TEST__ (CANN's CPU-debug build) is not
// defined, so code under `#ifndef __CCE_KT_TEST__` runs, and a `<<<>>>` launch wrapper under that
// guard compiles (its launch rewritten for the host compiler, never called).
TEST_F(AoptCorpus, KernelIsBuiltAsTheNpuBuild) {
  const auto o = aopt_run({"eval", std::string(AOPT_TEST_SOURCE_DIR) + "/tests/integration/packages/npu_build", "--json",
                           "--cache-dir", (dir_ / "cache").string()});
  const auto r = nlohmann::json::parse(o.out);
  EXPECT_EQ(r["status"], "ok") << r.dump(1) << o.err;
  EXPECT_EQ(o.exit_code, 0);
}

// The kernel sees its tiling header's structs only, as the generated kernel_tiling.h: a host
// constant sizing a tiling array does not collide with the kernel's own constant of that name.
TEST_F(AoptCorpus, TilingHeaderConstantsStayOnTheHost) {
  const auto o = aopt_run({"eval", std::string(AOPT_TEST_SOURCE_DIR) + "/tests/integration/packages/tiling_constant",
                           "--json", "--cache-dir", (dir_ / "cache").string()});
  const auto r = nlohmann::json::parse(o.out);
  EXPECT_EQ(r["status"], "ok") << r.dump(1) << o.err;
  EXPECT_EQ(o.exit_code, 0);
}
