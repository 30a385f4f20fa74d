// Host idioms of cann-ops' cube tilings (issue 38), found compiling matmul/mat_mul_v3's host
// sources and the common op_tiling code its CMakeLists globs in: ge::TypeUtils'
// DataTypeToAscendString / FormatToAscendString; the registration's GenSimplifiedKey (accepted,
// never called: sim builds each case's kernel) and InferOutDataTypeSameWithFirstInput; memset_s /
// memcpy_s with only a context header included (CANN's exe_graph headers bring securec.h); and
// ops::ToString of a `const gert::Shape*`, which operators declare and link from CANN;
// InferShapeContext::GetOutputDesc (conv2d_backprop_filter_v2). This file
// does not compile (or link) on main.
#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include "exe_graph/runtime/tiling_context.h"
#include "graph/utils/type_utils.h"
#include "register/op_def_registry.h"

namespace ops {
std::string ToString(const gert::Shape* shape);  // as mat_mul_v3_proto.cpp declares it
}  // namespace ops

namespace {
ge::graphStatus CubeIdiomsTiling(gert::TilingContext*) { return ge::GRAPH_SUCCESS; }
ge::graphStatus CubeIdiomsKey(gert::TilingContext*, ge::char_t* key) {
  std::strcpy(key, "never called");
  return ge::GRAPH_SUCCESS;
}
ge::graphStatus CubeIdiomsInferShape(gert::InferShapeContext*) { return ge::GRAPH_SUCCESS; }
}  // namespace

IMPL_OP_OPTILING(CubeIdiomsOp).Tiling(CubeIdiomsTiling).GenSimplifiedKey(CubeIdiomsKey);
IMPL_OP_INFERSHAPE(CubeIdiomsOp).InferShape(CubeIdiomsInferShape).InferOutDataTypeSameWithFirstInput();

namespace {

TEST(CubeHostIdioms, TypeNamesAsAscendStrings) {
  EXPECT_EQ(std::string(ge::TypeUtils::DataTypeToAscendString(ge::DT_BF16).GetString()), "DT_BF16");
  EXPECT_EQ(std::string(ge::TypeUtils::FormatToAscendString(ge::FORMAT_FRACTAL_NZ).GetString()), "FRACTAL_NZ");
}

TEST(CubeHostIdioms, OutputsTakeTheFirstInputsDataType) {
  const auto& rec = aopt::sim::host::op_def_for("CubeIdiomsOp");
  ASSERT_NE(rec.tiling, nullptr);
  ASSERT_NE(rec.infer_dtype, nullptr);
  aopt::sim::host::op_instance op;
  op.inputs.emplace_back();
  op.inputs.back().desc.SetDataType(ge::DT_BF16);
  op.inputs.emplace_back();
  op.inputs.back().ir_index = 1;
  op.inputs.back().desc.SetDataType(ge::DT_INT8);
  op.outputs.resize(2);
  op.outputs[0].desc.SetDataType(ge::DT_FLOAT);
  op.outputs[1].ir_index = 1;
  op.outputs[1].desc.SetDataType(ge::DT_FLOAT);
  gert::InferDataTypeContext ctx(&op);
  ASSERT_EQ(rec.infer_dtype(&ctx), ge::GRAPH_SUCCESS);
  EXPECT_EQ(op.outputs[0].desc.GetDataType(), ge::DT_BF16);
  EXPECT_EQ(op.outputs[1].desc.GetDataType(), ge::DT_BF16);
}

// conv2d_backprop_filter_v2's InferShape reads its output's description (every context has it).
TEST(CubeHostIdioms, InferShapeSeesTheOutputDescription) {
  aopt::sim::host::op_instance op;
  op.inputs.emplace_back();
  op.outputs.emplace_back();
  op.outputs.back().desc.SetOriginFormat(ge::FORMAT_HWCN);
  gert::InferShapeContext ctx(&op);
  ASSERT_NE(ctx.GetOutputDesc(0), nullptr);
  EXPECT_EQ(ctx.GetOutputDesc(0)->GetOriginFormat(), ge::FORMAT_HWCN);
  EXPECT_EQ(ctx.GetOutputDesc(1), nullptr);
}

TEST(CubeHostIdioms, SecureCFunctionsComeWithTheContextHeaders) {
  char buf[8] = "abcdefg";
  EXPECT_EQ(memset_s(buf, sizeof buf, 0, sizeof buf), 0);
  EXPECT_EQ(buf[3], 0);
}

TEST(CubeHostIdioms, ShapePointerToString) {
  gert::Shape s;
  s.AppendDim(2);
  s.AppendDim(3);
  EXPECT_EQ(ops::ToString(&s), "[2, 3]");
  EXPECT_EQ(ops::ToString(static_cast<const gert::Shape*>(nullptr)), "nullptr");
}

}  // namespace
