// Host side of PartialAdds (a fixture of `aopt init`): y = x + 1. Its tiling accepts every shape,
// but for a rank-2 input it tells the kernel that only the first 4 cores write (a shape the
// operator mishandles, as cann-ops' resize kernels do at some ranks): the kernel runs clean and
// leaves most of y as the harness filled it. `aopt init` must prefer a probe that writes y.
#include "partial_adds_tiling.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"

namespace optiling {
constexpr uint32_t TILE = 4096;
constexpr uint32_t ALIGN = 8;  // float elements in 32 bytes

static ge::graphStatus TilingFunc(gert::TilingContext* context)
{
    PartialAddsTilingData tiling;
    auto platform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
    const uint32_t coreNum = platform.GetCoreNumAiv();
    const auto& shape = context->GetInputShape(0)->GetStorageShape();
    const uint64_t total = shape.GetShapeSize();
    if (coreNum == 0 || total == 0 || total > 0xFFFFFFFFULL) {
        return ge::GRAPH_FAILED;
    }
    uint64_t perCore = (total + coreNum - 1) / coreNum;
    perCore = (perCore + ALIGN - 1) / ALIGN * ALIGN;
    const uint64_t used = (total + perCore - 1) / perCore;
    tiling.set_totalLength(static_cast<uint32_t>(total));
    tiling.set_perCore(static_cast<uint32_t>(perCore));
    tiling.set_tileLength(TILE);
    tiling.set_writingCores(shape.GetDimNum() == 2 ? 4 : static_cast<uint32_t>(used));
    context->SetBlockDim(static_cast<uint32_t>(used));
    context->SetTilingKey(1);
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
class PartialAdds : public OpDef {
public:
    explicit PartialAdds(const char* name) : OpDef(name)
    {
        this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND}).UnknownShapeFormat({ge::FORMAT_ND});
        this->Output("y").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND}).UnknownShapeFormat({ge::FORMAT_ND});
        this->SetInferShape(ge::InferShape);
        this->AICore().SetTiling(optiling::TilingFunc);
        this->AICore().AddConfig("ascend910b");
    }
};

OP_ADD(PartialAdds);
}  // namespace ops
