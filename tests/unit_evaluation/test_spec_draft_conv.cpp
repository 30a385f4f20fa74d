// `aopt init`'s convolution idiom (issue 38): an operator with `strides` and `pads` attributes and
// a `filter` (or `filter_size`) input is probed first with one convolution: x [N, C, S...], the
// filter [Cout, C, K...], the output gradient [N, Cout, S-K+1...], a size input the shape as data
// (every dimension equal, a range of one value). Before, every probe gave the inputs the main
// shape and a size input random values, and the conv3d backprop operators' InferShape made 'y' a
// shape with negative dimensions on every probe.
#include <gtest/gtest.h>

#include <vector>

#include "aopt/evaluation/backend.h"
#include "aopt/evaluation/spec_draft.h"
#include "spec_draft_test_util.h"

namespace ev = aopt::evaluation;
using spec_draft_test::attr;

namespace {

ev::draft_param param(const std::string& name, const std::string& dtype = "float16", const std::string& kind = "required") {
  ev::draft_param p;
  p.name = name;
  p.kind = kind;
  p.dtypes = {dtype};
  p.formats = {dtype == "int32" ? "ND" : "NCDHW"};
  return p;
}

// A fixture of the backprop idiom: three inputs, one of them a size given as data.
ev::op_interface conv_op(const std::string& type, std::vector<ev::draft_param> inputs) {
  ev::op_interface op;
  op.op_type = type;
  op.kernel = "k";
  op.inputs = std::move(inputs);
  op.outputs = {param("y", "float32")};
  op.has_infer_shape = true;
  op.attrs = {attr("strides", "list_int", nullptr), attr("pads", "list_int", nullptr),
              attr("dilations", "list_int", nlohmann::json::array({1, 1, 1, 1, 1})), attr("groups", "int", 1),
              attr("data_format", "string", "NDHWC")};
  return op;
}

const ev::tensor_spec& input(const ev::case_spec& c, const std::string& name) {
  for (const auto& i : c.inputs) {
    if (i.name == name) return i.tensors.front();
  }
  ADD_FAILURE() << "no input " << name;
  static const ev::tensor_spec none;
  return none;
}

using shape = std::vector<std::int64_t>;

}  // namespace

TEST(SpecDraftConv, ConvolutionOperatorsAreRecognisedByAttributesAndFilter) {
  auto op = conv_op("MyConvBackpropFilter", {param("x"), param("filter_size", "int32"), param("out_backprop")});
  EXPECT_TRUE(ev::convolution_op(op));
  auto pooling = op;
  pooling.inputs = {param("x")};  // strides and pads but no filter: a pooling, not this idiom
  EXPECT_FALSE(ev::convolution_op(pooling));
}

TEST(SpecDraftConv, BackpropFilterGetsTheFilterShapeAsData) {
  const auto op = conv_op("MyConvBackpropFilter", {param("x"), param("filter_size", "int32"), param("out_backprop")});
  std::vector<std::string> notes;
  const auto probes = ev::timed_probes(op, ev::draft_attrs(op, 0, notes));
  ASSERT_FALSE(probes.empty());
  ASSERT_TRUE(probes[0].conv) << probes[0].what;
  EXPECT_EQ(probes[0].rank, 5);
  const auto c = ev::probe_case(op, probes[0], 0, "perf", true, 1 << 21, false, &notes);
  EXPECT_EQ(input(c, "x").shape, (shape{2, 4, 8, 8, 8}));
  EXPECT_EQ(input(c, "filter_size").shape, (shape{5}));
  ASSERT_TRUE(input(c, "filter_size").range.has_value());
  EXPECT_EQ(*input(c, "filter_size").range, std::make_pair(4.0, 4.0));  // the filter [4, 4, 4, 4, 4]
  EXPECT_EQ(input(c, "out_backprop").shape, (shape{2, 4, 5, 5, 5}));
  EXPECT_EQ(c.attrs["strides"], nlohmann::json::array({1, 1, 1, 1, 1}));
  EXPECT_EQ(c.attrs["pads"], nlohmann::json::array({0, 0, 0, 0, 0, 0}));
  EXPECT_EQ(c.attrs["dilations"], nlohmann::json::array({1, 1, 1, 1, 1}));
  EXPECT_EQ(c.attrs["data_format"], "NCDHW");
}

