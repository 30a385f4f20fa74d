// SoftmaxGradRows host side: dx = SoftmaxGrad(grad, y) over the last axis. The tile's temporary
// space is GetSoftMaxGradMinTmpSize's and its tiling SoftMaxGradTilingFunc's, as
// math/inplace_fused_matmul_softmax_grad computes them.
#include <vector>

#include "register/op_def_registry.h"
#include "softmax_grad_rows_tiling.h"
#include "tiling/platform/platform_ascendc.h"

namespace optiling {
constexpr uint32_t ROWS_PER_TILE = 8;

static ge::graphStatus TilingFunc(gert::TilingContext* context)
{
    auto platform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
    const gert::Shape& shape = context->GetInputShape(0)->GetStorageShape();
    const size_t rank = shape.GetDimNum();
    if (rank == 0) {
        return ge::GRAPH_FAILED;
    }
    const uint32_t k = static_cast<uint32_t>(shape.GetDim(rank - 1));
    const uint32_t rows = k == 0 ? 0 : static_cast<uint32_t>(shape.GetShapeSize() / k);
    if (rows == 0 || k * sizeof(float) % 32 != 0) {
        return ge::GRAPH_FAILED;  // rows must be whole 32-byte blocks
    }
    uint32_t coreNum = platform.GetCoreNumAiv();
    if (coreNum > rows) {
        coreNum = rows;
    }
    std::vector<int64_t> tileShape = {ROWS_PER_TILE, k};
    const ge::Shape tile(tileShape);
    const uint32_t tmpBytes = AscendC::GetSoftMaxGradMinTmpSize(tile, sizeof(float), false, false);

    SoftmaxGradRowsTilingData tiling;
    tiling.set_rowLength(k);
    tiling.set_rowsPerCore(rows / coreNum);
    tiling.set_bigCoreNum(rows % coreNum);
    tiling.set_rowsPerTile(ROWS_PER_TILE);
    tiling.set_tmpBytes((tmpBytes + 31) / 32 * 32);
    AscendC::SoftMaxGradTilingFunc(tile, sizeof(float), tmpBytes, tiling.gradTiling);
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
class SoftmaxGradRows : public OpDef {
public:
    explicit SoftmaxGradRows(const char* name) : OpDef(name)
    {
        this->Input("grad").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->Input("y").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->Output("dx").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->SetInferShape(ge::InferShape);
        this->AICore().SetTiling(optiling::TilingFunc);
        this->AICore().AddConfig("ascend910b");
    }
};

OP_ADD(SoftmaxGradRows);
}  // namespace ops
