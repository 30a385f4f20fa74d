// `aopt init`'s pooling idiom (issue 34, session 24): an integer list `pads` the OpDef gives no
// default is drafted per case as two zeros per spatial dimension (after N and C), not the generic
// guess [1]: avg_pool3_d's InferShape refuses a pads list of one element for its rank-5 input.
// Session 28: one zero per spatial dimension (PyTorch's convention) when the OpDef's `dilation`
// default lists one value per spatial dimension (max_pool3d_grad_with_argmax's tiling wants 3 or 1).
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "aopt/evaluation/spec_draft.h"
#include "spec_draft_test_util.h"

namespace ev = aopt::evaluation;
using nlohmann::json;
using spec_draft_test::attr;
using spec_draft_test::rank_case;

namespace {

ev::op_interface pool_op(std::vector<ev::draft_attr> attrs) {
  return spec_draft_test::unary_op("PoolFixture3D", "pool_fixture3_d", "x", std::move(attrs));
}

}  // namespace

TEST(SpecDraftPooling, RequiredPadsAreTwoZerosPerSpatialDimension) {
  const auto op = pool_op({attr("ksize", "list_int", json()), attr("strides", "list_int", json()),
                           attr("pads", "list_int", json()), attr("ceil_mode", "bool", false)});
  std::vector<std::string> notes;
  const auto c5 = rank_case(op, 5, notes);
  ASSERT_EQ(c5.inputs.at(0).tensors.at(0).shape.size(), 5u);
  EXPECT_EQ(c5.attrs["pads"], json::array({0, 0, 0, 0, 0, 0})) << c5.attrs.dump();
  EXPECT_EQ(c5.attrs["ksize"], json::array({1})) << c5.attrs.dump();  // a single size: every dimension
  const auto c4 = rank_case(op, 4, notes);
  EXPECT_EQ(c4.attrs["pads"], json::array({0, 0, 0, 0})) << c4.attrs.dump();
  const auto c2 = rank_case(op, 2, notes);
  EXPECT_EQ(c2.attrs["pads"], json::array({0, 0, 0, 0})) << c2.attrs.dump();
  EXPECT_TRUE(std::any_of(notes.begin(), notes.end(), [](const std::string& n) { return n.find("'pads'") != std::string::npos; }));
}

TEST(SpecDraftPooling, PadsTheOpDefGivesAValueKeepIt) {
  const auto op = pool_op({attr("pads", "list_int", json::array({1, 1, 1, 1, 1, 1}))});
  std::vector<std::string> notes;
  const auto c = rank_case(op, 5, notes);
  EXPECT_EQ(c.attrs["pads"], json::array({1, 1, 1, 1, 1, 1})) << c.attrs.dump();
}

TEST(SpecDraftPooling, PadsAreOneZeroPerSpatialDimensionBesideAPerDimensionDilation) {
  const auto op = pool_op({attr("ksize", "list_int", json()), attr("strides", "list_int", json()),
                           attr("pads", "list_int", json()), attr("dilation", "list_int", json::array({1, 1, 1})),
                           attr("ceil_mode", "bool", false)});
  std::vector<std::string> notes;
  const auto c5 = rank_case(op, 5, notes);
  ASSERT_EQ(c5.inputs.at(0).tensors.at(0).shape.size(), 5u);
  EXPECT_EQ(c5.attrs["pads"], json::array({0, 0, 0})) << c5.attrs.dump();
  EXPECT_EQ(c5.attrs["ksize"], json::array({1, 1, 1})) << c5.attrs.dump();
  EXPECT_EQ(c5.attrs["strides"], json::array({1, 1, 1})) << c5.attrs.dump();
  EXPECT_TRUE(std::any_of(notes.begin(), notes.end(), [](const std::string& n) { return n.find("dilation default") != std::string::npos; }));
  // A convolution's dilations list every dimension (N and C included): two zeros per spatial one.
  const auto conv = pool_op({attr("pads", "list_int", json()), attr("dilations", "list_int", json::array({1, 1, 1, 1, 1}))});
  EXPECT_EQ(rank_case(conv, 5, notes).attrs["pads"], json::array({0, 0, 0, 0, 0, 0}));
}
