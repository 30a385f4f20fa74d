// Tiling data of TiledAdd (a test fixture for Feasible Stage I).
#ifndef TILED_ADD_TILING_H
#define TILED_ADD_TILING_H
#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(TiledAddTilingData)
  TILING_DATA_FIELD_DEF(uint32_t, totalLength);
  TILING_DATA_FIELD_DEF(uint32_t, tileNum);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(TiledAdd, TiledAddTilingData)
}  // namespace optiling
#endif  // TILED_ADD_TILING_H
