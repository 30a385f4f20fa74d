// `aopt init`'s shape idioms of issue 34 (session 27): the GLU halves (a GLU backward operator's
// inputs other than x are x halved along `dim`), the output-sized timed probe (an InferShape whose
// output grows as a power of the input: the input sized so the output holds about the elements
// wanted), sequence lengths (one per batch entry) and the resize idiom read channel-last for an
// ND operator. Fixtures are op_interfaces written here.
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "aopt/evaluation/spec_draft.h"
#include "spec_draft_test_util.h"

namespace ev = aopt::evaluation;
using nlohmann::json;
using spec_draft_test::attr;

namespace {

ev::draft_param fp16(const std::string& name) {
  ev::draft_param p;
  p.name = name;
  p.dtypes = {"float16"};
  p.formats = {"ND"};
  return p;
}

// A GLU-family backward operator: dy (the output's gradient) and a saved activation, and x.
ev::op_interface glu_grad_op(const std::string& op_type, std::vector<ev::draft_attr> attrs) {
  ev::op_interface op;
  op.op_type = op_type;
  op.kernel = "glu_grad";
  op.inputs = {fp16("dy"), fp16("x"), fp16("act")};
  op.outputs = {fp16("dx")};
  op.attrs = std::move(attrs);
  return op;
}

const std::vector<std::int64_t>& shape_of(const ev::case_spec& c, const std::string& name) {
  for (const auto& i : c.inputs) {
    if (i.name == name) return i.tensors.at(0).shape;
  }
  static const std::vector<std::int64_t> none;
  ADD_FAILURE() << "no input " << name;
  return none;
}

}  // namespace

TEST(SpecDraftGlu, BackwardInputsOtherThanXAreXHalvedAlongDim) {
  const auto op = glu_grad_op("SwiGluGradV9", {attr("dim", "int", -1)});
  std::vector<std::string> notes;
  const auto attrs = ev::draft_attrs(op, 0, notes);
  const auto probes = ev::timed_probes(op, attrs, 100);
  ASSERT_FALSE(probes.empty());
  const auto c = ev::probe_case(op, probes.front(), 0, "perf", true, 1 << 21, false, &notes);
  const auto& x = shape_of(c, "x");
  auto half = x;
  half.back() /= 2;
  EXPECT_EQ(shape_of(c, "dy"), half);
  EXPECT_EQ(shape_of(c, "act"), half);
  // No InferShape: the harness would shape dx like dy; it is given x's shape.
  ASSERT_EQ(c.outputs.size(), 1u);
  EXPECT_EQ(c.outputs[0].name, "dx");
  EXPECT_EQ(*c.outputs[0].shape, x);
  EXPECT_TRUE(std::any_of(notes.begin(), notes.end(), [](const std::string& n) { return n.find("GLU idiom") != std::string::npos; }));
  // `dim` 0 halves the first dimension; the unaligned tail's odd last dimension is doubled in x so
  // the halves keep it.
  for (const auto& p : probes) {
    if (p.attrs.value("dim", -1) != 0) continue;
    const auto d = ev::probe_case(op, p, 0, "perf", true, 1 << 21, false);
    auto h0 = shape_of(d, "x");
    h0.front() /= 2;
    EXPECT_EQ(shape_of(d, "dy"), h0) << p.what;
    break;
  }
  const auto tail = ev::probe_case(op, ev::tail_probes(probes.front()).front(), 0, "tail", false, 1 << 21, true);
  EXPECT_EQ(shape_of(tail, "x").back() % 2, 0);
  EXPECT_EQ(shape_of(tail, "dy").back() % 2, 1);
}

