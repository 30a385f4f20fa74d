/**
 * @file op_tiling.cpp
 * Tiling of MulV3: contiguous ranges of whole 32-byte blocks per core; schMode picks the
 * one-tile kernel when a core's range fits in one single-buffered tile.
 */
#include "register/op_impl_registry.h"
#include "tiling/platform/platform_ascendc.h"
#include "log/ops_log.h"
#include "../op_kernel/mul_v3_tiling_data.h"
#include "../op_kernel/mul_v3_tiling_key.h"

namespace optiling {
struct MulV3CompileInfo {
    int64_t coreNum = 0;
    uint64_t ubSize = 0;
};

constexpr int64_t BLOCK_BYTES = 32;
constexpr int64_t QUEUE_NUM = 3;

static ge::graphStatus TilingParseForMulV3(gert::TilingParseContext *context)
{
    auto *compileInfo = context->GetCompiledInfo<MulV3CompileInfo>();
    OPS_CHECK_NULL_WITH_CONTEXT(context, compileInfo);
    auto ascendcPlatform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
    compileInfo->coreNum = ascendcPlatform.GetCoreNumAiv();
    ascendcPlatform.GetCoreMemSize(platform_ascendc::CoreMemType::UB, compileInfo->ubSize);
    return ge::GRAPH_SUCCESS;
}

static ge::graphStatus MulV3TilingFunc(gert::TilingContext *context)
{
    const auto *compileInfo = context->GetCompileInfo<MulV3CompileInfo>();
    OPS_CHECK_NULL_WITH_CONTEXT(context, compileInfo);
    const gert::StorageShape *x1Shape = context->GetInputShape(0);
    OPS_CHECK_NULL_WITH_CONTEXT(context, x1Shape);
    const int64_t total = x1Shape->GetStorageShape().GetShapeSize();
    OP_CHECK_IF(total <= 0, OP_LOGE(context->GetNodeName(), "empty input"), return ge::GRAPH_FAILED);
    uint32_t typeSize = 0;
    OP_CHECK_IF(!ge::TypeUtils::GetDataTypeLength(context->GetInputDesc(0)->GetDataType(), typeSize),
                OP_LOGE(context->GetNodeName(), "unsupported dtype"), return ge::GRAPH_FAILED);

    const int64_t alignNum = BLOCK_BYTES / typeSize;
    const int64_t blocks = (total + alignNum - 1) / alignNum;
    const int64_t blocksPerCore = (blocks + compileInfo->coreNum - 1) / compileInfo->coreNum;
    const int64_t usedCores = (blocks + blocksPerCore - 1) / blocksPerCore;
    const int64_t perCoreNum = blocksPerCore * alignNum;

    MulV3TilingData *tiling = context->GetTilingData<MulV3TilingData>();
    OPS_CHECK_NULL_WITH_CONTEXT(context, tiling);
    tiling->totalNum = total;
    tiling->perCoreNum = perCoreNum;
    tiling->lastCoreNum = total - (usedCores - 1) * perCoreNum;

    const int64_t singleTile = static_cast<int64_t>(compileInfo->ubSize) / QUEUE_NUM / BLOCK_BYTES * BLOCK_BYTES / typeSize;
    uint32_t schMode = MUL_V3_TPL_SCH_MODE_STREAM;
    if (perCoreNum <= singleTile) {
        schMode = MUL_V3_TPL_SCH_MODE_ONE_TILE;
        tiling->tileNum = perCoreNum;
    } else {
        tiling->tileNum = singleTile / 2 / alignNum * alignNum;  // two buffers per queue
    }
    context->SetBlockDim(static_cast<uint32_t>(usedCores));
    context->SetTilingKey(GET_TPL_TILING_KEY(schMode));
    size_t *workspaces = context->GetWorkspaceSizes(1);
    workspaces[0] = 0;
    return ge::GRAPH_SUCCESS;
}

IMPL_OP_OPTILING(MulV3).Tiling(MulV3TilingFunc).TilingParse<MulV3CompileInfo>(TilingParseForMulV3);
}  // namespace optiling
