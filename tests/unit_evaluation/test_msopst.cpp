#include <gtest/gtest.h>

#include "aopt/common/error.h"
#include "aopt/evaluation/spec.h"

namespace ev = aopt::evaluation;

TEST(MsOpSt, ImportsCasesAndDtypeColumns) {
  const std::string text = R"([
    {"case_name": "Test_AddCustom_001", "op": "AddCustom",
     "input_desc": [
       {"name": "x", "format": ["ND"], "type": ["float16", "float"], "shape": [8, 2048],
        "data_distribute": ["uniform"], "value_range": [[0.1, 1.0]]},
       {"name": "y", "format": ["ND"], "type": ["float16", "float"], "shape": [8, 2048],
        "data_distribute": ["uniform"], "value_range": [[-2.0, 2.0]]}],
     "output_desc": [{"name": "z", "format": ["ND"], "type": ["float16", "float"], "shape": [8, 2048]}],
     "attr": [{"name": "alpha", "type": "float", "value": 2.0}]}
  ])";
  const auto s = ev::parse_msopst_cases(text, "tests/st/AddCustom_case.json", "add_custom");
  ASSERT_EQ(s.cases.size(), 2u);
  EXPECT_EQ(s.cases[0].name, "Test_AddCustom_001_0");
  EXPECT_TRUE(s.cases[0].timed);
  EXPECT_FALSE(s.cases[1].timed);
  EXPECT_EQ(s.cases[0].inputs[0].tensors[0].type, ev::dtype::float16);
  EXPECT_EQ(s.cases[1].inputs[0].tensors[0].type, ev::dtype::float32);
  EXPECT_EQ(s.cases[1].inputs[1].name, "y");
  ASSERT_TRUE(s.cases[0].inputs[1].tensors[0].range);
  EXPECT_DOUBLE_EQ(s.cases[0].inputs[1].tensors[0].range->first, -2.0);
  EXPECT_EQ(s.cases[0].outputs.at(0).name, "z");
  EXPECT_EQ(*s.cases[1].outputs.at(0).type, ev::dtype::float32);
  EXPECT_DOUBLE_EQ(s.cases[0].attrs["alpha"].get<double>(), 2.0);
  EXPECT_FALSE(s.warnings.empty());
}

TEST(MsOpSt, RejectsBadTypeWithPosition) {
  const std::string text = "[{\"case_name\": \"c\", \"op\": \"X\",\n \"input_desc\": [{\"type\": \"float99\", \"shape\": [4]}]}]";
  try {
    ev::parse_msopst_cases(text, "st.json", "x");
    FAIL();
  } catch (const aopt::error& e) {
    EXPECT_NE(std::string(e.what()).find("st.json:2:"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("float99"), std::string::npos) << e.what();
  }
}

// What real case files hold beyond the basics: an optional input left out ("UNDEFINED"), an
// input given by value (its nesting is the shape), a scalar value filling a declared shape,
// an input without a shape (a scalar), ge spellings of dtypes, and fuzz cases (skipped).
TEST(MsOpSt, ImportsOptionalValuesScalarsAndSkipsFuzz) {
  const std::string text = R"([
    {"case_name": "given", "op": "Fill",
     "input_desc": [
       {"name": "dims", "type": ["int64"], "shape": [1], "value": [1, 2, 3, 4]},
       {"name": "value", "type": ["DT_FLOAT16"], "shape": [1], "value": 2.5},
       {"name": "alpha", "type": "fp32"},
       {"name": "bias", "format": ["UNDEFINED"], "type": ["UNDEFINED"], "shape": [5]},
       {"name": "grid", "type": "float", "value": [[1, 2, 3], [4, 5, 6]]}]},
    {"case_name": "fuzzy", "op": "Fill", "fuzz_impl": "fuzz.py:branch",
     "input_desc": [{"name": "dims", "type": ["int64"], "shape": "fuzz", "value": "fuzz"}]}
  ])";
  const auto s = ev::parse_msopst_cases(text, "tests/st/Fill_case.json", "fill");
  ASSERT_EQ(s.cases.size(), 1u) << "the fuzz case is skipped";
  const auto& in = s.cases[0].inputs;
  ASSERT_EQ(in.size(), 4u) << "the UNDEFINED input is left out";
  EXPECT_EQ(in[0].tensors[0].shape, (std::vector<std::int64_t>{4}));
  EXPECT_EQ(in[0].tensors[0].values, (std::vector<double>{1, 2, 3, 4}));
  EXPECT_EQ(in[1].tensors[0].type, ev::dtype::float16);
  EXPECT_EQ(in[1].tensors[0].values, (std::vector<double>{2.5}));
  EXPECT_EQ(in[2].tensors[0].type, ev::dtype::float32);
  EXPECT_TRUE(in[2].tensors[0].shape.empty());
  EXPECT_EQ(in[3].name, "grid");
  EXPECT_EQ(in[3].tensors[0].shape, (std::vector<std::int64_t>{2, 3}));
  EXPECT_EQ(in[3].tensors[0].values.back(), 6);
  bool warned = false;
  for (const auto& w : s.warnings) warned |= w.find("fuzz") != std::string::npos;
  EXPECT_TRUE(warned);
}

