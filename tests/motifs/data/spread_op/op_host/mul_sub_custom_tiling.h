// Fixture (spread_single_core): tiling data of MulSubCustom, z = 2 * x - y, written for one core.
#ifndef MUL_SUB_CUSTOM_TILING_H
#define MUL_SUB_CUSTOM_TILING_H
#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(MulSubCustomTilingData)
TILING_DATA_FIELD_DEF(uint32_t, totalLength);
TILING_DATA_FIELD_DEF(uint32_t, tileNum);
TILING_DATA_FIELD_DEF(uint32_t, tileLength);
TILING_DATA_FIELD_DEF(uint32_t, tailLength);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(MulSubCustom, MulSubCustomTilingData)
}  // namespace optiling
#endif  // MUL_SUB_CUSTOM_TILING_H
