// Host side shared by the corpus fixtures (tests/corpus): y = f(x), same shape, float16, one
// core.
// Included by op_host/<op>.cpp after its <op>_tiling.h (which defines FIXTURE_OP).
#pragma once
#include "fixture_tiling_data.h"
#include "register/op_def_registry.h"

namespace optiling {
static ge::graphStatus TilingFunc(gert::TilingContext *context)
{
    FixtureTilingData tiling;
    tiling.set_totalLength(static_cast<uint32_t>(context->GetInputShape(0)->GetStorageShape().GetShapeSize()));
    context->SetBlockDim(1);
    tiling.SaveToBuffer(context->GetRawTilingData()->GetData(), context->GetRawTilingData()->GetCapacity());
    context->GetRawTilingData()->SetDataSize(tiling.GetDataSize());
    context->GetWorkspaceSizes(1)[0] = 0;
    return ge::GRAPH_SUCCESS;
}
}  // namespace optiling

namespace ops {
class FIXTURE_OP : public OpDef {
public:
    explicit FIXTURE_OP(const char *name) : OpDef(name)
    {
        this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT16}).Format({ge::FORMAT_ND});
        this->Output("y").ParamType(REQUIRED).DataType({ge::DT_FLOAT16}).Format({ge::FORMAT_ND});
        this->AICore().SetTiling(optiling::TilingFunc);
        this->AICore().AddConfig("ascend910b");
    }
};
#define FIXTURE_ADD(op) OP_ADD(op)
FIXTURE_ADD(FIXTURE_OP);
}  // namespace ops
