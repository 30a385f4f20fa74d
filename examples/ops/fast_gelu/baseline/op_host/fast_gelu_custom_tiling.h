// Tiling data of FastGeluCustom: a flat element-wise split over the vector cores.
#ifndef FAST_GELU_CUSTOM_TILING_H
#define FAST_GELU_CUSTOM_TILING_H
#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(FastGeluCustomTilingData)
TILING_DATA_FIELD_DEF(uint32_t, totalLength);   // elements of x
TILING_DATA_FIELD_DEF(uint32_t, unitLength);    // elements per split granule (32 B)
TILING_DATA_FIELD_DEF(uint32_t, unitsPerCore);  // granules of the small cores
TILING_DATA_FIELD_DEF(uint32_t, bigCoreNum);    // the first bigCoreNum cores take one granule more
TILING_DATA_FIELD_DEF(uint32_t, tileLength);    // elements per UB tile
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(FastGeluCustom, FastGeluCustomTilingData)
}  // namespace optiling
#endif  // FAST_GELU_CUSTOM_TILING_H
