// Tiling data of PartialAdds: the flattened tensor split over cores in tiles, and how many cores'
// shares the kernel writes.
#ifndef PARTIAL_ADDS_TILING_H
#define PARTIAL_ADDS_TILING_H
#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(PartialAddsTilingData)
TILING_DATA_FIELD_DEF(uint32_t, totalLength);
TILING_DATA_FIELD_DEF(uint32_t, perCore);
TILING_DATA_FIELD_DEF(uint32_t, tileLength);
TILING_DATA_FIELD_DEF(uint32_t, writingCores);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(PartialAdds, PartialAddsTilingData)
}  // namespace optiling
#endif  // PARTIAL_ADDS_TILING_H
