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
