// Fixture InplaceScal (tree_b): tiling data.
#ifndef TREE_B_INPLACE_SCAL_TILING_H
#define TREE_B_INPLACE_SCAL_TILING_H
#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(InplaceScalTilingData)
TILING_DATA_FIELD_DEF(uint32_t, totalLength);
TILING_DATA_FIELD_DEF(uint32_t, tileLength);
TILING_DATA_FIELD_DEF(float, alpha);
END_TILING_DATA_DEF;
REGISTER_TILING_DATA_CLASS(InplaceScal, InplaceScalTilingData)
}  // namespace optiling
#endif
