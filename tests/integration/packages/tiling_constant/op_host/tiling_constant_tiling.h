// Tiling of fixture TilingConstant (tests/integration): an array field sized by a constant of
// the host's namespace, whose name the kernel declares too (the generated kernel_tiling.h of the
// real build holds the size as a number and not the constant).
#ifndef TILING_CONSTANT_TILING_H
#define TILING_CONSTANT_TILING_H
#include "register/tilingdata_base.h"

namespace optiling {
constexpr uint32_t MAX_DIMS = 4;
BEGIN_TILING_DATA_DEF(TilingConstantTilingData)
TILING_DATA_FIELD_DEF(uint32_t, totalLength);
TILING_DATA_FIELD_DEF_ARR(uint32_t, MAX_DIMS, dims);
END_TILING_DATA_DEF;
REGISTER_TILING_DATA_CLASS(TilingConstant, TilingConstantTilingData)
}  // namespace optiling
#endif
