// Fixture Sibling (tree_b): the chunk size its sibling SiblingUser includes by a relative path,
// "../../sibling/op_host/sibling_chunk.h", as cann-ops' gemm_v2 includes mat_mul_v3's tiling header.
#ifndef TREE_B_SIBLING_CHUNK_H
#define TREE_B_SIBLING_CHUNK_H
#include "sibling_limits.h"

constexpr uint32_t SIBLING_CHUNK = SIBLING_UB_FLOATS / 4;
#endif
