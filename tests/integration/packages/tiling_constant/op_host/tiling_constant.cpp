// Host side of fixture tiling_constant: y = 2 * x, float16, one core; the shape in `dims`.
#include "tiling_constant_tiling.h"
#include "register/op_def_registry.h"

namespace optiling {
static ge::graphStatus TilingFunc(gert::TilingContext *context)
{
    TilingConstantTilingData tiling;
    const auto &shape = context->GetInputShape(0)->GetStorageShape();
    tiling.set_totalLength(static_cast<uint32_t>(shape.GetShapeSize()));
    uint32_t dims[MAX_DIMS] = {1, 1, 1, 1};
    for (size_t i = 0; i < shape.GetDimNum() && i < MAX_DIMS; ++i) {
        dims[i] = static_cast<uint32_t>(shape.GetDim(i));
    }
    tiling.set_dims(dims);
    context->SetBlockDim(1);
    tiling.SaveToBuffer(context->GetRawTilingData()->GetData(), context->GetRawTilingData()->GetCapacity());
    context->GetRawTilingData()->SetDataSize(tiling.GetDataSize());
    context->GetWorkspaceSizes(1)[0] = 0;
    return ge::GRAPH_SUCCESS;
}
}  // namespace optiling

namespace ops {
class TilingConstant : public OpDef {
public:
    explicit TilingConstant(const char *name) : OpDef(name)
    {
        this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT16}).Format({ge::FORMAT_ND});
        this->Output("y").ParamType(REQUIRED).DataType({ge::DT_FLOAT16}).Format({ge::FORMAT_ND});
        this->AICore().SetTiling(optiling::TilingFunc);
        this->AICore().AddConfig("ascend910b");
    }
};
OP_ADD(TilingConstant);
}  // namespace ops
