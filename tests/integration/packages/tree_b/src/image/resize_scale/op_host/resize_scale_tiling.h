// Fixture ResizeScale (tree_b): tiling data.
#ifndef TREE_B_RESIZE_SCALE_TILING_H
#define TREE_B_RESIZE_SCALE_TILING_H
#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(ResizeScaleTilingData)
TILING_DATA_FIELD_DEF(uint32_t, elements);
TILING_DATA_FIELD_DEF(uint32_t, chunk);
END_TILING_DATA_DEF;
REGISTER_TILING_DATA_CLASS(ResizeScale, ResizeScaleTilingData)
}  // namespace optiling
#endif
