// Fixture WriteNothing (tree_b): tiling data.
#ifndef TREE_B_WRITE_NOTHING_TILING_H
#define TREE_B_WRITE_NOTHING_TILING_H
#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(WriteNothingTilingData)
TILING_DATA_FIELD_DEF(uint32_t, totalLength);
END_TILING_DATA_DEF;
REGISTER_TILING_DATA_CLASS(WriteNothing, WriteNothingTilingData)
}  // namespace optiling
#endif
