// Fixture (tiling motifs, no site): tiling data of a single-core operator.
#ifndef COPY_CUSTOM_TILING_H
#define COPY_CUSTOM_TILING_H
#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(CopyCustomTilingData)
TILING_DATA_FIELD_DEF(uint32_t, totalLength);
TILING_DATA_FIELD_DEF(uint32_t, tileLength);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(CopyCustom, CopyCustomTilingData)
}  // namespace optiling
#endif  // COPY_CUSTOM_TILING_H
