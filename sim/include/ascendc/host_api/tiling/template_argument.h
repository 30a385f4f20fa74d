// Emulated tiling-key template arguments (CANN: ascendc/host_api/tiling/template_argument.h).
//
//   ASCENDC_TPL_ARGS_DECL(Op, ASCENDC_TPL_UINT_DECL(schMode, 1, ASCENDC_TPL_UI_LIST, 0, 1));
//   ASCENDC_TPL_SEL(ASCENDC_TPL_ARGS_SEL(ASCENDC_TPL_UINT_SEL(schMode, ASCENDC_TPL_UI_LIST, 0, 1)));
//   host:   context->SetTilingKey(GET_TPL_TILING_KEY(schMode));
//   kernel: template <uint32_t schMode> __global__ __aicore__ void op(GM_ADDR..., GM_ADDR tiling)
//
// The declared arguments are packed into the key in declaration order, each in its declared
// bit width (BOOL: 1 bit, data type / format: 8 bits). On `sim` a templated kernel entry
// is reached through AOPT_TPL_KERNEL_ENTRY(op) (see aopt_sim/host/tpl_entry.h), which the
// build driver appends after the kernel source; it supports kernels templated on one argument
// (its declared values are all instantiated).
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>

namespace aopt::sim {

enum tpl_mode : int { tpl_ui_range = 0, tpl_ui_list = 1, tpl_ui_mix = 2, tpl_bool = 3, tpl_dtype = 4, tpl_format = 5 };

struct tpl_param {
  const char* name = "";
  unsigned bits = 0;
  int mode = tpl_ui_list;
  std::uint64_t values[64] = {};
  std::size_t count = 0;

  template <class... V>
  constexpr tpl_param(const char* n, unsigned b, int m, V... v) : name(n), bits(b), mode(m) {
    const std::uint64_t vals[] = {0, static_cast<std::uint64_t>(v)...};
    for (std::size_t i = 1; i < sizeof...(V) + 1 && count < 64; ++i) values[count++] = vals[i];
  }
};

template <std::size_t N>
constexpr std::uint64_t tpl_encode(const tpl_param (&decl)[N], std::initializer_list<std::uint64_t> vals) {
  std::uint64_t key = 0;
  unsigned shift = 0;
  std::size_t i = 0;
  for (std::uint64_t v : vals) {
    if (i >= N) break;
    const unsigned b = decl[i].bits == 0 ? 1 : decl[i].bits;
    const std::uint64_t mask = b >= 64 ? ~std::uint64_t{0} : ((std::uint64_t{1} << b) - 1);
    key |= (v & mask) << shift;
    shift += b;
    ++i;
  }
  return key;
}

template <std::size_t N>
constexpr std::uint64_t tpl_decode(const tpl_param (&decl)[N], std::uint64_t key, std::size_t which) {
  unsigned shift = 0;
  for (std::size_t i = 0; i < N; ++i) {
    const unsigned b = decl[i].bits == 0 ? 1 : decl[i].bits;
    const std::uint64_t mask = b >= 64 ? ~std::uint64_t{0} : ((std::uint64_t{1} << b) - 1);
    if (i == which) return (key >> shift) & mask;
    shift += b;
  }
  return 0;
}

template <std::size_t N, class... V>
constexpr std::uint64_t tpl_key(const tpl_param (&decl)[N], V... v) {
  return tpl_encode(decl, {static_cast<std::uint64_t>(v)...});
}

}  // namespace aopt::sim

#define ASCENDC_TPL_UI_RANGE ::aopt::sim::tpl_ui_range
#define ASCENDC_TPL_UI_LIST ::aopt::sim::tpl_ui_list
#define ASCENDC_TPL_UI_MIX ::aopt::sim::tpl_ui_mix
#define ASCENDC_TPL_1_BW 1
#define ASCENDC_TPL_2_BW 2
#define ASCENDC_TPL_4_BW 4
#define ASCENDC_TPL_8_BW 8

#define ASCENDC_TPL_UINT_DECL(name, bits, mode, ...) ::aopt::sim::tpl_param(#name, bits, mode, __VA_ARGS__)
#define ASCENDC_TPL_BOOL_DECL(name, ...) ::aopt::sim::tpl_param(#name, 1, ::aopt::sim::tpl_bool, __VA_ARGS__)
#define ASCENDC_TPL_DATATYPE_DECL(name, ...) ::aopt::sim::tpl_param(#name, 8, ::aopt::sim::tpl_dtype, __VA_ARGS__)
#define ASCENDC_TPL_DTYPE_DECL(name, ...) ::aopt::sim::tpl_param(#name, 8, ::aopt::sim::tpl_dtype, __VA_ARGS__)
#define ASCENDC_TPL_FORMAT_DECL(name, ...) ::aopt::sim::tpl_param(#name, 8, ::aopt::sim::tpl_format, __VA_ARGS__)

#define ASCENDC_TPL_ARGS_DECL(op_type, ...) \
  [[maybe_unused]] static constexpr ::aopt::sim::tpl_param aopt_tpl_decl_[] = {__VA_ARGS__}

// Selections restrict which combinations are compiled; on `sim` every declared value of the
// (single) argument is instantiated, so selections need no expansion.
#define ASCENDC_TPL_SEL(...) static_assert(true, "")
#define ASCENDC_TPL_ARGS_SEL(...)
#define ASCENDC_TPL_UINT_SEL(...)
#define ASCENDC_TPL_BOOL_SEL(...)
#define ASCENDC_TPL_DATATYPE_SEL(...)
#define ASCENDC_TPL_DTYPE_SEL(...)
#define ASCENDC_TPL_FORMAT_SEL(...)
#define ASCENDC_TPL_TILING_STRUCT_SEL(...)

#define GET_TPL_TILING_KEY(...) ::aopt::sim::tpl_key(aopt_tpl_decl_, __VA_ARGS__)
