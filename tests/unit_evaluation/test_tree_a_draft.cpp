// `aopt init`'s pure half (evaluation/spec_draft.h) for idioms of cann-ops' norm, conversion and
// pooling operators (issue 34, helper i34-tree-a): a norm's statistics and a channel-first
// operator's per-channel parameters shaped by their role, and the probes that give every output
// (InferShape bypassed) after all others.
#include <gtest/gtest.h>

#include <algorithm>

#include "aopt/evaluation/spec.h"
#include "aopt/evaluation/spec_draft.h"

namespace ev = aopt::evaluation;
using nlohmann::json;

namespace {

json param(const std::string& name, const std::string& format = "ND") {
  return {{"name", name}, {"param_type", "required"}, {"dtypes", {"float16"}}, {"formats", {format}}, {"value_depend", false}};
}

ev::op_interface iface(const std::string& op_type, json inputs, json attrs = json::array(), bool infer_shape = true) {
  return ev::op_interface::from_signature({{"op_type", op_type},
                                           {"kernel", "k"},
                                           {"inputs", inputs},
                                           {"outputs", json::array({param("y")})},
                                           {"attrs", attrs},
                                           {"has_infer_shape", infer_shape}});
}

std::vector<std::int64_t> shape_of(const ev::case_spec& c, const std::string& name) {
  for (const auto& i : c.inputs) {
    if (i.name == name && !i.tensors.empty()) return i.tensors.front().shape;
  }
  return {};
}

}  // namespace

// Before: rstd and mean were shaped like x ([2048, 1024]); the tiling of a layer/rms norm's
// gradient wants them [rows, 1] and refused every probe.
TEST(TreeADraft, NormStatisticsArePerRow) {
  const auto op = iface("RmsNormGrad", {param("dy"), param("x"), param("rstd"), param("gamma")});
  ev::draft_param rstd;
  rstd.name = "rstd";
  rstd.dtypes = {"float32"};
  EXPECT_EQ(ev::guess_role("RmsNormGrad", rstd), ev::input_role::stat);
  EXPECT_EQ(ev::guess_role("Sub", rstd), ev::input_role::data) << "only a norm's";
  const auto probes = ev::timed_probes(op, json::object());
  const auto c = ev::probe_case(op, probes.front(), 0, "perf", true, 1 << 21, false);
  EXPECT_EQ(shape_of(c, "x"), (std::vector<std::int64_t>{2048, 1024}));
  EXPECT_EQ(shape_of(c, "rstd"), (std::vector<std::int64_t>{2048, 1}));
  EXPECT_EQ(shape_of(c, "gamma"), (std::vector<std::int64_t>{1024}));
}

// Before: a channel-first (NCHW) operator's weight and running mean took the last dimension (W),
// and a group norm's mean the whole shape.
TEST(TreeADraft, ChannelFirstParametersTakeTheChannelDimension) {
  const auto bn = iface("BatchNormV3", {param("x", "NCHW"), param("weight", "ND"), param("running_mean", "ND")});
  const auto bp = ev::timed_probes(bn, json::object());
  ASSERT_EQ(bp.front().rank, 4);
  const auto b = ev::probe_case(bn, bp.front(), 0, "perf", true, 1 << 21, false);
  const auto x = shape_of(b, "x");
  ASSERT_EQ(x.size(), 4u);
  EXPECT_EQ(shape_of(b, "weight"), (std::vector<std::int64_t>{x[1]}));
  EXPECT_EQ(shape_of(b, "running_mean"), (std::vector<std::int64_t>{x[1]}));

  // A group norm's statistics: [N, groups]; its data_format attribute says NCHW.
  const auto gn = iface("GroupNormGrad", {param("dy"), param("mean"), param("rstd"), param("x"), param("gamma")},
                        json::array({{{"name", "num_groups"}, {"type", "int"}, {"required", true}},
                                     {{"name", "data_format"}, {"type", "string"}, {"required", false}, {"default", "NCHW"}}}));
  std::vector<std::string> notes;
  const json attrs = ev::draft_attrs(gn, 0, notes);
  ev::probe p;
  p.rank = 4;
  for (const auto& in : gn.inputs) p.roles.emplace_back(in.name, ev::guess_role(gn.op_type, in));
  p.attrs = attrs;
  const auto g = ev::probe_case(gn, p, 0, "perf", true, 1 << 21, false);
  const auto gx = shape_of(g, "x");
  ASSERT_EQ(gx.size(), 4u);
  EXPECT_EQ(shape_of(g, "mean"), (std::vector<std::int64_t>{gx[0], attrs["num_groups"].get<std::int64_t>()}));
  EXPECT_EQ(shape_of(g, "gamma"), (std::vector<std::int64_t>{gx[1]}));
}

// Before: no probe gave the outputs, so an operator whose InferShape fails (it reads an attribute
// its OpDef never declares) had no draft even where its tiling and kernel run.
TEST(TreeADraft, LastProbesGiveEveryOutputAndBypassInferShape) {
  const auto op = iface("PadGradLike", {param("x"), param("w")});
  const auto probes = ev::timed_probes(op, json::object(), 200);
  ASSERT_FALSE(probes.empty());
  EXPECT_FALSE(probes.front().outputs_given);
  EXPECT_TRUE(probes.back().outputs_given) << probes.back().what;
  const auto first_bypass = std::find_if(probes.begin(), probes.end(), [](const ev::probe& p) { return p.outputs_given; });
  EXPECT_TRUE(std::all_of(first_bypass, probes.end(), [](const ev::probe& p) { return p.outputs_given; })) << "after all others";
  std::vector<std::string> notes;
  const auto c = ev::probe_case(op, *first_bypass, 0, "perf", true, 1 << 21, false, &notes);
  ASSERT_EQ(c.outputs.size(), 1u);
  ASSERT_TRUE(c.outputs[0].shape.has_value());
  EXPECT_EQ(*c.outputs[0].shape, shape_of(c, "x"));
  EXPECT_TRUE(std::any_of(notes.begin(), notes.end(), [](const std::string& n) { return n.find("InferShape is not run") != std::string::npos; }));
  // The draft writes the outputs.
  const auto text = ev::draft_text(ev::draft_json("k", {c}, notes));
  EXPECT_NE(text.find("\"outputs\""), std::string::npos) << text;
  // An operator without InferShape never needs them.
  const auto none = ev::timed_probes(iface("NoInfer", {param("x")}, json::array(), false), json::object(), 200);
  EXPECT_TRUE(std::none_of(none.begin(), none.end(), [](const ev::probe& p) { return p.outputs_given; }));
}
