// Fixture tree tree_b: a shared header named like an emulated CANN one. Packs small template
// ids into a tiling key, one decimal digit each.
#ifndef TREE_B_TILING_TYPE_H
#define TREE_B_TILING_TYPE_H
#include <cstdint>

template <typename... Ids>
constexpr uint64_t TreeBTilingKey(Ids... ids)
{
    uint64_t key = 0;
    ((key = key * 10 + static_cast<uint64_t>(ids)), ...);
    return key;
}
#endif
