// Format idioms of the cann-ops tree's Cube kernels (issue 38), each reproduced by a fixture
// operator of our own under packages/tree_b: the real `aopt init --tree` drafts a spec, and the
// real `aopt eval --tree` evaluates the draft unedited, ok, with its outputs compared.
#include <gtest/gtest.h>

#include "tree_b_draft.h"

namespace {

class TreeBFormats : public aopt::testing::tree_b_draft_test {
 protected:
  TreeBFormats() : tree_b_draft_test("aopt-it-tree-b-fm-") {}
};

}  // namespace

// Fixture FormatScale (tree_b): y = 3 x, its code chosen by `#if defined(FORMAT_X) && FORMAT_X ==
// FORMAT_FRACTAL_NZ` after the kernel's own `#define FORMAT_FRACTAL_NZ` (empty) when the build
// has none (mat_mul_v3's idiom), and a format name as an `int` template argument. The build now
// defines FORMAT_<NAME>=FORMAT_<format of the column> and the names as the ge::Format integers.
// Before: no FORMAT_X, FORMAT_FRACTAL_NZ empty ("operator '==' has no right operand").
TEST_F(TreeBFormats, FormatMacrosCompareInPreprocessorConditions) {
  const auto r = init_and_eval("src/math/format_scale");
  ASSERT_TRUE(ok_and_compared(r, "y"));
}

// Fixture ColumnScale (tree_b, session 33): two columns of one dtype, NHWC then ND; the NHWC
// column's kernel writes nothing, so init's rank-4 probes move on and a rank-2 probe runs the ND
// column, whose kernel init now builds for it. Before: "sim backend: no kernel built for dtype
// column 1" (an internal error; add_sigmoid_mul_reduce_sum_d's draft failed so in the tree).
TEST_F(TreeBFormats, EachProbesKernelIsBuiltForTheColumnItRuns) {
  const auto r = init_and_eval("src/math/column_scale");
  ASSERT_TRUE(ok_and_compared(r, "y"));
}
