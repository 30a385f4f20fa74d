// Fixture GroupRowsScale (tree_b): the grouped idiom of the tree's quantisation operators
// (group_quant). x [S, H]; scale [E, H], one row of H per group; group_index [E], the groups'
// cumulative row ends. y[r, :] = x[r, :] * scale[g, :] for the group g holding row r. The tiling
// refuses any other relation of the shapes, naming it (as the tree's OP_LOGE checks do).
#include <cstdio>

#include "group_rows_scale_tiling.h"
#include "register/op_def_registry.h"

namespace optiling {
static ge::graphStatus Refuse(const char* why)
{
    std::printf("GroupRowsScale: %s\n", why);
    return ge::GRAPH_FAILED;
}

static ge::graphStatus TilingFunc(gert::TilingContext* context)
{
    const auto& x = context->GetInputShape(0)->GetStorageShape();
    const auto& scale = context->GetInputShape(1)->GetStorageShape();
    const auto& index = context->GetInputShape(2)->GetStorageShape();
    if (x.GetDimNum() != 2) return Refuse("x shape length should be 2");
    if (scale.GetDimNum() != 2) return Refuse("scale shape length should be 2");
    if (scale.GetDim(1) != x.GetDim(1)) return Refuse("the second dim of scale should be the second dim of x");
    if (index.GetDimNum() != 1) return Refuse("group_index shape length should be 1");
    if (index.GetDim(0) != scale.GetDim(0)) return Refuse("the dim of group_index should be the first dim of scale");
    GroupRowsScaleTilingData tiling;
    tiling.set_rows(static_cast<uint32_t>(x.GetDim(0)));
    tiling.set_cols(static_cast<uint32_t>(x.GetDim(1)));
    tiling.set_groups(static_cast<uint32_t>(scale.GetDim(0)));
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
class GroupRowsScale : public OpDef {
public:
    explicit GroupRowsScale(const char* name) : OpDef(name)
    {
        this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->Input("scale").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->Input("group_index").ParamType(REQUIRED).DataType({ge::DT_INT32}).Format({ge::FORMAT_ND});
        this->Output("y").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->SetInferShape(ge::InferShape);
        this->AICore().SetTiling(optiling::TilingFunc);
        this->AICore().AddConfig("ascend910b");
    }
};
OP_ADD(GroupRowsScale);
}  // namespace ops
