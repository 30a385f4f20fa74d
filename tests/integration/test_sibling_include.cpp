// Includes into a sibling operator (issue 34 item 2): cann-ops' gemm_v2 includes
// "../../mat_mul_v3/op_host/mat_mul_v3_tiling.h", which the real build (in the tree) resolves.
// Reproduced by fixture operators of our own, packages/tree_b/src/pair/{sibling,sibling_user}:
// with --tree the sibling's header (and the header it includes beside it) is brought into the
// build at its place in the tree; a relative include leading outside the tree root is refused,
// naming the file and the line.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>

#include <nlohmann/json.hpp>

#include "../support/aopt_process.h"

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

const fs::path tree = fs::path(AOPT_TEST_SOURCE_DIR) / "tests/integration/packages/tree_b";
const fs::path user = tree / "src/pair/sibling_user";

class SiblingInclude : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("aopt-it-sibling-" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

}  // namespace

// Before: the host build failed, "../../sibling/op_host/sibling_chunk.h: No such file or
// directory" (only the package's own files were materialized), so no draft.
TEST_F(SiblingInclude, SiblingHeaderIsBroughtInWithTree) {
  const fs::path out = dir_ / "sibling_user.json";
  const auto i = aopt::testing::run_aopt({"init", user.string(), "--tree", tree.string(), "--out", out.string(), "--elements", "8192"}, 600);
  ASSERT_EQ(i.exit_code, 0) << i.out << i.err;
  const auto e = aopt::testing::run_aopt(
      {"eval", user.string(), "--tree", tree.string(), "--spec", out.string(), "--json", "--cache-dir", (dir_ / "cache").string()}, 900);
  ASSERT_EQ(e.exit_code, 0) << e.out << e.err;
  const json r = json::parse(e.out);
  EXPECT_EQ(r.value("status", ""), "ok") << r.dump(2);
  ASSERT_EQ(r["cases"].size(), 2u) << r.dump(2);
  for (const auto& c : r["cases"]) {
    ASSERT_FALSE(c["outputs"].empty()) << c.dump(2);
    EXPECT_GT(c["outputs"][0].value("elements", 0), 0) << c.dump(2);
    EXPECT_TRUE(c["outputs"][0].value("passed", false)) << c.dump(2);
  }
}

// The tree root bounds what is read: without --tree it is the package itself, and a tree whose
// sibling directory is a symbolic link to a directory outside it leads out too. Both are refused
// before anything is built, with the including file and line. Before: a compile error in the
// work directory (no such file), or with the link, nothing told the include left the tree.
TEST_F(SiblingInclude, RelativeIncludeLeavingTheTreeIsRefused) {
  const std::string where = "sibling_user/op_host/sibling_user_tiling.h:6:";
  const auto alone = aopt::testing::run_aopt({"init", user.string(), "--out", (dir_ / "a.json").string()}, 600);
  EXPECT_NE(alone.exit_code, 0) << alone.out << alone.err;
  EXPECT_NE(alone.err.find(where), std::string::npos) << alone.err;
  EXPECT_NE(alone.err.find("outside the tree root"), std::string::npos) << alone.err;
  EXPECT_FALSE(fs::exists(dir_ / "a.json"));

  // dir_/tree/src/pair/sibling_user (a copy) and dir_/tree/src/pair/sibling -> dir_/outside/sibling.
  const fs::path t = dir_ / "tree";
  fs::create_directories(t / "src/pair");
  fs::create_directories(dir_ / "outside");
  fs::copy(user, t / "src/pair/sibling_user", fs::copy_options::recursive);
  fs::copy(tree / "src/pair/sibling", dir_ / "outside/sibling", fs::copy_options::recursive);
  fs::create_directory_symlink(dir_ / "outside/sibling", t / "src/pair/sibling");
  const auto linked = aopt::testing::run_aopt(
      {"init", (t / "src/pair/sibling_user").string(), "--tree", t.string(), "--out", (dir_ / "b.json").string()}, 600);
  EXPECT_NE(linked.exit_code, 0) << linked.out << linked.err;
  EXPECT_NE(linked.err.find(where), std::string::npos) << linked.err;
  EXPECT_NE(linked.err.find("outside the tree root"), std::string::npos) << linked.err;
  EXPECT_FALSE(fs::exists(dir_ / "b.json"));
}