TEST(SpecDraftGlu, AForwardOperatorWithoutInferShapeGetsHalfOutputs) {
  ev::op_interface op;
  op.op_type = "DequantSwiGluQuantV9";
  op.kernel = "dsq";
  op.inputs = {fp16("x")};
  op.outputs = {fp16("y"), fp16("scale")};
  std::vector<std::string> notes;
  const auto c = spec_draft_test::rank_case(op, 2, notes);
  const auto& x = shape_of(c, "x");
  ASSERT_EQ(c.outputs.size(), 2u);
  EXPECT_EQ(*c.outputs[0].shape, (std::vector<std::int64_t>{x[0], x[1] / 2}));
  EXPECT_EQ(*c.outputs[1].shape, (std::vector<std::int64_t>{x[0]}));
  op.has_infer_shape = true;  // InferShape decides
  EXPECT_TRUE(spec_draft_test::rank_case(op, 2, notes).outputs.empty());
  // unless a probe bypasses it (dequant_swiglu_quant's InferShape returns before it halves y).
  const auto attrs = ev::draft_attrs(op, 0, notes);
  bool given = false;
  for (const auto& p : ev::timed_probes(op, attrs, 100)) {
    if (!p.outputs_given || p.rank != 2) continue;
    const auto d = ev::probe_case(op, p, 0, "perf", true, 1 << 21, false);
    const auto& xd = shape_of(d, "x");
    ASSERT_EQ(d.outputs.size(), 2u);
    EXPECT_EQ(*d.outputs[0].shape, (std::vector<std::int64_t>{xd[0], xd[1] / 2}));
    EXPECT_EQ(*d.outputs[1].shape, (std::vector<std::int64_t>{xd[0]}));
    given = true;
  }
  EXPECT_TRUE(given);
}

TEST(SpecDraftGlu, OnlyGluBackwardOperatorsAreHalved) {
  std::vector<std::string> notes;
  for (const char* type : {"AddGrad", "GeGluV9"}) {
    const auto op = glu_grad_op(type, {attr("dim", "int", -1)});
    const auto attrs = ev::draft_attrs(op, 0, notes);
    const auto c = ev::probe_case(op, ev::timed_probes(op, attrs, 100).front(), 0, "perf", true, 1 << 21, false);
    EXPECT_EQ(shape_of(c, "dy"), shape_of(c, "x")) << type;
  }
}

TEST(SpecDraftOutputSize, AnOutputGrowingAsASquareSizesTheInputToItsRoot) {
  // A vector of n makes an n x n matrix: 2^21 elements wanted, an input of about 1448.
  EXPECT_EQ(ev::size_for_output(1 << 21, 1 << 21, std::int64_t{1} << 42), 1448);
  EXPECT_EQ(ev::size_for_output(1 << 21, 1000, 1000 * 1000), 1448);
  // A cube: the cube root.
  EXPECT_EQ(ev::size_for_output(1 << 21, 100, 1000000), 128);
  // Not faster than the input: nothing to resize.
  EXPECT_EQ(ev::size_for_output(1 << 21, 1000, 1000), 0);
  EXPECT_EQ(ev::size_for_output(1 << 21, 1000, 500), 0);
  EXPECT_EQ(ev::size_for_output(1 << 21, 1, 100), 0);
}

TEST(SpecDraftSequence, SequenceLengthsAreOnePerBatchEntry) {
  ev::op_interface op;
  op.op_type = "ReverseSeq";
  op.kernel = "reverse_seq";
  ev::draft_param lengths;
  lengths.name = "seq_lengths";
  lengths.dtypes = {"int32"};
  lengths.formats = {"ND"};
  op.inputs = {fp16("x"), lengths};
  op.outputs = {fp16("y")};
  op.attrs = {attr("seq_dim", "int", 0), attr("batch_dim", "int", 0)};
  EXPECT_EQ(ev::guess_role(op.op_type, lengths), ev::input_role::index);
  std::vector<std::string> notes;
  const auto c = spec_draft_test::rank_case(op, 3, notes);
  const auto& x = shape_of(c, "x");
  ASSERT_EQ(x.size(), 3u);
  EXPECT_EQ(shape_of(c, "seq_lengths"), std::vector<std::int64_t>{x.front()});
  // seq_dim left at 0, batch_dim 0: the sequence dimension is the one after the batch dimension.
  EXPECT_EQ(c.attrs["seq_dim"], 1) << c.attrs.dump();
  EXPECT_EQ(c.attrs["batch_dim"], 0) << c.attrs.dump();
}

