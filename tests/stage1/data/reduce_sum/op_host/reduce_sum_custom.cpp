// ReduceSumCustom host side: tiling, shape inference and the operator definition.
// Tiling keys: 1 = the reduced axis is the last one (row reductions), 2 = inner dims follow it.
#include "reduce_sum_custom_tiling.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"

namespace optiling {
constexpr uint32_t BLOCK_BYTES = 32;
constexpr uint32_t BUFFER_NUM = 2;

static ge::graphStatus TilingFunc(gert::TilingContext* context)
{
    ReduceSumCustomTilingData tiling;
    auto platform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
    uint64_t ubSize = 0;
    platform.GetCoreMemSize(platform_ascendc::CoreMemType::UB, ubSize);
    uint32_t coreNum = platform.GetCoreNumAiv();

    const gert::Shape& shape = context->GetInputShape(0)->GetStorageShape();
    int64_t rank = static_cast<int64_t>(shape.GetDimNum());
    const int64_t* axisAttr = context->GetAttrs()->GetAttrPointer<int64_t>(0);
    int64_t axis = axisAttr == nullptr ? -1 : *axisAttr;
    if (axis < 0) {
        axis += rank;
    }
    if (rank == 0 || axis < 0 || axis >= rank) {
        return ge::GRAPH_FAILED;
    }
    uint64_t outer = 1;
    uint64_t inner = 1;
    for (int64_t i = 0; i < axis; i++) {
        outer *= static_cast<uint64_t>(shape.GetDim(i));
    }
    for (int64_t i = axis + 1; i < rank; i++) {
        inner *= static_cast<uint64_t>(shape.GetDim(i));
    }
    uint64_t reduce = static_cast<uint64_t>(shape.GetDim(axis));
    if (outer * reduce * inner == 0) {
        return ge::GRAPH_FAILED;
    }
    ge::DataType dtype = context->GetInputDesc(0)->GetDataType();
    uint32_t typeSize = (dtype == ge::DT_FLOAT) ? 4 : 2;
    uint32_t blockElems = BLOCK_BYTES / typeSize;
    uint32_t ub = static_cast<uint32_t>(ubSize);

    uint64_t units = 0;
    uint32_t key = 1;
    if (inner == 1) {
        // One row at a time: the row is copied in chunks of tileLength, each chunk reduced with
        // one ReduceSum/ReduceMax, the partial results combined on the scalar unit.
        // UB: the input queue (BUFFER_NUM slots), the fp32 copy, the reduce work area, the output.
        uint32_t bytesPerElem = BUFFER_NUM * typeSize + 2 * sizeof(float);
        uint32_t tileLength = (ub - 1024) / bytesPerElem / 64 * 64;
        if (tileLength > reduce) {
            tileLength = static_cast<uint32_t>((reduce + 63) / 64 * 64);
        }
        units = outer;
        tiling.set_tileLength(tileLength);
        tiling.set_rowsPerTile(1);
        tiling.set_outBatch(128);
    } else {
        key = 2;
        // UB: the input queue (rowsPerTile x tileLength, BUFFER_NUM slots), its fp32 copy, the
        // fp32 accumulator and the output queue.
        uint32_t tileLength = static_cast<uint32_t>((inner + 63) / 64 * 64);
        if (tileLength > 4096) {
            tileLength = 4096;
        }
        uint32_t rowBytes = tileLength * (BUFFER_NUM * typeSize + sizeof(float));
        uint32_t fixedBytes = tileLength * (sizeof(float) + BUFFER_NUM * typeSize);
        uint32_t rowsPerTile = (ub - fixedBytes) / rowBytes;
        if (rowsPerTile > reduce) {
            rowsPerTile = static_cast<uint32_t>(reduce);
        }
        if (rowsPerTile > 4095) {
            rowsPerTile = 4095;
        }
        uint64_t innerChunks = (inner + tileLength - 1) / tileLength;
        units = outer * innerChunks;
        tiling.set_tileLength(tileLength);
        tiling.set_rowsPerTile(rowsPerTile);
        tiling.set_outBatch(0);
    }
    if (coreNum > units) {
        coreNum = static_cast<uint32_t>(units);
    }
    tiling.set_outerLength(static_cast<uint32_t>(outer));
    tiling.set_reduceLength(static_cast<uint32_t>(reduce));
    tiling.set_innerLength(static_cast<uint32_t>(inner));
    tiling.set_unitsPerCore(static_cast<uint32_t>(units / coreNum));
    tiling.set_bigCoreNum(static_cast<uint32_t>(units % coreNum));
    tiling.set_scale(1.0f);
    (void)blockElems;

    context->SetBlockDim(coreNum);
    context->SetTilingKey(key);
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
    gert::Shape* yShape = context->GetOutputShape(0);
    const gert::RuntimeAttrs* attrs = context->GetAttrs();
    const int64_t* axisAttr = attrs->GetAttrPointer<int64_t>(0);
    const bool* keepAttr = attrs->GetAttrPointer<bool>(1);
    int64_t rank = static_cast<int64_t>(xShape->GetDimNum());
    int64_t axis = axisAttr == nullptr ? -1 : *axisAttr;
    bool keepDims = keepAttr != nullptr && *keepAttr;
    if (axis < 0) {
        axis += rank;
    }
    if (axis < 0 || axis >= rank) {
        return GRAPH_FAILED;
    }
    yShape->SetDimNum(0);
    for (int64_t i = 0; i < rank; i++) {
        if (i != axis) {
            yShape->AppendDim(xShape->GetDim(i));
        } else if (keepDims) {
            yShape->AppendDim(1);
        }
    }
    return GRAPH_SUCCESS;
}
}  // namespace ge

namespace ops {
class ReduceSumCustom : public OpDef {
public:
    explicit ReduceSumCustom(const char* name) : OpDef(name)
    {
        this->Input("x")
            .ParamType(REQUIRED)
            .DataType({ge::DT_FLOAT16, ge::DT_FLOAT})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND});
        this->Output("y")
            .ParamType(REQUIRED)
            .DataType({ge::DT_FLOAT16, ge::DT_FLOAT})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND});
        this->Attr("axis").AttrType(OPTIONAL).Int(-1);
        this->Attr("keep_dims").AttrType(OPTIONAL).Bool(false);
        this->SetInferShape(ge::InferShape);
        this->AICore().SetTiling(optiling::TilingFunc);
        this->AICore().AddConfig("ascend910b");
    }
};
OP_ADD(ReduceSumCustom);
}  // namespace ops
