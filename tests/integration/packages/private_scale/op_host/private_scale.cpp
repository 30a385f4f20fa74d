// Fixture PrivateScale (session 33): y = 2 x where the OpDef declares x and y in the private format
// NDC1HWC0 (as the tree's conv3d backprop operators declare their feature maps). The tiling
// accepts the tensors only as the runtime gives them: origin format NCDHW with the 5-D origin
// shape, storage format NDC1HWC0 with the 6-D storage shape [N, D, C1, H, W, 16]; the kernel
// doubles every storage element (the padding channels included).
#include "private_scale_tiling.h"
#include "register/op_def_registry.h"

namespace optiling {
static ge::graphStatus TilingFunc(gert::TilingContext* context)
{
    const auto* desc = context->GetInputDesc(0);
    const auto& shape = *context->GetInputShape(0);
    const auto& origin = shape.GetOriginShape();
    const auto& storage = shape.GetStorageShape();
    if (desc->GetOriginFormat() != ge::FORMAT_NCDHW || desc->GetStorageFormat() != ge::FORMAT_NDC1HWC0 ||
        origin.GetDimNum() != 5 || storage.GetDimNum() != 6 || storage.GetDim(5) != 16 ||
        storage.GetDim(2) != (origin.GetDim(1) + 15) / 16 || storage.GetDim(1) != origin.GetDim(2)) {
        return ge::GRAPH_FAILED;
    }
    PrivateScaleTilingData tiling;
    tiling.set_totalLength(static_cast<uint32_t>(storage.GetShapeSize()));
    tiling.set_tileLength(1024);
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
class PrivateScale : public OpDef {
public:
    explicit PrivateScale(const char* name) : OpDef(name)
    {
        this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT16}).Format({ge::FORMAT_NDC1HWC0});
        this->Output("y").ParamType(REQUIRED).DataType({ge::DT_FLOAT16}).Format({ge::FORMAT_NDC1HWC0});
        this->Attr("data_format").AttrType(OPTIONAL).String("NCDHW");
        this->SetInferShape(ge::InferShape);
        this->AICore().SetTiling(optiling::TilingFunc);
        this->AICore().AddConfig("ascend910b");
    }
};
OP_ADD(PrivateScale);
}  // namespace ops