TEST(SpecDraftResize, AnNdOperatorAlsoReadsOutputSizeChannelLast) {
  auto op = spec_draft_test::unary_op("UpsampleNd", "upsample_nd", "x", {attr("output_size", "list_int", json())});
  std::vector<std::string> notes;
  const auto attrs = ev::draft_attrs(op, 0, notes);
  bool seen = false;
  for (const auto& p : ev::timed_probes(op, attrs, 100)) {
    if (!p.channels_last || p.resize_scale != 1) continue;
    const auto c = ev::probe_case(op, p, 0, "perf", true, 1 << 21, false);
    const auto& x = shape_of(c, "x");
    EXPECT_EQ(c.attrs["output_size"].get<std::vector<std::int64_t>>(), std::vector<std::int64_t>(x.begin() + 1, x.end() - 1)) << p.what;
    seen = true;
  }
  EXPECT_TRUE(seen);
  // A channel-first format has no such probe.
  op.inputs.front().formats = {"NCHW"};
  for (const auto& p : ev::timed_probes(op, attrs, 100)) EXPECT_FALSE(p.channels_last) << p.what;
}

// After the identity's probes, a 2x upsample (upsample_bilinear2d_aa divides by zero cores at scale
// 1): output_size twice the spatial sizes, and without an InferShape the output given that shape.
TEST(SpecDraftResize, TwoTimesUpsampleProbesComeAfterTheIdentityAndShapeTheOutput) {
  auto op = spec_draft_test::unary_op("UpsampleNd", "upsample_nd", "x", {attr("output_size", "list_int", json())});
  op.has_infer_shape = false;
  std::vector<std::string> notes;
  const auto attrs = ev::draft_attrs(op, 0, notes);
  const auto probes = ev::timed_probes(op, attrs, 100);
  std::size_t first_scaled = probes.size(), last_identity = 0;
  int first = 0, last = 0;
  for (std::size_t i = 0; i < probes.size(); ++i) {
    const auto& p = probes[i];
    if (p.resize_scale == 1) {
      last_identity = i;
      continue;
    }
    first_scaled = std::min(first_scaled, i);
    ASSERT_EQ(p.resize_scale, 2) << p.what;
    std::vector<std::string> case_notes;
    const auto c = ev::probe_case(op, p, 0, "perf", true, 1 << 21, false, &case_notes);
    const auto& x = shape_of(c, "x");
    ASSERT_GE(x.size(), 3u) << p.what;
    const std::size_t from = p.channels_last ? 1 : 2;
    std::vector<std::int64_t> want(x.begin() + static_cast<std::ptrdiff_t>(from),
                                   x.begin() + static_cast<std::ptrdiff_t>(from + x.size() - 2));
    for (auto& v : want) v *= 2;
    EXPECT_EQ(c.attrs["output_size"].get<std::vector<std::int64_t>>(), want) << p.what;
    ASSERT_EQ(c.outputs.size(), 1u) << p.what;
    auto y = x;
    std::copy(want.begin(), want.end(), y.begin() + static_cast<std::ptrdiff_t>(from));
    EXPECT_EQ(c.outputs.front().shape, y) << p.what;
    (p.channels_last ? last : first) += 1;
  }
  EXPECT_GT(first, 0);
  EXPECT_GT(last, 0);
  EXPECT_LT(last_identity, first_scaled) << "every identity probe before the first 2x one";
}

