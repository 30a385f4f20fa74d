// Fixture ScatterRows (tests/integration): var[indices[k], ...] = updates[k, ...] in place; the
// tiling data.
#ifndef SCATTER_ROWS_TILING_H
#define SCATTER_ROWS_TILING_H
#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(ScatterRowsTilingData)
TILING_DATA_FIELD_DEF(uint32_t, varRows);     // var's dimension 0
TILING_DATA_FIELD_DEF(uint32_t, rowLength);   // elements of one row (the dimensions after 0)
TILING_DATA_FIELD_DEF(uint32_t, updateRows);  // indices' count, updates' dimension 0
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(ScatterRows, ScatterRowsTilingData)
}  // namespace optiling
#endif
