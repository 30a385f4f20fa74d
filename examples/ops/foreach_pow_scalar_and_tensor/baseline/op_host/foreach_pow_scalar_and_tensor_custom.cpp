// ForeachPowScalarAndTensorCustom host side: y_i = scalar ^ x_i = exp(x_i * ln(scalar)) (scalar > 0) for every tensor of the list x.
#include "foreach_pow_scalar_and_tensor_custom_tiling.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"

namespace optiling {
constexpr uint32_t BUFFER_NUM = 2;

static ge::graphStatus TilingFunc(gert::TilingContext* context)
{
    ForeachPowScalarAndTensorCustomTilingData tiling;
    auto platform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
    uint64_t ubSize = 0;
    platform.GetCoreMemSize(platform_ascendc::CoreMemType::UB, ubSize);
    uint32_t coreNum = platform.GetCoreNumAiv();

    uint32_t lengths[FOREACH_POW_SCALAR_AND_TENSOR_MAX_TENSORS] = {0};
    uint32_t tensorNum = 0;
    uint64_t total = 0;
    while (tensorNum < FOREACH_POW_SCALAR_AND_TENSOR_MAX_TENSORS && context->GetDynamicInputShape(0, tensorNum) != nullptr) {
        int64_t n = context->GetDynamicInputShape(0, tensorNum)->GetStorageShape().GetShapeSize();
        if (n <= 0 || n > 0x7fffffff) {
            return ge::GRAPH_FAILED;
        }
        lengths[tensorNum] = static_cast<uint32_t>(n);
        total += static_cast<uint64_t>(n);
        tensorNum++;
    }
    if (tensorNum == 0 || context->GetDynamicInputShape(0, tensorNum) != nullptr) {
        return ge::GRAPH_FAILED;  // empty list, or more than FOREACH_POW_SCALAR_AND_TENSOR_MAX_TENSORS tensors
    }
    ge::DataType dtype = context->GetDynamicInputDesc(0, 0)->GetDataType();
    uint32_t typeSize = (dtype == ge::DT_FLOAT) ? 4 : 2;
    uint32_t unitLength = 32 / typeSize;
    uint64_t totalUnits = 0;
    for (uint32_t i = 0; i < tensorNum; i++) {
        totalUnits += (lengths[i] + unitLength - 1) / unitLength;
    }
    if (coreNum > totalUnits) {
        coreNum = static_cast<uint32_t>(totalUnits);
    }
    // UB per element: the in and out queues (BUFFER_NUM slots each) and two fp32 tiles.
    uint32_t bytesPerElem = BUFFER_NUM * 2 * typeSize + 2 * sizeof(float);
    uint32_t tileLength = (static_cast<uint32_t>(ubSize) - 1024) / bytesPerElem / 64 * 64;

    tiling.set_tensorNum(tensorNum);
    tiling.set_unitLength(unitLength);
    tiling.set_tileLength(tileLength);
    tiling.set_totalUnits(totalUnits);
    tiling.set_tensorLengths(lengths);
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
    for (size_t i = 0; context->GetDynamicInputShape(0, i) != nullptr; i++) {
        *context->GetOutputShape(i) = *context->GetDynamicInputShape(0, i);
    }
    return GRAPH_SUCCESS;
}
}  // namespace ge

namespace ops {
class ForeachPowScalarAndTensorCustom : public OpDef {
public:
    explicit ForeachPowScalarAndTensorCustom(const char* name) : OpDef(name)
    {
        this->Input("x")
            .ParamType(DYNAMIC)
            .DataType({ge::DT_FLOAT16, ge::DT_FLOAT, ge::DT_BF16})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND, ge::FORMAT_ND});
        this->Input("scalar")
            .ParamType(REQUIRED)
            .DataType({ge::DT_FLOAT16, ge::DT_FLOAT, ge::DT_BF16})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND, ge::FORMAT_ND});
        this->Output("y")
            .ParamType(DYNAMIC)
            .DataType({ge::DT_FLOAT16, ge::DT_FLOAT, ge::DT_BF16})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND, ge::FORMAT_ND});
        this->SetInferShape(ge::InferShape);
        this->AICore().SetTiling(optiling::TilingFunc);
        this->AICore().AddConfig("ascend910b");
    }
};
OP_ADD(ForeachPowScalarAndTensorCustom);
}  // namespace ops
