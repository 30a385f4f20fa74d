// Fixture ScatterRows (tests/integration): an in-place scatter of rows, var[indices[k], ...] =
// updates[k, ...], float32, one core. Like a scatter of cann-ops it declares an output of the
// same name as its input `var` but writes the input's buffer only (the declared output stays as
// the harness filled it): `aopt init` must count the input it wrote as something written.
#include "scatter_rows_tiling.h"
#include "register/op_def_registry.h"

namespace optiling {
static ge::graphStatus TilingFunc(gert::TilingContext *context)
{
    const gert::Shape &var = context->GetInputShape(0)->GetStorageShape();
    const gert::Shape &indices = context->GetInputShape(1)->GetStorageShape();
    const gert::Shape &updates = context->GetInputShape(2)->GetStorageShape();
    if (var.GetDimNum() < 2 || indices.GetDimNum() != 1 || updates.GetDimNum() != var.GetDimNum()) return ge::GRAPH_FAILED;
    if (updates.GetDim(0) != indices.GetDim(0) || indices.GetDim(0) > var.GetDim(0)) return ge::GRAPH_FAILED;
    int64_t row = 1;
    for (size_t i = 1; i < var.GetDimNum(); ++i) {
        if (updates.GetDim(i) != var.GetDim(i)) return ge::GRAPH_FAILED;
        row *= var.GetDim(i);
    }
    if (row <= 0 || row % 8 != 0 || row > 8192) return ge::GRAPH_FAILED;  // whole 32-byte blocks, one row in UB
    ScatterRowsTilingData tiling;
    tiling.set_varRows(static_cast<uint32_t>(var.GetDim(0)));
    tiling.set_rowLength(static_cast<uint32_t>(row));
    tiling.set_updateRows(static_cast<uint32_t>(indices.GetDim(0)));
    context->SetBlockDim(1);
    tiling.SaveToBuffer(context->GetRawTilingData()->GetData(), context->GetRawTilingData()->GetCapacity());
    context->GetRawTilingData()->SetDataSize(tiling.GetDataSize());
    context->GetWorkspaceSizes(1)[0] = 0;
    return ge::GRAPH_SUCCESS;
}
}  // namespace optiling

namespace ge {
static ge::graphStatus InferShape(gert::InferShapeContext *context)
{
    const gert::Shape *var = context->GetInputShape(0);
    gert::Shape *out = context->GetOutputShape(0);
    if (var == nullptr || out == nullptr) return GRAPH_FAILED;
    *out = *var;
    return GRAPH_SUCCESS;
}
}  // namespace ge

namespace ops {
class ScatterRows : public OpDef {
public:
    explicit ScatterRows(const char *name) : OpDef(name)
    {
        this->Input("var").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->Input("indices").ParamType(REQUIRED).DataType({ge::DT_INT32}).Format({ge::FORMAT_ND});
        this->Input("updates").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->Output("var").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->SetInferShape(ge::InferShape);
        this->AICore().SetTiling(optiling::TilingFunc);
        this->AICore().AddConfig("ascend910b");
    }
};
OP_ADD(ScatterRows);
}  // namespace ops
