// `aopt init`'s resize idiom, scales (issue 38 item 2): a float list `scales` left empty or all
// zero takes 1.0 per spatial dimension, and an output_size the OpDef defaults to zeros is then
// left empty (upsample_nearest3d_grad's InferShape wants exactly one of the two; upsample_bilinear2d's
// tiling reads one factor per spatial dimension). Without `scales`, output_size keeps the
// identity sizes (c7d798c).
#include <gtest/gtest.h>

#include <vector>

#include "aopt/evaluation/spec_draft.h"

namespace ev = aopt::evaluation;
using nlohmann::json;

namespace {

ev::op_interface resize_op(std::vector<ev::draft_attr> attrs) {
  ev::op_interface op;
  op.op_type = "ResizeGrad";
  op.kernel = "resize_grad";
  ev::draft_param x;
  x.name = "grad_output";
  x.dtypes = {"float16"};
  x.formats = {"ND"};
  op.inputs = {x};
  ev::draft_param y = x;
  y.name = "y";
  op.outputs = {y};
  op.attrs = std::move(attrs);
  return op;
}

ev::draft_attr attr(const std::string& name, const std::string& type, json def) {
  ev::draft_attr a;
  a.name = name;
  a.type = type;
  a.required = def.is_null();
  a.default_value = def;
  return a;
}

ev::case_spec rank_case(const ev::op_interface& op, int rank, std::vector<std::string>& notes) {
  const auto attrs = ev::draft_attrs(op, 0, notes);
  for (const auto& p : ev::timed_probes(op, attrs, 100)) {
    if (p.rank == rank) return ev::probe_case(op, p, 0, "perf", true, 1 << 21, false, &notes);
  }
  ADD_FAILURE() << "no probe of rank " << rank;
  return {};
}

}  // namespace

TEST(SpecDraftResize, ZeroScalesBecomeTheIdentityAndZeroOutputSizeIsUnset) {
  const auto op = resize_op({attr("input_size", "list_int", json()), attr("output_size", "list_int", json::array({0, 0, 0})),
                             attr("scales", "list_float", json::array({0.0, 0.0, 0.0}))});
  std::vector<std::string> notes;
  const auto c = rank_case(op, 5, notes);
  const auto& main = c.inputs.at(0).tensors.at(0).shape;
  ASSERT_EQ(main.size(), 5u);
  EXPECT_EQ(c.attrs["scales"], json::array({1.0, 1.0, 1.0})) << c.attrs.dump();
  EXPECT_EQ(c.attrs["output_size"], json::array()) << c.attrs.dump();
  EXPECT_EQ(c.attrs["input_size"].get<std::vector<std::int64_t>>(), main) << c.attrs.dump();
  EXPECT_TRUE(std::any_of(notes.begin(), notes.end(), [](const std::string& n) { return n.find("'scales'") != std::string::npos; }));
}

TEST(SpecDraftResize, EmptyScalesOfAForwardOpTakeOnePerSpatialDimension) {
  const auto op = resize_op({attr("align_corners", "bool", false), attr("scales", "list_float", json::array())});
  std::vector<std::string> notes;
  const auto c = rank_case(op, 4, notes);
  EXPECT_EQ(c.attrs["scales"], json::array({1.0, 1.0})) << c.attrs.dump();
  // Without scales, a required output_size keeps the identity sizes.
  const auto sized = resize_op({attr("output_size", "list_int", json())});
  const auto d = rank_case(sized, 4, notes);
  const auto& m = d.inputs.at(0).tensors.at(0).shape;
  EXPECT_EQ(d.attrs["output_size"].get<std::vector<std::int64_t>>(), std::vector<std::int64_t>(m.begin() + 2, m.end()));
}
