// Fixture StdScale (tree_b): y = 2 x. Its host code names standard-library types the way the
// tree's host sources do, relying on what the CANN host headers bring: unqualified `string` and
// `map` (the global using-declarations of platform/platform_info.h's platform_info_def.h) and
// `std::set` without <set> (exe_graph/runtime/tiling_context.h -> ge_common/ge_api_types.h).
// Deliberately no #include of <string>, <map> or <set> here.
#include "std_scale_tiling.h"
#include "platform/platform_info.h"
#include "exe_graph/runtime/tiling_context.h"
#include "register/op_def_registry.h"

namespace optiling {
static const map<ge::DataType, uint32_t> TILE_BY_DTYPE = {{ge::DT_FLOAT, 1024}};
static const std::set<ge::DataType> SUPPORTED = {ge::DT_FLOAT};

static bool Supported(const string& name, ge::DataType dtype)
{
    return !name.empty() && SUPPORTED.count(dtype) != 0;
}

static ge::graphStatus TilingFunc(gert::TilingContext* context)
{
    const int64_t total = context->GetInputShape(0)->GetStorageShape().GetShapeSize();
    const ge::DataType dtype = context->GetInputDesc(0)->GetDataType();
    if (total <= 0 || total > static_cast<int64_t>(UINT32_MAX) || !Supported(string("x"), dtype)) {
        return ge::GRAPH_FAILED;
    }
    StdScaleTilingData tiling;
    tiling.set_totalLength(static_cast<uint32_t>(total));
    tiling.set_tileLength(TILE_BY_DTYPE.at(dtype));
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
static graphStatus InferShape(gert::InferShapeContext* context)
{
    *context->GetOutputShape(0) = *context->GetInputShape(0);
    return GRAPH_SUCCESS;
}
}  // namespace ge

namespace ops {
class StdScale : public OpDef {
public:
    explicit StdScale(const char* name) : OpDef(name)
    {
        this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->Output("y").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->SetInferShape(ge::InferShape);
        this->AICore().SetTiling(optiling::TilingFunc);
        this->AICore().AddConfig("ascend910b");
    }
};
OP_ADD(StdScale);
}  // namespace ops
