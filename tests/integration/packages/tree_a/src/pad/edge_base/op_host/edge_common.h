// Fixture EdgeBase (tree_a): declared here, defined in edge_common.cc, which only this
// operator's CMakeLists.txt compiles (cann-ops' circular_pad_common.h/.cc idiom).
#ifndef TREE_A_EDGE_COMMON_H
#define TREE_A_EDGE_COMMON_H
#include <cstdint>

namespace optiling {
// The floats one UB chunk of `ub_bytes` holds, kept a multiple of 8 (32 bytes).
uint32_t EdgeChunkFloats(uint64_t ub_bytes);
}  // namespace optiling
#endif
