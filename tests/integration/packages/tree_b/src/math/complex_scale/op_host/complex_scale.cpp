// Fixture ComplexScale (tree_b): y = 2 x on complex64 tensors (the BLAS idiom of the tree's ccopy,
// scasum, ...): the kernel reads them as float pairs (real, imaginary).
#include "complex_scale_tiling.h"
#include "register/op_def_registry.h"

namespace optiling {
static ge::graphStatus TilingFunc(gert::TilingContext* context)
{
    // Elements of the kernel's float view: 2 per element of x.
    const int64_t total = context->GetInputShape(0)->GetStorageShape().GetShapeSize() * 2;
    if (total <= 0 || total > static_cast<int64_t>(UINT32_MAX) || context->GetInputDesc(0)->GetDataType() != ge::DT_COMPLEX64) {
        return ge::GRAPH_FAILED;
    }
    ComplexScaleTilingData tiling;
    tiling.set_totalLength(static_cast<uint32_t>(total));
    tiling.set_tileLength(1024);
    context->SetTilingKey(1);
    context->SetBlockDim(1);
    tiling.SaveToBuffer(context->GetRawTilingData()->GetData(), context->GetRawTilingData()->GetCapacity());
    context->GetRawTilingData()->SetDataSize(tiling.GetDataSize());
    size_t* ws = context->GetWorkspaceSizes(1);
    ws[0] = 0;
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
class ComplexScale : public OpDef {
public:
    explicit ComplexScale(const char* name) : OpDef(name)
    {
        this->Input("x").ParamType(REQUIRED).DataType({ge::DT_COMPLEX64}).Format({ge::FORMAT_ND});
        this->Output("y").ParamType(REQUIRED).DataType({ge::DT_COMPLEX64}).Format({ge::FORMAT_ND});
        this->SetInferShape(ge::InferShape);
        this->AICore().SetTiling(optiling::TilingFunc);
        this->AICore().AddConfig("ascend910b");
    }
};
OP_ADD(ComplexScale);
}  // namespace ops
