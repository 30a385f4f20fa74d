// System variables and workspaces: GetBlockIdx, GetBlockNum (GetSubBlockIdx, GetTaskRation: mix.h),
// GetUserWorkspace, SetSysWorkspace, GetSysWorkSpacePtr, and TILING_KEY_IS.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <type_traits>

#include "aopt_sim/kernel/core.h"
#include "aopt_sim/kernel/global_tensor.h"
#include "aopt_sim/kernel/tensor.h"
#include "aopt_sim/kernel/types.h"
#include "aopt_sim/runtime.h"
#include "aopt_sim/kernel/mix.h"

namespace AscendC {

inline std::int64_t GetBlockIdx() { return static_cast<std::int64_t>(aopt::sim::block_idx()); }
inline std::int64_t GetBlockNum() { return static_cast<std::int64_t>(aopt::sim::block_num()); }
// Rounds `value` up to a multiple of `unit` (a unit of 0 leaves it as it is).
template <typename T, typename U>
constexpr T AlignUp(T value, U unit) {
  return unit == 0 ? value : static_cast<T>((value + unit - 1) / unit * unit);
}
// Bytes of one UB data block (32 on every chip sim emulates).
constexpr std::int16_t GetDataBlockSizeInBytes() { return 32; }

// The user part of the workspace starts after the system's reserved bytes (the host reserves
// them through GetLibApiWorkSpaceSize()).
inline GM_ADDR GetUserWorkspace(GM_ADDR workspace) {
  return workspace == nullptr ? nullptr : workspace + aopt::sim::sys_workspace_bytes;
}
// The bytes the system reserves at the start of the workspace (not on a documentation page; CANN's
// headers name it, operators add it to their workspace size as GetLibApiWorkSpaceSize's): sim's
// reservation, 16 MiB (ASSUMED, as the value operators hard-code beside it).
constexpr std::uint32_t RESERVED_WORKSPACE = static_cast<std::uint32_t>(aopt::sim::sys_workspace_bytes);
inline void SetSysWorkspace(GM_ADDR workspace) { aopt::sim::set_sys_workspace(workspace); }
inline GM_ADDR GetSysWorkSpacePtr() { return aopt::sim::sys_workspace(); }

// SyncAll, software form (workspace in GM and UB): emulated as the same true barrier. A
// barrier over fewer cores than the launch is not emulated and is reported.
template <bool isAIVOnly = true>
inline void SyncAll(const GlobalTensor<std::int32_t>& gmWorkspace, const LocalTensor<std::int32_t>& ubWorkspace,
                    const std::int32_t usedCores = 0, aopt::sim::src_loc loc = aopt::sim::src_loc::current()) {
  if (usedCores != 0 && static_cast<std::uint32_t>(usedCores) != aopt::sim::block_num()) {
    aopt::sim::fail(aopt::sim::hw_error_kind::invalid_use,
                    "SyncAll over " + std::to_string(usedCores) + " of " +
                        std::to_string(aopt::sim::block_num()) +
                        " cores is not emulated: synchronise all blocks (usedCores = 0)",
                    loc, "SyncAll");
  }
  aopt::sim::sync_all(loc, "SyncAll");
}

}  // namespace AscendC

// Also at global scope, as in the CANN headers: a class template that calls them unqualified
// before any `using namespace AscendC` finds them at its definition.
using AscendC::GetBlockIdx;
using AscendC::GetBlockNum;
// The device toolchain's global `block_idx` (older kernels use it for GetBlockIdx()): an object
// that reads the current core's block index wherever an integer is expected.
struct aopt_block_idx_var {
  operator std::int64_t() const { return AscendC::GetBlockIdx(); }
};
inline constexpr aopt_block_idx_var block_idx{};
// GetSysWorkSpacePtr too (cann-ops math/matmul_api_constant calls it unqualified in a class template).
using AscendC::GetSysWorkSpacePtr;
// The CCE intrinsics behind GetBlockIdx/GetBlockNum (kernels and macros call them directly).
inline std::int64_t get_block_idx() { return AscendC::GetBlockIdx(); }
inline std::int64_t get_block_num() { return AscendC::GetBlockNum(); }