TEST(SpecDraftGrid, AGridSamplesTheMainShapesSpatialSizes) {
  ev::op_interface op;
  op.op_type = "GridSampleNd";
  op.kernel = "grid_sample_nd";
  op.inputs = {fp16("x"), fp16("grid")};
  op.outputs = {fp16("y")};
  op.attrs = {attr("align_corners", "bool", false), attr("channel_last", "bool", false)};
  EXPECT_EQ(ev::guess_role(op.op_type, op.inputs[1]), ev::input_role::grid);
  EXPECT_EQ(ev::guess_role("Add", op.inputs[1]), ev::input_role::data) << "only a grid operator's";
  std::vector<std::string> notes;
  const auto c = spec_draft_test::rank_case(op, 4, notes);
  const auto& x = shape_of(c, "x");
  ASSERT_EQ(x.size(), 4u);
  EXPECT_EQ(shape_of(c, "grid"), (std::vector<std::int64_t>{x[0], x[2], x[3], 2}));
  const auto& grid = c.inputs.at(1).tensors.at(0);
  ASSERT_TRUE(grid.range.has_value());
  EXPECT_EQ(grid.range->first, -1.0);
  EXPECT_EQ(grid.range->second, 1.0);
  const auto five = spec_draft_test::rank_case(op, 5, notes);
  const auto& x5 = shape_of(five, "x");
  EXPECT_EQ(shape_of(five, "grid"), (std::vector<std::int64_t>{x5[0], x5[2], x5[3], x5[4], 3}));
  // channel_last: the spatial sizes are between N and C.
  op.attrs.back() = attr("channel_last", "bool", true);
  const auto last = spec_draft_test::rank_case(op, 4, notes);
  const auto& xl = shape_of(last, "x");
  EXPECT_EQ(shape_of(last, "grid"), (std::vector<std::int64_t>{xl[0], xl[1], xl[2], 2}));
}

TEST(SpecDraftTopK, AnIntegerKIsOneSmallCount) {
  ev::draft_param k;
  k.name = "k";
  k.dtypes = {"int32"};
  EXPECT_EQ(ev::guess_role("TopKV9", k), ev::input_role::scalar);
  const auto g = ev::guess_range("TopKV9", k, 1, ev::input_role::scalar, aopt::evaluation::dtype::int32, 1024);
  ASSERT_TRUE(g.range.has_value());
  EXPECT_EQ(g.range->first, 8.0);
  EXPECT_EQ(g.range->second, 8.0);
  // A float k (a rate, a constant) is not a count.
  ev::draft_param kf = k;
  kf.dtypes = {"float16"};
  EXPECT_NE(ev::guess_role("TopKV9", kf), ev::input_role::scalar);
}

TEST(SpecDraftResize, OutputsGivenProbesIncludeTheSpatialRanks) {
  auto op = spec_draft_test::unary_op("Upsample3dNd", "upsample_3d_nd", "x",
                                      {attr("output_size", "list_int", json()), attr("scale_d", "float", json())});
  op.has_infer_shape = true;
  std::vector<std::string> notes;
  const auto attrs = ev::draft_attrs(op, 0, notes);
  bool five = false;
  for (const auto& p : ev::timed_probes(op, attrs, 100)) {
    if (!p.outputs_given || p.rank != 5) continue;
    const auto c = ev::probe_case(op, p, 0, "perf", true, 1 << 21, false);
    const auto& x = shape_of(c, "x");
    EXPECT_EQ(c.attrs["output_size"].get<std::vector<std::int64_t>>(), std::vector<std::int64_t>(x.begin() + 2, x.end()));
    ASSERT_EQ(c.outputs.size(), 1u);
    EXPECT_EQ(*c.outputs[0].shape, x);
    five = true;
  }
  EXPECT_TRUE(five);
}

