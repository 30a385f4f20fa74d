// `aopt init`'s shape families (issue 34, session 29): the pooling lists in PyTorch's per-dimension
// convention where the OpDef leaves it open, and a gradient operator given its forward input's
// shape as values (avg_pool3_d_grad: orig_input_shape).
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "aopt/evaluation/spec_draft.h"
#include "spec_draft_test_util.h"

namespace ev = aopt::evaluation;
using nlohmann::json;
using spec_draft_test::attr;

namespace {

ev::draft_param param(const std::string& name, const std::string& dtype) {
  ev::draft_param p;
  p.name = name;
  p.dtypes = {dtype};
  p.formats = {"ND"};
  return p;
}

// A pooling backward operator given its forward input's shape as data (TensorFlow's AvgPoolGrad
// signature with PyTorch's attributes), its lists declared with an empty default.
ev::op_interface pool_grad_op() {
  ev::op_interface op;
  op.op_type = "PoolFixture3DGrad";
  op.kernel = "pool_fixture3_d_grad";
  op.inputs = {param("orig_input_shape", "int32"), param("grads", "float16")};
  op.outputs = {param("output", "float16")};
  op.attrs = {attr("ksize", "list_int", json::array()), attr("strides", "list_int", json::array()),
              attr("pads", "list_int", json::array()), attr("count_include_pad", "bool", true),
              attr("data_format", "string", "NDHWC")};
  op.has_infer_shape = true;
  return op;
}

const ev::tensor_spec& input(const ev::case_spec& c, const std::string& name) {
  for (const auto& in : c.inputs) {
    if (in.name == name) return in.tensors.at(0);
  }
  ADD_FAILURE() << "no input " << name;
  static const ev::tensor_spec none;
  return none;
}

}  // namespace

TEST(SpecDraftShapes, PoolingListsEmptyByDefaultAreAlsoTriedOnePerSpatialDimension) {
  const auto op = pool_grad_op();
  std::vector<std::string> notes;
  const auto attrs = ev::draft_attrs(op, 0, notes);
  bool per_dimension = false, channel_first = false;
  for (const auto& p : ev::timed_probes(op, attrs, 64)) {
    const auto c = ev::probe_case(op, p, 0, "perf", true, 1 << 21, false, &notes);
    if (p.rank != 5 || c.attrs["pads"] != json::array({0, 0, 0})) continue;
    per_dimension = true;
    EXPECT_EQ(c.attrs["ksize"], json::array({1, 1, 1})) << c.attrs.dump();
    EXPECT_EQ(c.attrs["strides"], json::array({1, 1, 1})) << c.attrs.dump();
    channel_first = channel_first || c.attrs["data_format"] == "NCDHW";
  }
  EXPECT_TRUE(per_dimension) << "no rank-5 probe with one pad per spatial dimension";
  EXPECT_TRUE(channel_first) << "the per-dimension lists are not tried with the NCDHW layout";
  // The first probes keep the convention of two pads per spatial dimension (avg_pool3_d's InferShape).
  const auto first5 = spec_draft_test::rank_case(op, 5, notes);
  EXPECT_EQ(first5.attrs["pads"], json::array({0, 0, 0, 0, 0, 0})) << first5.attrs.dump();
}

TEST(SpecDraftShapes, ForwardInputShapeIsGivenAsValues) {
  const auto op = pool_grad_op();
  std::vector<std::string> notes;
  const auto c = spec_draft_test::rank_case(op, 5, notes);
  const auto& grads = input(c, "grads");
  const auto& shape = input(c, "orig_input_shape");
  ASSERT_EQ(grads.shape.size(), 5u);
  EXPECT_EQ(shape.shape, std::vector<std::int64_t>{5});
  EXPECT_EQ(shape.values, std::vector<double>(grads.shape.begin(), grads.shape.end()));
  EXPECT_TRUE(std::any_of(notes.begin(), notes.end(), [](const std::string& n) { return n.find("forward input's shape") != std::string::npos; }));
}

