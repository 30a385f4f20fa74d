// Fixture BlasScale (tree_b): the BLAS idiom of the tree's vector routines. y = 2 x over the
// first `n` elements of x (attribute n, default 0, as the BLAS interface takes it); the kernel
// sizes its UB buffers by n.
#include "blas_scale_tiling.h"
#include "register/op_def_registry.h"

namespace optiling {
static ge::graphStatus TilingFunc(gert::TilingContext* context)
{
    const int64_t total = context->GetInputShape(0)->GetStorageShape().GetShapeSize();
    const int64_t* n = context->GetAttrs()->GetAttrPointer<int64_t>(0);
    if (n == nullptr || *n < 0 || *n > total) {
        return ge::GRAPH_FAILED;
    }
    BlasScaleTilingData tiling;
    tiling.set_n(static_cast<uint32_t>(*n));
    tiling.set_tileLength(static_cast<uint32_t>(*n < 1024 ? *n : 1024));
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
class BlasScale : public OpDef {
public:
    explicit BlasScale(const char* name) : OpDef(name)
    {
        this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->Output("y").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->Attr("n").AttrType(OPTIONAL).Int(0);
        this->Attr("incx").AttrType(OPTIONAL).Int(1);
        this->SetInferShape(ge::InferShape);
        this->AICore().SetTiling(optiling::TilingFunc);
        this->AICore().AddConfig("ascend910b");
    }
};
OP_ADD(BlasScale);
}  // namespace ops
