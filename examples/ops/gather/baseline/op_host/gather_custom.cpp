// GatherCustom host side: y[m, :] = x[indices[m], :] (gather along axis 0 of a 2-D table).
#include "gather_custom_tiling.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"

namespace optiling {
constexpr uint32_t BLOCK_BYTES = 32;
constexpr uint32_t BUFFER_NUM = 2;

static ge::graphStatus TilingFunc(gert::TilingContext* context)
{
    GatherCustomTilingData tiling;
    auto platform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
    uint64_t ubSize = 0;
    platform.GetCoreMemSize(platform_ascendc::CoreMemType::UB, ubSize);
    uint32_t coreNum = platform.GetCoreNumAiv();

    const gert::Shape& xShape = context->GetInputShape(0)->GetStorageShape();
    const gert::Shape& iShape = context->GetInputShape(1)->GetStorageShape();
    if (xShape.GetDimNum() != 2 || iShape.GetShapeSize() <= 0) {
        return ge::GRAPH_FAILED;  // x must be [N, D], indices non-empty
    }
    uint32_t n = static_cast<uint32_t>(xShape.GetDim(0));
    uint32_t d = static_cast<uint32_t>(xShape.GetDim(1));
    uint32_t m = static_cast<uint32_t>(iShape.GetShapeSize());
    uint32_t typeSize = (context->GetInputDesc(0)->GetDataType() == ge::DT_FLOAT) ? 4 : 2;
    uint32_t blockElems = BLOCK_BYTES / typeSize;
    uint32_t rowStride = (d + blockElems - 1) / blockElems * blockElems;
    // One row per copy through a bound VECIN/VECOUT queue; the indices of a tile are read once.
    uint32_t rowsPerTile = 1024;
    uint32_t tilingKey = 1;
    if (rowsPerTile == 0) {
        return ge::GRAPH_FAILED;  // a row does not fit in UB
    }
    if (coreNum > m) {
        coreNum = m;
    }
    tiling.set_tableRows(n);
    tiling.set_rowLength(d);
    tiling.set_rowStride(rowStride);
    tiling.set_indicesPerCore(m / coreNum);
    tiling.set_bigCoreNum(m % coreNum);
    tiling.set_rowsPerTile(rowsPerTile);
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
    const gert::Shape* xShape = context->GetInputShape(0);
    const gert::Shape* iShape = context->GetInputShape(1);
    gert::Shape* yShape = context->GetOutputShape(0);
    yShape->SetDimNum(0);
    for (size_t i = 0; i < iShape->GetDimNum(); i++) {
        yShape->AppendDim(iShape->GetDim(i));
    }
    yShape->AppendDim(xShape->GetDim(1));
    return GRAPH_SUCCESS;
}
}  // namespace ge

namespace ops {
class GatherCustom : public OpDef {
public:
    explicit GatherCustom(const char* name) : OpDef(name)
    {
        this->Input("x")
            .ParamType(REQUIRED)
            .DataType({ge::DT_FLOAT16, ge::DT_FLOAT})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND});
        this->Input("indices")
            .ParamType(REQUIRED)
            .DataType({ge::DT_INT32, ge::DT_INT32})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND});
        this->Output("y")
            .ParamType(REQUIRED)
            .DataType({ge::DT_FLOAT16, ge::DT_FLOAT})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND});
        this->SetInferShape(ge::InferShape);
        this->AICore().SetTiling(optiling::TilingFunc);
        this->AICore().AddConfig("ascend910b");
    }
};
OP_ADD(GatherCustom);
}  // namespace ops
