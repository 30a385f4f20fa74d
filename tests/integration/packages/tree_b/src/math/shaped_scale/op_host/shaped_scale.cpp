// Fixture ShapedScale (tree_b): the expand/reshape idiom. y = 2 x, y of the shape the list
// attribute `shape` gives (declared without a value, as the tree's expand_v2 does); its
// InferShape reads the attribute's data without checking that it is there.
#include "shaped_scale_tiling.h"
#include "register/op_def_registry.h"

namespace optiling {
static ge::graphStatus TilingFunc(gert::TilingContext* context)
{
    const int64_t total = context->GetInputShape(0)->GetStorageShape().GetShapeSize();
    const auto* shape = context->GetAttrs()->GetListInt(0);
    int64_t count = 1;
    for (size_t i = 0; shape != nullptr && i < shape->GetSize(); ++i) {
        count *= shape->GetData()[i];
    }
    if (shape == nullptr || shape->GetSize() == 0 || count != total) {
        return ge::GRAPH_FAILED;
    }
    ShapedScaleTilingData tiling;
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
    const auto* shape = context->GetAttrs()->GetListInt(0);
    gert::Shape* y = context->GetOutputShape(0);
    y->SetDimNum(0);
    for (size_t i = 0; i < shape->GetSize(); ++i) {
        y->AppendDim(shape->GetData()[i]);
    }
    return shape->GetSize() == 0 ? GRAPH_FAILED : GRAPH_SUCCESS;
}
}  // namespace ge

namespace ops {
class ShapedScale : public OpDef {
public:
    explicit ShapedScale(const char* name) : OpDef(name)
    {
        this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->Output("y").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->Attr("shape").ListInt();
        this->SetInferShape(ge::InferShape);
        this->AICore().SetTiling(optiling::TilingFunc);
        this->AICore().AddConfig("ascend910b");
    }
};
OP_ADD(ShapedScale);
}  // namespace ops
