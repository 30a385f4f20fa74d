// msOpST cases with dynamic shapes (issue 38: rnn/dynamic_rnnv2's x is [-1, 16, 16]): a -1
// dimension runs as the case's typical_shape, else at the low end of its shape_range, with a
// warning; with neither, the error names the input and the field to add.
#include <gtest/gtest.h>

#include "aopt/common/error.h"
#include "aopt/evaluation/spec.h"

namespace ev = aopt::evaluation;

TEST(MsOpStDynamic, TypicalShapeOrShapeRangeMakesTheShapeConcrete) {
  const std::string text = R"([
    {"case_name": "Test_Rnn_001", "op": "DynamicRNNV2",
     "input_desc": [
       {"name": "x", "format": "ND", "type": "float16", "shape": [-1, 16, 16], "typical_shape": [3, 16, 16],
        "shape_range": [[1, 1]]},
       {"name": "w", "format": "ND", "type": "float16", "shape": [16, -1], "shape_range": [[64, 128]]},
       {"name": "b", "format": "ND", "type": "float16", "shape": [64]}],
     "output_desc": [{"name": "y", "format": "ND", "type": "float16", "shape": [1, 16, 16]}]}
  ])";
  const auto s = ev::parse_msopst_cases(text, "tests/st/DynamicRNNV2_case_01.json", "dynamic_rnnv2");
  ASSERT_EQ(s.cases.size(), 1u);
  EXPECT_EQ(s.cases[0].inputs[0].tensors[0].shape, (std::vector<std::int64_t>{3, 16, 16}));
  EXPECT_EQ(s.cases[0].inputs[1].tensors[0].shape, (std::vector<std::int64_t>{16, 64}));
  EXPECT_EQ(s.cases[0].inputs[2].tensors[0].shape, (std::vector<std::int64_t>{64}));
  int notes = 0;
  for (const auto& w : s.warnings) notes += w.find("dynamic shape") != std::string::npos;
  EXPECT_EQ(notes, 2) << "one note per dynamic input";
}

TEST(MsOpStDynamic, WithoutTypicalShapeOrRangeTheErrorSaysWhatToAdd) {
  const std::string text = R"([{"case_name": "c", "op": "X",
    "input_desc": [{"name": "x", "type": "float16", "shape": [-1, 16]}]}])";
  try {
    ev::parse_msopst_cases(text, "st.json", "x");
    FAIL() << "a dynamic shape without typical_shape or shape_range was accepted";
  } catch (const aopt::error& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("st.json"), std::string::npos) << m;
    EXPECT_NE(m.find("st.json:2:"), std::string::npos) << m;
    EXPECT_NE(m.find("input 'x'"), std::string::npos) << m;
    EXPECT_NE(m.find("typical_shape"), std::string::npos) << m;
  }
}
