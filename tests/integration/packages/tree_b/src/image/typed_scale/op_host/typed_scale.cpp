// Fixture TypedScale (tree_b): y = 2 x on one core, in tiles of 1024 elements.
#include "typed_scale_tiling.h"
#include "register/op_def_registry.h"

namespace optiling {
static ge::graphStatus TilingFunc(gert::TilingContext* context)
{
    const int64_t total = context->GetInputShape(0)->GetStorageShape().GetShapeSize();
    if (total <= 0 || total > static_cast<int64_t>(UINT32_MAX)) {
        return ge::GRAPH_FAILED;
    }
    TypedScaleTilingData tiling;
    tiling.set_totalLength(static_cast<uint32_t>(total));
    tiling.set_tileLength(1024);
    constexpr uint64_t key = TreeBTilingKey(1, 0, 2);
    TreeBDumpTiling(context->GetNodeName(), key);
    context->SetTilingKey(key);
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
class TypedScale : public OpDef {
public:
    explicit TypedScale(const char* name) : OpDef(name)
    {
        this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->Output("y").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->SetInferShape(ge::InferShape);
        this->AICore().SetTiling(optiling::TilingFunc);
        this->AICore().AddConfig("ascend910b");
    }
};
OP_ADD(TypedScale);
}  // namespace ops
