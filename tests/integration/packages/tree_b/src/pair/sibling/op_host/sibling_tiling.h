// Fixture Sibling (tree_b): tiling data.
#ifndef TREE_B_SIBLING_TILING_H
#define TREE_B_SIBLING_TILING_H
#include "register/tilingdata_base.h"
#include "sibling_chunk.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(SiblingTilingData)
TILING_DATA_FIELD_DEF(uint32_t, elements);
TILING_DATA_FIELD_DEF(uint32_t, chunk);
END_TILING_DATA_DEF;
REGISTER_TILING_DATA_CLASS(Sibling, SiblingTilingData)
}  // namespace optiling
#endif
