// Tiling data of GatherCustom: y[m, :] = x[indices[m], :]; the indices split over the cores.
#ifndef GATHER_CUSTOM_TILING_H
#define GATHER_CUSTOM_TILING_H
#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(GatherCustomTilingData)
TILING_DATA_FIELD_DEF(uint32_t, tableRows);      // N: rows of x
TILING_DATA_FIELD_DEF(uint32_t, rowLength);      // D: elements per row
TILING_DATA_FIELD_DEF(uint32_t, rowStride);      // D rounded up to whole 32 B blocks (UB row pitch)
TILING_DATA_FIELD_DEF(uint32_t, indicesPerCore); // indices of the small cores
TILING_DATA_FIELD_DEF(uint32_t, bigCoreNum);     // the first bigCoreNum cores take one index more
TILING_DATA_FIELD_DEF(uint32_t, rowsPerTile);    // indices (output rows) per tile
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(GatherCustom, GatherCustomTilingData)
}  // namespace optiling
#endif  // GATHER_CUSTOM_TILING_H
