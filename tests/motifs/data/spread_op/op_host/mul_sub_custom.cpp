// Fixture (spread_single_core): the host side of a kernel written for one core. The tensor is
// cut into fixed tiles and the whole of it goes to core 0 (SetBlockDim(1)), as in operators whose
// authors brought them up on a single core and never split the work.
#include "mul_sub_custom_tiling.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"

namespace optiling {
constexpr uint32_t TILE_ELEMENTS = 4096;

static ge::graphStatus TilingFunc(gert::TilingContext* context)
{
    MulSubCustomTilingData tiling;
    const uint32_t totalLength = context->GetInputShape(0)->GetStorageShape().GetShapeSize();
    if (totalLength == 0) {
        return ge::GRAPH_FAILED;
    }
    const uint32_t tileNum = (totalLength + TILE_ELEMENTS - 1) / TILE_ELEMENTS;
    const uint32_t tailLength = totalLength - (tileNum - 1) * TILE_ELEMENTS;
    tiling.set_totalLength(totalLength);
    tiling.set_tileNum(tileNum);
    tiling.set_tileLength(TILE_ELEMENTS);
    tiling.set_tailLength(tailLength);
    context->SetBlockDim(1);  // one core does everything
    tiling.SaveToBuffer(context->GetRawTilingData()->GetData(), context->GetRawTilingData()->GetCapacity());
    context->GetRawTilingData()->SetDataSize(tiling.GetDataSize());
    size_t* workspaces = context->GetWorkspaceSizes(1);
    workspaces[0] = 0;
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
class MulSubCustom : public OpDef {
public:
    explicit MulSubCustom(const char* name) : OpDef(name)
    {
        this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT16, ge::DT_FLOAT}).Format({ge::FORMAT_ND, ge::FORMAT_ND});
        this->Input("y").ParamType(REQUIRED).DataType({ge::DT_FLOAT16, ge::DT_FLOAT}).Format({ge::FORMAT_ND, ge::FORMAT_ND});
        this->Output("z").ParamType(REQUIRED).DataType({ge::DT_FLOAT16, ge::DT_FLOAT}).Format({ge::FORMAT_ND, ge::FORMAT_ND});
        this->SetInferShape(ge::InferShape);
        this->AICore().SetTiling(optiling::TilingFunc);
        this->AICore().AddConfig("ascend910b");
    }
};

OP_ADD(MulSubCustom);
}  // namespace ops
