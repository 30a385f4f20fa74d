// The shared tiling function (a source outside the operator that its CMakeLists gives to
// optiling) and the registration of SharedScale's tiling.
#include "fixture_shared/scale_tiling_func.h"

namespace optiling {
ge::graphStatus FixtureScaleTiling(gert::TilingContext *context, float factor)
{
    FixtureScaleTilingData tiling;
    tiling.set_totalLength(static_cast<uint32_t>(context->GetInputShape(0)->GetStorageShape().GetShapeSize()));
    tiling.set_factor(factor);
    context->SetBlockDim(1);
    tiling.SaveToBuffer(context->GetRawTilingData()->GetData(), context->GetRawTilingData()->GetCapacity());
    context->GetRawTilingData()->SetDataSize(tiling.GetDataSize());
    context->GetWorkspaceSizes(1)[0] = 0;
    return ge::GRAPH_SUCCESS;
}

static ge::graphStatus SharedScaleTilingFunc(gert::TilingContext *context)
{
    return FixtureScaleTiling(context, 3.0f);
}
IMPL_OP_OPTILING(SharedScale).Tiling(SharedScaleTilingFunc);
}  // namespace optiling
