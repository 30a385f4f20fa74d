// Idioms of the cann-ops tree's math/norm/index/loss/pooling/image operators (issue 34), each
// reproduced by a fixture operator of our own under packages/tree_b: the real `aopt init --tree`
// drafts a spec, and the real `aopt eval --tree` evaluates the draft unedited, ok, with its
// outputs compared.
#include <gtest/gtest.h>

#include <fstream>

#include <nlohmann/json.hpp>

#include "tree_b_draft.h"

using nlohmann::json;

namespace {

class TreeBIdioms : public aopt::testing::tree_b_draft_test {
 protected:
  TreeBIdioms() : tree_b_draft_test("aopt-it-tree-b-") {}
};

}  // namespace

// The operator's CMakeLists lists the tree's src/common/inc before the CANN include directories:
// its own tiling/tiling_type.h (a name the emulated CANN headers also have) is the one found,
// and its shared tiling base calls the log's AlogCheckDebugLevel(OP, DLOG_DEBUG) through
// log/ops_log.h. Before: the emulated tiling/tiling_type.h shadowed the tree's (no
// TreeBTilingKey) and OP/DLOG_DEBUG were not declared.
TEST_F(TreeBIdioms, SharedHeadersComeBeforeTheEmulatedCannHeaders) {
  const auto r = init_and_eval("src/image/typed_scale");
  ASSERT_TRUE(ok_and_compared(r, "y"));
}

// BLAS-style vector routines (the tree's isamax, sasum, sscal, ...) take the vector's length as
// an attribute `n` whose default, 0, sizes the kernel's buffers to nothing. The draft gives n the
// element count of each case's main input, with a note. Before: n stayed 0 and every accepted
// shape failed when run (InitBuffer of length 0), so no draft.
TEST_F(TreeBIdioms, BlasLengthAttributeIsTheElementCount) {
  const auto r = init_and_eval("src/math/blas_scale");
  ASSERT_TRUE(ok_and_compared(r, "y"));
  const auto spec = json::parse(std::ifstream(dir_ / "blas_scale.json"));
  for (const auto& c : spec["cases"]) {
    std::int64_t count = 1;
    for (const auto& d : c["inputs"]["x"]["shape"]) count *= d.get<std::int64_t>();
    EXPECT_EQ(c["attrs"]["n"], count) << spec.dump(1);
  }
}

// Expand/reshape idiom (the tree's expand_v2): the output shape is an integer-list attribute
// `shape` declared without a value. The draft gives it each case's main shape (the identity),
// with a note. Before: it stayed [] and InferShape refused (or crashed on) every probe.
TEST_F(TreeBIdioms, OutputShapeAttributeIsTheMainShape) {
  const auto r = init_and_eval("src/math/shaped_scale");
  ASSERT_TRUE(ok_and_compared(r, "y"));
  const auto spec = json::parse(std::ifstream(dir_ / "shaped_scale.json"));
  for (const auto& c : spec["cases"]) EXPECT_EQ(c["attrs"]["shape"], c["inputs"]["x"]["shape"]) << spec.dump(1);
}

// The resize idiom of the image operators (upsample_* backward): `output_size` the spatial sizes
// of the output and `input_size` the forward input's shape, integer lists declared without a
// value. The draft gives them the identity resampling of each case's main shape (rank 4: its H and
// W, and the whole shape), with a note. Before: both were guessed [1], and the tiling refused
// every probe (init_error).
TEST_F(TreeBIdioms, ResizeSizesAreTheIdentityResampling) {
  const auto r = init_and_eval("src/image/resize_scale");
  ASSERT_TRUE(ok_and_compared(r, "y"));
  const auto spec = json::parse(std::ifstream(dir_ / "resize_scale.json"));
  for (const auto& c : spec["cases"]) {
    const auto& shape = c["inputs"]["grad_output"]["shape"];
    ASSERT_EQ(shape.size(), 4u) << spec.dump(1);
    EXPECT_EQ(c["attrs"]["input_size"], shape) << spec.dump(1);
    EXPECT_EQ(c["attrs"]["output_size"], json::array({shape[2], shape[3]})) << spec.dump(1);
  }
}

// The 3-D pooling idiom (the tree's avg_pool3_d, session 24): an OpDef declaring ND whose
// InferShape reads x's and y's origin format (NDHWC or NCDHW only), six pads, and a private
// attribute registered with IMPL_OP_INFERSHAPE(...).PrivateAttr after the OpDef's attributes.
// The harness gives ND tensors of rank 5 the layout data_format names and lays out the private
// attribute; init drafts pads as two zeros per spatial dimension. Before: the origin formats were
// ND, the private attribute absent and pads [1], so InferShape refused every probe (no draft).
TEST_F(TreeBIdioms, PoolingLayoutPadsAndPrivateAttribute) {
  const auto r = init_and_eval("src/pooling/pool_layout_scale");
  ASSERT_TRUE(r.is_object());
  EXPECT_EQ(r.value("status", ""), "ok") << r.dump(2);
  ASSERT_EQ(r["cases"].size(), 2u) << r.dump(2);
  for (const auto& c : r["cases"]) EXPECT_TRUE(compared(c, "y")) << c.dump(2);
}

// The grouped idiom of the tree's quantisation operators (group_quant): x [S, H], a float input of
// one row of H per group ([E, H], `scale shape length should be 2`) and an integer one of one
// value per group ([E], the cumulative row ends). The draft finds that family at rank 2, gives the
// group ends the row count (every row in group 0, valid ends), with notes. Before: every probe was
// refused ("scale shape length should be 2"), no draft.
TEST_F(TreeBIdioms, GroupedInputsAreOneRowAndOneValuePerGroup) {
  const auto r = init_and_eval("src/quant/group_rows_scale");
  ASSERT_TRUE(ok_and_compared(r, "y"));
  const auto spec = json::parse(std::ifstream(dir_ / "group_rows_scale.json"));
  for (const auto& c : spec["cases"]) {
    const auto& x = c["inputs"]["x"]["shape"];
    const auto& scale = c["inputs"]["scale"]["shape"];
    ASSERT_EQ(scale.size(), 2u) << spec.dump(1);
    EXPECT_EQ(scale[1], x[1]) << spec.dump(1);
    EXPECT_EQ(c["inputs"]["group_index"]["shape"], json::array({scale[0]})) << spec.dump(1);
    EXPECT_EQ(c["inputs"]["group_index"]["range"], json::array({x[0].get<double>(), x[0].get<double>()})) << spec.dump(1);
  }
}

// An output the kernel accumulates into with atomic adds (the tree's histogram_v2,
// embedding_dense_grad_v2) is declared with OpParamDef::InitValue(0): the runtime writes the
// initial value into it before the kernel runs. Fixture src/math/atomic_init (two cores each add
// x into y). Before: the harness left y holding its fill (fp32 ~1.3e36), the adds vanished in it,
// and init found no shape whose kernel wrote its output.
TEST_F(TreeBIdioms, InitValueClearsAnOutputBeforeTheKernelAccumulatesIntoIt) {
  const auto r = init_and_eval("src/math/atomic_init");
  ASSERT_TRUE(ok_and_compared(r, "y"));
}
