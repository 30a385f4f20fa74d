// Fixture FormatScale (tree_b): y = 3 x (float32, x ND, y FRACTAL_NZ in the OpDef); its kernel
// picks its code by the FORMAT_X / FORMAT_Y macros of the build in `#if` and passes a format name
// as an `int` template argument, as the tree's matmul and conv kernels do.
#include "format_scale_tiling.h"
#include "register/op_def_registry.h"

namespace optiling {
static ge::graphStatus TilingFunc(gert::TilingContext* context)
{
    // Elements of the kernel's float view: 1 per element of x.
    const int64_t total = context->GetInputShape(0)->GetStorageShape().GetShapeSize() * 1;
    if (total <= 0 || total > static_cast<int64_t>(UINT32_MAX) || context->GetInputDesc(0)->GetDataType() != ge::DT_FLOAT) {
        return ge::GRAPH_FAILED;
    }
    FormatScaleTilingData tiling;
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
class FormatScale : public OpDef {
public:
    explicit FormatScale(const char* name) : OpDef(name)
    {
        this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->Output("y").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_FRACTAL_NZ});
        this->SetInferShape(ge::InferShape);
        this->AICore().SetTiling(optiling::TilingFunc);
        this->AICore().AddConfig("ascend910b");
    }
};
OP_ADD(FormatScale);
}  // namespace ops
