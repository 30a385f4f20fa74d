// The scalar `min` and `max` that device code names unqualified, as the NPU kernel build gives
// them. [ASSUMED: no public page documents them for Atlas A2 (the SIMT API's global
// `min`/`max` is documented for Ascend 950 only); the behaviour is the real build's: cann-ops'
// own matmul kernels (batch_mat_mul_v3, mat_mul_v3, gemm_v2: `eleNum = min(eleNumTmp, eleNum)`
// on uint32_t, mat_mul_v3's splitk kernel on uint64_t) bring std's into scope only in the
// CPU-debug build (`#if defined(__CCE_KT_TEST__) using namespace std;`), so the NPU build, which
// does not define that macro, compiles them with a `min` of its own.] Of two arithmetic values,
// compared and returned in their common type. The sim backend force-includes this header into
// kernel translation units only (docs/harness-protocol.md); a kernel's own `min` (a member, or one
// of its namespaces) is found first.
#pragma once

#include <type_traits>

template <typename T, typename U,
          typename = std::enable_if_t<std::is_arithmetic_v<T> && std::is_arithmetic_v<U>>>
constexpr std::common_type_t<T, U> min(T a, U b) {
  using C = std::common_type_t<T, U>;
  return static_cast<C>(b) < static_cast<C>(a) ? static_cast<C>(b) : static_cast<C>(a);
}

template <typename T, typename U,
          typename = std::enable_if_t<std::is_arithmetic_v<T> && std::is_arithmetic_v<U>>>
constexpr std::common_type_t<T, U> max(T a, U b) {
  using C = std::common_type_t<T, U>;
  return static_cast<C>(a) < static_cast<C>(b) ? static_cast<C>(b) : static_cast<C>(a);
}
