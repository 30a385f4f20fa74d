/**
 * @file op_infershape.cpp
 * Shape and dtype inference of MulV3: y takes x1's shape and dtype.
 */
#include "register/op_impl_registry.h"
#include "log/ops_log.h"

namespace ops {
static ge::graphStatus InferShapeMulV3(gert::InferShapeContext *context)
{
    const gert::Shape *x1Shape = context->GetInputShape(0);
    const gert::Shape *x2Shape = context->GetInputShape(1);
    gert::Shape *yShape = context->GetOutputShape(0);
    OPS_CHECK_NULL_WITH_CONTEXT(context, x1Shape);
    OPS_CHECK_NULL_WITH_CONTEXT(context, x2Shape);
    OPS_CHECK_NULL_WITH_CONTEXT(context, yShape);
    OP_CHECK_IF(*x1Shape != *x2Shape, OP_LOGE(context, "x1 and x2 must have the same shape"),
                return ge::GRAPH_FAILED);
    *yShape = *x1Shape;
    return ge::GRAPH_SUCCESS;
}

static ge::graphStatus InferDataTypeMulV3(gert::InferDataTypeContext *context)
{
    context->SetOutputDataType(0, context->GetInputDataType(0));
    return ge::GRAPH_SUCCESS;
}

IMPL_OP_INFERSHAPE(MulV3).InferShape(InferShapeMulV3).InferDataType(InferDataTypeMulV3);
}  // namespace ops
