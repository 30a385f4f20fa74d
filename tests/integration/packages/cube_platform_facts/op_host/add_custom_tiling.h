/**
 * @file add_custom_tiling.h
 * Tiling data of AddCustom: z = x + y, element-wise, any shape (x and y of the same shape).
 * Work is cut into 32-byte blocks spread over the vector cores: the first `formerNum` cores
 * take `formerLength` elements, the others `tailLength`; each core walks its range in tiles
 * of `tileLength` elements, the last one possibly shorter (and not a multiple of 32 bytes).
 */
#ifndef ADD_CUSTOM_TILING_H
#define ADD_CUSTOM_TILING_H
#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(AddCustomTilingData)
TILING_DATA_FIELD_DEF(uint32_t, totalLength);   // elements in x
TILING_DATA_FIELD_DEF(uint32_t, formerNum);     // cores that take formerLength elements
TILING_DATA_FIELD_DEF(uint32_t, formerLength);  // elements per former core (multiple of 32 B)
TILING_DATA_FIELD_DEF(uint32_t, tailLength);    // elements per remaining core (multiple of 32 B)
TILING_DATA_FIELD_DEF(uint32_t, tileLength);    // elements per UB tile (multiple of 32 B)
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(AddCustom, AddCustomTilingData)
}  // namespace optiling
#endif  // ADD_CUSTOM_TILING_H
