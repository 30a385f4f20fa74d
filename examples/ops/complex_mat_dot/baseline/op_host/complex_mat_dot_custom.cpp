// ComplexMatDotCustom host side. out[i][j] = matx[i][j] * maty[i][j] (complex product). complex64
// is stored as interleaved fp32 (re, im) pairs: matx, maty and out have shape [m, 2n] in fp32;
// the attributes m and n give the complex matrix size, as in the public operator.
#include "complex_mat_dot_custom_tiling.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"

namespace optiling {
constexpr uint32_t GRANULE = 4;  // complex elements per 32 B
constexpr uint32_t BUFFER_NUM = 1;

static ge::graphStatus TilingFunc(gert::TilingContext* context)
{
    ComplexMatDotCustomTilingData tiling;
    auto platform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
    uint64_t ubSize = 0;
    platform.GetCoreMemSize(platform_ascendc::CoreMemType::UB, ubSize);
    uint32_t coreNum = platform.GetCoreNumAiv();

    const int64_t* mAttr = context->GetAttrs()->GetAttrPointer<int64_t>(0);
    const int64_t* nAttr = context->GetAttrs()->GetAttrPointer<int64_t>(1);
    int64_t floats = context->GetInputShape(0)->GetStorageShape().GetShapeSize();
    if (mAttr == nullptr || nAttr == nullptr || *mAttr <= 0 || *nAttr <= 0 || floats != 2 * *mAttr * *nAttr ||
        floats != context->GetInputShape(1)->GetStorageShape().GetShapeSize()) {
        return ge::GRAPH_FAILED;  // shapes must be [m, 2n] fp32 (interleaved complex64)
    }
    uint32_t complexLength = static_cast<uint32_t>(floats / 2);
    uint32_t units = (complexLength + GRANULE - 1) / GRANULE;
    if (coreNum > units) {
        coreNum = units;
    }
    // UB per complex element: matx, maty, out tiles of 8 B each (BUFFER_NUM slots).
    uint32_t tileLength = static_cast<uint32_t>(ubSize) / (BUFFER_NUM * 3 * 8) / 64 * 64;

    tiling.set_complexLength(complexLength);
    tiling.set_unitsPerCore(units / coreNum);
    tiling.set_bigCoreNum(units % coreNum);
    tiling.set_tileLength(tileLength);
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
class ComplexMatDotCustom : public OpDef {
public:
    explicit ComplexMatDotCustom(const char* name) : OpDef(name)
    {
        this->Input("matx").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->Input("maty").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->Output("out").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->Attr("m").AttrType(REQUIRED).Int();
        this->Attr("n").AttrType(REQUIRED).Int();
        this->SetInferShape(ge::InferShape);
        this->AICore().SetTiling(optiling::TilingFunc);
        this->AICore().AddConfig("ascend910b");
    }
};
OP_ADD(ComplexMatDotCustom);
}  // namespace ops
