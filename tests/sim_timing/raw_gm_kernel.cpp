// Kernels that read and write GM through raw __gm__ pointers, built with the raw-access hooks
// (-fsanitize=kernel-address, call form; tests/sim_timing/CMakeLists.txt), as the evaluation
// builds such kernels. fidelity_test F07 runs them.
#include "kernel_operator.h"
#include "raw_gm_kernel.h"

// Sums n floats `stride` apart and stores the sum after them: n loads, one store.
void raw_gm_sum(GM_ADDR x, std::uint32_t n, std::uint32_t stride) {
  __gm__ float* p = reinterpret_cast<__gm__ float*>(x);
  float acc = 0;
  for (std::uint32_t i = 0; i < n; ++i) acc += p[static_cast<std::uint64_t>(i) * stride];
  p[static_cast<std::uint64_t>(n) * stride] = acc;
}

// The same sum through the API (GlobalTensor::GetValue/SetValue) and a vector instruction on
// UB: the emulator's own accesses are not traced as raw ones.
void api_gm_sum(GM_ADDR x, std::uint32_t n) {
  AscendC::GlobalTensor<float> g;
  g.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(x), n + 1);
  float acc = 0;
  for (std::uint32_t i = 0; i < n; ++i) acc += g.GetValue(i);
  g.SetValue(n, acc);
  AscendC::TPipe pipe;
  AscendC::TBuf<AscendC::TPosition::VECCALC> buf;
  pipe.InitBuffer(buf, 4096);
  AscendC::LocalTensor<float> t = buf.Get<float>();
  AscendC::DataCopy(t, g, 1024);
  AscendC::Adds(t, t, 1.0f, 1024);
  AscendC::DataCopy(g, t, 1024);
}