// Session 28 (instance_norm_v3's idiom): a layout attribute's other values are tried at the rank
// each names (an OpDef default of NDHWC whose tiling reads NCHW only), and a norm without
// InferShape gets its statistics outputs one value per normalised group, dimensions kept.
namespace {

// A norm of x, gamma, beta with outputs y and the two statistics named, no InferShape.
ev::op_interface norm_op(const std::string& op_type, const std::string& stat1, const std::string& stat2,
                         std::vector<ev::draft_attr> attrs) {
  ev::op_interface op;
  op.op_type = op_type;
  op.kernel = "norm";
  op.inputs = {fp16("x"), fp16("gamma"), fp16("beta")};
  op.outputs = {fp16("y"), fp16(stat1), fp16(stat2)};
  op.attrs = std::move(attrs);
  return op;
}

// Both statistics outputs of the rank-2 timed case have `shape` (x's first dimension for -1).
void expect_stats(const ev::op_interface& op, std::vector<std::int64_t> shape) {
  std::vector<std::string> notes;
  const auto c = spec_draft_test::rank_case(op, 2, notes);
  shape[0] = shape_of(c, "x")[0];
  ASSERT_EQ(c.outputs.size(), 2u);  // y is left to the harness (x's shape)
  EXPECT_EQ(*c.outputs[0].shape, shape);
  EXPECT_EQ(*c.outputs[1].shape, shape);
}

}  // namespace

TEST(SpecDraftLayout, ALayoutVariantIsProbedAtTheRankItNames) {
  const auto op = norm_op("InstanceNormV9", "mean", "variance",
                          {attr("data_format", "string", "NDHWC"), attr("epsilon", "float", 1e-6)});
  std::vector<std::string> notes;
  const auto attrs = ev::draft_attrs(op, 0, notes);
  ASSERT_EQ(attrs.value("data_format", ""), "NDHWC");
  bool nchw = false;
  for (const auto& p : ev::timed_probes(op, attrs, 200)) {
    if (p.attrs.value("data_format", "") != "NCHW") continue;
    EXPECT_EQ(p.rank, 4) << p.what;
    if (p.what.find("roles by name") == std::string::npos) continue;
    const auto c = ev::probe_case(op, p, 0, "perf", true, 1 << 21, false);
    const auto& x = shape_of(c, "x");
    ASSERT_EQ(x.size(), 4u);
    EXPECT_EQ(shape_of(c, "gamma"), (std::vector<std::int64_t>{x[1]}));  // per channel, NCHW
    ASSERT_EQ(c.outputs.size(), 2u);
    for (const auto& o : c.outputs) EXPECT_EQ(*o.shape, (std::vector<std::int64_t>{x[0], x[1], 1, 1})) << o.name;
    nchw = true;
  }
  EXPECT_TRUE(nchw);
}

TEST(SpecDraftLayout, StatisticsOutputsOfANormWithoutInferShape) {
  auto op = norm_op("LayerNormV9", "mean", "rstd", {});
  expect_stats(op, {-1, 1});
  std::vector<std::string> notes;
  op.has_infer_shape = true;  // InferShape decides
  EXPECT_TRUE(spec_draft_test::rank_case(op, 2, notes).outputs.empty());
  op.has_infer_shape = false;  // an operator that is no norm keeps the harness's shapes
  op.op_type = "AddV9";
  EXPECT_TRUE(spec_draft_test::rank_case(op, 2, notes).outputs.empty());
}

TEST(SpecDraftLayout, AGroupNormsStatisticsOutputsAreOnePerSampleAndGroup) {
  expect_stats(norm_op("GroupNormV9", "mean", "rstd", {attr("num_groups", "int", 4)}), {-1, 4});
}

