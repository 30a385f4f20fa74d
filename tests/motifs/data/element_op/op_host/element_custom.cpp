// Fixture (vectorize_scalar_loop, element loops): the tile length comes from the whole UB
// (GetCoreMemSize), where the motif reserves its scratch.
#include "element_custom_tiling.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"

namespace optiling {
constexpr uint32_t BUFFER_NUM = 2;
constexpr uint32_t ALIGN_BYTES = 256;
constexpr uint32_t TILE_BYTES = 4096;

static ge::graphStatus TilingFunc(gert::TilingContext* context)
{
    ElementCustomTilingData tiling;
    auto platform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
    uint64_t ubSize = 0;
    platform.GetCoreMemSize(platform_ascendc::CoreMemType::UB, ubSize);
    uint32_t coreNum = platform.GetCoreNumAiv();
    const uint64_t totalLength = context->GetInputShape(0)->GetStorageShape().GetShapeSize();
    const uint32_t typeBytes = context->GetInputDesc(0)->GetDataType() == ge::DT_FLOAT ? 4 : 2;

    const uint32_t unitLength = ALIGN_BYTES / typeBytes;
    const uint64_t unitCount = (totalLength + unitLength - 1) / unitLength;
    if (coreNum > unitCount) {
        coreNum = static_cast<uint32_t>(unitCount);
    }
    if (coreNum == 0) {
        coreNum = 1;
    }
    uint64_t tileLength = ubSize / (BUFFER_NUM * 3 * typeBytes);
    tileLength = tileLength / unitLength * unitLength;
    if (tileLength == 0) {
        return ge::GRAPH_FAILED;
    }

    tiling.set_totalLength(static_cast<uint32_t>(totalLength));
    tiling.set_unitLength(unitLength);
    tiling.set_unitsPerCore(static_cast<uint32_t>(unitCount / coreNum));
    tiling.set_bigCoreNum(static_cast<uint32_t>(unitCount % coreNum));
    tiling.set_tileLength(static_cast<uint32_t>(tileLength));
    context->SetBlockDim(coreNum);
    context->SetTilingKey(1);
    tiling.SaveToBuffer(context->GetRawTilingData()->GetData(), context->GetRawTilingData()->GetCapacity());
    context->GetRawTilingData()->SetDataSize(tiling.GetDataSize());
    size_t* workspaces = context->GetWorkspaceSizes(1);
    workspaces[0] = 0;
    return ge::GRAPH_SUCCESS;
}
}  // namespace optiling

namespace ops {
class ElementCustom : public OpDef {
public:
    explicit ElementCustom(const char* name) : OpDef(name)
    {
        this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT16, ge::DT_FLOAT}).Format({ge::FORMAT_ND, ge::FORMAT_ND});
        this->Input("y").ParamType(REQUIRED).DataType({ge::DT_FLOAT16, ge::DT_FLOAT}).Format({ge::FORMAT_ND, ge::FORMAT_ND});
        this->Output("z").ParamType(REQUIRED).DataType({ge::DT_FLOAT16, ge::DT_FLOAT}).Format({ge::FORMAT_ND, ge::FORMAT_ND});
        this->AICore().SetTiling(optiling::TilingFunc);
        this->AICore().AddConfig("ascend910b");
    }
};

OP_ADD(ElementCustom);
}  // namespace ops
