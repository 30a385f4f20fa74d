// Fixture EdgeBase (tree_a): the definition behind edge_common.h.
#include "edge_common.h"

namespace optiling {
uint32_t EdgeChunkFloats(uint64_t ub_bytes)
{
    const uint64_t floats = ub_bytes / 4 / sizeof(float);
    return static_cast<uint32_t>(floats - floats % 8);
}
}  // namespace optiling
