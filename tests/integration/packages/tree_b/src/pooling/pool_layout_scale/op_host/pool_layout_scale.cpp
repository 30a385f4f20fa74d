// Fixture PoolLayoutScale (tree_b): the 3-D pooling idiom of the tree (avg_pool3_d). Its OpDef
// declares ND, and its InferShape reads the layout from the tensors' descriptors (x's and y's
// origin format must be NDHWC or NCDHW, as the data_format attribute names it in a framework
// graph), six pads (two per spatial dimension) and a private attribute `padding` registered with
// IMPL_OP_INFERSHAPE(...).PrivateAttr, after the OpDef's attributes. The pooling is the identity
// (ksize 1, pads 0); the kernel computes y = 2 x so that the output is compared.
#include <cstring>

#include "pool_layout_scale_tiling.h"
#include "register/op_def_registry.h"

namespace optiling {
static ge::graphStatus TilingFunc(gert::TilingContext* context)
{
    const int64_t total = context->GetInputShape(0)->GetStorageShape().GetShapeSize();
    PoolLayoutScaleTilingData tiling;
    tiling.set_n(static_cast<uint32_t>(total));
    tiling.set_tileLength(static_cast<uint32_t>(total < 1024 ? total : 1024));
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
constexpr size_t kPadsIdx = 1;
constexpr size_t kPaddingIdx = 3;  // the private attribute, after ksize, pads, data_format

static bool IsLayout5D(ge::Format f) { return f == ge::FORMAT_NDHWC || f == ge::FORMAT_NCDHW; }

static graphStatus InferShape(gert::InferShapeContext* context)
{
    const auto* x = context->GetInputShape(0);
    if (x == nullptr || x->GetDimNum() != 5) return GRAPH_FAILED;
    if (!IsLayout5D(context->GetInputDesc(0)->GetOriginFormat())) return GRAPH_FAILED;
    const auto* y_desc = context->GetOutputDesc(0);
    if (y_desc == nullptr || !IsLayout5D(y_desc->GetOriginFormat())) return GRAPH_FAILED;
    const auto* attrs = context->GetAttrs();
    const auto* pads = attrs->GetAttrPointer<gert::ContinuousVector>(kPadsIdx);
    if (pads == nullptr || pads->GetSize() != 6) return GRAPH_FAILED;
    const auto* pad = reinterpret_cast<const int64_t*>(pads->GetData());
    for (size_t i = 0; i < 6; ++i) {
        if (pad[i] != 0) return GRAPH_FAILED;
    }
    const char* padding = attrs->GetAttrPointer<char>(kPaddingIdx);
    if (padding == nullptr || std::strcmp(padding, "SAME") == 0) return GRAPH_FAILED;
    *context->GetOutputShape(0) = *x;
    return GRAPH_SUCCESS;
}
IMPL_OP_INFERSHAPE(PoolLayoutScale).InferShape(InferShape).PrivateAttr("padding", "");
}  // namespace ge

namespace ops {
class PoolLayoutScale : public OpDef {
public:
    explicit PoolLayoutScale(const char* name) : OpDef(name)
    {
        this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->Output("y").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->Attr("ksize").AttrType(REQUIRED).ListInt();
        this->Attr("pads").AttrType(REQUIRED).ListInt();
        this->Attr("data_format").AttrType(OPTIONAL).String("NDHWC");
        this->AICore().SetTiling(optiling::TilingFunc);
        this->AICore().AddConfig("ascend910b");
    }
};
OP_ADD(PoolLayoutScale);
}  // namespace ops