TEST(SpecDraftShapes, ForwardShapeRuleLeavesOtherShapeInputsAlone) {
  // normalized_shape (a layer norm's trailing dimensions) is not the forward input's shape.
  auto op = pool_grad_op();
  op.inputs.at(0).name = "normalized_shape";
  std::vector<std::string> notes;
  const auto c = spec_draft_test::rank_case(op, 5, notes);
  EXPECT_TRUE(input(c, "normalized_shape").values.empty());
}

TEST(SpecDraftShapes, CtcLossInputsTakeTheCtcShapes) {
  // PyTorch's ctc_loss backward signature, no InferShape.
  ev::op_interface op;
  op.op_type = "CtcFixtureGrad";
  op.kernel = "ctc_fixture_grad";
  op.inputs = {param("grad_out", "float32"),      param("log_probs", "float32"),          param("targets", "int64"),
               param("input_lengths", "int64"),   param("target_lengths", "int64"),       param("neg_log_likelihood", "float32"),
               param("log_alpha", "float32")};
  op.outputs = {param("grad", "float32")};
  op.attrs = {attr("blank", "int", 0), attr("zero_infinity", "bool", false)};
  std::vector<std::string> notes;
  const auto c = spec_draft_test::rank_case(op, 3, notes);
  const auto lp = input(c, "log_probs").shape;
  ASSERT_EQ(lp.size(), 3u);
  const std::int64_t t = lp[0], n = lp[1], cls = lp[2], s = std::max<std::int64_t>(t / 2, 1);
  EXPECT_EQ(input(c, "targets").shape, (std::vector<std::int64_t>{n, s}));
  ASSERT_TRUE(input(c, "targets").range.has_value());
  EXPECT_EQ(*input(c, "targets").range, std::make_pair(1.0, static_cast<double>(cls - 1)));  // never the blank 0
  EXPECT_EQ(*input(c, "input_lengths").range, std::make_pair(static_cast<double>(s), static_cast<double>(t)));
  EXPECT_EQ(*input(c, "target_lengths").range, std::make_pair(1.0, static_cast<double>(s)));
  for (const char* one : {"grad_out", "input_lengths", "target_lengths", "neg_log_likelihood"}) {
    EXPECT_EQ(input(c, one).shape, std::vector<std::int64_t>{n}) << one;
  }
  EXPECT_EQ(input(c, "log_alpha").shape, (std::vector<std::int64_t>{n, t, 2 * s + 1}));
  ASSERT_EQ(c.outputs.size(), 1u);
  EXPECT_EQ(c.outputs[0].shape, lp);  // the gradient of log_probs (no InferShape to shape it)
}

TEST(SpecDraftShapes, InferShapeBypassingProbesAlsoAtRanksFourAndFive) {
  // An ND padding backward operator with an InferShape (pad_v3_grad_replication's refuses every
  // shape; its tiling reads 4 or 5 dimensions).
  ev::op_interface op;
  op.op_type = "PadFixtureGrad";
  op.kernel = "pad_fixture_grad";
  op.inputs = {param("x", "float16"), param("paddings", "int32")};
  op.outputs = {param("y", "float16")};
  op.has_infer_shape = true;
  std::vector<std::string> notes;
  const auto attrs = ev::draft_attrs(op, 0, notes);
  std::vector<int> given;
  for (const auto& p : ev::timed_probes(op, attrs, 64)) {
    if (p.outputs_given && std::find(given.begin(), given.end(), p.rank) == given.end()) given.push_back(p.rank);
  }
  EXPECT_NE(std::find(given.begin(), given.end(), 4), given.end());
  EXPECT_NE(std::find(given.begin(), given.end(), 5), given.end());
  EXPECT_EQ(std::find(given.begin(), given.end(), 3), given.end());  // rank 3 only for the resize idiom
}
