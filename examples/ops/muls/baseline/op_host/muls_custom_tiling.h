// Tiling data of MulsCustom: how the flattened tensor is split over cores and UB tiles.
#ifndef MULS_CUSTOM_TILING_H
#define MULS_CUSTOM_TILING_H
#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(MulsCustomTilingData)
TILING_DATA_FIELD_DEF(uint32_t, totalLength);
TILING_DATA_FIELD_DEF(uint32_t, unitLength);
TILING_DATA_FIELD_DEF(uint32_t, unitsPerCore);
TILING_DATA_FIELD_DEF(uint32_t, bigCoreNum);
TILING_DATA_FIELD_DEF(uint32_t, tileLength);
TILING_DATA_FIELD_DEF(float, value);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(MulsCustom, MulsCustomTilingData)
}  // namespace optiling
#endif  // MULS_CUSTOM_TILING_H