TEST(SpecDraftConv, TransposeTakesXAsTheOutputGradient) {
  auto op = conv_op("MyConvTranspose", {param("input_size", "int32"), param("x"), param("filter"), param("bias", "float16", "optional")});
  op.attrs[2] = attr("dilations", "list_int", nlohmann::json::array({1, 1, 1, 1}));  // a 2-D operator
  for (auto& p : op.inputs) p.formats = {"ND"};
  std::vector<std::string> notes;
  const auto probes = ev::timed_probes(op, ev::draft_attrs(op, 0, notes));
  ASSERT_FALSE(probes.empty());
  ASSERT_TRUE(probes[0].conv);
  EXPECT_EQ(probes[0].rank, 4);
  const auto c = ev::probe_case(op, probes[0], 0, "perf", true, 1 << 21, false, &notes);
  EXPECT_EQ(c.inputs.size(), 3u);  // the optional bias left out
  EXPECT_EQ(*input(c, "input_size").range, std::make_pair(8.0, 8.0));  // the input [8, 8, 8, 8]
  EXPECT_EQ(input(c, "x").shape, (shape{8, 16, 6, 6}));
  EXPECT_EQ(input(c, "filter").shape, (shape{16, 8, 3, 3}));
  EXPECT_EQ(c.attrs["pads"], nlohmann::json::array({0, 0, 0, 0}));
  EXPECT_EQ(c.attrs["data_format"], "NCHW");
}

TEST(SpecDraftConv, BothSizesGivenMakeEveryDimensionEqual) {
  const auto g = ev::conv_shapes(5, true, true);
  EXPECT_EQ(g.input, (shape{8, 8, 8, 8, 8}));
  EXPECT_EQ(g.filter, (shape{8, 8, 8, 8, 8}));
  EXPECT_EQ(g.output, (shape{8, 8, 1, 1, 1}));
}

TEST(SpecDraftConv, TheTailCaseHasAnOddSpatialSize) {
  const auto g = ev::conv_shapes(4, false, false, true);
  EXPECT_EQ(g.input, (shape{2, 16, 7, 7}));
  EXPECT_EQ(g.output, (shape{2, 16, 5, 5}));
}

// Session 33: after the 3-wide convolution a pointwise one (filter spatial size 1): conv3dv2 runs
// its NCDHW formats only for a 1x1x1 filter (its pointwise kernel) and refused every 3-wide probe.
TEST(SpecDraftConv, APointwiseConvolutionFollowsTheFirst) {
  const auto op = conv_op("MyConv3D", {param("x"), param("filter"), param("bias", "float16", "optional")});
  std::vector<std::string> notes;
  const auto probes = ev::timed_probes(op, ev::draft_attrs(op, 0, notes));
  ASSERT_GE(probes.size(), 2u);
  ASSERT_TRUE(probes[1].conv) << probes[1].what;
  EXPECT_EQ(probes[1].conv_kernel, 1);
  const auto c = ev::probe_case(op, probes[1], 0, "perf", true, 1 << 21, false, &notes);
  EXPECT_EQ(input(c, "x").shape, (shape{2, 16, 8, 8, 8}));
  EXPECT_EQ(input(c, "filter").shape, (shape{16, 16, 1, 1, 1}));
  const auto first = ev::probe_case(op, probes[0], 0, "perf", true, 1 << 21, false, &notes);
  EXPECT_EQ(input(first, "filter").shape, (shape{16, 16, 3, 3, 3}));
}

// The column a case runs: among the dtype-matching ones, first one whose input formats are plain
// layouts that allow the tensors' ranks (conv3dv2: fp16 in NDC1HWC0 first, in NCDHW later; rank-5
// tensors run the NCDHW column, as the harness fills their descriptors), else by dtype alone.
TEST(SpecDraftConv, TheColumnPrefersPlainFormatsThatAllowTheRanks) {
  nlohmann::json sig = {{"inputs", nlohmann::json::array({
      {{"name", "x"}, {"dtypes", {"float16", "float16"}}, {"formats", {"NDC1HWC0", "NCDHW"}}},
      {{"name", "filter"}, {"dtypes", {"float16", "float16"}}, {"formats", {"FRACTAL_Z_3D", "NCDHW"}}}})}};
  auto tensor = [](shape s) {
    ev::tensor_spec t;
    t.shape = std::move(s);
    return t;
  };
  ev::case_spec c;
  c.name = "perf";
  c.inputs = {{"x", false, {tensor({2, 16, 8, 8, 8})}}, {"filter", false, {tensor({16, 16, 1, 1, 1})}}};
  std::string why;
  EXPECT_EQ(ev::select_column(sig, c, why), std::optional<std::size_t>(1)) << why;
  c.inputs = {{"x", false, {tensor({2, 8, 1, 8, 8, 16})}}, {"filter", false, {tensor({8, 1, 16, 16})}}};
  EXPECT_EQ(ev::select_column(sig, c, why), std::optional<std::size_t>(0)) << "no plain column fits rank 6: by dtype";
}
