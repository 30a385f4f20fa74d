// Fixture (stream_core_cap, enque_pipe_all, div_to_reciprocal): tiling data of InvCustom.
#ifndef INV_CUSTOM_TILING_H
#define INV_CUSTOM_TILING_H
#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(InvCustomTilingData)
TILING_DATA_FIELD_DEF(uint32_t, totalLength);
TILING_DATA_FIELD_DEF(uint32_t, unitLength);
TILING_DATA_FIELD_DEF(uint32_t, unitsPerCore);
TILING_DATA_FIELD_DEF(uint32_t, bigCoreNum);
TILING_DATA_FIELD_DEF(uint32_t, tileLength);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(InvCustom, InvCustomTilingData)
}  // namespace optiling
#endif  // INV_CUSTOM_TILING_H
