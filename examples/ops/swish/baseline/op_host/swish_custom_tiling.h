// Tiling data of SwishCustom: a flat element-wise split over the vector cores.
#ifndef SWISH_CUSTOM_TILING_H
#define SWISH_CUSTOM_TILING_H
#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(SwishCustomTilingData)
TILING_DATA_FIELD_DEF(uint32_t, totalLength);   // elements of x
TILING_DATA_FIELD_DEF(uint32_t, unitLength);    // elements per split granule (32 B)
TILING_DATA_FIELD_DEF(uint32_t, unitsPerCore);  // granules of the small cores
TILING_DATA_FIELD_DEF(uint32_t, bigCoreNum);    // the first bigCoreNum cores take one granule more
TILING_DATA_FIELD_DEF(uint32_t, tileLength);    // elements per UB tile
TILING_DATA_FIELD_DEF(float, scale);   // attribute scale
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(SwishCustom, SwishCustomTilingData)
}  // namespace optiling
#endif  // SWISH_CUSTOM_TILING_H
