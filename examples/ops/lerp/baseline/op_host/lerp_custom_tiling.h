// Tiling data of LerpCustom: how the flattened tensor is split over cores and UB tiles.
#ifndef LERP_CUSTOM_TILING_H
#define LERP_CUSTOM_TILING_H
#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(LerpCustomTilingData)
TILING_DATA_FIELD_DEF(uint32_t, totalLength);
TILING_DATA_FIELD_DEF(uint32_t, unitLength);
TILING_DATA_FIELD_DEF(uint32_t, unitsPerCore);
TILING_DATA_FIELD_DEF(uint32_t, bigCoreNum);
TILING_DATA_FIELD_DEF(uint32_t, tileLength);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(LerpCustom, LerpCustomTilingData)
}  // namespace optiling
#endif  // LERP_CUSTOM_TILING_H
