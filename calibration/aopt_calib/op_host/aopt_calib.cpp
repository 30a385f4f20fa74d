/**
 * @file aopt_calib.cpp
 * Host side of AoptCalib: the tiling takes the probe's shape from its attributes (mode, cores,
 * tile_bytes, buffer_num, rounds) and refuses a shape that does not split evenly, so every
 * core does exactly the same work and each measured time is one clean multiple of a constant.
 */
#include "aopt_calib_tiling.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"

namespace optiling {
constexpr uint32_t BLOCK_BYTES = 32;
constexpr uint32_t MODE_COUNT = 6;
constexpr uint32_t PAD_BYTES = 256;  // the x slot is padded so y lies 256 B (8 bank groups) further
constexpr uint32_t QUEUE_NUM = 3;
constexpr uint32_t BANK_SPAN_BYTES = 65536;

static int64_t AttrOr(const gert::RuntimeAttrs *attrs, size_t index, int64_t fallback)
{
    const int64_t *v = attrs == nullptr ? nullptr : attrs->GetAttrPointer<int64_t>(index);
    return v == nullptr ? fallback : *v;
}

static ge::graphStatus TilingFunc(gert::TilingContext *context)
{
    const gert::StorageShape *xShape = context->GetInputShape(0);
    OPS_CHECK_NULL_WITH_CONTEXT(context, xShape);
    const int64_t total = xShape->GetStorageShape().GetShapeSize();
    uint32_t typeSize = 0;
    const auto dtype = context->GetInputDesc(0)->GetDataType();
    OP_TILING_CHECK(!ge::TypeUtils::GetDataTypeLength(dtype, typeSize) || typeSize == 0,
                    OP_LOGE(context->GetNodeName(), "unsupported dtype"), return ge::GRAPH_FAILED);
    const gert::RuntimeAttrs *attrs = context->GetAttrs();
    const int64_t mode = AttrOr(attrs, 0, 0);
    auto platform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
    const int64_t cores = AttrOr(attrs, 1, 0) > 0 ? AttrOr(attrs, 1, 0) : platform.GetCoreNumAiv();
    const int64_t tileBytes = AttrOr(attrs, 2, 8192);
    const int64_t bufferNum = AttrOr(attrs, 3, 1);
    const int64_t rounds = AttrOr(attrs, 4, 1);
    uint64_t ubSize = 0;
    platform.GetCoreMemSize(platform_ascendc::CoreMemType::UB, ubSize);
    OP_TILING_CHECK(mode < 0 || mode >= MODE_COUNT || cores <= 0 || rounds <= 0 || bufferNum < 1 || bufferNum > 2,
                    OP_LOGE(context->GetNodeName(), "attribute out of range"), return ge::GRAPH_FAILED);
    OP_TILING_CHECK(tileBytes <= 0 || tileBytes % BLOCK_BYTES != 0 ||
                        static_cast<uint64_t>(bufferNum * (QUEUE_NUM * tileBytes + PAD_BYTES)) > ubSize,
                    OP_LOGE(context->GetNodeName(), "tile_bytes must be a multiple of 32 that fits UB"),
                    return ge::GRAPH_FAILED);
    OP_TILING_CHECK(mode == 3 && static_cast<uint64_t>(BANK_SPAN_BYTES + bufferNum * tileBytes) > ubSize,
                    OP_LOGE(context->GetNodeName(), "mode 3 needs 64 KB plus the z tiles in UB"), return ge::GRAPH_FAILED);
    const int64_t tileLength = tileBytes / typeSize;
    OP_TILING_CHECK(total <= 0 || total % (cores * tileLength) != 0,
                    OP_LOGE(context->GetNodeName(), "the shape must split into whole tiles on every core"),
                    return ge::GRAPH_FAILED);

    AoptCalibTilingData tiling;
    tiling.set_mode(static_cast<uint32_t>(mode));
    tiling.set_blockLength(static_cast<uint32_t>(total / cores));
    tiling.set_tileLength(static_cast<uint32_t>(tileLength));
    tiling.set_bufferNum(static_cast<uint32_t>(bufferNum));
    tiling.set_rounds(static_cast<uint32_t>(rounds));
    context->SetBlockDim(static_cast<uint32_t>(cores));
    context->SetTilingKey(1);
    tiling.SaveToBuffer(context->GetRawTilingData()->GetData(), context->GetRawTilingData()->GetCapacity());
    context->GetRawTilingData()->SetDataSize(tiling.GetDataSize());
    size_t *workspace = context->GetWorkspaceSizes(1);
    workspace[0] = 0;
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
class AoptCalib : public OpDef {
public:
    explicit AoptCalib(const char *name) : OpDef(name)
    {
        this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT16, ge::DT_FLOAT}).Format({ge::FORMAT_ND, ge::FORMAT_ND});
        this->Input("y").ParamType(REQUIRED).DataType({ge::DT_FLOAT16, ge::DT_FLOAT}).Format({ge::FORMAT_ND, ge::FORMAT_ND});
        this->Output("z").ParamType(REQUIRED).DataType({ge::DT_FLOAT16, ge::DT_FLOAT}).Format({ge::FORMAT_ND, ge::FORMAT_ND});
        this->Attr("mode").AttrType(OPTIONAL).Int(0);
        this->Attr("cores").AttrType(OPTIONAL).Int(0);
        this->Attr("tile_bytes").AttrType(OPTIONAL).Int(8192);
        this->Attr("buffer_num").AttrType(OPTIONAL).Int(1);
        this->Attr("rounds").AttrType(OPTIONAL).Int(1);
        this->SetInferShape(ge::InferShape).SetInferDataType(ge::InferDataType);
        this->AICore().SetTiling(optiling::TilingFunc).AddConfig("ascend910b");
    }
};
OP_ADD(AoptCalib);
}  // namespace ops