TEST(MsOpSt, OnlyFuzzCasesIsAnError) {
  const std::string text = R"([{"case_name": "f", "op": "R", "fuzz_impl": "fuzz.py:b",
     "input_desc": [{"name": "x", "type": ["float"], "shape": "fuzz"}]}])";
  try {
    ev::parse_msopst_cases(text, "st.json", "r");
    FAIL() << "no concrete case";
  } catch (const aopt::error& e) {
    EXPECT_NE(std::string(e.what()).find("aopt.json"), std::string::npos) << e.what();
  }
}

namespace {

// A case file with one concrete case and one fuzz case (two calls) of three inputs, one optional.
const std::string fuzz_file = R"([
  {"case_name": "plain", "op": "R",
   "input_desc": [{"name": "x", "type": "float", "shape": [4]}, {"name": "y", "type": "float", "shape": [4]}]},
  {"case_name": "fz", "op": "R", "fuzz_impl": "gen/fuzz.py:branch_1", "fuzz_case_num": 2,
   "input_desc": [{"name": "x", "type": ["float"], "shape": "fuzz", "value": "fuzz"},
                  {"name": "y", "type": ["int32"], "shape": "fuzz", "value": "fuzz"},
                  {"name": "opt", "type": ["UNDEFINED"], "shape": []}],
   "output_desc": [{"name": "out", "type": ["float"], "shape": "fuzz"}],
   "attr": [{"name": "r", "type": "float", "value": "fuzz"}, {"name": "k", "type": "int", "value": 3}]}
])";

nlohmann::ordered_json call(const std::string& text) { return nlohmann::ordered_json::parse(text); }

ev::msopst_fuzz_outputs two_calls(const std::string& second) {
  ev::msopst_fuzz_outputs out;
  out[1].origin = "fuzz.py:branch_1 (numpy seed 2)";
  out[1].calls.push_back(call(R"({"input_desc": {"x": {"shape": [2, 3], "value": [[1, 2, 3], [4, 5, 6]]},
                                                 "y": {"shape": [2], "value": [7, 8]}},
                                  "attr": {"r": {"value": 0.5}}, "output_desc": {"out": {"shape": [2, 5]}}})"));
  out[1].calls.push_back(call(second));
  return out;
}

