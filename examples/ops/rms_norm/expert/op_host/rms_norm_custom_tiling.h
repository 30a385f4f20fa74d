// Tiling data of RmsNormCustom: rows (all dims but the last) split over the cores, the last dim
// normalized as a whole row in UB.
#ifndef RMS_NORM_CUSTOM_TILING_H
#define RMS_NORM_CUSTOM_TILING_H
#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(RmsNormCustomTilingData)
TILING_DATA_FIELD_DEF(uint32_t, rowLength);     // elements of the last dim
TILING_DATA_FIELD_DEF(uint32_t, rowStride);     // row pitch in UB, elements (32 B multiple for T and fp32)
TILING_DATA_FIELD_DEF(uint32_t, rowsPerCore);   // rows of the small cores
TILING_DATA_FIELD_DEF(uint32_t, bigCoreNum);    // the first bigCoreNum cores take one row more
TILING_DATA_FIELD_DEF(uint32_t, rowsPerTile);   // rows per copy
TILING_DATA_FIELD_DEF(float, epsilon);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(RmsNormCustom, RmsNormCustomTilingData)
}  // namespace optiling
#endif  // RMS_NORM_CUSTOM_TILING_H
