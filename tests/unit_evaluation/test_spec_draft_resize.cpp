// `aopt init`'s resize idiom, scales (issue 38 item 2): a float list `scales` left empty or all
// zero takes 1.0 per spatial dimension, and an output_size the OpDef defaults to zeros is then
// left empty (upsample_nearest3d_grad's InferShape wants exactly one of the two; upsample_bilinear2d's
// tiling reads one factor per spatial dimension). Without `scales`, output_size keeps the
// identity sizes (c7d798c).
#include <gtest/gtest.h>

#include <vector>

#include "aopt/evaluation/spec_draft.h"
#include "spec_draft_test_util.h"

namespace ev = aopt::evaluation;
using nlohmann::json;
using spec_draft_test::attr;
using spec_draft_test::rank_case;

namespace {

ev::op_interface resize_op(std::vector<ev::draft_attr> attrs) {
  return spec_draft_test::unary_op("ResizeGrad", "resize_grad", "grad_output", std::move(attrs));
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
