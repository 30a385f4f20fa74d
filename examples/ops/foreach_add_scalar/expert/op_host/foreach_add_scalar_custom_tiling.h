// Tiling data of ForeachAddScalarCustom: the tensors of the list x, their lengths, and the split over the cores.
#ifndef FOREACH_ADD_SCALAR_CUSTOM_TILING_H
#define FOREACH_ADD_SCALAR_CUSTOM_TILING_H
#include "register/tilingdata_base.h"

namespace optiling {
constexpr uint32_t FOREACH_ADD_SCALAR_MAX_TENSORS = 64;
BEGIN_TILING_DATA_DEF(ForeachAddScalarCustomTilingData)
TILING_DATA_FIELD_DEF(uint32_t, tensorNum);         // tensors in the list
TILING_DATA_FIELD_DEF(uint32_t, unitLength);        // elements per split granule
TILING_DATA_FIELD_DEF(uint32_t, tileLength);        // elements per UB tile
TILING_DATA_FIELD_DEF(uint64_t, totalUnits);        // granules over the whole list (concatenated split)
TILING_DATA_FIELD_DEF_ARR(uint32_t, 64, tensorLengths);  // elements of each tensor
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(ForeachAddScalarCustom, ForeachAddScalarCustomTilingData)
}  // namespace optiling
#endif  // FOREACH_ADD_SCALAR_CUSTOM_TILING_H
