// Host idioms of the cann-ops tree's math/index/image operators (issue 34, tree_b), each as the
// real headers and libraries allow it:
// - an output's initial value given as typed scalars (`.InitValue({{ScalarType::FLOAT32, 0}, ...})`,
//   the documented OpParamDef::InitValue(const std::vector<ScalarVar>&));
// - complex64 parameters (the BLAS operators), named "complex64" in the signature;
// - `ops::ToString(const gert::Shape&)`, which operators declare themselves and link from CANN;
// - ComputeNodeInfo::GetInputInstanceInfo, and the Mean API's AscendC::GetMeanMaxMinTmpSize.
// This file does not compile (or link) when sim lacks one of them.
#include <gtest/gtest.h>

#include <string>

#include <nlohmann/json.hpp>

#include "aopt_sim/host/host.h"
#include "register/op_def_registry.h"
#include "tiling/tiling_api.h"

namespace ops {
std::string ToString(const gert::Shape& shape);  // as the tree's operators declare it

class TreeBInitValueOp : public OpDef {
 public:
  explicit TreeBInitValueOp(const char* name) : OpDef(name) {
    this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT, ge::DT_FLOAT16}).Format({ge::FORMAT_ND, ge::FORMAT_ND});
    this->Output("dx")
        .ParamType(REQUIRED)
        .DataType({ge::DT_FLOAT, ge::DT_FLOAT16})
        .Format({ge::FORMAT_ND, ge::FORMAT_ND})
        .InitValue({{ScalarType::FLOAT32, 0}, {ScalarType::FLOAT16, 0}});
    this->Output("count").ParamType(REQUIRED).DataType({ge::DT_INT32, ge::DT_INT32}).InitValue(ScalarVar(ScalarType::INT32, 0));
  }
};
OP_ADD(TreeBInitValueOp);

class TreeBComplexOp : public OpDef {
 public:
  explicit TreeBComplexOp(const char* name) : OpDef(name) {
    this->Input("x").ParamType(REQUIRED).DataType({ge::DT_COMPLEX64}).Format({ge::FORMAT_ND});
    this->Output("y").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
  }
};
OP_ADD(TreeBComplexOp);
}  // namespace ops

namespace {

TEST(TreeBHost, InitValueTakesTypedScalars) {
  std::string why;
  const auto* rec = aopt::sim::host::main_op("TreeBInitValueOp", &why);
  ASSERT_NE(rec, nullptr) << why;
  const nlohmann::json j = aopt::sim::host::signature_json(*rec);
  ASSERT_EQ(j["outputs"].size(), 2u);
  EXPECT_EQ(j["outputs"][0]["dtypes"], nlohmann::json({"float32", "float16"}));
  const ops::ScalarVar v(ops::ScalarType::FLOAT32, 1.5f);
  EXPECT_EQ(v.scalar_type, ops::ScalarType::FLOAT32);
  EXPECT_EQ(v.scalar_num.value_f32, 1.5f);
}

// The initial values are recorded, one per DataType entry for the list form, in the signature as
// "init_value"; an integer given for a FLOAT32 scalar is kept as a float. Before: not recorded.
TEST(TreeBHost, InitValueIsRecordedPerOutput) {
  std::string why;
  const auto* rec = aopt::sim::host::main_op("TreeBInitValueOp", &why);
  ASSERT_NE(rec, nullptr) << why;
  EXPECT_EQ(rec->outputs[0].init_values, (std::vector<double>{0, 0}));
  EXPECT_EQ(rec->outputs[1].init_values, (std::vector<double>{0}));
  EXPECT_FALSE(rec->inputs[0].init_values.size());
  const nlohmann::json j = aopt::sim::host::signature_json(*rec);
  EXPECT_EQ(j["outputs"][1]["init_value"], nlohmann::json({0.0}));
  const ops::ScalarVar f(ops::ScalarType::FLOAT32, 3);
  EXPECT_EQ(f.scalar_num.value_f32, 3.0f);
  const ops::ScalarVar u(ops::ScalarType::UINT32, 7);
  EXPECT_EQ(u.scalar_num.value_u64, 7u);
}

TEST(TreeBHost, Complex64IsNamedInTheSignature) {
  std::string why;
  const auto* rec = aopt::sim::host::main_op("TreeBComplexOp", &why);
  ASSERT_NE(rec, nullptr) << why;
  const nlohmann::json j = aopt::sim::host::signature_json(*rec);
  EXPECT_EQ(j["inputs"][0]["dtypes"], nlohmann::json({"complex64"}));
  EXPECT_EQ(aopt::sim::host::parse_dtype("complex64"), ge::DT_COMPLEX64);
}

TEST(TreeBHost, OpsToStringPrintsTheShape) {
  EXPECT_EQ(ops::ToString(gert::Shape{2, 3, 4}), "[2, 3, 4]");
  EXPECT_EQ(ops::ToString(gert::Shape{}), "[]");
}

}  // namespace

namespace {

// ComputeNodeInfo::GetInputInstanceInfo (the tree's scatter_list counts its tensor-list input's
// members with it): the first instance and the count of each IR input.
TEST(TreeBHost, InputInstanceInfoLocatesEachIrInput) {
  aopt::sim::host::op_instance op;
  op.ir_input_count = 3;
  for (std::size_t rel = 0; rel < 3; ++rel) {
    aopt::sim::host::io_slot s;
    s.name = "var";
    s.ir_index = 0;
    s.relative = rel;
    op.inputs.push_back(s);
  }
  aopt::sim::host::io_slot idx;
  idx.name = "indice";
  idx.ir_index = 2;  // IR input 1 (optional) absent
  op.inputs.push_back(idx);
  const gert::ComputeNodeInfo info(&op);
  const auto* var = info.GetInputInstanceInfo(0);
  ASSERT_NE(var, nullptr);
  EXPECT_EQ(var->GetInstanceStart(), 0u);
  EXPECT_EQ(var->GetInstanceNum(), 3u);
  const auto* absent = info.GetInputInstanceInfo(1);
  ASSERT_NE(absent, nullptr);
  EXPECT_EQ(absent->GetInstanceNum(), 0u);
  const auto* indice = info.GetInputInstanceInfo(2);
  ASSERT_NE(indice, nullptr);
  EXPECT_EQ(indice->GetInstanceStart(), 3u);
  EXPECT_EQ(indice->GetInstanceNum(), 1u);
  EXPECT_EQ(var->GetInstanceNum(), 3u);  // still valid after the later queries
  EXPECT_EQ(info.GetInputInstanceInfo(3), nullptr);
}

}  // namespace

namespace {

// Documented: Mean's maximum temporary space equals its minimum; at least one row is covered.
TEST(TreeBHost, MeanTemporarySpaceIsOneSize) {
  uint32_t max = 0, min = 0;
  AscendC::GetMeanMaxMinTmpSize(3, 2, 4, false, max, min);
  EXPECT_EQ(max, min);
  EXPECT_GE(min, 3u * 4u);
  EXPECT_EQ(min % 32, 0u);
}

}  // namespace
