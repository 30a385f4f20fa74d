// Tiling data of ArangeCustom: y[i] = start + i * step, split over the vector cores.
#ifndef ARANGE_CUSTOM_TILING_H
#define ARANGE_CUSTOM_TILING_H
#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(ArangeCustomTilingData)
TILING_DATA_FIELD_DEF(uint32_t, totalLength);   // elements of y
TILING_DATA_FIELD_DEF(uint32_t, unitLength);    // elements per 32 B block: the split granule
TILING_DATA_FIELD_DEF(uint32_t, unitsPerCore);  // granules of the small cores
TILING_DATA_FIELD_DEF(uint32_t, bigCoreNum);    // the first bigCoreNum cores take one granule more
TILING_DATA_FIELD_DEF(uint32_t, tileLength);    // elements per UB tile
TILING_DATA_FIELD_DEF(float, start);
TILING_DATA_FIELD_DEF(float, step);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(ArangeCustom, ArangeCustomTilingData)
}  // namespace optiling
#endif  // ARANGE_CUSTOM_TILING_H
