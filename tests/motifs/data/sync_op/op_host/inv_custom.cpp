// Fixture (stream_core_cap): a memory-bound stream launched on every AIV core, no cap.
#include "inv_custom_tiling.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"

namespace optiling {
constexpr uint32_t BUFFER_NUM = 2;
constexpr uint32_t SPLIT_BYTES = 256;

static ge::graphStatus TilingFunc(gert::TilingContext* context)
{
    InvCustomTilingData tiling;
    auto platform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
    uint64_t ubSize = 0;
    platform.GetCoreMemSize(platform_ascendc::CoreMemType::UB, ubSize);
    const uint32_t coreNum = platform.GetCoreNumAiv();
    const uint64_t totalLength = context->GetInputShape(0)->GetStorageShape().GetShapeSize();
    const uint32_t typeBytes = context->GetInputDesc(0)->GetDataType() == ge::DT_FLOAT ? 4 : 2;

    const uint32_t unitLength = SPLIT_BYTES / typeBytes;
    const uint64_t unitCount = (totalLength + unitLength - 1) / unitLength;
    uint64_t usedCores = unitCount < coreNum ? unitCount : coreNum;
    if (usedCores == 0) {
        usedCores = 1;
    }
    const uint64_t unitsPerCore = unitCount / usedCores;
    const uint64_t bigCoreNum = unitCount % usedCores;
    uint64_t tileLength = ubSize / (BUFFER_NUM * 2 * typeBytes + typeBytes);
    tileLength = tileLength / unitLength * unitLength;

    tiling.set_totalLength(static_cast<uint32_t>(totalLength));
    tiling.set_unitLength(unitLength);
    tiling.set_unitsPerCore(static_cast<uint32_t>(unitsPerCore));
    tiling.set_bigCoreNum(static_cast<uint32_t>(bigCoreNum));
    tiling.set_tileLength(static_cast<uint32_t>(tileLength));
    context->SetBlockDim(static_cast<uint32_t>(usedCores));
    context->SetTilingKey(1);
    tiling.SaveToBuffer(context->GetRawTilingData()->GetData(), context->GetRawTilingData()->GetCapacity());
    context->GetRawTilingData()->SetDataSize(tiling.GetDataSize());
    size_t* workspaces = context->GetWorkspaceSizes(1);
    workspaces[0] = 0;
    return ge::GRAPH_SUCCESS;
}
}  // namespace optiling

namespace ops {
class InvCustom : public OpDef {
public:
    explicit InvCustom(const char* name) : OpDef(name)
    {
        this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT16, ge::DT_FLOAT}).Format({ge::FORMAT_ND, ge::FORMAT_ND});
        this->Output("y").ParamType(REQUIRED).DataType({ge::DT_FLOAT16, ge::DT_FLOAT}).Format({ge::FORMAT_ND, ge::FORMAT_ND});
        this->AICore().SetTiling(optiling::TilingFunc);
        this->AICore().AddConfig("ascend910b");
    }
};

OP_ADD(InvCustom);
}  // namespace ops