std::string error_of(const ev::msopst_fuzz_outputs& fuzz) {
  try {
    ev::parse_msopst_cases(fuzz_file, "st/R_case.json", "r", fuzz);
  } catch (const aopt::error& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST(MsOpStFuzz, RequestsNameScriptFunctionCallsAndSeed) {
  const auto rs = ev::msopst_fuzz_requests(fuzz_file, "/ops/r/tests/st/R_case.json");
  ASSERT_EQ(rs.size(), 1u);
  EXPECT_EQ(rs[0].index, 1u);
  EXPECT_EQ(rs[0].case_name, "fz");
  EXPECT_EQ(rs[0].script, std::filesystem::path("/ops/r/tests/st/gen/fuzz.py"));
  EXPECT_EQ(rs[0].function, "branch_1");
  EXPECT_EQ(rs[0].count, 2u);
  EXPECT_EQ(rs[0].seed, 2u) << "case index + 1";
  EXPECT_EQ(rs[0].origin(), "fuzz.py:branch_1 (numpy seed 2)");
  EXPECT_NE(rs[0].where.find("R_case.json:4:"), std::string::npos) << rs[0].where;
  EXPECT_TRUE(ev::msopst_fuzz_requests(R"([{"case_name": "a", "input_desc": []}])", "x.json").empty());
}

TEST(MsOpStFuzz, BadRequestsAreErrorsNamingTheCase) {
  const auto bad = [](const std::string& fields) {
    const std::string text = R"([{"case_name": "c9", "input_desc": [{"name": "x", "type": "float", "shape": "fuzz"}])" + fields + "}]";
    try {
      ev::msopst_fuzz_requests(text, "st.json");
    } catch (const aopt::error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  for (const char* impl : {R"("../fuzz.py:f")", R"("/abs/fuzz.py:f")", R"("fuzz.py")", R"("fuzz.py:1f")", R"("fuzz.txt:f")", "3"}) {
    const auto e = bad(std::string(R"(, "fuzz_impl": )") + impl);
    EXPECT_NE(e.find("st.json:1:"), std::string::npos) << e;
    EXPECT_NE(e.find("case c9"), std::string::npos) << e;
    EXPECT_NE(e.find("SCRIPT.py:FUNCTION"), std::string::npos) << impl << ": " << e;
  }
  EXPECT_NE(bad(R"(, "fuzz_impl": "f.py:g", "fuzz_case_num": 0)").find("fuzz_case_num 0"), std::string::npos);
  EXPECT_NE(bad(R"(, "fuzz_impl": "f.py:g", "fuzz_case_num": 101)").find("1 to 100"), std::string::npos);
  EXPECT_NE(bad("").find("no \"fuzz_impl\""), std::string::npos) << bad("");
  EXPECT_EQ(bad(R"(, "fuzz_impl": "sub/f.py:g_2", "fuzz_case_num": 100)"), "no error");
}

TEST(MsOpStFuzz, CallsFillInShapesValuesAttrsAndOutputs) {
  const auto s = ev::parse_msopst_cases(fuzz_file, "st/R_case.json", "r",
                                        two_calls(R"({"input_desc": {"x": {"shape": [1], "value": [9]}, "y": {"shape": [1], "value": [1]}},
                                                      "attr": {"r": {"value": 2}}, "output_desc": {"out": {"shape": [3]}}})"));
  ASSERT_EQ(s.cases.size(), 3u);
  EXPECT_EQ(s.cases[0].name, "plain");
  EXPECT_EQ(s.cases[1].name, "fz_fuzz1");
  EXPECT_EQ(s.cases[2].name, "fz_fuzz2");
  const auto& c = s.cases[1];
  ASSERT_EQ(c.inputs.size(), 2u) << "the UNDEFINED input stays out";
  EXPECT_EQ(c.inputs[0].tensors[0].shape, (std::vector<std::int64_t>{2, 3}));
  EXPECT_EQ(c.inputs[0].tensors[0].values, (std::vector<double>{1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(c.inputs[1].tensors[0].type, ev::dtype::int32);
  EXPECT_EQ(c.inputs[1].tensors[0].values, (std::vector<double>{7, 8}));
  ASSERT_TRUE(c.outputs.at(0).shape);
  EXPECT_EQ(*c.outputs[0].shape, (std::vector<std::int64_t>{2, 5}));
  EXPECT_DOUBLE_EQ(c.attrs["r"].get<double>(), 0.5);
  EXPECT_EQ(c.attrs["k"].get<int>(), 3) << "concrete attributes stay";
  EXPECT_EQ(s.cases[2].inputs[0].tensors[0].values, (std::vector<double>{9}));
  EXPECT_EQ(*s.cases[2].outputs[0].shape, (std::vector<std::int64_t>{3}));
  bool noted = false;
  for (const auto& w : s.warnings) noted |= w.find("2 cases from fuzz.py:branch_1 (numpy seed 2)") != std::string::npos;
  EXPECT_TRUE(noted);
  // One call: the case keeps its name.
  auto one = two_calls("{}");
  one[1].calls.pop_back();
  EXPECT_EQ(ev::parse_msopst_cases(fuzz_file, "st/R_case.json", "r", one).cases[1].name, "fz");
}

TEST(MsOpStFuzz, CallsThatDoNotFitAreErrorsNamingFileCaseAndFunction) {
  const std::string ok_inputs = R"("input_desc": {"x": {"shape": [1], "value": [1]}, "y": {"shape": [1], "value": [1]}})";
  const std::string ok_rest = R"("attr": {"r": {"value": 1}}, "output_desc": {"out": {"shape": [1]}})";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"[1, 2]", "not a dict"},
      {"{" + ok_inputs + ", " + ok_rest + R"(, "extra": {}})", "returned key 'extra'"},
      {R"({"input_desc": {"x": {"shape": [1], "value": [1]}, "y": {"shape": [1], "value": [1]}, "w": {"shape": [1]}}, )" + ok_rest + "}",
       "input_desc 'w', which the case does not have (its input_desc: x, y, opt)"},
      {R"({"input_desc": {"x": {"shape": [1], "value": [1]}}, )" + ok_rest + "}", "no shape for input_desc 'y'"},
      {"{" + ok_inputs + R"(, "output_desc": {"out": {"shape": [1]}}})", "no value for attr 'r'"},
      {"{" + ok_inputs + R"(, "attr": {"r": {"value": 1}}})", "no shape for output_desc 'out'"},
      {R"({"input_desc": {"x": {"shape": [1], "value": [1], "dtype": "float"}, "y": {"shape": [1], "value": [1]}}, )" + ok_rest + "}",
       "field 'dtype' for input_desc 'x'"},
      {R"({"input_desc": {"x": {"shape": [3], "value": [1, 2]}, "y": {"shape": [1], "value": [1]}}, )" + ok_rest + "}",
       "shape [3] but a value of shape [2]"},
      {R"({"input_desc": {"x": {"shape": [2, 2], "value": [[1, 2], [3]]}, "y": {"shape": [1], "value": [1]}}, )" + ok_rest + "}", "ragged"},
      {R"({"input_desc": {"x": {"shape": [1], "value": ["a"]}, "y": {"shape": [1], "value": [1]}}, )" + ok_rest + "}",
       "not a number, boolean or nested list"},
      {"{" + ok_inputs + R"(, "attr": {"r": {"value": 1}}, "output_desc": {"out": {"shape": [0, 2]}}})", "output 'out': shape [0,2]"},
  };
  for (const auto& [second, want] : cases) {
    const auto e = error_of(two_calls(second));
    EXPECT_NE(e.find("st/R_case.json:"), std::string::npos) << e;
    EXPECT_NE(e.find("case fz: fuzz.py:branch_1 (numpy seed 2), call 2 of 2: "), std::string::npos) << e;
    EXPECT_NE(e.find(want), std::string::npos) << "want '" << want << "' in: " << e;
  }
}
