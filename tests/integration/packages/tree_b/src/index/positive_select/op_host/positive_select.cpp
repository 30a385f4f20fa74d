// Fixture PositiveSelect (tree_b): y = the elements of x above 0, in order (a masked select, as
// the tree's masked_select_v3): y's size depends on x's values, so y is declared
// OutputShapeDependOnCompute and there is no InferShape; the kernel writes y's real shape.
#include "positive_select_tiling.h"
#include "register/op_def_registry.h"

namespace optiling {
static ge::graphStatus TilingFunc(gert::TilingContext* context)
{
    const int64_t total = context->GetInputShape(0)->GetStorageShape().GetShapeSize();
    if (total <= 0 || total > static_cast<int64_t>(UINT32_MAX)) {
        return ge::GRAPH_FAILED;
    }
    PositiveSelectTilingData tiling;
    tiling.set_totalLength(static_cast<uint32_t>(total));
    context->SetBlockDim(1);
    tiling.SaveToBuffer(context->GetRawTilingData()->GetData(), context->GetRawTilingData()->GetCapacity());
    context->GetRawTilingData()->SetDataSize(tiling.GetDataSize());
    size_t* ws = context->GetWorkspaceSizes(1);
    ws[0] = 0;
    return ge::GRAPH_SUCCESS;
}
}  // namespace optiling

namespace ops {
class PositiveSelect : public OpDef {
public:
    explicit PositiveSelect(const char* name) : OpDef(name)
    {
        this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->Output("y").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND}).OutputShapeDependOnCompute();
        this->AICore().SetTiling(optiling::TilingFunc);
        this->AICore().AddConfig("ascend910b");
    }
};
OP_ADD(PositiveSelect);
}  // namespace ops
