// Tiling data of MseLossCustom: a flat split of predict/label over the vector cores.
#ifndef MSE_LOSS_CUSTOM_TILING_H
#define MSE_LOSS_CUSTOM_TILING_H
#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(MseLossCustomTilingData)
TILING_DATA_FIELD_DEF(uint32_t, totalLength);   // elements of predict
TILING_DATA_FIELD_DEF(uint32_t, unitLength);    // elements per 32 B block: the split granule
TILING_DATA_FIELD_DEF(uint32_t, unitsPerCore);  // granules of the small cores
TILING_DATA_FIELD_DEF(uint32_t, bigCoreNum);    // the first bigCoreNum cores take one granule more
TILING_DATA_FIELD_DEF(uint32_t, tileLength);    // elements per UB tile
TILING_DATA_FIELD_DEF(float, scale);            // key 2: 1/N for "mean", 1 for "sum"
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(MseLossCustom, MseLossCustomTilingData)
}  // namespace optiling
#endif  // MSE_LOSS_CUSTOM_TILING_H
