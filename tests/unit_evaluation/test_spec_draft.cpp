// `aopt init`'s pure half (evaluation/spec_draft.h): the interface from a signature, the dtype
// column, roles and value ranges guessed from names, attribute guesses, probe order and shapes,
// and the draft's text, which aopt.json's validator accepts (with its "notes").
#include <gtest/gtest.h>

#include <algorithm>

#include "aopt/common/error.h"
#include "aopt/evaluation/spec.h"
#include "aopt/evaluation/spec_draft.h"

namespace ev = aopt::evaluation;
using nlohmann::json;

namespace {

json param(const std::string& name, std::vector<std::string> dtypes, const std::string& kind = "required",
           std::vector<std::string> formats = {}) {
  if (formats.empty()) formats.assign(dtypes.size(), "ND");
  return {{"name", name}, {"param_type", kind}, {"dtypes", dtypes}, {"formats", formats}, {"value_depend", false}};
}

ev::op_interface iface(const std::string& op_type, json inputs, json attrs = json::array()) {
  json outs = json::array({param("y", {"float16", "float32"})});
  return ev::op_interface::from_signature(
      {{"op_type", op_type}, {"kernel", "k"}, {"inputs", inputs}, {"outputs", outs}, {"attrs", attrs}, {"has_infer_shape", true}});
}

ev::draft_param in(const std::string& name, std::vector<std::string> dtypes = {"float16"}) {
  ev::draft_param p;
  p.name = name;
  p.dtypes = std::move(dtypes);
  return p;
}

}  // namespace

TEST(SpecDraft, InterfaceFromSignature) {
  const auto op = iface("AddCustom", {param("x", {"float32", "float16"}), param("bias", {"float32", "float16"}, "optional")},
                        json::array({{{"name", "alpha"}, {"type", "float"}, {"required", false}, {"default", 2.0}}}));
  EXPECT_EQ(op.op_type, "AddCustom");
  ASSERT_EQ(op.inputs.size(), 2u);
  EXPECT_EQ(op.inputs[1].kind, "optional");
  EXPECT_EQ(op.columns(), 2u);
  ASSERT_EQ(op.attrs.size(), 1u);
  EXPECT_EQ(op.attrs[0].default_value, 2.0);
  EXPECT_THROW(ev::op_interface::from_signature(json::object()), aopt::error);
}

TEST(SpecDraft, PrefersTheFloat16ColumnAndSkipsUnknownDtypes) {
  EXPECT_EQ(ev::preferred_column(iface("A", {param("x", {"float32", "float16"})})), 1u);
  EXPECT_EQ(ev::preferred_column(iface("A", {param("x", {"int32", "float32"})})), 1u);
  // float64 is not an aopt.json dtype: that column cannot be drafted.
  EXPECT_EQ(ev::preferred_column(iface("A", {param("x", {"float64", "int8"})})), 1u);
  EXPECT_FALSE(ev::preferred_column(iface("A", {param("x", {"float64"})})).has_value());
}

TEST(SpecDraft, RolesFromNames) {
  EXPECT_EQ(ev::guess_role("LayerNorm", in("gamma")), ev::input_role::vector);
  EXPECT_EQ(ev::guess_role("LayerNorm", in("x")), ev::input_role::data);
  EXPECT_EQ(ev::guess_role("Addcdiv", in("value")), ev::input_role::scalar);
  EXPECT_EQ(ev::guess_role("Gather", in("indices", {"int32", "int64"})), ev::input_role::index);
  EXPECT_EQ(ev::guess_role("ReduceSum", in("axes", {"int32"})), ev::input_role::axis);
  // A float input named like an index is data; an embedding's weight is its table.
  EXPECT_EQ(ev::guess_role("Gather", in("indices", {"float16"})), ev::input_role::data);
  EXPECT_EQ(ev::guess_role("EmbeddingBag", in("weight")), ev::input_role::data);
}