// The slice idiom (session 28): integer begin/end/strides/axes inputs the tiling reads are one value
// per dimension of the main input, the whole slice (strided_slice_assign_v2 crashed on begin/end/
// strides shaped like var with random values).
TEST(SpecDraftSlice, BeginEndStridesAxesAreTheWholeSlice) {
  ev::op_interface op;
  op.op_type = "StridedSliceAssignFixture";
  op.kernel = "strided_slice_assign_fixture";
  op.inputs = {fp16("var"), fp16("input_value")};
  for (const char* n : {"begin", "end", "strides", "axes"}) {
    ev::draft_param p;
    p.name = n;
    p.dtypes = {"int64"};
    p.formats = {"ND"};
    p.value_depend = true;
    op.inputs.push_back(p);
  }
  op.outputs = {fp16("var_out")};
  std::vector<std::string> notes;
  const auto c = spec_draft_test::rank_case(op, 2, notes);
  const auto& var = shape_of(c, "var");
  ASSERT_EQ(var.size(), 2u);
  EXPECT_EQ(shape_of(c, "input_value"), var);
  auto values_of = [&](const std::string& name) {
    for (const auto& i : c.inputs) {
      if (i.name == name) return i.tensors.at(0).values;
    }
    return std::vector<double>{};
  };
  EXPECT_EQ(shape_of(c, "begin"), (std::vector<std::int64_t>{2}));
  EXPECT_EQ(values_of("begin"), (std::vector<double>{0, 0}));
  EXPECT_EQ(values_of("end"), (std::vector<double>{static_cast<double>(var[0]), static_cast<double>(var[1])}));
  EXPECT_EQ(values_of("strides"), (std::vector<double>{1, 1}));
  EXPECT_EQ(values_of("axes"), (std::vector<double>{0, 1}));
  EXPECT_TRUE(std::any_of(notes.begin(), notes.end(), [](const std::string& n) { return n.find("slice idiom") != std::string::npos; }));
  // The draft carries the values as each input's "value" (session 29: they were probed, then
  // left out of aopt.json, and eval generated random slices the tiling refused).
  const auto draft = ev::draft_json(op.kernel, {c}, notes);
  const auto& ins = draft["cases"][0]["inputs"];
  EXPECT_EQ(ins["begin"]["value"], nlohmann::ordered_json::parse("[0.0, 0.0]")) << ins.dump();
  EXPECT_EQ(ins["end"]["value"].size(), 2u) << ins.dump();
  EXPECT_EQ(ins["end"]["value"][1].get<double>(), static_cast<double>(var[1])) << ins.dump();
  EXPECT_FALSE(ins["var"].contains("value")) << ins.dump();
}

// Session 28: index values in every probe. An index_add with sorted indices (var, value,
// sorted_indices, pos: positions into value) and an embedding bag (indices, offsets of the bags).
namespace {

ev::draft_param i32(const std::string& name) {
  ev::draft_param p = fp16(name);
  p.dtypes = {"int32"};
  return p;
}

const ev::tensor_spec& tensor_of(const ev::case_spec& c, const std::string& name) {
  for (const auto& i : c.inputs) {
    if (i.name == name) return i.tensors.at(0);
  }
  static const ev::tensor_spec none;
  ADD_FAILURE() << "no input " << name;
  return none;
}

}  // namespace

TEST(SpecDraftIndex, IndicesAreBoundedInEveryProbeEvenShapedAsData) {
  ev::op_interface op;
  op.op_type = "IndexAddSortedNd";
  op.kernel = "index_add_sorted_nd";
  op.inputs = {fp16("var"), fp16("value"), i32("sorted_indices"), i32("pos")};
  op.outputs = {fp16("var")};
  op.attrs = {attr("axis", "int", 0)};
  EXPECT_EQ(ev::guess_role(op.op_type, op.inputs[3]), ev::input_role::index) << "pos: positions";
  EXPECT_TRUE(ev::sorted_input(op.inputs[2]));
  EXPECT_FALSE(ev::sorted_input(op.inputs[3]));
  std::vector<std::string> notes;
  const auto attrs = ev::draft_attrs(op, 0, notes);
  int probes = 0;
  for (const auto& p : ev::timed_probes(op, attrs, 200)) {
    for (bool tail : {false, true}) {
      const auto c = ev::probe_case(op, p, 0, "perf", true, 1 << 21, tail, &notes);
      const auto& var = tensor_of(c, "var").shape;
      const auto bound = *std::min_element(var.begin(), var.end());
      for (const char* name : {"sorted_indices", "pos"}) {
        // The grouped family's group ends (input_role::groups) are its own idiom: every row in group 0.
        const bool grouped = std::any_of(p.roles.begin(), p.roles.end(), [&](const auto& r) {
          return r.first == name && r.second == ev::input_role::groups;
        });
        if (grouped) continue;
        const auto& t = tensor_of(c, name);
        ASSERT_TRUE(t.range.has_value()) << p.what << ": " << name;
        EXPECT_GE(t.range->first, 0.0) << p.what << ": " << name;
        EXPECT_LE(t.range->second, static_cast<double>(bound - 1)) << p.what << ": " << name;
        EXPECT_EQ(t.sorted, std::string(name) == "sorted_indices") << p.what << ": " << name;
      }
      ++probes;
    }
  }
  EXPECT_GT(probes, 8);
  const auto sorted_note = std::find_if(notes.begin(), notes.end(), [](const std::string& n) {
    return n.find("'sorted_indices'") != std::string::npos && n.find("sorted, non-decreasing from 0") != std::string::npos;
  });
  EXPECT_NE(sorted_note, notes.end()) << "the draft says what was guessed";
}

