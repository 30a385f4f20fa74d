// Fixture PoolLayoutScale (tree_b): tiling data.
#ifndef TREE_B_POOL_LAYOUT_SCALE_TILING_H
#define TREE_B_POOL_LAYOUT_SCALE_TILING_H
#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(PoolLayoutScaleTilingData)
TILING_DATA_FIELD_DEF(uint32_t, n);
TILING_DATA_FIELD_DEF(uint32_t, tileLength);
END_TILING_DATA_DEF;
REGISTER_TILING_DATA_CLASS(PoolLayoutScale, PoolLayoutScaleTilingData)
}  // namespace optiling
#endif
