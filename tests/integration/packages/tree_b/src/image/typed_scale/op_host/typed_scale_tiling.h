// Fixture TypedScale (tree_b): tiling data; the key and the debug dump come from the tree's
// shared headers.
#ifndef TREE_B_TYPED_SCALE_TILING_H
#define TREE_B_TYPED_SCALE_TILING_H
#include "register/tilingdata_base.h"
#include "tiling/tiling_type.h"
#include "tiling/fixture_log_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(TypedScaleTilingData)
TILING_DATA_FIELD_DEF(uint32_t, totalLength);
TILING_DATA_FIELD_DEF(uint32_t, tileLength);
END_TILING_DATA_DEF;
REGISTER_TILING_DATA_CLASS(TypedScale, TypedScaleTilingData)
}  // namespace optiling
#endif
