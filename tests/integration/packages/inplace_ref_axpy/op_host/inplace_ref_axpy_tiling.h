// Fixture InplaceRefAxpy (tests/integration): y += alpha * x, y an input and an output of the
// same name (a Ref parameter); the tiling data.
#ifndef INPLACE_REF_AXPY_TILING_H
#define INPLACE_REF_AXPY_TILING_H
#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(InplaceRefAxpyTilingData)
TILING_DATA_FIELD_DEF(uint32_t, totalLength);  // elements of x and y
TILING_DATA_FIELD_DEF(uint32_t, tileLength);   // elements per UB tile (multiple of 8)
TILING_DATA_FIELD_DEF(float, alpha);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(InplaceRefAxpy, InplaceRefAxpyTilingData)
}  // namespace optiling
#endif
