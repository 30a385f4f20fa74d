// `aopt init`'s guesses for idioms of the wider cann-ops tree (issue 34): paddings given as an
// input tensor (pad gradients), and a required attribute whose OpDef still writes a value
// (`.AttrType(REQUIRED).String("reflect")`).
#include <gtest/gtest.h>

#include <algorithm>

#include "aopt/evaluation/spec_draft.h"

namespace ev = aopt::evaluation;
using nlohmann::json;

namespace {

json param(const std::string& name, std::vector<std::string> dtypes) {
  std::vector<std::string> formats(dtypes.size(), "ND");
  return {{"name", name}, {"param_type", "required"}, {"dtypes", dtypes}, {"formats", formats}, {"value_depend", false}};
}

ev::op_interface pad_grad() {
  return ev::op_interface::from_signature(
      {{"op_type", "PadGradCustom"},
       {"kernel", "k"},
       {"inputs", json::array({param("x", {"float16"}), param("paddings", {"int32"})})},
       {"outputs", json::array({param("y", {"float16"})})},
       {"attrs", json::array({{{"name", "mode"}, {"type", "string"}, {"required", true}, {"default", "reflect"}},
                              {{"name", "paddings_contiguous"}, {"type", "bool"}, {"required", true}, {"default", true}},
                              {{"name", "other"}, {"type", "string"}, {"required", true}, {"default", nullptr}}})},
       {"has_infer_shape", true}});
}

}  // namespace

TEST(SpecDraftTree, PaddingsAreTwoZerosPerDimensionOfTheMainTensor) {
  const auto op = pad_grad();
  EXPECT_EQ(ev::guess_role(op.op_type, op.inputs[1]), ev::input_role::paddings);
  std::vector<std::string> notes;
  const auto attrs = ev::draft_attrs(op, 0, notes);
  const auto probes = ev::timed_probes(op, attrs);
  ASSERT_FALSE(probes.empty());
  const auto c = ev::probe_case(op, probes.front(), 0, "perf", true, 1 << 21, false, &notes);
  ASSERT_EQ(c.inputs.size(), 2u);
  const auto rank = static_cast<std::int64_t>(c.inputs[0].tensors[0].shape.size());
  EXPECT_EQ(c.inputs[1].tensors[0].shape, (std::vector<std::int64_t>{2 * rank}));
  EXPECT_EQ(c.inputs[1].tensors[0].range, std::make_pair(0.0, 0.0));
  EXPECT_NE(std::find_if(notes.begin(), notes.end(), [](const std::string& n) { return n.find("paddings 0") != std::string::npos; }),
            notes.end());
}

TEST(SpecDraftTree, ARequiredAttributeTakesTheValueItsOpDefWrites) {
  std::vector<std::string> notes;
  const auto attrs = ev::draft_attrs(pad_grad(), 0, notes);
  EXPECT_EQ(attrs["mode"], "reflect");
  EXPECT_EQ(attrs["paddings_contiguous"], true);
  EXPECT_EQ(attrs["other"], "") << "no value written: guessed";
  EXPECT_NE(std::find_if(notes.begin(), notes.end(), [](const std::string& n) { return n.find("the value its OpDef writes") != std::string::npos; }),
            notes.end());
}

namespace {

ev::op_interface grouped() {
  return ev::op_interface::from_signature(
      {{"op_type", "GroupedCustom"},
       {"kernel", "k"},
       {"inputs", json::array({param("x", {"float16"}), param("scale", {"float32"}), param("group_index", {"int32"}), param("k", {"int32"})})},
       {"outputs", json::array({param("y", {"int8"})})},
       {"attrs", json::array()},
       {"has_infer_shape", true}});
}

}  // namespace

// The grouped idiom (group quantisation): among the rank-2 probes, after the four role sets, one
// with x [S, H], each other float input [kGroupRows, H] and each integer input named as a group or
// index [kGroupRows] whose values are all S (valid cumulative group ends), with a note; another
// integer input (`k`) keeps its role by name. Before: no probe shaped scale [E, H].
TEST(SpecDraftTree, GroupedProbeGivesOneRowAndOneValuePerGroup) {
  const auto op = grouped();
  std::vector<std::string> notes;
  const auto attrs = ev::draft_attrs(op, 0, notes);
  const auto probes = ev::timed_probes(op, attrs);
  const auto it = std::find_if(probes.begin(), probes.end(), [](const ev::probe& p) {
    return std::any_of(p.roles.begin(), p.roles.end(), [](const auto& r) { return r.second == ev::input_role::rows; });
  });
  ASSERT_NE(it, probes.end());
  EXPECT_EQ(it->rank, 2);
  EXPECT_LT(it - probes.begin(), 8) << "the grouped family comes with the rank-2 probes, before ranks 1 and 3";
  for (bool tail : {false, true}) {
    const auto c = ev::probe_case(op, *it, 0, "perf", !tail, 1 << 21, tail, &notes);
    ASSERT_EQ(c.inputs.size(), 4u);
    const auto& x = c.inputs[0].tensors.front().shape;
    ASSERT_EQ(x.size(), 2u);
    EXPECT_EQ(c.inputs[1].tensors.front().shape, (std::vector<std::int64_t>{ev::kGroupRows, x[1]}));
    EXPECT_EQ(c.inputs[2].tensors.front().shape, (std::vector<std::int64_t>{ev::kGroupRows}));
    const auto range = c.inputs[2].tensors.front().range;
    ASSERT_TRUE(range.has_value());
    EXPECT_EQ(range->first, static_cast<double>(x[0]));
    EXPECT_EQ(range->second, static_cast<double>(x[0]));
    // An integer input named otherwise (top_k's k) keeps the role its name gives (a top-k count,
    // one element, since session 27): not per group.
    EXPECT_EQ(c.inputs[3].tensors.front().shape, (std::vector<std::int64_t>{1}));
  }
  EXPECT_TRUE(std::any_of(notes.begin(), notes.end(), [](const std::string& n) { return n.find("cumulative group ends") != std::string::npos; }));
}