TEST(SpecDraft, RangesWhereTheMathNeedsThem) {
  using R = ev::input_role;
  auto range = [](const std::string& op, const std::string& name, R role, ev::dtype t, std::size_t pos = 0) {
    return ev::guess_range(op, in(name), pos, role, t, 37).range;
  };
  for (const char* op : {"LogCustom", "Rsqrt", "SqrtCustom", "Reciprocal", "Pows", "Xlogy", "Lgamma"}) {
    const auto r = range(op, "x", R::data, ev::dtype::float16);
    ASSERT_TRUE(r.has_value()) << op;
    EXPECT_GT(r->first, 0) << op;
  }
  for (const char* op : {"LogicalOr", "LogSoftmax", "AddCustom", "Gelu"}) EXPECT_FALSE(range(op, "x", R::data, ev::dtype::float16)) << op;
  EXPECT_EQ(range("Asin", "x", R::data, ev::dtype::float32), std::make_pair(-0.9, 0.9));
  EXPECT_GE(range("Acosh", "x", R::data, ev::dtype::float32)->first, 1.0);
  // A division's divisor, not its dividend.
  EXPECT_FALSE(range("RealDiv", "x1", R::data, ev::dtype::float16, 0));
  EXPECT_GT(range("RealDiv", "x2", R::data, ev::dtype::float16, 1)->first, 0);
  // Probabilities, variances.
  EXPECT_EQ(range("Anything", "probs", R::data, ev::dtype::float32)->second, 0.99);
  EXPECT_GT(range("BatchNorm", "variance", R::vector, ev::dtype::float32)->first, 0);
  // Indices within the smallest data dimension; axes -1; other integers the generator's small default.
  EXPECT_EQ(range("Gather", "indices", R::index, ev::dtype::int32), std::make_pair(0.0, 36.0));
  EXPECT_EQ(range("Reduce", "axes", R::axis, ev::dtype::int32), std::make_pair(-1.0, -1.0));
  EXPECT_FALSE(range("Add", "x", R::data, ev::dtype::int32));
  EXPECT_FALSE(range("LogCustom", "mask", R::data, ev::dtype::bool_));
  // Every guess says so.
  EXPECT_NE(ev::guess_range("LogCustom", in("x"), 0, R::data, ev::dtype::float16, 37).note.find("positive"), std::string::npos);
}

TEST(SpecDraft, AttributesFromDefaultsElseGuessed) {
  const auto op = iface("ReduceAny", {param("x", {"float16"})},
                        json::array({{{"name", "axis"}, {"type", "int"}, {"required", true}, {"default", nullptr}},
                                     {{"name", "keep_dims"}, {"type", "bool"}, {"required", false}, {"default", false}},
                                     {{"name", "epsilon"}, {"type", "float"}, {"required", true}, {"default", nullptr}},
                                     {{"name", "axes"}, {"type", "list_int"}, {"required", true}, {"default", nullptr}},
                                     {{"name", "reduction"}, {"type", "string"}, {"required", true}, {"default", nullptr}},
                                     {{"name", "eps2"}, {"type", "float"}, {"required", false}, {"default", static_cast<double>(1e-6f)}}}));
  std::vector<std::string> notes;
  const auto attrs = ev::draft_attrs(op, 0, notes);
  EXPECT_EQ(attrs["axis"], -1);
  EXPECT_EQ(attrs["keep_dims"], false);
  EXPECT_EQ(attrs["epsilon"], 1e-5);
  EXPECT_EQ(attrs["axes"], json::array({-1}));
  EXPECT_EQ(attrs["reduction"], "mean");
  EXPECT_EQ(attrs["eps2"].dump(), "1e-06") << "a float32 default written as the OpDef wrote it";
  EXPECT_EQ(notes.size(), 4u) << "one note per guessed attribute, none for a default";
  // Variants change one guessed axis (or keep_dims) at a time.
  const auto variants = ev::attr_variants(op, attrs);
  EXPECT_NE(std::find_if(variants.begin(), variants.end(), [](const json& v) { return v["axis"] == 0; }), variants.end());
  EXPECT_NE(std::find_if(variants.begin(), variants.end(), [](const json& v) { return v["keep_dims"] == true; }), variants.end());
  for (const auto& v : variants) EXPECT_NE(v, attrs);
}

