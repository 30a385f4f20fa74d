// Tiling data of OneTileLog: how the flattened tensor is split over cores and UB tiles.
#ifndef ONE_TILE_LOG_TILING_H
#define ONE_TILE_LOG_TILING_H
#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(OneTileLogTilingData)
TILING_DATA_FIELD_DEF(uint32_t, totalLength);
TILING_DATA_FIELD_DEF(uint32_t, unitLength);
TILING_DATA_FIELD_DEF(uint32_t, unitsPerCore);
TILING_DATA_FIELD_DEF(uint32_t, bigCoreNum);
TILING_DATA_FIELD_DEF(uint32_t, tileLength);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(OneTileLog, OneTileLogTilingData)
}  // namespace optiling
#endif  // ONE_TILE_LOG_TILING_H
