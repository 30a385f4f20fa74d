// Fixture ApartScale (tree_a): tiling data.
#ifndef TREE_A_APART_SCALE_TILING_H
#define TREE_A_APART_SCALE_TILING_H
#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(ApartScaleTilingData)
TILING_DATA_FIELD_DEF(uint32_t, elements);
TILING_DATA_FIELD_DEF(uint32_t, chunk);
END_TILING_DATA_DEF;
REGISTER_TILING_DATA_CLASS(ApartScale, ApartScaleTilingData)
}  // namespace optiling
#endif
