// Fixture (stagger_ub_buffers): tiling data of MulAddCustom, z = (((x * y + x) * y + x) * y + x) * y + x.
#ifndef MUL_ADD_CUSTOM_TILING_H
#define MUL_ADD_CUSTOM_TILING_H
#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(MulAddCustomTilingData)
TILING_DATA_FIELD_DEF(uint32_t, smallCoreDataNum);
TILING_DATA_FIELD_DEF(uint32_t, bigCoreDataNum);
TILING_DATA_FIELD_DEF(uint32_t, tailBlockNum);
TILING_DATA_FIELD_DEF(uint32_t, tileDataNum);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(MulAddCustom, MulAddCustomTilingData)
}  // namespace optiling
#endif  // MUL_ADD_CUSTOM_TILING_H
