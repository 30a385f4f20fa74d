// The real `aopt eval` and `aopt corpus` on fixture operators of our own (issue 34): an operator
// whose CMakeLists.txt takes its tiling struct, tiling source and kernel helper from a shared
// directory of its tree (read only inside --tree), and an in-place operator, whose updated input
// is what gets checked (a kernel that does nothing fails).
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "aopt/common/subprocess.h"

namespace fs = std::filesystem;
using aopt::common::process_outcome;

namespace {

const fs::path source_dir = AOPT_TEST_SOURCE_DIR;
const fs::path packages = source_dir / "tests/integration/packages";

class AoptBuild : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    tmp_ = fs::temp_directory_path() / ("aopt-it-build-" + std::to_string(::getpid()));
    fs::remove_all(tmp_);
    fs::create_directories(tmp_);
  }
  static void TearDownTestSuite() { fs::remove_all(tmp_); }

  static process_outcome aopt(std::vector<std::string> args) {
    aopt::common::process_request r;
    r.argv = {AOPT_BINARY};
    r.argv.insert(r.argv.end(), args.begin(), args.end());
    r.limits.wall_timeout = std::chrono::seconds(280);
    r.limits.max_output_bytes = 4 << 20;
    return aopt::common::run_process(r);
  }
  static nlohmann::json eval_json(std::vector<std::string> args, int want_exit, std::string* err = nullptr) {
    std::vector<std::string> a = {"eval"};
    a.insert(a.end(), args.begin(), args.end());
    a.insert(a.end(), {"--json", "--cache-dir", (tmp_ / "cache").string()});
    const auto o = aopt(a);
    EXPECT_EQ(o.end, aopt::common::process_end::exited) << o.describe() << "\n" << o.err;
    EXPECT_EQ(o.exit_code, want_exit) << o.out << "\n" << o.err;
    if (err != nullptr) *err = o.err;
    try {
      return nlohmann::json::parse(o.out);
    } catch (const std::exception& e) {
      ADD_FAILURE() << "aopt printed no JSON (" << e.what() << "): " << o.out << "\n" << o.err;
      return nlohmann::json::object();
    }
  }
  static fs::path tmp_;
};
fs::path AoptBuild::tmp_;

bool compared(const nlohmann::json& c, const std::string& name) {
  for (const auto& o : c.value("outputs", nlohmann::json::array())) {
    if (o.value("name", "") == name && o.value("elements", 0) > 0) return true;
  }
  return false;
}

}  // namespace

TEST_F(AoptBuild, AnInPlaceOperatorIsCheckedOnTheInputItUpdates) {
  const auto r = eval_json({(packages / "inplace_axpy").string()}, 0);
  ASSERT_EQ(r.value("status", ""), "ok") << r.dump(2);
  ASSERT_EQ(r["cases"].size(), 2u);
  for (const auto& c : r["cases"]) EXPECT_TRUE(compared(c, "x")) << "x, written in place, must be compared: " << c.dump(2);
}

TEST_F(AoptBuild, AKernelOfAnInPlaceOperatorThatDoesNothingFails) {
  const auto r = eval_json({(packages / "inplace_axpy_noop").string(), "--spec", (packages / "inplace_axpy/aopt.json").string()}, 1);
  EXPECT_EQ(r.value("status", ""), "precision_error") << r.dump(2);
  // x keeps its old content where the reference updates it.
  EXPECT_NE(r.value("diagnostic", "").find("input 'x', compared as written in place"), std::string::npos) << r.dump(2);
}

TEST_F(AoptBuild, AnOutputNamedLikeItsInputIsBuiltWithTheRefMacros) {
  // y is an input and an output (a Ref parameter); its kernel types the written tensor with
  // DTYPE_Y_REF, which the build must define for the output, as it defines DTYPE_Y for the input.
  std::string err;
  const auto r = eval_json({(packages / "inplace_ref_axpy").string()}, 0, &err);
  ASSERT_EQ(r.value("status", ""), "ok") << r.dump(2) << err;
  for (const auto& c : r["cases"]) EXPECT_TRUE(compared(c, "y")) << c.dump(2);
}

