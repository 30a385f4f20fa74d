// Fixture ApartScale (tree_a): a header that defines a non-inline function and is included by the
// tiling source (optiling) and the OpDef source (opsproto). The real build links those into two
// shared libraries, so each has its own definition and nothing clashes (cann-ops' gelu_quant
// idiom); one executable linking both objects sees the function defined twice.
#ifndef TREE_A_APART_SCALE_BASE_H
#define TREE_A_APART_SCALE_BASE_H
#include <cstdint>

namespace optiling {
constexpr int64_t APART_MAX_RANK = 8;

int64_t ApartCeilDiv(int64_t a, int64_t b)
{
    return b == 0 ? 0 : (a + b - 1) / b;
}
}  // namespace optiling
#endif
