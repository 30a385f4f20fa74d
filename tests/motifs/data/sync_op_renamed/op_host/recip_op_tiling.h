// Fixture (renamed sync_op): tiling data of RecipOp.
#ifndef RECIP_OP_TILING_H
#define RECIP_OP_TILING_H
#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(RecipOpTilingData)
TILING_DATA_FIELD_DEF(uint32_t, n);
TILING_DATA_FIELD_DEF(uint32_t, perCore);
TILING_DATA_FIELD_DEF(uint32_t, extra);
TILING_DATA_FIELD_DEF(uint32_t, tile);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(RecipOp, RecipOpTilingData)
}  // namespace optiling
#endif  // RECIP_OP_TILING_H
