// Dtype idioms of the cann-ops tree's math operators (issue 34), each reproduced by a fixture
// operator of our own under packages/tree_b: the real `aopt init --tree` drafts a spec, and the
// real `aopt eval --tree` evaluates the draft unedited, ok, with its outputs compared.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "../support/aopt_process.h"

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

const fs::path tree = fs::path(AOPT_TEST_SOURCE_DIR) / "tests/integration/packages/tree_b";

class TreeBDtypes : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("aopt-it-tree-b-dt-" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  // `aopt init OP --tree tree_b`, then `aopt eval OP --spec DRAFT --tree tree_b --json`.
  json init_and_eval(const std::string& rel) {
    const fs::path op = tree / rel;
    const fs::path out = dir_ / (op.filename().string() + ".json");
    const auto i = aopt::testing::run_aopt({"init", op.string(), "--tree", tree.string(), "--out", out.string(), "--elements", "8192"}, 600);
    EXPECT_EQ(i.exit_code, 0) << i.out << i.err;
    if (i.exit_code != 0) return json();
    const auto e = aopt::testing::run_aopt(
        {"eval", op.string(), "--tree", tree.string(), "--spec", out.string(), "--json", "--cache-dir", (dir_ / "cache").string()}, 900);
    EXPECT_EQ(e.exit_code, 0) << e.out << e.err;
    if (e.exit_code != 0) return json();
    return json::parse(e.out);
  }

  fs::path dir_;
};

bool compared(const json& c, const std::string& name) {
  for (const auto& o : c.value("outputs", json::array())) {
    if (o.value("name", "") == name && o.value("elements", 0) > 0) return true;
  }
  return false;
}

}  // namespace

// `#if ORIG_DTYPE_X == DT_BF16 ... #elif ORIG_DTYPE_X == DT_FLOAT` (the tree's non_finite_check,
// lin_space, ...) and `if (ORIG_DTYPE_X == DT_INT4)` in code: the dtype macros are integers the
// preprocessor compares, and only the branch of x's dtype (float32) compiles. Before: sim defined
// ORIG_DTYPE_X as `ge::DT_FLOAT` ("token \"::\" is not valid in preprocessor expressions").
TEST_F(TreeBDtypes, OrigDtypeMacrosCompareInPreprocessorConditions) {
  const auto r = init_and_eval("src/math/orig_dtype_scale");
  ASSERT_TRUE(r.is_object());
  EXPECT_EQ(r.value("status", ""), "ok") << r.dump(2);
  ASSERT_EQ(r["cases"].size(), 2u) << r.dump(2);
  for (const auto& c : r["cases"]) EXPECT_TRUE(compared(c, "y")) << c.dump(2);
}

// complex64 tensors (the tree's BLAS operators ccopy, scasum, scnrm2, icamax, ...): the draft
// names the dtype, the inputs are generated and the outputs compared as float pairs. Before: no
// dtype column ("no dtype column of ComplexScale's OpDef has only dtypes aopt.json knows").
TEST_F(TreeBDtypes, Complex64TensorsAreDraftedGeneratedAndCompared) {
  const auto r = init_and_eval("src/math/complex_scale");
  ASSERT_TRUE(r.is_object());
  EXPECT_EQ(r.value("status", ""), "ok") << r.dump(2);
  ASSERT_EQ(r["cases"].size(), 2u) << r.dump(2);
  for (const auto& c : r["cases"]) EXPECT_TRUE(compared(c, "y")) << c.dump(2);
  const auto spec = json::parse(std::ifstream(dir_ / "complex_scale.json"));
  for (const auto& c : spec["cases"]) EXPECT_EQ(c["inputs"]["x"]["dtype"], "complex64") << spec.dump(1);
}

// The BLAS scal idiom (the tree's sscal): x = alpha x in place, alpha's default 1 the identity.
// The draft gives alpha 1.5 with a note, so the run writes x and x is compared. Before: alpha
// stayed 1, x came back unchanged, and the evaluation compared nothing (precision_error).
TEST_F(TreeBDtypes, AnInPlaceMultiplierIsDraftedOffItsIdentity) {
  const auto r = init_and_eval("src/math/inplace_scal");
  ASSERT_TRUE(r.is_object());
  EXPECT_EQ(r.value("status", ""), "ok") << r.dump(2);
  ASSERT_EQ(r["cases"].size(), 2u) << r.dump(2);
  for (const auto& c : r["cases"]) EXPECT_TRUE(compared(c, "x")) << c.dump(2);
  const auto spec = json::parse(std::ifstream(dir_ / "inplace_scal.json"));
  for (const auto& c : spec["cases"]) EXPECT_EQ(c["attrs"]["alpha"], 1.5) << spec.dump(1);
}
