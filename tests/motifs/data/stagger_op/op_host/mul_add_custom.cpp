// Fixture (stagger_ub_buffers): the host side. Every UB buffer of the kernel gets the same
// 512 B-multiple tile (the UB is cut into equal parts, as real tilings do), so every buffer starts
// in bank group 0 and the two sources of each vector instruction read the same bank groups.
#include "mul_add_custom_tiling.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"

namespace optiling {
constexpr uint32_t BLOCK_BYTES = 32;
constexpr uint32_t PART_BYTES = 512;   // the tile of each buffer is a multiple of this
constexpr uint32_t UB_PARTS = 10;      // 2 x 3 queue slots + 2 temporaries, and room to spare

static ge::graphStatus TilingFunc(gert::TilingContext* context)
{
    MulAddCustomTilingData tiling;
    auto platform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
    uint64_t ubBytes = 0;
    platform.GetCoreMemSize(platform_ascendc::CoreMemType::UB, ubBytes);
    uint32_t typeBytes = 0;
    ge::TypeUtils::GetDataTypeLength(context->GetInputDesc(0)->GetDataType(), typeBytes);
    if (typeBytes == 0) {
        return ge::GRAPH_FAILED;
    }
    const uint32_t totalNum = context->GetInputShape(0)->GetStorageShape().GetShapeSize();
    const uint32_t partBytes = ubBytes / UB_PARTS / PART_BYTES * PART_BYTES;
    const uint32_t tileDataNum = partBytes / typeBytes;
    const uint32_t perBlock = BLOCK_BYTES / typeBytes;
    const uint32_t blocks = (totalNum + perBlock - 1) / perBlock;
    uint32_t coreNum = platform.GetCoreNumAiv();
    coreNum = coreNum < blocks ? coreNum : blocks;
    const uint32_t smallCoreDataNum = blocks / coreNum * perBlock;
    const uint32_t tailBlockNum = blocks % coreNum;
    tiling.set_smallCoreDataNum(smallCoreDataNum);
    tiling.set_bigCoreDataNum(smallCoreDataNum + perBlock);
    tiling.set_tailBlockNum(tailBlockNum);
    tiling.set_tileDataNum(tileDataNum);
    context->SetBlockDim(coreNum);
    tiling.SaveToBuffer(context->GetRawTilingData()->GetData(), context->GetRawTilingData()->GetCapacity());
    context->GetRawTilingData()->SetDataSize(tiling.GetDataSize());
    size_t* workspaces = context->GetWorkspaceSizes(1);
    workspaces[0] = 0;
    return ge::GRAPH_SUCCESS;
}
}  // namespace optiling

namespace ge {
static graphStatus InferShape(gert::InferShapeContext* context)
{
    *context->GetOutputShape(0) = *context->GetInputShape(0);
    return GRAPH_SUCCESS;
}
}  // namespace ge

namespace ops {
class MulAddCustom : public OpDef {
public:
    explicit MulAddCustom(const char* name) : OpDef(name)
    {
        this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT16, ge::DT_FLOAT}).Format({ge::FORMAT_ND, ge::FORMAT_ND});
        this->Input("y").ParamType(REQUIRED).DataType({ge::DT_FLOAT16, ge::DT_FLOAT}).Format({ge::FORMAT_ND, ge::FORMAT_ND});
        this->Output("z").ParamType(REQUIRED).DataType({ge::DT_FLOAT16, ge::DT_FLOAT}).Format({ge::FORMAT_ND, ge::FORMAT_ND});
        this->SetInferShape(ge::InferShape);
        this->AICore().SetTiling(optiling::TilingFunc);
        this->AICore().AddConfig("ascend910b");
    }
};

OP_ADD(MulAddCustom);
}  // namespace ops