TEST_F(AoptBuild, TheBuildFollowsTheCMakeListsIntoTheSharedDirectoryOfTheTree) {
  std::string err;
  const auto r = eval_json({(packages / "shared_tree/src/fixture/shared_scale").string(), "--tree", (packages / "shared_tree").string()}, 0, &err);
  ASSERT_EQ(r.value("status", ""), "ok") << r.dump(2) << err;
  EXPECT_TRUE(compared(r["cases"][0], "y")) << r.dump(2);
  // /etc, which the CMakeLists also names, is outside the tree: not followed, and said so.
  EXPECT_NE(err.find("/etc is outside the tree root"), std::string::npos) << err;
}

TEST_F(AoptBuild, WithoutTreeNothingOutsideTheOperatorIsRead) {
  const auto o = aopt({"eval", (packages / "shared_tree/src/fixture/shared_scale").string(), "--cache-dir", (tmp_ / "cache").string()});
  EXPECT_EQ(o.exit_code, 2) << o.out << o.err;
  EXPECT_NE(o.err.find("--tree"), std::string::npos) << o.err;
  EXPECT_NE(o.err.find("is outside the tree root"), std::string::npos) << o.err;
}

TEST_F(AoptBuild, ALinkInTheSharedDirectoryLeadingOutOfTheTreeIsNotFollowed) {
  const fs::path tree = tmp_ / "tree";
  fs::remove_all(tree);
  fs::copy(packages / "shared_tree", tree, fs::copy_options::recursive);
  fs::create_symlink("/etc/passwd", tree / "src/common/inc/fixture_shared/escape.h");
  std::string err;
  const auto r = eval_json({(tree / "src/fixture/shared_scale").string(), "--tree", tree.string(), "--no-cache"}, 0, &err);
  EXPECT_EQ(r.value("status", ""), "ok") << r.dump(2) << err;
  EXPECT_NE(err.find("escape.h leads outside the tree root; not copied"), std::string::npos) << err;
}

TEST_F(AoptBuild, TheCorpusReadsSharedDirectoriesInsideItsRoot) {
  const auto out = tmp_ / "corpus";
  const auto o = aopt({"corpus", (packages / "shared_tree/src").string(), "-j1", "--out", out.string(), "--cache-dir", (tmp_ / "cache").string()});
  EXPECT_EQ(o.exit_code, 0) << o.out << o.err;
  const auto j = nlohmann::json::parse(std::ifstream(out.string() + ".json"));
  // shared_scale, and shared_scale_def, whose op_host/ only registers the shared struct for its type.
  ASSERT_EQ(j["operators"].size(), 2u) << j.dump(2);
  for (const auto& op : j["operators"]) EXPECT_EQ(op["status"], "ok") << j.dump(2);
}

// A family's tiling function in a shared source of the tree (cann-ops' foreach operators): the
// search loads the package's own copy of it (aopt_shared/...) and Stage I tunes it; before, Stage I
// found no tiling function in op_host/ and a quarter of the real-operator bench ran one evaluation.
// Nothing is accepted here, so the optimized package carries no shared file.
TEST_F(AoptBuild, StageITunesATilingFunctionInASharedSourceOfTheTree) {
  const fs::path out = tmp_ / "shared-opt";
  const auto o = aopt({"optimize", (packages / "shared_tree/src/fixture/shared_scale").string(), "--tree",
                       (packages / "shared_tree").string(), "--budget", "4", "--out", out.string(), "--cache-dir",
                       (tmp_ / "cache").string()});
  ASSERT_EQ(o.exit_code, 0) << o.out << "\n" << o.err;
  EXPECT_NE(o.out.find("Stage I (tiling, 1 tunables in SharedScaleTilingFunc)"), std::string::npos) << o.out;
  EXPECT_EQ(o.out.find("no definition of the tiling function"), std::string::npos) << o.out;
  EXPECT_FALSE(fs::exists(out / "aopt_shared")) << "an unchanged shared file is not written";
}
