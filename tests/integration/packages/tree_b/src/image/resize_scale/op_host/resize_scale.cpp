// Fixture ResizeScale (tree_b): the resize idiom of the image operators (PyTorch's upsample_*
// backward): y = x + x resampled to `output_size`, the spatial sizes after N and C, with
// `input_size` the forward input's whole shape. Both are integer lists declared without a value;
// this fixture accepts only the identity resampling (output_size = x's H and W, input_size = x's
// shape), and its InferShape reads both without checking that they are there.
#include "resize_scale_tiling.h"
#include "register/op_def_registry.h"

namespace optiling {
static bool SameDims(const gert::ContinuousVector* list, const gert::Shape& shape, size_t from)
{
    if (list == nullptr || list->GetSize() + from != shape.GetDimNum()) {
        return false;
    }
    const auto* dims = static_cast<const int64_t*>(list->GetData());
    for (size_t i = 0; i < list->GetSize(); ++i) {
        if (dims[i] != shape.GetDim(i + from)) {
            return false;
        }
    }
    return true;
}

static ge::graphStatus TilingFunc(gert::TilingContext* context)
{
    const gert::Shape& x = context->GetInputShape(0)->GetStorageShape();
    const auto* attrs = context->GetAttrs();
    if (x.GetDimNum() != 4 || !SameDims(attrs->GetListInt(0), x, 2) || !SameDims(attrs->GetListInt(1), x, 0)) {
        return ge::GRAPH_FAILED;
    }
    ResizeScaleTilingData tiling;
    tiling.set_elements(static_cast<uint32_t>(x.GetShapeSize()));
    tiling.set_chunk(2048);
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
    const auto* out = context->GetAttrs()->GetListInt(0);
    const auto* in = context->GetAttrs()->GetListInt(1);
    const auto* outDims = static_cast<const int64_t*>(out->GetData());
    const auto* inDims = static_cast<const int64_t*>(in->GetData());
    gert::Shape* y = context->GetOutputShape(0);
    y->SetDimNum(0);
    y->AppendDim(in->GetSize() > 0 ? inDims[0] : 1);
    y->AppendDim(in->GetSize() > 1 ? inDims[1] : 1);
    for (size_t i = 0; i < out->GetSize(); ++i) {
        y->AppendDim(outDims[i]);
    }
    return out->GetSize() == 0 || in->GetSize() == 0 ? GRAPH_FAILED : GRAPH_SUCCESS;
}
}  // namespace ge

namespace ops {
class ResizeScale : public OpDef {
public:
    explicit ResizeScale(const char* name) : OpDef(name)
    {
        this->Input("grad_output").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->Output("y").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->Attr("output_size").ListInt();
        this->Attr("input_size").ListInt();
        this->SetInferShape(ge::InferShape);
        this->AICore().SetTiling(optiling::TilingFunc);
        this->AICore().AddConfig("ascend910b");
    }
};
OP_ADD(ResizeScale);
}  // namespace ops