TEST(SpecDraftIndex, BagOffsetsAreSortedFromZeroAndWrittenInTheDraft) {
  ev::op_interface op;
  op.op_type = "EmbeddingBagNd";
  op.kernel = "embedding_bag_nd";
  op.inputs = {fp16("weight"), i32("indices"), i32("offsets")};
  op.outputs = {fp16("y")};
  EXPECT_EQ(ev::guess_role(op.op_type, op.inputs[2]), ev::input_role::index);
  std::vector<std::string> notes;
  const auto c = spec_draft_test::rank_case(op, 2, notes);
  const auto& offsets = tensor_of(c, "offsets");
  ASSERT_TRUE(offsets.range.has_value());
  EXPECT_EQ(offsets.range->first, 0.0);
  EXPECT_TRUE(offsets.sorted);
  const auto draft = ev::draft_json(op.kernel, {c}, notes);
  EXPECT_EQ(draft["cases"][0]["inputs"]["offsets"].value("sorted", false), true) << draft.dump();
  EXPECT_FALSE(draft["cases"][0]["inputs"]["indices"].contains("sorted")) << draft.dump();
}

// Session 29: the repeat idiom (repeat_interleave's repeats and output_size; feeds_repeat's
// feeds_repeat_times and output_feeds_size): one count per row, each 2, the output size their sum.
TEST(SpecDraftRepeat, RepeatCountsAreOnePerRowAndTheOutputSizeTheirSum) {
  ev::op_interface op;
  op.op_type = "RowsRepeatNd";
  op.kernel = "rows_repeat_nd";
  op.inputs = {fp16("feeds"), i32("feeds_repeat_times")};
  op.outputs = {fp16("y")};
  op.attrs = {attr("output_feeds_size", "int", nullptr)};
  EXPECT_EQ(ev::guess_role(op.op_type, op.inputs[1]), ev::input_role::index);
  std::vector<std::string> notes;
  const auto c = spec_draft_test::rank_case(op, 2, notes);
  const auto& feeds = tensor_of(c, "feeds").shape;
  const auto& counts = tensor_of(c, "feeds_repeat_times");
  EXPECT_EQ(counts.shape, std::vector<std::int64_t>{feeds.front()});
  ASSERT_TRUE(counts.range.has_value());
  EXPECT_EQ(*counts.range, std::make_pair(2.0, 2.0));
  EXPECT_EQ(c.attrs.value("output_feeds_size", 0), 2 * feeds.front()) << c.attrs.dump();
  const auto said = std::find_if(notes.begin(), notes.end(), [](const std::string& n) { return n.find("repeat idiom") != std::string::npos; });
  EXPECT_NE(said, notes.end()) << "the draft says what was guessed";
  // Another integer input keeps its rule: a count named otherwise is no repeat count.
  op.inputs[1] = i32("counts");
  std::vector<std::string> other;
  const auto d = spec_draft_test::rank_case(op, 2, other);
  EXPECT_NE(d.attrs.value("output_feeds_size", 0), 2 * tensor_of(d, "feeds").shape.front()) << d.attrs.dump();
}

