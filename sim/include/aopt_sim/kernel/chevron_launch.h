// What a kernel source's launch `kernel<<<blockDim, l2ctrl, stream>>>(args...)` compiles to in
// sim's kernel build. The device compiler (bisheng / ccec) parses the chevrons; a kernel source
// often defines a host function around one (`<op>_do(blockDim, l2ctrl, stream, ...)`, the
// launch wrapper of CANN's kernel-direct calls), left in the source for the NPU build and hidden
// from CANN's CPU-debug build behind `#ifndef __CCE_KT_TEST__` / `#ifndef ASCENDC_CPU_DEBUG`.
// sim builds kernels as the NPU build does, without __CCE_KT_TEST__ (docs/sim.md, "Kernel build"),
// so a wrapper behind that guard reaches the host compiler: the sim backend writes each launch as `::aopt::sim::chevron_launch(kernel, blockDim, l2ctrl,
// stream)(args...)` (evaluation: kernel_launches_rewritten) and the kernel TU includes this header.
//
// sim never calls such a wrapper: its harness launches the kernel entry itself on the emulated
// cores (docs/harness-protocol.md). A call reaching one stops the process with a message that
// says so, rather than running the kernel outside the emulator.
#pragma once

#include <cstdio>
#include <cstdlib>

namespace aopt::sim {

[[noreturn]] inline void chevron_launch_called(const char* what) {
  std::fprintf(stderr,
               "aopt sim: %s: a kernel launch `<<<...>>>` in the operator's own code was called; sim launches "
               "kernels only through its harness (the operator's launch wrapper is not run)\n",
               what);
  std::abort();
}

// The launch of `kernel` with its launch configuration; calling the result is the launch.
template <typename Kernel>
struct chevron_call {
  template <typename... Args>
  void operator()(Args&&... /*args*/) const {
    chevron_launch_called(__func__);
  }
};

template <typename Kernel, typename... Config>
chevron_call<Kernel> chevron_launch(const Kernel& /*kernel*/, const Config&... /*config*/) {
  return {};
}

}  // namespace aopt::sim
