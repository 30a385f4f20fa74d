// RmsNormCustom host side: tiling, shape inference and the operator definition.
#include "rms_norm_custom_tiling.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"

namespace optiling {
constexpr uint32_t BUFFER_NUM = 2;

static ge::graphStatus TilingFunc(gert::TilingContext* context)
{
    RmsNormCustomTilingData tiling;
    auto platform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
    uint64_t ubSize = 0;
    platform.GetCoreMemSize(platform_ascendc::CoreMemType::UB, ubSize);
    uint32_t coreNum = platform.GetCoreNumAiv();

    const gert::Shape& shape = context->GetInputShape(0)->GetStorageShape();
    size_t rank = shape.GetDimNum();
    if (rank == 0) {
        return ge::GRAPH_FAILED;
    }
    uint64_t rowLength = static_cast<uint64_t>(shape.GetDim(rank - 1));
    uint64_t rows = rowLength == 0 ? 0 : static_cast<uint64_t>(shape.GetShapeSize()) / rowLength;
    if (rows == 0) {
        return ge::GRAPH_FAILED;
    }
    ge::DataType dtype = context->GetInputDesc(0)->GetDataType();
    uint32_t typeSize = (dtype == ge::DT_FLOAT) ? 4 : 2;
    // Row pitch: whole 32 B blocks of T and of fp32 (16 elements covers both).
    uint32_t rowStride = static_cast<uint32_t>((rowLength + 15) / 16 * 16);
    uint32_t ub = static_cast<uint32_t>(ubSize);
    // Key 1: many rows per tile when a row's pitch fits a repeat stride (<= 255 blocks of fp32);
    // key 2: one row per tile for long rows.
    // UB per row element: the in and out queues (BUFFER_NUM slots each), fp32 work tiles (2),
    // plus gamma in fp32 (fixed).
    uint32_t bytesPerElem = BUFFER_NUM * 2 * typeSize + 2 * sizeof(float);
    uint32_t fixedBytes = rowStride * static_cast<uint32_t>(sizeof(float)) + 2048;
    uint32_t tilingKey = rowStride <= 2040 ? 1 : 2;
    uint32_t rowsPerTile = 0;
    if (static_cast<uint64_t>(rowStride) * bytesPerElem + fixedBytes <= ub) {
        rowsPerTile = (ub - fixedBytes) / (rowStride * bytesPerElem + 64 * sizeof(float) + 16 * sizeof(float));
        uint64_t perCore = (rows + coreNum - 1) / coreNum;
        if (rowsPerTile > perCore) {
            rowsPerTile = static_cast<uint32_t>(perCore);
        }
        if (rowsPerTile > 255 || tilingKey == 2) {
            rowsPerTile = tilingKey == 2 ? 1 : 255;
        }
    }
    if (rowsPerTile == 0) {
        return ge::GRAPH_FAILED;  // a row does not fit in UB
    }
    if (coreNum > rows) {
        coreNum = static_cast<uint32_t>(rows);
    }
    tiling.set_rowLength(static_cast<uint32_t>(rowLength));
    tiling.set_rowStride(rowStride);
    tiling.set_rowsPerCore(static_cast<uint32_t>(rows / coreNum));
    tiling.set_bigCoreNum(static_cast<uint32_t>(rows % coreNum));
    tiling.set_rowsPerTile(rowsPerTile);
    const float* epsilonAttr = context->GetAttrs()->GetAttrPointer<float>(0);
    tiling.set_epsilon(epsilonAttr == nullptr ? 1e-6f : *epsilonAttr);

    context->SetBlockDim(coreNum);
    context->SetTilingKey(tilingKey);
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
class RmsNormCustom : public OpDef {
public:
    explicit RmsNormCustom(const char* name) : OpDef(name)
    {
        this->Input("x")
            .ParamType(REQUIRED)
            .DataType({ge::DT_FLOAT16, ge::DT_FLOAT})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND});
        this->Input("gamma")
            .ParamType(REQUIRED)
            .DataType({ge::DT_FLOAT16, ge::DT_FLOAT})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND});
        this->Output("y")
            .ParamType(REQUIRED)
            .DataType({ge::DT_FLOAT16, ge::DT_FLOAT})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND});
        this->Attr("epsilon").AttrType(OPTIONAL).Float(1e-6);
        this->SetInferShape(ge::InferShape);
        this->AICore().SetTiling(optiling::TilingFunc);
        this->AICore().AddConfig("ascend910b");
    }
};
OP_ADD(RmsNormCustom);
}  // namespace ops
