// Fixture InplaceRefAxpy (tests/integration): y += alpha * x, float32, one core. `y` is both an
// input and an output of the same name, as a Ref parameter is declared; the build names the
// output's macros after the aclnn parameter (`yRef`): DTYPE_Y_REF, ORIG_DTYPE_Y_REF.
#include "inplace_ref_axpy_tiling.h"
#include "register/op_def_registry.h"

namespace optiling {
static ge::graphStatus TilingFunc(gert::TilingContext *context)
{
    const int64_t total = context->GetInputShape(0)->GetStorageShape().GetShapeSize();
    if (total <= 0 || total % 8 != 0) return ge::GRAPH_FAILED;  // whole 32-byte blocks of float
    const float *alpha = context->GetAttrs()->GetAttrPointer<float>(0);
    InplaceRefAxpyTilingData tiling;
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
class InplaceRefAxpy : public OpDef {
public:
    explicit InplaceRefAxpy(const char *name) : OpDef(name)
    {
        this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->Input("y").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->Output("y").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->Attr("alpha").AttrType(OPTIONAL).Float(2.0);
        this->AICore().SetTiling(optiling::TilingFunc);
        this->AICore().AddConfig("ascend910b");
    }
};
OP_ADD(InplaceRefAxpy);
}  // namespace ops
