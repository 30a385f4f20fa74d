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
