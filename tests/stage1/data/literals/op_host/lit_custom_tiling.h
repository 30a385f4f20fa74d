// Fixture of the Stage I tests: a tiling struct for a tiling function written with literals.
#ifndef LIT_CUSTOM_TILING_H
#define LIT_CUSTOM_TILING_H
#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(LitCustomTilingData)
TILING_DATA_FIELD_DEF(uint32_t, totalLength);
TILING_DATA_FIELD_DEF(uint32_t, tileLength);
TILING_DATA_FIELD_DEF(uint32_t, padLength);
TILING_DATA_FIELD_DEF(uint32_t, useFastPath);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(LitCustom, LitCustomTilingData)
}  // namespace optiling
#endif  // LIT_CUSTOM_TILING_H
