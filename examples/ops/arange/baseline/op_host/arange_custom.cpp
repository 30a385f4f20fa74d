// ArangeCustom host side: start, end and step are value-depend inputs (one element each); the
// output has ceil((end - start) / step) elements. Tiling, shape inference, operator definition.
#include <cmath>

#include "arange_custom_tiling.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"

namespace {
// IEEE binary16 bits to float (the host has no half type).
float HalfBitsToFloat(uint16_t h)
{
    int exponent = (h >> 10) & 0x1f;
    float mantissa = static_cast<float>(h & 0x3ff);
    float sign = (h & 0x8000) != 0 ? -1.0f : 1.0f;
    if (exponent == 0) {
        return sign * std::ldexp(mantissa, -24);
    }
    if (exponent == 31) {
        return mantissa == 0.0f ? sign * INFINITY : NAN;
    }
    return sign * std::ldexp(1024.0f + mantissa, exponent - 25);
}

// Value of a one-element value-depend input as double; false if it is missing or empty.
bool ScalarOf(const gert::Tensor* t, double& v)
{
    if (t == nullptr || t->GetAddr() == nullptr || t->GetShapeSize() < 1) {
        return false;
    }
    switch (t->GetDataType()) {
        case ge::DT_FLOAT: v = *t->GetData<float>(); return true;
        case ge::DT_INT32: v = *t->GetData<int32_t>(); return true;
        case ge::DT_INT64: v = static_cast<double>(*t->GetData<int64_t>()); return true;
        case ge::DT_FLOAT16: v = HalfBitsToFloat(*t->GetData<uint16_t>()); return true;
        default: return false;
    }
}

// Element count of the sequence, or -1 when start/end/step are unusable.
int64_t ArangeLength(double start, double end, double step)
{
    if (step == 0.0 || (end - start) / step < 0.0) {
        return -1;
    }
    return static_cast<int64_t>(std::ceil((end - start) / step));
}
}  // namespace

namespace optiling {
constexpr uint32_t BLOCK_BYTES = 32;

static ge::graphStatus TilingFunc(gert::TilingContext* context)
{
    ArangeCustomTilingData tiling;
    auto platform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
    uint64_t ubSize = 0;
    platform.GetCoreMemSize(platform_ascendc::CoreMemType::UB, ubSize);
    uint32_t coreNum = platform.GetCoreNumAiv();

    double start = 0.0;
    double end = 0.0;
    double step = 0.0;
    if (!ScalarOf(context->GetInputTensor(0), start) || !ScalarOf(context->GetInputTensor(1), end) ||
        !ScalarOf(context->GetInputTensor(2), step)) {
        return ge::GRAPH_FAILED;
    }
    int64_t n = ArangeLength(start, end, step);
    if (n <= 0 || n > 0x7fffffff) {
        return ge::GRAPH_FAILED;
    }
    uint32_t totalLength = static_cast<uint32_t>(n);
    ge::DataType dtype = context->GetOutputDesc(0)->GetDataType();
    uint32_t typeSize = (dtype == ge::DT_FLOAT16) ? 2 : 4;
    uint32_t unitLength = BLOCK_BYTES / typeSize;
    uint32_t units = (totalLength + unitLength - 1) / unitLength;
    if (coreNum > units) {
        coreNum = units;
    }
    // UB: one output queue (single slot) and the fp32 index and value tiles.
    uint32_t bytesPerElem = typeSize + 2 * sizeof(float);
    uint32_t tileLength = static_cast<uint32_t>(ubSize) / bytesPerElem / 64 * 64;

    tiling.set_totalLength(totalLength);
    tiling.set_unitLength(unitLength);
    tiling.set_unitsPerCore(units / coreNum);
    tiling.set_bigCoreNum(units % coreNum);
    tiling.set_tileLength(tileLength);
    tiling.set_start(static_cast<float>(start));
    tiling.set_step(static_cast<float>(step));

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
    double start = 0.0;
    double end = 0.0;
    double step = 0.0;
    if (!ScalarOf(context->GetInputTensor(0), start) || !ScalarOf(context->GetInputTensor(1), end) ||
        !ScalarOf(context->GetInputTensor(2), step)) {
        return GRAPH_FAILED;
    }
    int64_t n = ArangeLength(start, end, step);
    if (n < 0) {
        return GRAPH_FAILED;
    }
    gert::Shape* yShape = context->GetOutputShape(0);
    yShape->SetDimNum(0);
    yShape->AppendDim(n);
    return GRAPH_SUCCESS;
}
}  // namespace ge

namespace ops {
class ArangeCustom : public OpDef {
public:
    explicit ArangeCustom(const char* name) : OpDef(name)
    {
        this->Input("start")
            .ParamType(REQUIRED)
            .ValueDepend(REQUIRED)
            .DataType({ge::DT_FLOAT, ge::DT_FLOAT16, ge::DT_INT32})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND, ge::FORMAT_ND});
        this->Input("end")
            .ParamType(REQUIRED)
            .ValueDepend(REQUIRED)
            .DataType({ge::DT_FLOAT, ge::DT_FLOAT16, ge::DT_INT32})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND, ge::FORMAT_ND});
        this->Input("step")
            .ParamType(REQUIRED)
            .ValueDepend(REQUIRED)
            .DataType({ge::DT_FLOAT, ge::DT_FLOAT16, ge::DT_INT32})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND, ge::FORMAT_ND});
        this->Output("y")
            .ParamType(REQUIRED)
            .DataType({ge::DT_FLOAT, ge::DT_FLOAT16, ge::DT_INT32})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND, ge::FORMAT_ND});
        this->SetInferShape(ge::InferShape);
        this->AICore().SetTiling(optiling::TilingFunc);
        this->AICore().AddConfig("ascend910b");
    }
};
OP_ADD(ArangeCustom);
}  // namespace ops
