// Fixture of the Stage I tests: macros, a literal block dim, a cap, a (x + L - 1) / L * L
// round-up, a literal tiling field and a flag; the tiling function is not named TilingFunc.
#include "lit_custom_tiling.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"

#define LIT_TILE_ELEMS 2048
#define LIT_HELPER(x) ((x) * 2)

namespace optiling {
static uint32_t Unused(uint32_t v) { return v * 7; }

static ge::graphStatus MyTiling(gert::TilingContext* context)
{
    LitCustomTilingData tiling;
    uint32_t total = static_cast<uint32_t>(context->GetInputShape(0)->GetStorageShape().GetShapeSize());
    if (total == 0) {
        return ge::GRAPH_FAILED;
    }
    uint32_t tile = LIT_TILE_ELEMS;
    if (tile > 8192) {
        tile = 8192;
    }
    uint32_t pad = (total + 128 - 1) / 128 * 128;
    tiling.set_totalLength(total);
    tiling.set_tileLength(tile);
    tiling.set_padLength(pad);
    tiling.set_useFastPath(1);
    context->SetBlockDim(8);
    context->SetTilingKey(3);
    tiling.SaveToBuffer(context->GetRawTilingData()->GetData(), context->GetRawTilingData()->GetCapacity());
    context->GetRawTilingData()->SetDataSize(tiling.GetDataSize());
    size_t* workspace = context->GetWorkspaceSizes(1);
    workspace[0] = 0;
    return ge::GRAPH_SUCCESS;
}
}  // namespace optiling

namespace ops {
class LitCustom : public OpDef {
public:
    explicit LitCustom(const char* name) : OpDef(name)
    {
        this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->Output("z").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->AICore().SetTiling(optiling::MyTiling).AddConfig("ascend910b");
    }
};
OP_ADD(LitCustom);
}  // namespace ops
