// Tiling data of RefuseCustom: how the flattened tensor is split over cores and UB tiles.
#ifndef REFUSE_CUSTOM_TILING_H
#define REFUSE_CUSTOM_TILING_H
#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(RefuseCustomTilingData)
TILING_DATA_FIELD_DEF(uint32_t, totalLength);
TILING_DATA_FIELD_DEF(uint32_t, unitLength);
TILING_DATA_FIELD_DEF(uint32_t, unitsPerCore);
TILING_DATA_FIELD_DEF(uint32_t, bigCoreNum);
TILING_DATA_FIELD_DEF(uint32_t, tileLength);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(RefuseCustom, RefuseCustomTilingData)
}  // namespace optiling
#endif  // REFUSE_CUSTOM_TILING_H
