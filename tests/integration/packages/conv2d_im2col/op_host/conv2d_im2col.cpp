// Conv2dIm2col host side: x [N, C1, H, W, 16] (NC1HWC0) float16, w [Cout, C1, KH, KW, 16]
// float16 -> y [N, H, W, Cout] float32; stride 1, padding KH / 2 and KW / 2 (odd kernels keep H
// and W). One image per block; each block walks its H * W output positions baseM at a time. The
// attribute data_format is required and its OpDef writes "NC1HWC0": the cases leave it out.
#include <string>

#include "conv2d_im2col_tiling.h"
#include "register/op_def_registry.h"

namespace optiling {
static ge::graphStatus TilingFunc(gert::TilingContext* context)
{
    const gert::Shape& x = context->GetInputShape(0)->GetStorageShape();
    const gert::Shape& w = context->GetInputShape(1)->GetStorageShape();
    if (x.GetDimNum() != 5 || w.GetDimNum() != 5 || x.GetDim(4) != 16 || w.GetDim(4) != 16 ||
        x.GetDim(1) != w.GetDim(1) || w.GetDim(0) % 16 != 0 || w.GetDim(2) % 2 != 1 || w.GetDim(3) % 2 != 1) {
        return ge::GRAPH_FAILED;
    }
    // A required attribute the OpDef writes a value for: the cases leave it out and get "NC1HWC0".
    const char* format = context->GetAttrs() == nullptr ? nullptr : context->GetAttrs()->GetStr(0);
    if (format == nullptr || std::string(format) != "NC1HWC0") {
        return ge::GRAPH_FAILED;
    }
    Conv2dIm2colTilingData t;
    t.set_n(static_cast<uint32_t>(x.GetDim(0)));
    t.set_c1(static_cast<uint32_t>(x.GetDim(1)));
    t.set_h(static_cast<uint32_t>(x.GetDim(2)));
    t.set_w(static_cast<uint32_t>(x.GetDim(3)));
    t.set_cout(static_cast<uint32_t>(w.GetDim(0)));
    t.set_kh(static_cast<uint32_t>(w.GetDim(2)));
    t.set_kw(static_cast<uint32_t>(w.GetDim(3)));
    const uint64_t k = static_cast<uint64_t>(t.get_c1()) * t.get_kh() * t.get_kw() * 16;
    // L1 holds one image and the weights; L0B the weights; L0A baseM x K; L0C baseM x Cout.
    const uint64_t l1 = static_cast<uint64_t>(t.get_c1()) * t.get_h() * t.get_w() * 16 * 2 + k * t.get_cout() * 2;
    if (k > 4095 || l1 > 512 * 1024 || k * t.get_cout() * 2 > 64 * 1024 || (k / 16) * (t.get_cout() / 16) > 255) {
        return ge::GRAPH_FAILED;
    }
    uint32_t baseM = 16;
    while (baseM < 256 && (baseM * 2) * k * 2 <= 64 * 1024 && (baseM * 2) * t.get_cout() * 4 <= 128 * 1024) {
        baseM *= 2;
    }
    t.set_baseM(baseM);
    context->SetBlockDim(t.get_n());
    context->SetTilingKey(1);
    t.SaveToBuffer(context->GetRawTilingData()->GetData(), context->GetRawTilingData()->GetCapacity());
    context->GetRawTilingData()->SetDataSize(t.GetDataSize());
    size_t* ws = context->GetWorkspaceSizes(1);
    ws[0] = 0;
    return ge::GRAPH_SUCCESS;
}
}  // namespace optiling

namespace ge {
static ge::graphStatus InferShape(gert::InferShapeContext* context)
{
    const gert::Shape* x = context->GetInputShape(0);
    const gert::Shape* w = context->GetInputShape(1);
    gert::Shape* y = context->GetOutputShape(0);
    if (x == nullptr || w == nullptr || y == nullptr || x->GetDimNum() != 5 || w->GetDimNum() != 5) {
        return GRAPH_FAILED;
    }
    y->SetDimNum(4);
    y->SetDim(0, x->GetDim(0));
    y->SetDim(1, x->GetDim(2));
    y->SetDim(2, x->GetDim(3));
    y->SetDim(3, w->GetDim(0));
    return GRAPH_SUCCESS;
}
}  // namespace ge

namespace ops {
class Conv2dIm2col : public OpDef {
public:
    explicit Conv2dIm2col(const char* name) : OpDef(name)
    {
        this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT16}).Format({ge::FORMAT_ND});
        this->Input("w").ParamType(REQUIRED).DataType({ge::DT_FLOAT16}).Format({ge::FORMAT_ND});
        this->Output("y").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->Attr("data_format").AttrType(REQUIRED).String("NC1HWC0");
        this->SetInferShape(ge::InferShape);
        this->AICore().SetTiling(optiling::TilingFunc);
        this->AICore().AddConfig("ascend910b");
    }
};

OP_ADD(Conv2dIm2col);
}  // namespace ops
