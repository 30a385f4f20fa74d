// Fixture ColumnScale (tree_b, session 33): y = 3 x (float32) with two OpDef columns of one dtype,
// x and y NHWC in the first and ND in the second. Its kernel writes nothing when built for the
// NHWC column (FORMAT_X), so `aopt init`'s rank-4 probes (the NHWC column) run clean but write
// nothing and a later rank-2 probe takes the ND column: that probe's kernel must be built for
// the ND column. Before: "sim backend: no kernel built for dtype column 1" (init failed).
#include "column_scale_tiling.h"
#include "register/op_def_registry.h"

namespace optiling {
static ge::graphStatus TilingFunc(gert::TilingContext* context)
{
    // Elements of the kernel's float view: 1 per element of x.
    const int64_t total = context->GetInputShape(0)->GetStorageShape().GetShapeSize() * 1;
    if (total <= 0 || total > static_cast<int64_t>(UINT32_MAX) || context->GetInputDesc(0)->GetDataType() != ge::DT_FLOAT) {
        return ge::GRAPH_FAILED;
    }
    ColumnScaleTilingData tiling;
    tiling.set_totalLength(static_cast<uint32_t>(total));
    tiling.set_tileLength(1024);
    context->SetTilingKey(1);
    context->SetBlockDim(1);
    tiling.SaveToBuffer(context->GetRawTilingData()->GetData(), context->GetRawTilingData()->GetCapacity());
    context->GetRawTilingData()->SetDataSize(tiling.GetDataSize());
    size_t* ws = context->GetWorkspaceSizes(1);
    ws[0] = 0;
    return ge::GRAPH_SUCCESS;
}
}  // namespace optiling

namespace ge {
static graphStatus InferShape(gert::InferShapeContext* context)
{
    *context->GetOutputShape(0) = *context->GetInputShape(0);
    return GRAPH_SUCCESS;
}
}  // namespace ge

namespace ops {
class ColumnScale : public OpDef {
public:
    explicit ColumnScale(const char* name) : OpDef(name)
    {
        this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT, ge::DT_FLOAT}).Format({ge::FORMAT_NHWC, ge::FORMAT_ND});
        this->Output("y").ParamType(REQUIRED).DataType({ge::DT_FLOAT, ge::DT_FLOAT}).Format({ge::FORMAT_NHWC, ge::FORMAT_ND});
        this->SetInferShape(ge::InferShape);
        this->AICore().SetTiling(optiling::TilingFunc);
        this->AICore().AddConfig("ascend910b");
    }
};
OP_ADD(ColumnScale);
}  // namespace ops
