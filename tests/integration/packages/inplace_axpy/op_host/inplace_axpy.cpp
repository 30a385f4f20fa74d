// Fixture InplaceAxpy (tests/integration): an in-place operator. x += alpha * y, float32, one
// core; it declares no output: what it computes is the final content of its input x.
#include "inplace_axpy_tiling.h"
#include "register/op_def_registry.h"

namespace optiling {
static ge::graphStatus TilingFunc(gert::TilingContext *context)
{
    const int64_t total = context->GetInputShape(0)->GetStorageShape().GetShapeSize();
    if (total <= 0 || total % 8 != 0) return ge::GRAPH_FAILED;  // whole 32-byte blocks of float
    const float *alpha = context->GetAttrs()->GetAttrPointer<float>(0);
    InplaceAxpyTilingData tiling;
    tiling.set_totalLength(static_cast<uint32_t>(total));
    tiling.set_tileLength(total < 2048 ? static_cast<uint32_t>(total) : 2048u);
    tiling.set_alpha(alpha == nullptr ? 1.0f : *alpha);
    context->SetBlockDim(1);
    tiling.SaveToBuffer(context->GetRawTilingData()->GetData(), context->GetRawTilingData()->GetCapacity());
    context->GetRawTilingData()->SetDataSize(tiling.GetDataSize());
    context->GetWorkspaceSizes(1)[0] = 0;
    return ge::GRAPH_SUCCESS;
}
}  // namespace optiling

namespace ops {
class InplaceAxpy : public OpDef {
public:
    explicit InplaceAxpy(const char *name) : OpDef(name)
    {
        this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->Input("y").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->Attr("alpha").AttrType(OPTIONAL).Float(2.0);
        this->AICore().SetTiling(optiling::TilingFunc);
        this->AICore().AddConfig("ascend910b");
    }
};
OP_ADD(InplaceAxpy);
}  // namespace ops