namespace aopt::sim::kernel_detail {
// printf-compatible form of an argument of the kernel's assert / ASSERT_MSG messages.
template <typename A>
inline auto fmt_arg(const A& a) {
  if constexpr (std::is_same_v<A, half> || std::is_same_v<A, bfloat16_t> || std::is_floating_point_v<A>) {
    return static_cast<double>(static_cast<float>(a));
  } else if constexpr (std::is_enum_v<A>) {
    return static_cast<long long>(a);
  } else if constexpr (std::is_integral_v<A>) {
    if constexpr (std::is_signed_v<A>) {
      return static_cast<long long>(a);
    } else {
      return static_cast<unsigned long long>(a);
    }
  } else {
    return a;  // pointers, C strings
  }
}
// A failed kernel assertion: the chip prints it and traps; here it is a hardware error at the
// assertion's line (the message formatted as the kernel's printf would).
[[noreturn]] inline void assert_failed(const char* file, unsigned line, const char* func, const char* expr) {
  aopt::sim::fail(aopt::sim::hw_error_kind::invalid_use, std::string("kernel assertion failed: ") + expr,
                  aopt::sim::src_loc{file, line, func}, "assert");
}
template <typename... A>
[[noreturn]] inline void assert_failed(const char* file, unsigned line, const char* func, const char* expr,
                                       const char* fmt, const A&... args) {
  char buf[512];
  if constexpr (sizeof...(A) == 0) {
    std::snprintf(buf, sizeof buf, "%s", fmt);
  } else {
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
#pragma GCC diagnostic ignored "-Wformat-security"
    std::snprintf(buf, sizeof buf, fmt, fmt_arg(args)...);
#pragma GCC diagnostic pop
  }
  aopt::sim::fail(aopt::sim::hw_error_kind::invalid_use, std::string("kernel assertion failed: ") + expr + ": " + buf,
                  aopt::sim::src_loc{file, line, func}, "assert");
}
template <typename C, typename... A>
constexpr void kernel_assert(const char* file, unsigned line, const char* func, const char* text, const C& cond,
                          const A&... args) {
  if (!static_cast<bool>(cond)) assert_failed(file, line, func, text, args...);
}
// The kernel's printf: formatted like C's printf (half and bfloat16 as floating point), written
// to stderr (the harness keeps stdout for its results).
template <typename... A>
inline void kernel_printf(const char* fmt, const A&... args) {
  if constexpr (sizeof...(A) == 0) {
    std::fputs(fmt, stderr);
  } else {
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
#pragma GCC diagnostic ignored "-Wformat-security"
    std::fprintf(stderr, fmt, fmt_arg(args)...);
#pragma GCC diagnostic pop
  }
}
}  // namespace aopt::sim::kernel_detail

namespace AscendC {
// printf / PRINTF of the kernel debug API (kernels name it `AscendC::printf`).
template <typename... Args>
inline void printf(const char* fmt, Args&&... args) {
  aopt::sim::kernel_detail::kernel_printf(fmt, args...);
}
template <typename... Args>
inline void PRINTF(const char* fmt, Args&&... args) {
  aopt::sim::kernel_detail::kernel_printf(fmt, args...);
}
// Trap of the kernel debug API (`__aicore__ inline void Trap()`): on the chip it stops the AI
// Core's run, in CPU mode it is an assert. Here: a hardware error at the call's line.
inline void Trap(aopt::sim::src_loc loc = aopt::sim::src_loc::current()) {
  aopt::sim::fail(aopt::sim::hw_error_kind::invalid_use,
                  "the kernel called Trap(): it stopped its own run (a check of its inputs or state failed; read "
                  "the kernel at this line for the condition it guards)",
                  loc, "Trap");
}
}  // namespace AscendC

// The kernel's assert (utils/debug/asc_assert.h): assert(expr) and assert(expr, fmt, args...);
// a false expression stops the kernel with its message (a hardware error here). Compiled out
// under NDEBUG, as the documentation says of release builds.
#undef assert
#ifdef NDEBUG
#define assert(...) static_cast<void>(0)
#else
#define assert(...) ::aopt::sim::kernel_detail::kernel_assert(__FILE__, __LINE__, __func__, #__VA_ARGS__, __VA_ARGS__)
#endif
// ASSERT_MSG(expr, fmt, args...) of kernel_log.h: the same check with a message.
#ifndef ASSERT_MSG
#ifdef NDEBUG
#define ASSERT_MSG(expr, ...) static_cast<void>(0)
#else
#define ASSERT_MSG(expr, ...) \
  ::aopt::sim::kernel_detail::kernel_assert(__FILE__, __LINE__, __func__, #expr, (expr), __VA_ARGS__)
#endif
#endif

// Kernel assertions compile to nothing on the device build (kernels rely on it: some write
// `x = y ASSERT(y != 0);` with no semicolon between), so they do here.
#ifndef ASSERT
#define ASSERT(...)
#endif
#ifndef likely
#define likely(x) __builtin_expect(!!(x), 1)
#endif
#ifndef unlikely
#define unlikely(x) __builtin_expect(!!(x), 0)
#endif
#ifndef ASCENDC_ASSERT
#define ASCENDC_ASSERT(...)
#endif


#ifndef TILING_KEY_IS
#define TILING_KEY_IS(k) (::aopt::sim::tiling_key() == static_cast<std::uint64_t>(k))
#endif
