// Tiling data of GeluCustom: a flat element-wise split over the vector cores.
#ifndef GELU_CUSTOM_TILING_H
#define GELU_CUSTOM_TILING_H
#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(GeluCustomTilingData)
TILING_DATA_FIELD_DEF(uint32_t, totalLength);   // elements of x
TILING_DATA_FIELD_DEF(uint32_t, unitLength);    // elements per split granule (512 B)
TILING_DATA_FIELD_DEF(uint32_t, unitsPerCore);  // granules of the small cores
TILING_DATA_FIELD_DEF(uint32_t, bigCoreNum);    // the first bigCoreNum cores take one granule more
TILING_DATA_FIELD_DEF(uint32_t, tileLength);    // elements per UB tile
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(GeluCustom, GeluCustomTilingData)
}  // namespace optiling
#endif  // GELU_CUSTOM_TILING_H
