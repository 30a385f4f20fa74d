// Tiling data of CastCustom: how the flattened tensor is split over cores and UB tiles.
#ifndef CAST_CUSTOM_TILING_H
#define CAST_CUSTOM_TILING_H
#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(CastCustomTilingData)
TILING_DATA_FIELD_DEF(uint32_t, totalLength);
TILING_DATA_FIELD_DEF(uint32_t, unitLength);
TILING_DATA_FIELD_DEF(uint32_t, unitsPerCore);
TILING_DATA_FIELD_DEF(uint32_t, bigCoreNum);
TILING_DATA_FIELD_DEF(uint32_t, tileLength);
TILING_DATA_FIELD_DEF(uint32_t, roundMode);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(CastCustom, CastCustomTilingData)
}  // namespace optiling
#endif  // CAST_CUSTOM_TILING_H
