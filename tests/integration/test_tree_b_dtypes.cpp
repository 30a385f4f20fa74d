// Dtype idioms of the cann-ops tree's math operators (issue 34), each reproduced by a fixture
// operator of our own under packages/tree_b: the real `aopt init --tree` drafts a spec, and the
// real `aopt eval --tree` evaluates the draft unedited, ok, with its outputs compared.
#include <gtest/gtest.h>

#include <fstream>

#include <nlohmann/json.hpp>

#include "tree_b_draft.h"

using nlohmann::json;

namespace {

class TreeBDtypes : public aopt::testing::tree_b_draft_test {
 protected:
  TreeBDtypes() : tree_b_draft_test("aopt-it-tree-b-dt-") {}
};

}  // namespace

// `#if ORIG_DTYPE_X == DT_BF16 ... #elif ORIG_DTYPE_X == DT_FLOAT` (the tree's non_finite_check,
// lin_space, ...) and `if (ORIG_DTYPE_X == DT_INT4)` in code: the dtype macros are integers the
// preprocessor compares, and only the branch of x's dtype (float32) compiles. Before: sim defined
// ORIG_DTYPE_X as `ge::DT_FLOAT` ("token \"::\" is not valid in preprocessor expressions").
TEST_F(TreeBDtypes, OrigDtypeMacrosCompareInPreprocessorConditions) {
  const auto r = init_and_eval("src/math/orig_dtype_scale");
  ASSERT_TRUE(ok_and_compared(r, "y"));
}

// complex64 tensors (the tree's BLAS operators ccopy, scasum, scnrm2, icamax, ...): the draft
// names the dtype, the inputs are generated and the outputs compared as float pairs. Before: no
// dtype column ("no dtype column of ComplexScale's OpDef has only dtypes aopt.json knows").
TEST_F(TreeBDtypes, Complex64TensorsAreDraftedGeneratedAndCompared) {
  const auto r = init_and_eval("src/math/complex_scale");
  ASSERT_TRUE(ok_and_compared(r, "y"));
  const auto spec = json::parse(std::ifstream(dir_ / "complex_scale.json"));
  for (const auto& c : spec["cases"]) EXPECT_EQ(c["inputs"]["x"]["dtype"], "complex64") << spec.dump(1);
}

// The BLAS scal idiom (the tree's sscal): x = alpha x in place, alpha's default 1 the identity.
// The draft gives alpha 1.5 with a note, so the run writes x and x is compared. Before: alpha
// stayed 1, x came back unchanged, and the evaluation compared nothing (precision_error).
TEST_F(TreeBDtypes, AnInPlaceMultiplierIsDraftedOffItsIdentity) {
  const auto r = init_and_eval("src/math/inplace_scal");
  ASSERT_TRUE(ok_and_compared(r, "x"));
  const auto spec = json::parse(std::ifstream(dir_ / "inplace_scal.json"));
  for (const auto& c : spec["cases"]) EXPECT_EQ(c["attrs"]["alpha"], 1.5) << spec.dump(1);
}
