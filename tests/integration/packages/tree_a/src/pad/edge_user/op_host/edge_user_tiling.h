// Fixture EdgeUser (tree_a): tiling data; the chunk size comes from a function its sibling
// operator declares (../../edge_base/op_host/edge_common.h) and compiles (edge_common.cc).
#ifndef TREE_A_EDGE_USER_TILING_H
#define TREE_A_EDGE_USER_TILING_H
#include "register/tilingdata_base.h"
#include "../../edge_base/op_host/edge_common.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(EdgeUserTilingData)
TILING_DATA_FIELD_DEF(uint32_t, elements);
TILING_DATA_FIELD_DEF(uint32_t, chunk);
END_TILING_DATA_DEF;
REGISTER_TILING_DATA_CLASS(EdgeUser, EdgeUserTilingData)
}  // namespace optiling
#endif
