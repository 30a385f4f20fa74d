// FastGeluCustom host side: tiling, shape inference and the operator definition.
#include "fast_gelu_custom_tiling.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"

namespace optiling {
constexpr uint32_t GRANULE_BYTES = 32;
constexpr uint32_t BUFFER_NUM = 2;
constexpr uint32_t FP32_WORK_BUFFERS = 1;   // fp32 scratch tiles besides the queues

static ge::graphStatus TilingFunc(gert::TilingContext* context)
{
    FastGeluCustomTilingData tiling;
    auto platform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
    uint64_t ubSize = 0;
    platform.GetCoreMemSize(platform_ascendc::CoreMemType::UB, ubSize);
    uint32_t coreNum = platform.GetCoreNumAiv();

    uint32_t totalLength = static_cast<uint32_t>(context->GetInputShape(0)->GetStorageShape().GetShapeSize());
    ge::DataType dtype = context->GetInputDesc(0)->GetDataType();
    uint32_t typeSize = (dtype == ge::DT_FLOAT) ? 4 : 2;
    if (totalLength == 0) {
        return ge::GRAPH_FAILED;
    }

    uint32_t unitLength = GRANULE_BYTES / typeSize;
    uint32_t units = (totalLength + unitLength - 1) / unitLength;
    if (coreNum > units) {
        coreNum = units;
    }
    if (coreNum == 0) {
        coreNum = 1;
    }

    // UB per element: BUFFER_NUM slots of the in and out queues, the fp32 scratch tiles, and for
    // 16-bit inputs two more fp32 tiles holding x and y after the Cast.
    uint32_t fp32Tiles = FP32_WORK_BUFFERS + (typeSize == 4 ? 0 : 2);
    uint32_t bytesPerElem = BUFFER_NUM * 2 * typeSize + fp32Tiles * sizeof(float);
    uint32_t tileLength = static_cast<uint32_t>(ubSize) / bytesPerElem;
    tileLength = tileLength / 64 * 64;  // whole 256 B fp32 repeats

    tiling.set_totalLength(totalLength);
    tiling.set_unitLength(unitLength);
    tiling.set_unitsPerCore(units / coreNum);
    tiling.set_bigCoreNum(units % coreNum);
    tiling.set_tileLength(tileLength);

    context->SetBlockDim(coreNum);
    context->SetTilingKey(1);
    tiling.SaveToBuffer(context->GetRawTilingData()->GetData(), context->GetRawTilingData()->GetCapacity());
    context->GetRawTilingData()->SetDataSize(tiling.GetDataSize());
    size_t* workspace = context->GetWorkspaceSizes(1);
    workspace[0] = 0;
    return ge::GRAPH_SUCCESS;
}
}  // namespace optiling

namespace ge {
static ge::graphStatus InferShape(gert::InferShapeContext* context)
{
    *context->GetOutputShape(0) = *context->GetInputShape(0);
    return GRAPH_SUCCESS;
}
}  // namespace ge

namespace ops {
class FastGeluCustom : public OpDef {
public:
    explicit FastGeluCustom(const char* name) : OpDef(name)
    {
        this->Input("x")
            .ParamType(REQUIRED)
            .DataType({ge::DT_FLOAT16, ge::DT_FLOAT, ge::DT_BF16})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND, ge::FORMAT_ND});
        this->Output("y")
            .ParamType(REQUIRED)
            .DataType({ge::DT_FLOAT16, ge::DT_FLOAT, ge::DT_BF16})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND, ge::FORMAT_ND});
        this->SetInferShape(ge::InferShape);
        this->AICore().SetTiling(optiling::TilingFunc);
        this->AICore().AddConfig("ascend910b");
    }
};
OP_ADD(FastGeluCustom);
}  // namespace ops
