// A kernel with a dynamically initialised global, built with the raw __gm__ access hooks
// (-fsanitize=kernel-address ..., as evaluation/ builds kernels that dereference __gm__ pointers):
// GCC brackets such a global's initialisation with __asan_before_dynamic_init /
// __asan_after_dynamic_init, so the module loads only if the sim runtime defines them.
#include <cstdlib>

#include "kernel_operator.h"

namespace {
float scale_from_env() {
  const char* s = std::getenv("AOPT_TEST_DYNINIT_SCALE");
  return s != nullptr ? static_cast<float>(std::atof(s)) : 3.0f;
}
const float g_scale = scale_from_env();  // dynamic initialisation
}  // namespace

extern "C" __global__ __aicore__ void dyninit_scale(GM_ADDR x, std::uint32_t n) {
  __gm__ float* p = reinterpret_cast<__gm__ float*>(x);
  for (std::uint32_t i = 0; i < n; ++i) p[i] = p[i] * g_scale;  // raw __gm__ loads and stores
}
