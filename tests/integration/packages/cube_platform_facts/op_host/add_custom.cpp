/**
 * @file add_custom.cpp
 * Host side of AddCustom: tiling function, shape/dtype inference and the operator definition.
 */
#include "add_custom_tiling.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"
// Integration fixture (issue 38, s25-conv): AddCustom whose tiling first asks the platform facts
// cann-ops' cube tilings ask (dynamic_rnn, conv3dv2, conv3d_backprop_filter_v2) and refuses
// without them, as dynamic_rnn's does without Intrinsic_fix_pipe_l0c2out.
#include "aclnn/aclnn_base.h"
#include "opdev/platform.h"
#include "tiling/tiling_api.h"
#include "types.h"

namespace optiling {
constexpr uint32_t BLOCK_BYTES = 32;
constexpr uint32_t BUFFER_NUM = 2;  // double buffering in the kernel
constexpr uint32_t QUEUE_NUM = 3;   // x, y in; z out
constexpr uint32_t TILING_KEY_ADD = 1;

static ge::graphStatus TilingFunc(gert::TilingContext *context)
{
    const gert::StorageShape *xShape = context->GetInputShape(0);
    const gert::StorageShape *yShape = context->GetInputShape(1);
    OPS_CHECK_NULL_WITH_CONTEXT(context, xShape);
    OPS_CHECK_NULL_WITH_CONTEXT(context, yShape);
    OP_TILING_CHECK(xShape->GetStorageShape() != yShape->GetStorageShape(),
                    OP_LOGE(context->GetNodeName(), "x and y must have the same shape"),
                    return ge::GRAPH_FAILED);
    const int64_t total = xShape->GetStorageShape().GetShapeSize();
    OP_TILING_CHECK(total <= 0 || total > static_cast<int64_t>(UINT32_MAX),
                    OP_LOGE(context->GetNodeName(), "element count %ld is out of range", static_cast<long>(total)),
                    return ge::GRAPH_FAILED);

    uint32_t typeSize = 0;
    const auto dtype = context->GetInputDesc(0)->GetDataType();
    OP_TILING_CHECK(!ge::TypeUtils::GetDataTypeLength(dtype, typeSize) || typeSize == 0,
                    OP_LOGE(context->GetNodeName(), "unsupported dtype %d", static_cast<int>(dtype)),
                    return ge::GRAPH_FAILED);

    fe::PlatFormInfos *platformInfo = context->GetPlatformInfo();
    OPS_CHECK_NULL_WITH_CONTEXT(context, platformInfo);
    std::string fixpipe;
    (void)platformInfo->GetPlatformRes("AICoreintrinsicDtypeMap", "Intrinsic_fix_pipe_l0c2out", fixpipe);
    OP_TILING_CHECK(fixpipe.empty(), OP_LOGE(context->GetNodeName(), "no Intrinsic_fix_pipe_l0c2out"),
                    return ge::GRAPH_FAILED);
    OP_TILING_CHECK(platformInfo->GetCoreNumByType("AiCore") == 0, OP_LOGE(context->GetNodeName(), "no AiCore"),
                    return ge::GRAPH_FAILED);
    OP_TILING_CHECK(op::GetCurrentPlatformInfo().GetSocVersion() != op::SocVersion::ASCEND910B,
                    OP_LOGE(context->GetNodeName(), "not a 910B"), return ge::GRAPH_FAILED);
    OP_TILING_CHECK(static_cast<int32_t>(AscendC::BLOCK_CUBE) != 16, OP_LOGE(context->GetNodeName(), "BLOCK_CUBE"),
                    return ge::GRAPH_FAILED);
    auto ascendcPlatform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
    uint64_t l2Bw = 0;
    ascendcPlatform.GetCoreMemBw(platform_ascendc::CoreMemType::L2, l2Bw);
    OP_TILING_CHECK(l2Bw == 0, OP_LOGE(context->GetNodeName(), "no L2 bandwidth"), return ge::GRAPH_FAILED);
    const uint32_t coreNum = ascendcPlatform.GetCoreNumAiv();
    uint64_t ubSize = 0;
    ascendcPlatform.GetCoreMemSize(platform_ascendc::CoreMemType::UB, ubSize);

    const uint32_t alignElems = BLOCK_BYTES / typeSize;
    const uint32_t totalLength = static_cast<uint32_t>(total);
    const uint32_t blocks = (totalLength + alignElems - 1) / alignElems;  // 32-byte blocks
    const uint32_t usedCores = blocks < coreNum ? blocks : coreNum;
    const uint32_t formerNum = blocks % usedCores;
    const uint32_t tailLength = (blocks / usedCores) * alignElems;
    const uint32_t formerLength = tailLength + alignElems;

    // Largest tile such that every queue buffer fits in UB, rounded down to 32 bytes.
    const uint64_t bufBytes = ubSize / (BUFFER_NUM * QUEUE_NUM) / BLOCK_BYTES * BLOCK_BYTES;
    const uint32_t tileLength = static_cast<uint32_t>(bufBytes / typeSize);
    OP_TILING_CHECK(tileLength == 0, OP_LOGE(context->GetNodeName(), "UB too small"), return ge::GRAPH_FAILED);

    AddCustomTilingData tiling;
    tiling.set_totalLength(totalLength);
    tiling.set_formerNum(formerNum);
    tiling.set_formerLength(formerLength);
    tiling.set_tailLength(tailLength);
    tiling.set_tileLength(tileLength);
    context->SetBlockDim(usedCores);
    context->SetTilingKey(TILING_KEY_ADD);
    tiling.SaveToBuffer(context->GetRawTilingData()->GetData(), context->GetRawTilingData()->GetCapacity());
    context->GetRawTilingData()->SetDataSize(tiling.GetDataSize());
    size_t *currentWorkspace = context->GetWorkspaceSizes(1);
    currentWorkspace[0] = 0;
    return ge::GRAPH_SUCCESS;
}
}  // namespace optiling

namespace ge {
static graphStatus InferShape(gert::InferShapeContext *context)
{
    const gert::Shape *xShape = context->GetInputShape(0);
    gert::Shape *zShape = context->GetOutputShape(0);
    if (xShape == nullptr || zShape == nullptr) {
        return GRAPH_FAILED;
    }
    *zShape = *xShape;
    return GRAPH_SUCCESS;
}

static graphStatus InferDataType(gert::InferDataTypeContext *context)
{
    context->SetOutputDataType(0, context->GetInputDataType(0));
    return GRAPH_SUCCESS;
}
}  // namespace ge

namespace ops {
class AddCustom : public OpDef {
public:
    explicit AddCustom(const char *name) : OpDef(name)
    {
        this->Input("x")
            .ParamType(REQUIRED)
            .DataType({ge::DT_FLOAT16, ge::DT_FLOAT})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND});
        this->Input("y")
            .ParamType(REQUIRED)
            .DataType({ge::DT_FLOAT16, ge::DT_FLOAT})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND});
        this->Output("z")
            .ParamType(REQUIRED)
            .DataType({ge::DT_FLOAT16, ge::DT_FLOAT})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND});
        this->SetInferShape(ge::InferShape).SetInferDataType(ge::InferDataType);
        this->AICore().SetTiling(optiling::TilingFunc).AddConfig("ascend910b");
    }
};
OP_ADD(AddCustom);
}  // namespace ops
