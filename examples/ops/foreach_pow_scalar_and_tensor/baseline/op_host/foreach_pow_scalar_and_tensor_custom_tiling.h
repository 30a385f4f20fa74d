// Tiling data of ForeachPowScalarAndTensorCustom: the tensors of the list x, their lengths, and the split over the cores.
#ifndef FOREACH_POW_SCALAR_AND_TENSOR_CUSTOM_TILING_H
#define FOREACH_POW_SCALAR_AND_TENSOR_CUSTOM_TILING_H
#include "register/tilingdata_base.h"

namespace optiling {
constexpr uint32_t FOREACH_POW_SCALAR_AND_TENSOR_MAX_TENSORS = 64;
BEGIN_TILING_DATA_DEF(ForeachPowScalarAndTensorCustomTilingData)
TILING_DATA_FIELD_DEF(uint32_t, tensorNum);         // tensors in the list
TILING_DATA_FIELD_DEF(uint32_t, unitLength);        // elements per split granule
TILING_DATA_FIELD_DEF(uint32_t, tileLength);        // elements per UB tile
TILING_DATA_FIELD_DEF(uint64_t, totalUnits);        // granules over the whole list (concatenated split)
TILING_DATA_FIELD_DEF_ARR(uint32_t, 64, tensorLengths);  // elements of each tensor
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(ForeachPowScalarAndTensorCustom, ForeachPowScalarAndTensorCustomTilingData)
}  // namespace optiling
#endif  // FOREACH_POW_SCALAR_AND_TENSOR_CUSTOM_TILING_H
