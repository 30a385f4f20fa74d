// Fixture (vectorize_scalar_loop, element loops): tiling data of ElementCustom, modelled on examples/ops/add.
#ifndef ELEMENT_CUSTOM_TILING_H
#define ELEMENT_CUSTOM_TILING_H
#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(ElementCustomTilingData)
TILING_DATA_FIELD_DEF(uint32_t, totalLength);
TILING_DATA_FIELD_DEF(uint32_t, unitLength);
TILING_DATA_FIELD_DEF(uint32_t, unitsPerCore);
TILING_DATA_FIELD_DEF(uint32_t, bigCoreNum);
TILING_DATA_FIELD_DEF(uint32_t, tileLength);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(ElementCustom, ElementCustomTilingData)
}  // namespace optiling
#endif  // ELEMENT_CUSTOM_TILING_H
