// MseLossCustom host side: tiling, shape inference and the operator definition.
// Tiling keys: 1 = reduction "none" (element-wise), 2 = "mean" or "sum" (per-core partial sums in
// the workspace, combined by core 0 after SyncAll).
#include <cstring>

#include "mse_loss_custom_tiling.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"

namespace optiling {
constexpr uint32_t BLOCK_BYTES = 32;
constexpr uint32_t BUFFER_NUM = 2;

static ge::graphStatus TilingFunc(gert::TilingContext* context)
{
    MseLossCustomTilingData tiling;
    auto platform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
    uint64_t ubSize = 0;
    platform.GetCoreMemSize(platform_ascendc::CoreMemType::UB, ubSize);
    uint32_t coreNum = platform.GetCoreNumAiv();

    const char* reduction = context->GetAttrs()->GetStr(0);
    uint32_t key = 2;
    float scale = 1.0f;
    uint32_t totalLength = static_cast<uint32_t>(context->GetInputShape(0)->GetStorageShape().GetShapeSize());
    if (totalLength == 0 || totalLength != context->GetInputShape(1)->GetStorageShape().GetShapeSize()) {
        return ge::GRAPH_FAILED;
    }
    if (reduction == nullptr || std::strcmp(reduction, "mean") == 0) {
        scale = 1.0f / static_cast<float>(totalLength);
    } else if (std::strcmp(reduction, "none") == 0) {
        key = 1;
    } else if (std::strcmp(reduction, "sum") != 0) {
        return ge::GRAPH_FAILED;
    }
    ge::DataType dtype = context->GetInputDesc(0)->GetDataType();
    uint32_t typeSize = (dtype == ge::DT_FLOAT) ? 4 : 2;
    uint32_t unitLength = BLOCK_BYTES / typeSize;
    uint32_t units = (totalLength + unitLength - 1) / unitLength;
    if (coreNum > units) {
        coreNum = units;
    }
    // UB per element: two input queues and the output queue (BUFFER_NUM slots each), three fp32
    // work tiles (predict, label, difference), and for key 2 the fp32 accumulator.
    uint32_t bytesPerElem = BUFFER_NUM * 3 * typeSize + 4 * sizeof(float);
    uint32_t tileLength = (static_cast<uint32_t>(ubSize) - 2048) / bytesPerElem / 64 * 64;

    tiling.set_totalLength(totalLength);
    tiling.set_unitLength(unitLength);
    tiling.set_unitsPerCore(units / coreNum);
    tiling.set_bigCoreNum(units % coreNum);
    tiling.set_tileLength(tileLength);
    tiling.set_scale(scale);

    context->SetBlockDim(coreNum);
    context->SetTilingKey(key);
    tiling.SaveToBuffer(context->GetRawTilingData()->GetData(), context->GetRawTilingData()->GetCapacity());
    context->GetRawTilingData()->SetDataSize(tiling.GetDataSize());
    size_t* workspace = context->GetWorkspaceSizes(1);
    workspace[0] = platform.GetLibApiWorkSpaceSize() + static_cast<size_t>(coreNum) * BLOCK_BYTES;
    return ge::GRAPH_SUCCESS;
}
}  // namespace optiling

namespace ge {
static ge::graphStatus InferShape(gert::InferShapeContext* context)
{
    const char* reduction = context->GetAttrs()->GetStr(0);
    if (reduction != nullptr && std::strcmp(reduction, "none") == 0) {
        *context->GetOutputShape(0) = *context->GetInputShape(0);
    } else {
        context->GetOutputShape(0)->SetDimNum(0);  // a scalar
    }
    return GRAPH_SUCCESS;
}
}  // namespace ge

namespace ops {
class MseLossCustom : public OpDef {
public:
    explicit MseLossCustom(const char* name) : OpDef(name)
    {
        this->Input("predict")
            .ParamType(REQUIRED)
            .DataType({ge::DT_FLOAT16, ge::DT_FLOAT})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND});
        this->Input("label")
            .ParamType(REQUIRED)
            .DataType({ge::DT_FLOAT16, ge::DT_FLOAT})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND});
        this->Output("y")
            .ParamType(REQUIRED)
            .DataType({ge::DT_FLOAT16, ge::DT_FLOAT})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND});
        this->Attr("reduction").AttrType(OPTIONAL).String("mean");
        this->SetInferShape(ge::InferShape);
        this->AICore().SetTiling(optiling::TilingFunc);
        this->AICore().AddConfig("ascend910b");
    }
};
OP_ADD(MseLossCustom);
}  // namespace ops
