// Fixture ApartScale (tree_a): InferShape, the check-supported function (graph/operator.h's
// ge::Operator) and the OpDef (libraries opsproto and op_host_aclnn).
#include "register/op_def_registry.h"
#include "apart_scale_base.h"

namespace ops {
static ge::graphStatus InferShapeForApartScale(gert::InferShapeContext* context)
{
    *context->GetOutputShape(0) = *context->GetInputShape(0);
    return ge::GRAPH_SUCCESS;
}
IMPL_OP_INFERSHAPE(ApartScale).InferShape(InferShapeForApartScale);

// Supported when x has at most APART_MAX_RANK dimensions and is float.
static ge::graphStatus CheckSupported(const ge::Operator& op, ge::AscendString& result)
{
    const ge::TensorDesc x = op.GetInputDescByName("x");
    int64_t blocks = 0;
    const bool attr = op.GetAttr("blocks", blocks) == ge::GRAPH_SUCCESS;
    const bool ok = x.GetShape().GetDimNum() <= static_cast<size_t>(optiling::APART_MAX_RANK) &&
                    x.GetDataType() == ge::DT_FLOAT && (!attr || optiling::ApartCeilDiv(blocks, 1) >= 0);
    result = ge::AscendString(ok ? R"({"isSupported": "True"})" : R"({"isSupported": "False"})");
    return ok ? ge::GRAPH_SUCCESS : ge::GRAPH_FAILED;
}

class ApartScale : public OpDef {
public:
    explicit ApartScale(const char* name) : OpDef(name)
    {
        this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->Output("y").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->AICore().SetCheckSupport(CheckSupported);
        this->AICore().AddConfig("ascend910b");
    }
};
OP_ADD(ApartScale);
}  // namespace ops
