// Issue 34: host API sim lacked, each checked for its documented values: ge::UNKNOWN_DIM(_NUM),
// ge::GetPrimaryFormat, ge::Shape, TilingContext::GetComputeNodeInfo, gert::InferShapeRangeContext
// with gert::Range, the log functions and macros (AlogCheckDebugLevel, AlogRecord, DLOG_*,
// REPORT_INNER_ERR_MSG), securec's memcpy_s/memset_s, and the advanced APIs' temporary-space
// helpers.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "base/alog_pub.h"
#include "base/err_msg.h"
#include "exe_graph/runtime/infer_shape_range_context.h"
#include "graph/tensor.h"
#include "securec.h"
#include "tiling/tiling_api.h"

namespace {

aopt::sim::host::op_instance two_inputs() {
  aopt::sim::host::op_instance op;
  op.node_name = "n1";
  op.node_type = "RangeOp";
  op.ir_input_count = 2;
  op.ir_output_count = 1;
  for (std::size_t k = 0; k < 2; ++k) {
    aopt::sim::host::io_slot s;
    s.ir_index = k;
    for (int64_t d : std::vector<int64_t>{4, 8 + static_cast<int64_t>(k)}) {
      s.shape.MutableOriginShape().AppendDim(d);
      s.shape.MutableStorageShape().AppendDim(d);
    }
    s.desc.SetDataType(ge::DT_FLOAT16);
    op.inputs.push_back(s);
  }
  op.outputs.emplace_back();
  op.outputs.back().shape.MutableOriginShape().AppendDim(4);
  return op;
}

TEST(Issue34Host, GraphConstantsFormatsAndShape) {
  EXPECT_EQ(ge::UNKNOWN_DIM, -1);
  EXPECT_EQ(ge::UNKNOWN_DIM_NUM, -2);
  // A format with a sub-format (FRACTAL_Z with groups 3): the primary format is the low byte.
  const int32_t f = ge::GetFormatFromSub(ge::FORMAT_FRACTAL_Z, 3);
  EXPECT_EQ(ge::GetPrimaryFormat(f), ge::FORMAT_FRACTAL_Z);
  EXPECT_EQ(ge::GetSubFormat(f), 3);
  EXPECT_EQ(GetPrimaryFormat(ge::FORMAT_NCHW), ge::FORMAT_NCHW);  // found by ADL, as kernels call it
  ge::Shape s(std::vector<int64_t>{2, 3, 4});
  EXPECT_EQ(s.GetDimNum(), 3u);
  EXPECT_EQ(s.GetDim(1), 3);
  EXPECT_EQ(s.GetShapeSize(), 24);
  EXPECT_EQ(s.SetDim(1, ge::UNKNOWN_DIM), ge::GRAPH_SUCCESS);
  EXPECT_EQ(s.GetShapeSize(), -1);
  EXPECT_EQ(s.SetDim(7, 1), ge::GRAPH_FAILED);
  EXPECT_EQ(ge::Shape().GetShapeSize(), 0);
}

TEST(Issue34Host, ComputeNodeInfoAndShapeRanges) {
  auto op = two_inputs();
  gert::TilingContext t(&op);
  const gert::ComputeNodeInfo* info = t.GetComputeNodeInfo();
  ASSERT_NE(info, nullptr);
  EXPECT_STREQ(info->GetNodeName(), "n1");
  EXPECT_STREQ(info->GetNodeType(), "RangeOp");
  EXPECT_EQ(info->GetInputsNum(), 2u);
  EXPECT_EQ(info->GetOutputsNum(), 1u);
  EXPECT_EQ(info->GetInputTdInfo(1)->GetDataType(), ge::DT_FLOAT16);
  EXPECT_EQ(info->GetInputTdInfo(2), nullptr);

  gert::InferShapeRangeContext rc(&op);
  const gert::Range<gert::Shape>* x = rc.GetInputShapeRange(1);
  ASSERT_NE(x, nullptr);
  EXPECT_EQ(x->GetMin()->GetDim(1), 9);
  EXPECT_EQ(x->GetMax()->GetDim(1), 9);
  EXPECT_EQ(rc.GetInputShapeRange(2), nullptr);
  gert::Range<gert::Shape>* y = rc.GetOutputShapeRange(0);
  ASSERT_NE(y, nullptr);
  y->GetMin()->SetDimNum(2);
  y->GetMin()->SetDim(1, 1);
  y->GetMax()->SetDimNum(2);
  y->GetMax()->SetDim(1, 64);
  EXPECT_EQ(rc.GetOutputShapeRange(0)->GetMax()->GetDim(1), 64);
  EXPECT_EQ(rc.GetOutputShapeRange(0)->GetMin()->GetDim(1), 1);
}

TEST(Issue34Host, LogLevelsAndReports) {
  // Default level (AOPT_OP_LOG unset): warnings and errors are printed, debug and info not.
  EXPECT_EQ(AlogCheckDebugLevel(static_cast<int>(OP), DLOG_DEBUG), 0);
  EXPECT_EQ(AlogCheckDebugLevel(static_cast<int>(OP), DLOG_ERROR), 1);
  testing::internal::CaptureStderr();
  AlogRecord(OP, DLOG_TYPE_DEBUG, DLOG_ERROR, "value %d", 42);
  AlogRecord(OP, DLOG_TYPE_DEBUG, DLOG_DEBUG, "hidden %d", 1);
  REPORT_INNER_ERR_MSG("EZ9999", "op[%s], %s is nullptr!", "n1", "x");
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("value 42"), std::string::npos) << err;
  EXPECT_EQ(err.find("hidden"), std::string::npos) << err;
  EXPECT_NE(err.find("op[n1], x is nullptr!"), std::string::npos) << err;
}

TEST(Issue34Host, SecurecBoundsChecks) {
  char dst[8] = {};
  EXPECT_EQ(memcpy_s(dst, sizeof dst, "abc", 4), EOK);
  EXPECT_STREQ(dst, "abc");
  EXPECT_NE(memcpy_s(dst, 2, "abc", 4), EOK);  // too small: an error, destination cleared
  EXPECT_EQ(dst[0], 0);
  EXPECT_EQ(memset_s(dst, sizeof dst, 'x', 3), EOK);
  EXPECT_EQ(dst[2], 'x');
  EXPECT_NE(memset_s(nullptr, 1, 0, 1), EOK);
}

TEST(Issue34Host, AdvancedApiTemporarySpace) {
  uint32_t mx = 0, mn = 0;
  AscendC::GetSigmoidMaxMinTmpSize(ge::Shape(std::vector<int64_t>{16, 100}), 2, false, mx, mn);
  EXPECT_EQ(mn, 256u);
  EXPECT_EQ(mx, 6400u);  // 1600 elements as float
  EXPECT_GE(mx, mn);
  AscendC::GetTanhMaxMinTmpSize(ge::Shape(std::vector<int64_t>{3}), 4, false, mx, mn);
  EXPECT_EQ(mn, 256u);
  EXPECT_EQ(mx, 256u);  // never below the minimum
}

}  // namespace
