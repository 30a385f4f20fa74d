// Fixture Sibling (tree_b): included by sibling_chunk.h beside it (a sibling's own include).
#ifndef TREE_B_SIBLING_LIMITS_H
#define TREE_B_SIBLING_LIMITS_H
#include <cstdint>

constexpr uint32_t SIBLING_UB_FLOATS = 4096;
#endif
