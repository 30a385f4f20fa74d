// Fixture AtomicInit (tree_b): y = 2 x, accumulated: each of two cores adds all of x into y with
// SetAtomicAdd, so y must hold 0 before the kernel runs. The OpDef says so with InitValue(0) on y,
// the documented way: the runtime writes the initial value into y before the launch.
#include "atomic_init_tiling.h"
#include "register/op_def_registry.h"

namespace optiling {
static ge::graphStatus TilingFunc(gert::TilingContext* context)
{
    const int64_t total = context->GetInputShape(0)->GetStorageShape().GetShapeSize();
    if (total <= 0 || total > static_cast<int64_t>(UINT32_MAX)) {
        return ge::GRAPH_FAILED;
    }
    AtomicInitTilingData tiling;
    tiling.set_totalLength(static_cast<uint32_t>(total));
    tiling.set_tileLength(1024);
    context->SetBlockDim(2);
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
class AtomicInit : public OpDef {
public:
    explicit AtomicInit(const char* name) : OpDef(name)
    {
        this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->Output("y").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND}).InitValue(0);
        this->SetInferShape(ge::InferShape);
        this->AICore().SetTiling(optiling::TilingFunc);
        this->AICore().AddConfig("ascend910b");
    }
};
OP_ADD(AtomicInit);
}  // namespace ops
