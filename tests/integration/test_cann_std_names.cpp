// Names the real CANN host headers bring into scope (issue 34): cann-ops host sources use
// unqualified `string` (rnn/dynamic_rnn) and `map` (activation/ge_glu_grad_v2), and `std::set`
// without <set> (activation/dequant_swiglu_quant). Reproduced by a fixture operator of our own,
// packages/tree_b/src/math/std_scale: the real `aopt init --tree` drafts a spec and the real
// `aopt eval --tree` evaluates it, ok, with its output compared.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "../support/aopt_process.h"

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

const fs::path tree = fs::path(AOPT_TEST_SOURCE_DIR) / "tests/integration/packages/tree_b";

class CannStdNames : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("aopt-it-std-names-" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

}  // namespace

// Before: the host build failed ("'map' does not name a type", "'set' is not a member of 'std'",
// "'string' does not name a type"), so `aopt init` drafted nothing.
TEST_F(CannStdNames, HostCodeUsesTheStandardNamesTheCannHeadersBring) {
  const fs::path op = tree / "src/math/std_scale";
  const fs::path out = dir_ / "std_scale.json";
  const auto i = aopt::testing::run_aopt({"init", op.string(), "--tree", tree.string(), "--out", out.string(), "--elements", "8192"}, 600);
  ASSERT_EQ(i.exit_code, 0) << i.out << i.err;
  const auto e = aopt::testing::run_aopt(
      {"eval", op.string(), "--tree", tree.string(), "--spec", out.string(), "--json", "--cache-dir", (dir_ / "cache").string()}, 900);
  ASSERT_EQ(e.exit_code, 0) << e.out << e.err;
  const json r = json::parse(e.out);
  EXPECT_EQ(r.value("status", ""), "ok") << r.dump(2);
  ASSERT_FALSE(r["cases"].empty()) << r.dump(2);
  for (const auto& c : r["cases"]) {
    bool compared = false;
    for (const auto& o : c.value("outputs", json::array())) {
      if (o.value("name", "") == "y" && o.value("elements", 0) > 0) compared = true;
    }
    EXPECT_TRUE(compared) << c.dump(2);
  }
}
