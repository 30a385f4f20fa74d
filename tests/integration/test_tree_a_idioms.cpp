// Idioms of the cann-ops tree's activation/conversion/quant/norm/pooling operators (issue 34,
// helper i34-tree-a), reproduced by fixture operators of our own under packages/tree_a (nothing
// taken from cann-ops): `aopt init --tree`, then the draft evaluated unedited, every case compared.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "../support/aopt_process.h"

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

const fs::path tree = fs::path(AOPT_TEST_SOURCE_DIR) / "tests/integration/packages/tree_a";

class TreeAIdioms : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("aopt-it-tree-a-" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  // `aopt init --tree` on the operator, then `aopt eval` of the draft: ok, every case comparing
  // a non-empty output that passed.
  void init_and_eval(const std::string& op, const std::string& elements = "8192") {
    const fs::path pkg = tree / op;
    const fs::path out = dir_ / (pkg.filename().string() + ".json");
    const auto i = aopt::testing::run_aopt({"init", pkg.string(), "--tree", tree.string(), "--out", out.string(), "--elements", elements}, 600);
    ASSERT_EQ(i.exit_code, 0) << i.out << i.err;
    const auto e = aopt::testing::run_aopt(
        {"eval", pkg.string(), "--tree", tree.string(), "--spec", out.string(), "--json", "--cache-dir", (dir_ / "cache").string()}, 900);
    ASSERT_EQ(e.exit_code, 0) << e.out << e.err;
    const json r = json::parse(e.out);
    EXPECT_EQ(r.value("status", ""), "ok") << r.dump(2);
    ASSERT_FALSE(r["cases"].empty()) << r.dump(2);
    for (const auto& c : r["cases"]) {
      ASSERT_FALSE(c["outputs"].empty()) << c.dump(2);
      for (const auto& o : c["outputs"]) {
        EXPECT_GT(o.value("elements", 0), 0) << c.dump(2);
        EXPECT_TRUE(o.value("passed", false)) << c.dump(2);
      }
    }
  }

  fs::path dir_;
};

}  // namespace

// cann-ops' circular_pad_grad: its tiling header includes its sibling's circular_pad_common.h by a
// relative path, and calls what that declares; the sibling's CMakeLists compiles
// circular_pad_common.cc into the tiling library, which the real build shares between operators.
// Before: the host link failed (undefined reference to optiling::EdgeChunkFloats), so no draft.
TEST_F(TreeAIdioms, SiblingSourceOfAnIncludedHeaderIsCompiled) { init_and_eval("src/pad/edge_user"); }

// cann-ops' gelu_quant: a header defining a non-inline function, included by the tiling source
// (optiling) and the OpDef source (opsproto), which the real build links into separate libraries;
// the OpDef's check-supported function takes a ge::Operator. Before: the host did not compile
// ('Operator' in namespace 'ge' does not name a type), and without that, the link failed on the
// function defined twice (optiling::ApartCeilDiv).
TEST_F(TreeAIdioms, TilingAndProtoLibrariesKeepTheirOwnDefinitions) { init_and_eval("src/activation/apart_scale"); }