TEST(SpecDraft, AnOutputTypeAttributeFollowsTheColumn) {
  const auto op = iface("Cast", {param("x", {"float32", "float16"})},
                        json::array({{{"name", "dst_type"}, {"type", "int"}, {"required", true}, {"default", nullptr}}}));
  std::vector<std::string> notes;
  EXPECT_EQ(ev::draft_attrs(op, 0, notes)["dst_type"], 1) << "column 0's output y is float16: ge::DT_FLOAT16";
  EXPECT_EQ(ev::draft_attrs(op, 1, notes)["dst_type"], 0) << "column 1's output y is float32: ge::DT_FLOAT";
  EXPECT_EQ(ev::ge_dtype_number(ev::dtype::bfloat16), 27);
  EXPECT_EQ(ev::ge_dtype_number(ev::dtype::int32), 3);
}

TEST(SpecDraft, MainShapes) {
  EXPECT_EQ(ev::main_shape(2, 1 << 21, false), (std::vector<std::int64_t>{2048, 1024}));
  EXPECT_EQ(ev::main_shape(2, 1 << 21, false, 2048), (std::vector<std::int64_t>{1024, 2048}));
  EXPECT_EQ(ev::main_shape(1, 1 << 21, false), (std::vector<std::int64_t>{1 << 21}));
  EXPECT_EQ(ev::main_shape(4, 1 << 21, false), (std::vector<std::int64_t>{8, 16, 128, 128}));
  EXPECT_EQ(ev::main_shape(2, 100, false), (std::vector<std::int64_t>{1, 1024})) << "never a zero dimension";
  EXPECT_EQ(ev::main_shape(2, 0, true), (std::vector<std::int64_t>{37, 1001}));
  EXPECT_EQ(ev::main_shape(2, 0, true, 1024), (std::vector<std::int64_t>{37, 1024}));
  EXPECT_EQ(ev::main_shape(1, 0, true), (std::vector<std::int64_t>{37037}));
}

TEST(SpecDraft, ProbesTryNamesThenSameShapesThenBroadcasts) {
  const auto op = iface("LayerNormCustom", {param("x", {"float16"}), param("gamma", {"float16"}), param("beta", {"float16"})});
  const auto probes = ev::timed_probes(op, json::object());
  ASSERT_GE(probes.size(), 4u);
  EXPECT_EQ(probes[0].rank, 2);
  EXPECT_EQ(probes[0].roles[1].second, ev::input_role::vector) << probes[0].what;
  EXPECT_EQ(probes[1].roles[1].second, ev::input_role::data) << probes[1].what;
  const auto c = ev::probe_case(op, probes[0], 0, "perf", true, 1 << 21, false);
  ASSERT_EQ(c.inputs.size(), 3u);
  EXPECT_EQ(c.inputs[0].tensors[0].shape, (std::vector<std::int64_t>{2048, 1024}));
  EXPECT_EQ(c.inputs[1].tensors[0].shape, (std::vector<std::int64_t>{1024}));
  EXPECT_TRUE(c.timed);
  // The formats say NCHW: rank 4 first.
  const auto nchw = iface("Pool", {param("x", {"float16"}, "required", {"NCHW"})});
  EXPECT_EQ(ev::timed_probes(nchw, json::object())[0].rank, 4);
  // Optional inputs only after every shape without them; at most max_probes.
  const auto opt = iface("AddBias", {param("x", {"float16"}), param("bias", {"float16"}, "optional")});
  const auto ps = ev::timed_probes(opt, json::object(), 100);
  EXPECT_FALSE(ps.front().with_optional);
  EXPECT_EQ(ps.front().roles.size(), 1u);
  // (then, last, the probes that give every output and so bypass InferShape)
  const auto last_shaped = std::find_if(ps.rbegin(), ps.rend(), [](const ev::probe& p) { return !p.outputs_given; });
  ASSERT_NE(last_shaped, ps.rend());
  EXPECT_TRUE(last_shaped->with_optional);
  EXPECT_EQ(ev::timed_probes(opt, json::object(), 3).size(), 3u);
}

