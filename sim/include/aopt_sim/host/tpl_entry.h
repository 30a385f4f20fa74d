// Entry for kernels templated on their tiling key (layout 3):
//   template <uint32_t schMode> __global__ __aicore__ void mul_v3(GM_ADDR x, ..., GM_ADDR tiling)
// has no C symbol to dlsym. The build driver compiles a wrapper TU
//   #include "<pkg>/op_kernel/mul_v3.cpp"
//   #include "aopt_sim/host/tpl_entry.h"
//   AOPT_TPL_KERNEL_ENTRY(mul_v3)
// which defines extern "C" aopt_tpl_entry_mul_v3(GM_ADDR* args, size_t n): it decodes the first
// ASCENDC_TPL_ARGS_DECL argument from the launched tiling key and calls that instantiation.
// The harness looks for it when the plain kernel symbol is missing.
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>

#include "ascendc/host_api/tiling/template_argument.h"
#include "kernel_tiling/kernel_tiling.h"

namespace aopt::sim {

template <class... Args, std::size_t... I>
void call_gm_impl(void (*f)(Args...), std::uint8_t** args, std::index_sequence<I...>) {
  f(reinterpret_cast<Args>(args[I])...);
}
template <class... Args>
void call_gm(void (*f)(Args...), std::uint8_t** args, std::size_t n, const char* kernel) {
  if (n != sizeof...(Args)) {
    throw std::runtime_error(std::string("kernel ") + kernel + " takes " + std::to_string(sizeof...(Args)) +
                             " GM arguments but the harness passes " + std::to_string(n) +
                             " (inputs, outputs, workspace, tiling): check the OpDef against the kernel signature");
  }
  call_gm_impl(f, args, std::index_sequence_for<Args...>{});
}

}  // namespace aopt::sim

#define AOPT_TPL_KERNEL_ENTRY(kernel)                                                               \
  namespace aopt_tpl_entry_ns_##kernel {                                                            \
  template <std::size_t... I>                                                                       \
  void dispatch(std::uint64_t v, std::uint8_t** args, std::size_t n, std::index_sequence<I...>) {  \
    bool done = false;                                                                              \
    ((!done && aopt_tpl_decl_[0].values[I] == v                                                     \
          ? (::aopt::sim::call_gm(&::kernel<aopt_tpl_decl_[0].values[I]>, args, n, #kernel), done = true) \
          : false),                                                                                 \
     ...);                                                                                          \
    if (!done) {                                                                                    \
      throw std::runtime_error(std::string("tiling key selects ") + aopt_tpl_decl_[0].name + "=" +  \
                               std::to_string(v) + ", which ASCENDC_TPL_ARGS_DECL does not declare"); \
    }                                                                                               \
  }                                                                                                 \
  }                                                                                                 \
  extern "C" void aopt_tpl_entry_##kernel(std::uint8_t** args, std::size_t n) {                     \
    const std::uint64_t v = ::aopt::sim::tpl_decode(aopt_tpl_decl_, ::aopt::sim::tiling_key(), 0); \
    aopt_tpl_entry_ns_##kernel::dispatch(v, args, n,                                                \
                                         std::make_index_sequence<aopt_tpl_decl_[0].count>{});      \
  }
