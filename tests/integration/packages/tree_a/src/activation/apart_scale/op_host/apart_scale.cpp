// Fixture ApartScale (tree_a): the tiling (library optiling): y = 2 x in chunks of 2048 floats.
#include "register/op_def_registry.h"
#include "apart_scale_tiling.h"
#include "apart_scale_base.h"

namespace optiling {
static ge::graphStatus ApartScaleTiling(gert::TilingContext* context)
{
    ApartScaleTilingData tiling;
    const int64_t elements = context->GetInputShape(0)->GetStorageShape().GetShapeSize();
    const int64_t chunk = 2048;
    if (ApartCeilDiv(elements, chunk) < 1) {
        return ge::GRAPH_FAILED;
    }
    tiling.set_elements(static_cast<uint32_t>(elements));
    tiling.set_chunk(static_cast<uint32_t>(chunk));
    context->SetBlockDim(1);
    tiling.SaveToBuffer(context->GetRawTilingData()->GetData(), context->GetRawTilingData()->GetCapacity());
    context->GetRawTilingData()->SetDataSize(tiling.GetDataSize());
    size_t* ws = context->GetWorkspaceSizes(1);
    ws[0] = 0;
    return ge::GRAPH_SUCCESS;
}
IMPL_OP_OPTILING(ApartScale).Tiling(ApartScaleTiling);
}  // namespace optiling