TEST(SpecDraft, IndicesStayWithinTheCasesDataAndListsHoldTwoTensors) {
  const auto op = iface("GatherCustom", {param("x", {"float32"}), param("indices", {"int32"})});
  const auto p = ev::timed_probes(op, json::object()).front();
  std::vector<std::string> notes;
  const auto tail = ev::probe_case(op, p, 0, "tail", false, 1 << 21, true, &notes);
  EXPECT_EQ(tail.inputs[1].tensors[0].shape, (std::vector<std::int64_t>{37}));
  EXPECT_EQ(tail.inputs[1].tensors[0].range, std::make_pair(0.0, 36.0));
  EXPECT_EQ(notes.size(), 1u);
  const auto lists = iface("ForeachAbs", {param("x", {"float16"}, "dynamic")});
  const auto lc = ev::probe_case(lists, ev::timed_probes(lists, json::object()).front(), 0, "perf", true, 1 << 21, false);
  ASSERT_TRUE(lc.inputs[0].is_list);
  EXPECT_EQ(lc.inputs[0].tensors.size(), 2u);
  EXPECT_EQ(lc.inputs[0].tensors[0].numel() * 2, 1 << 21) << "the list's tensors share the size";
}

TEST(SpecDraft, TailProbesUnalignedFirst) {
  ev::probe p;
  p.rank = 2;
  p.last = 2048;
  const auto t = ev::tail_probes(p);
  ASSERT_EQ(t.size(), 2u);
  EXPECT_EQ(ev::main_shape(t[0].rank, 0, true, t[0].last), (std::vector<std::int64_t>{37, 1001}));
  EXPECT_EQ(ev::main_shape(t[1].rank, 0, true, t[1].last), (std::vector<std::int64_t>{37, 1024}));
}

TEST(SpecDraft, DraftTextIsAValidSpecWithNotes) {
  const auto op = iface("LogCustom", {param("x", {"float16", "float32"})});
  std::vector<std::string> notes = {"drafted"};
  const auto p = ev::timed_probes(op, json::object()).front();
  std::vector<ev::case_spec> cases = {ev::probe_case(op, p, 0, "perf", true, 1 << 21, false, &notes),
                                      ev::probe_case(op, p, 0, "tail", false, 1 << 21, true, &notes)};
  const auto text = ev::draft_text(ev::draft_json("log_custom", cases, notes));
  const auto spec = ev::parse_op_spec(text, "draft/aopt.json");
  EXPECT_TRUE(spec.warnings.empty()) << "\"notes\" is a known key: " << (spec.warnings.empty() ? "" : spec.warnings[0]);
  ASSERT_EQ(spec.cases.size(), 2u);
  EXPECT_TRUE(spec.cases[0].timed);
  EXPECT_EQ(spec.cases[1].inputs[0].tensors[0].shape, (std::vector<std::int64_t>{37, 1001}));
  EXPECT_EQ(spec.cases[0].inputs[0].tensors[0].range, std::make_pair(0.5, 2.0));
  EXPECT_TRUE(spec.reference_is_baseline());
  EXPECT_EQ(spec.tolerance.per_dtype.at(ev::dtype::float16).rtol, 1e-3);
  // A case per line: the draft is for people to read and edit.
  EXPECT_NE(text.find("\n    {\"name\":\"tail\""), std::string::npos) << text;
  // "notes" must be a list of strings.
  const std::string head = R"({"kernel": "k", "cases": [{"name": "p", "timed": true, "inputs": {"x": {"shape": [1], "dtype": "float16"}}}], "notes": )";
  EXPECT_NO_THROW(ev::parse_op_spec(head + R"(["a", "b"]})", "n/aopt.json"));
  for (const char* bad : {R"("a")", R"([1])"}) {
    try {
      ev::parse_op_spec(head + bad + "}", "n/aopt.json");
      ADD_FAILURE() << bad;
    } catch (const aopt::error& e) {
      EXPECT_NE(std::string(e.what()).find("notes"), std::string::npos) << e.what();
    }
  }
}
