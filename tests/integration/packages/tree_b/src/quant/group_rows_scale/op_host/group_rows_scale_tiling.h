// Fixture GroupRowsScale (tree_b): tiling data.
#ifndef TREE_B_GROUP_ROWS_SCALE_TILING_H
#define TREE_B_GROUP_ROWS_SCALE_TILING_H
#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(GroupRowsScaleTilingData)
TILING_DATA_FIELD_DEF(uint32_t, rows);
TILING_DATA_FIELD_DEF(uint32_t, cols);
TILING_DATA_FIELD_DEF(uint32_t, groups);
END_TILING_DATA_DEF;
REGISTER_TILING_DATA_CLASS(GroupRowsScale, GroupRowsScaleTilingData)
}  // namespace optiling
#endif
