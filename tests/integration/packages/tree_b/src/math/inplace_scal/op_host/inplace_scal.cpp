// Fixture InplaceScal (tree_b): the BLAS scal idiom (the tree's sscal). x = alpha x in place: no
// output, `alpha` an optional float attribute of default 1.0 (the identity, which leaves x as it
// was), `n` the length (default 0).
#include "inplace_scal_tiling.h"
#include "register/op_def_registry.h"

namespace optiling {
static ge::graphStatus TilingFunc(gert::TilingContext* context)
{
    const int64_t total = context->GetInputShape(0)->GetStorageShape().GetShapeSize();
    const float* alpha = context->GetAttrs()->GetAttrPointer<float>(0);
    const int64_t* n = context->GetAttrs()->GetAttrPointer<int64_t>(1);
    if (alpha == nullptr || n == nullptr || *n <= 0 || *n > total) {
        return ge::GRAPH_FAILED;
    }
    InplaceScalTilingData tiling;
    tiling.set_totalLength(static_cast<uint32_t>(*n));
    tiling.set_tileLength(1024);
    tiling.set_alpha(*alpha);
    context->SetTilingKey(1);
    context->SetBlockDim(1);
    tiling.SaveToBuffer(context->GetRawTilingData()->GetData(), context->GetRawTilingData()->GetCapacity());
    context->GetRawTilingData()->SetDataSize(tiling.GetDataSize());
    size_t* ws = context->GetWorkspaceSizes(1);
    ws[0] = 0;
    return ge::GRAPH_SUCCESS;
}
}  // namespace optiling

namespace ops {
class InplaceScal : public OpDef {
public:
    explicit InplaceScal(const char* name) : OpDef(name)
    {
        this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->Attr("alpha").AttrType(OPTIONAL).Float(1.0f);
        this->Attr("n").AttrType(OPTIONAL).Int(0);
        this->AICore().SetTiling(optiling::TilingFunc);
        this->AICore().AddConfig("ascend910b");
    }
};
OP_ADD(InplaceScal);
}  // namespace ops