// Session 29: the index_add idiom (index_add(dim, index, source)): an axis without default is 0
// (the rows) in an operator with inputs named as indices, and a probe gives `value` the first
// input's shape, one index per row (inplace_index_add_with_sorted refuses a one-element value and
// an axis other than 0).
TEST(SpecDraftIndex, IndexAddValueIsTheRowsAddedAndTheAxisTheRows) {
  ev::op_interface op;
  op.op_type = "IndexAddSortedNd";
  op.kernel = "index_add_sorted_nd";
  op.inputs = {fp16("var"), fp16("value"), i32("sorted_indices"), i32("pos")};
  op.outputs = {fp16("var")};
  op.attrs = {attr("axis", "int", nullptr)};
  std::vector<std::string> notes;
  const auto attrs = ev::draft_attrs(op, 0, notes);
  EXPECT_EQ(attrs.value("axis", -9), 0) << attrs.dump();
  bool found = false;
  for (const auto& p : ev::timed_probes(op, attrs, 200)) {
    if (p.rank != 2 || p.what.find("index_add") == std::string::npos) continue;
    const auto c = ev::probe_case(op, p, 0, "perf", true, 1 << 21, false, &notes);
    const auto& var = tensor_of(c, "var").shape;
    EXPECT_EQ(tensor_of(c, "value").shape, var) << p.what;
    EXPECT_EQ(tensor_of(c, "sorted_indices").shape, std::vector<std::int64_t>{var.front()}) << p.what;
    found = true;
    break;
  }
  EXPECT_TRUE(found) << "a rank-2 probe of the index_add idiom";
  // Without inputs named as indices an axis stays the last dimension.
  const auto plain = spec_draft_test::unary_op("ReduceNd", "reduce_nd", "x", {attr("axis", "int", nullptr)});
  std::vector<std::string> other;
  EXPECT_EQ(ev::draft_attrs(plain, 0, other).value("axis", -9), -1);
}

TEST(SpecDraftTopK, ARoutingsIndicesAreKPerRowOfTheTokens) {
  // A mixture of experts' routing: x [tokens, H], expert_idx [tokens, k] (a top-k's choice per
  // token). A probe shapes the index input k per row of x, its values bounded as indices.
  ev::op_interface op;
  op.op_type = "RouteTokensNd";
  op.kernel = "route_tokens_nd";
  op.inputs = {fp16("x"), i32("expert_idx")};
  op.outputs = {fp16("expanded_x"), i32("expanded_row_idx")};
  std::vector<std::string> notes;
  const auto attrs = ev::draft_attrs(op, 0, notes);
  bool found = false;
  for (const auto& p : ev::timed_probes(op, attrs, 200)) {
    const bool topk = std::any_of(p.roles.begin(), p.roles.end(), [](const auto& r) { return r.second == ev::input_role::topk; });
    if (!topk || p.rank != 2) continue;
    found = true;
    const auto c = ev::probe_case(op, p, 0, "perf", true, 1 << 21, false, &notes);
    const auto& x = shape_of(c, "x");
    EXPECT_EQ(shape_of(c, "expert_idx"), (std::vector<std::int64_t>{x[0], ev::kTopK})) << p.what;
    const auto in = std::find_if(c.inputs.begin(), c.inputs.end(), [](const auto& i) { return i.name == "expert_idx"; });
    ASSERT_NE(in, c.inputs.end());
    const auto& t = in->tensors.at(0);
    ASSERT_TRUE(t.range.has_value()) << p.what;
    EXPECT_GE(t.range->first, 0.0);
    EXPECT_LE(t.range->second, static_cast<double>(*std::min_element(x.begin(), x.end()) - 1));
    EXPECT_EQ(p.roles.front().second, ev::input_role::data) << "x stays the main tensor";
  }
  EXPECT_TRUE(found) << "no probe shapes expert_idx [rows, k]";
}
