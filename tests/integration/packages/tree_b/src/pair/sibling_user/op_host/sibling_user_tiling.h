// Fixture SiblingUser (tree_b): tiling data; its chunk size comes from its sibling operator's header,
// reached by a relative path out of the package as the real build (in the tree) resolves it.
#ifndef TREE_B_SIBLING_USER_TILING_H
#define TREE_B_SIBLING_USER_TILING_H
#include "register/tilingdata_base.h"
#include "../../sibling/op_host/sibling_chunk.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(SiblingUserTilingData)
TILING_DATA_FIELD_DEF(uint32_t, elements);
TILING_DATA_FIELD_DEF(uint32_t, chunk);
END_TILING_DATA_DEF;
REGISTER_TILING_DATA_CLASS(SiblingUser, SiblingUserTilingData)
}  // namespace optiling
#endif
