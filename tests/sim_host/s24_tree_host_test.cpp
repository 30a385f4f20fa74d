// Host idioms of the cann-ops tree (issue 34, session 24), each as the documented gert API has it:
// - ExtendedKernelContext, the base of every kernel context, which an InferShape function reaches
//   by reinterpret_cast of its InferShapeContext (scatter_list counts its outputs that way);
// - GetOutputDesc on an InferShapeContext (an ExtendedKernelContext member: avg_pool3_d reads its
//   output's origin format in InferShape);
// - IMPL_OP_INFERSHAPE(Op).PrivateAttr(name, default): an attribute the OpDef does not declare,
//   laid out after the OpDef's (avg_pool3_d's InferShape reads its private "padding" as attribute
//   7 after 7 OpDef attributes); sim dropped it, so the InferShape read nullptr.
// This file does not compile when sim lacks one of them.
#include <gtest/gtest.h>

#include "exe_graph/runtime/extended_kernel_context.h"
#include "exe_graph/runtime/infer_shape_context.h"
#include "aopt_sim/host/host.h"
#include "register/op_def_registry.h"

namespace {
ge::graphStatus s24_priv_infer(gert::InferShapeContext*) { return ge::GRAPH_SUCCESS; }
}  // namespace
namespace ops {
IMPL_OP_INFERSHAPE(S24PrivateAttrOp).InferShape(s24_priv_infer).PrivateAttr("padding", "").PrivateAttr("groups", 4);
}  // namespace ops

namespace {

aopt::sim::host::op_instance two_in_two_out() {
  aopt::sim::host::op_instance op;
  op.ir_input_count = 2;
  op.ir_output_count = 1;
  for (std::size_t i = 0; i < 2; ++i) {
    aopt::sim::host::io_slot in;
    in.name = i == 0 ? "x" : "w";
    in.ir_index = i;
    in.desc.SetDataType(ge::DT_FLOAT);
    in.desc.SetOriginFormat(ge::FORMAT_NCDHW);
    op.inputs.push_back(in);
  }
  for (std::size_t rel = 0; rel < 2; ++rel) {  // one dynamic output of two members
    aopt::sim::host::io_slot out;
    out.name = "y";
    out.ir_index = 0;
    out.relative = rel;
    out.desc.SetDataType(ge::DT_FLOAT16);
    out.desc.SetOriginFormat(rel == 0 ? ge::FORMAT_NDHWC : ge::FORMAT_ND);
    op.outputs.push_back(out);
  }
  return op;
}

TEST(S24TreeHost, InferShapeContextIsAnExtendedKernelContext) {
  auto op = two_in_two_out();
  gert::InferShapeContext ctx(&op);
  gert::InferShapeContext* context = &ctx;
  auto* ext = reinterpret_cast<gert::ExtendedKernelContext*>(context);  // the operators' idiom
  EXPECT_EQ(ext->GetComputeNodeOutputNum(), 2u);
  EXPECT_EQ(ext->GetComputeNodeInputNum(), 2u);
  const gert::ExtendedKernelContext* base = context;  // and an ordinary base class
  EXPECT_EQ(base->GetComputeNodeInfo()->GetOutputsNum(), 2u);
}

TEST(S24TreeHost, InferShapeContextGivesTheOutputDescs) {
  auto op = two_in_two_out();
  gert::InferShapeContext ctx(&op);
  const auto* y0 = ctx.GetOutputDesc(0);
  ASSERT_NE(y0, nullptr);
  EXPECT_EQ(y0->GetOriginFormat(), ge::FORMAT_NDHWC);
  EXPECT_EQ(y0->GetDataType(), ge::DT_FLOAT16);
  ASSERT_NE(ctx.GetOutputDesc(1), nullptr);
  EXPECT_EQ(ctx.GetOutputDesc(1)->GetOriginFormat(), ge::FORMAT_ND);
  EXPECT_EQ(ctx.GetOutputDesc(2), nullptr);  // past the last output: null, as documented
  ASSERT_NE(ctx.GetOptionalInputDesc(1), nullptr);
  EXPECT_EQ(ctx.GetOptionalInputDesc(1)->GetOriginFormat(), ge::FORMAT_NCDHW);
  EXPECT_EQ(ctx.GetDynamicInputDesc(0, 0), ctx.GetInputDesc(0));
}

TEST(S24TreeHost, PrivateAttrsAreRecordedWithTheirDefaultsInOrder) {
  const auto& rec = aopt::sim::host::op_def_for("S24PrivateAttrOp");
  EXPECT_NE(rec.infer_shape, nullptr);
  ASSERT_EQ(rec.private_attrs.size(), 2u);
  EXPECT_EQ(rec.private_attrs[0].name, "padding");
  EXPECT_EQ(rec.private_attrs[0].kind, gert::AoptAttrValue::kind::string);
  EXPECT_EQ(rec.private_attrs[0].default_value.s, "");
  EXPECT_TRUE(rec.private_attrs[0].has_value);
  EXPECT_EQ(rec.private_attrs[1].name, "groups");
  EXPECT_EQ(rec.private_attrs[1].kind, gert::AoptAttrValue::kind::int64);
  EXPECT_EQ(rec.private_attrs[1].default_value.i, 4);
  EXPECT_TRUE(rec.attrs.empty());  // not OpDef attributes: the signature does not list them
}

// The layout a data_format attribute names, for the tensors of its rank (the harness gives it to
// ND tensors of an operator with such an attribute: avg_pool3_d's InferShape reads x's origin
// format and accepts NCDHW, NDHWC, DHWCN only).
TEST(S24TreeHost, DataFormatNamesTheLayoutOfTensorsOfItsRank) {
  using aopt::sim::host::layout_of_data_format;
  EXPECT_EQ(layout_of_data_format("NDHWC", 5), ge::FORMAT_NDHWC);
  EXPECT_EQ(layout_of_data_format("NCDHW", 5), ge::FORMAT_NCDHW);
  EXPECT_EQ(layout_of_data_format("NCHW", 4), ge::FORMAT_NCHW);
  EXPECT_EQ(layout_of_data_format("NHWC", 4), ge::FORMAT_NHWC);
  EXPECT_EQ(layout_of_data_format("NDHWC", 1), ge::FORMAT_ND);  // a per-channel vector stays ND
  EXPECT_EQ(layout_of_data_format("NCHW", 5), ge::FORMAT_ND);
  EXPECT_EQ(layout_of_data_format("", 4), ge::FORMAT_ND);
  EXPECT_EQ(layout_of_data_format("ND", 2), ge::FORMAT_ND);
}

}  // namespace
