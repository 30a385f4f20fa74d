// Host side of OneTileLog (a fixture of `aopt init`): y = ln(x) with each core's whole share in
// one UB tile. The tiling accepts every shape, but past about 24k float16 elements a core the
// kernel's buffers overflow UB: `aopt init` must find that by running the kernel, and draft a
// smaller timed case.
#include "one_tile_log_tiling.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"

namespace optiling {
constexpr uint32_t BUFFER_NUM = 2;
constexpr uint32_t ALIGN_BYTES = 256;
constexpr uint64_t UB_RESERVED_BYTES = 0;

// Size in bytes of one element of the dtypes this operator accepts (0: unsupported).
static uint32_t DtypeBytes(ge::DataType dtype)
{
    switch (dtype) {
        case ge::DT_FLOAT:
        case ge::DT_INT32:
            return 4;
        case ge::DT_FLOAT16:
        case ge::DT_BF16:
            return 2;
        case ge::DT_BOOL:
        case ge::DT_INT8:
        case ge::DT_UINT8:
            return 1;
        default:
            return 0;
    }
}

static ge::graphStatus TilingFunc(gert::TilingContext* context)
{
    OneTileLogTilingData tiling;
    auto platform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
    uint64_t ubSize = 0;
    platform.GetCoreMemSize(platform_ascendc::CoreMemType::UB, ubSize);
    const uint32_t coreNum = platform.GetCoreNumAiv();
    if (coreNum == 0 || ubSize <= UB_RESERVED_BYTES) {
        return ge::GRAPH_FAILED;
    }

    const uint64_t totalLength = context->GetInputShape(0)->GetStorageShape().GetShapeSize();
    if (totalLength > 0xFFFFFFFFULL) {
        return ge::GRAPH_FAILED;  // element offsets are 32-bit in the kernel
    }
    const ge::DataType dtype = context->GetInputDesc(0)->GetDataType();
    const uint32_t typeBytes = DtypeBytes(dtype);
    if (typeBytes == 0) {
        return ge::GRAPH_FAILED;
    }
    uint32_t tilingKey = 0;
    uint32_t minBytes = typeBytes;
    if (dtype == ge::DT_FLOAT) {
        tilingKey = 1;  // float32: compute directly
    } else {
        tilingKey = 2;  // float16: compute in float32, round back once
    }

    // Split unit: 256 bytes of the narrowest tensor, so every core starts 32-byte aligned in
    // every tensor and a full unit fills whole vector repeats.
    const uint32_t unitLength = ALIGN_BYTES / (minBytes);
    const uint64_t unitCount = (totalLength + unitLength - 1) / unitLength;
    uint64_t usedCores = unitCount < coreNum ? unitCount : coreNum;
    if (usedCores == 0) {
        usedCores = 1;
    }
    const uint64_t unitsPerCore = unitCount / usedCores;
    const uint64_t bigCoreNum = unitCount % usedCores;

    uint32_t bytesPerElem = 0;
    bytesPerElem = BUFFER_NUM * 2 * typeBytes;
    if (tilingKey == 2) {
        bytesPerElem += sizeof(float);  // float32 work buffer
    }
    (void)bytesPerElem;
    uint64_t tileLength = (unitsPerCore + (bigCoreNum > 0 ? 1 : 0)) * unitLength;  // one tile: the core's whole share
    if (tileLength == 0) {
        return ge::GRAPH_FAILED;
    }

    tiling.set_totalLength(static_cast<uint32_t>(totalLength));
    tiling.set_unitLength(unitLength);
    tiling.set_unitsPerCore(static_cast<uint32_t>(unitsPerCore));
    tiling.set_bigCoreNum(static_cast<uint32_t>(bigCoreNum));
    tiling.set_tileLength(static_cast<uint32_t>(tileLength));

    context->SetBlockDim(static_cast<uint32_t>(usedCores));
    context->SetTilingKey(tilingKey);
    tiling.SaveToBuffer(context->GetRawTilingData()->GetData(), context->GetRawTilingData()->GetCapacity());
    context->GetRawTilingData()->SetDataSize(tiling.GetDataSize());
    size_t* workspaces = context->GetWorkspaceSizes(1);
    workspaces[0] = 0;
    return ge::GRAPH_SUCCESS;
}
}  // namespace optiling

namespace ge {
static ge::graphStatus InferShape(gert::InferShapeContext* context)
{
    const gert::Shape* xShape = context->GetInputShape(0);
    gert::Shape* yShape = context->GetOutputShape(0);
    if (xShape == nullptr || yShape == nullptr) {
        return GRAPH_FAILED;
    }
    *yShape = *xShape;
    return GRAPH_SUCCESS;
}
}  // namespace ge

namespace ops {
class OneTileLog : public OpDef {
public:
    explicit OneTileLog(const char* name) : OpDef(name)
    {
        this->Input("x")
            .ParamType(REQUIRED)
            .DataType({ge::DT_FLOAT16, ge::DT_FLOAT})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND})
            .UnknownShapeFormat({ge::FORMAT_ND, ge::FORMAT_ND});
        this->Output("y")
            .ParamType(REQUIRED)
            .DataType({ge::DT_FLOAT16, ge::DT_FLOAT})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND})
            .UnknownShapeFormat({ge::FORMAT_ND, ge::FORMAT_ND});

        this->SetInferShape(ge::InferShape);
        this->AICore().SetTiling(optiling::TilingFunc);
        this->AICore().AddConfig("ascend910b");
    }
};

OP_ADD(OneTileLog);
}  // namespace ops
