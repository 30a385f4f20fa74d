// Mixed AIC/AIV kernels (the separated architecture of Atlas A2/A3): the kernel types
// (KERNEL_TASK_TYPE_DEFAULT, KERNEL_TASK_TYPE), which core runs (ASCEND_IS_AIC / ASCEND_IS_AIV,
// g_coreType), GetSubBlockIdx, GetSubBlockNum, GetTaskRatio (GetTaskRation) and the cross-core
// flags CrossCoreSetFlag / CrossCoreWaitFlag (modes 0, 1, 2). Semantics from the public AscendC
// reference ("设置Kernel类型", "GetTaskRatio", "GetBlockIdx", "核间同步"); the code is our own.
//
// A kernel compiled once runs on every core of the launch; on the chip it is compiled twice
// (Cube and Vector) and ASCEND_IS_AIC is a constant of each; here it asks the core it runs on.
// docs/sim.md, "Mixed kernels".
#pragma once

#include <cstdint>

#include "aopt_sim/kernel/core.h"
#include "aopt_sim/kernel/sync.h"
#include "aopt_sim/runtime.h"

namespace AscendC {

// The core types of `g_coreType == AscendC::AIV` (kernels also write them unqualified, and
// AIC_TYPE / AIV_TYPE).
enum AoptCoreTypeNs : std::int32_t { AIC = 1, AIV = 2, AIC_TYPE = 1, AIV_TYPE = 2 };

// GetSubBlockIdx: which AIV of its AI Core (0 or 1 in a 1:2 kernel; 0 on an AIC and in 1:1).
inline std::int64_t GetSubBlockIdx() { return static_cast<std::int64_t>(aopt::sim::sub_block_idx()); }
// GetSubBlockNum and GetTaskRatio answer the same table: AIVs of a 1:2 kernel 2, every other core 1.
inline std::int64_t GetSubBlockNum() { return static_cast<std::int64_t>(aopt::sim::sub_block_num()); }
inline std::int64_t GetTaskRatio() { return GetSubBlockNum(); }
inline std::int64_t GetTaskRation() { return GetTaskRatio(); }

}  // namespace AscendC

using AscendC::AIC;
using AscendC::AIV;
using AscendC::GetSubBlockIdx;

// `g_coreType` reads the kind of the core it runs on: `if (g_coreType == AIV)`.
struct aopt_core_type_var {
  operator AscendC::AoptCoreTypeNs() const {
    return aopt::sim::current_core_kind() == aopt::sim::core_kind::aic ? AscendC::AIC : AscendC::AIV;
  }
  friend bool operator==(aopt_core_type_var v, AscendC::AoptCoreTypeNs t) { return AscendC::AoptCoreTypeNs(v) == t; }
  friend bool operator!=(aopt_core_type_var v, AscendC::AoptCoreTypeNs t) { return AscendC::AoptCoreTypeNs(v) != t; }
  friend bool operator==(AscendC::AoptCoreTypeNs t, aopt_core_type_var v) { return AscendC::AoptCoreTypeNs(v) == t; }
  friend bool operator!=(AscendC::AoptCoreTypeNs t, aopt_core_type_var v) { return AscendC::AoptCoreTypeNs(v) != t; }
};
inline constexpr aopt_core_type_var g_coreType{};

#ifndef ASCEND_IS_AIV
#define ASCEND_IS_AIV (::aopt::sim::current_core_kind() == ::aopt::sim::core_kind::aiv)
#endif
#ifndef ASCEND_IS_AIC
#define ASCEND_IS_AIC (::aopt::sim::current_core_kind() == ::aopt::sim::core_kind::aic)
#endif

// Kernel types ("设置Kernel类型"). The coupled-architecture types (AICORE, VECTORCORE and their
// MIX forms) start the kernel on vector cores here, as vector kernels always ran.
enum KernelMetaType : std::uint8_t {
  KERNEL_TYPE_AIV_ONLY,
  KERNEL_TYPE_AIC_ONLY,
  KERNEL_TYPE_MIX_AIV_1_0,
  KERNEL_TYPE_MIX_AIC_1_0,
  KERNEL_TYPE_MIX_AIC_1_1,
  KERNEL_TYPE_MIX_AIC_1_2,
  KERNEL_TYPE_AICORE,
  KERNEL_TYPE_VECTORCORE,
  KERNEL_TYPE_MIX_AICORE,
  KERNEL_TYPE_MIX_VECTOR_CORE,
  KERNEL_TYPE_MAX,
};

namespace aopt::sim::kernel_detail {
constexpr aopt::sim::kernel_type to_kernel_type(KernelMetaType t) {
  switch (t) {
    case KERNEL_TYPE_AIC_ONLY: return aopt::sim::kernel_type::aic_only;
    case KERNEL_TYPE_MIX_AIC_1_0: return aopt::sim::kernel_type::mix_aic_1_0;
    case KERNEL_TYPE_MIX_AIC_1_1: return aopt::sim::kernel_type::mix_aic_1_1;
    case KERNEL_TYPE_MIX_AIC_1_2: return aopt::sim::kernel_type::mix_aic_1_2;
    case KERNEL_TYPE_MIX_AIV_1_0: return aopt::sim::kernel_type::mix_aiv_1_0;
    default: return aopt::sim::kernel_type::aiv_only;
  }
}
// One declaration of the kernel: registered when the kernel's object is loaded (a class
// template's static member is initialised at load time wherever the macro stands: inside a
// branch on the tiling key, behind an early return), as the device compiler reads it.
template <KernelMetaType T, bool Keyed, std::uint64_t Key>
struct kernel_type_decl {
  static inline const bool registered = (aopt::sim::declare_kernel_type(to_kernel_type(T), Keyed, Key), true);
};
// A kernel that instantiates the Matmul API runs mixed, AIC:AIV 1:2, unless it declares its type
// (aopt::sim::declare_inferred_kernel_type): registered when the kernel's object loads, as the
// toolchain reads the instructions a compiled kernel uses.
template <int Unused>
struct matmul_use_mark {
  static inline const bool registered =
      (aopt::sim::declare_inferred_kernel_type(aopt::sim::kernel_type::mix_aic_1_2), true);
};
// A kernel that computes on the Cube (Mmad) and declares no type runs AIC-only, as the device
// compiler builds a kernel from the instructions it uses (设置Kernel类型.md: a KERNEL_TYPE_AIC_ONLY
// kernel is pure cube logic; conv2d_backprop_filter_v2 declares none and returns on the AIV);
// [ASSUMED] that an undeclared kernel with Cube instructions is AIC-only. The Matmul API's mixed
// mark takes precedence (declare_inferred_kernel_type).
template <int Unused>
struct cube_use_mark {
  static inline const bool registered =
      (aopt::sim::declare_inferred_kernel_type(aopt::sim::kernel_type::aic_only), true);
};
// A mixed kernel's AIC serves the Matmul objects its AIVs drive (REGIST_MATMUL_OBJ).
inline bool aic_serves_matmul() {
  const auto t = aopt::sim::current_kernel_type();
  return aopt::sim::current_core_kind() == aopt::sim::core_kind::aic && aopt::sim::kernel_aiv_per_block(t) > 0;
}
}  // namespace aopt::sim::kernel_detail

#undef KERNEL_TASK_TYPE_DEFAULT
#define KERNEL_TASK_TYPE_DEFAULT(type) \
  static_cast<void>(::aopt::sim::kernel_detail::kernel_type_decl<(type), false, 0>::registered)
#undef KERNEL_TASK_TYPE
#define KERNEL_TASK_TYPE(key, type) \
  static_cast<void>(                \
      ::aopt::sim::kernel_detail::kernel_type_decl<(type), true, static_cast<std::uint64_t>(key)>::registered)

namespace AscendC {

// Inter-core synchronisation ("核间同步"). CrossCoreSetFlag<mode, pipe>(id): once `pipe`'s earlier
// work is done, this core reports; when every core of the flag's domain has reported (mode 0:
// every AIC, or every AIV, of the launch; mode 1: the AIVs of this AI Core; mode 2: from the AIC,
// its AIVs receive; from the AIVs, once both have set, their AIC receives) the counter of flag
// `id` of each receiving core rises by one. CrossCoreWaitFlag(id) holds the core until its counter
// is non-zero and takes one (on A2/A3 the wait's mode and pipe have no effect). Ids 0..15 (higher
// ids keep their low 4 bits, with a warning); a counter past 15 is an error; a wait no core can
// satisfy any more is a deadlock error.
// The flag ids the library's own whole-launch barriers use, which kernels name without defining
// them (quant_batch_matmul_v3's `CrossCoreSetFlag<0, PIPE_MTE3>(SYNC_AIC_FLAG)`). 11 is the value of
// the public cross_core_set_wait_flag example; the neighbours 12-14 are [ASSUMED] (not documented).
constexpr std::uint16_t SYNC_AIC_FLAG = 11;
constexpr std::uint16_t SYNC_AIV_FLAG = 12;
constexpr std::uint16_t SYNC_AIC_AIV_FLAG = 13;
constexpr std::uint16_t SYNC_AIV_ONLY_ALL = 14;
template <std::uint8_t modeId, pipe_t pipe>
inline void CrossCoreSetFlag(std::uint16_t flagId, aopt::sim::src_loc loc = aopt::sim::src_loc::current()) {
  aopt::sim::pipe p = aopt::sim::pipe::s;
  if (!aopt::sim::kernel_detail::map_pipe(pipe, p)) p = aopt::sim::pipe::s;
  aopt::sim::cross_core_set(modeId, flagId, p, loc, "CrossCoreSetFlag");
}
template <std::uint8_t modeId = 0, pipe_t pipe = PIPE_S>
inline void CrossCoreWaitFlag(std::uint16_t flagId, aopt::sim::src_loc loc = aopt::sim::src_loc::current()) {
  aopt::sim::cross_core_wait(modeId, flagId, loc, "CrossCoreWaitFlag");
}

// The AIC <-> AIV notification of the matmul kernels (mat_mul_unaligned_base_kernel.h: the AIVs
// `NotifyEvent<PIPE_MTE3>(flag)`, the AIC `WaitEvent(flag)`): a mode-2 flag between an AI Core's
// AIC and its AIVs, CrossCoreSetFlag<2, pipe> / CrossCoreWaitFlag.
template <pipe_t pipe>
inline void NotifyEvent(std::uint16_t flagId, aopt::sim::src_loc loc = aopt::sim::src_loc::current()) {
  aopt::sim::pipe p = aopt::sim::pipe::s;
  if (!aopt::sim::kernel_detail::map_pipe(pipe, p)) p = aopt::sim::pipe::s;
  aopt::sim::cross_core_set(2, flagId, p, loc, "NotifyEvent");
}
inline void WaitEvent(std::uint16_t flagId, aopt::sim::src_loc loc = aopt::sim::src_loc::current()) {
  aopt::sim::cross_core_wait(2, flagId, loc, "WaitEvent");
}

}  // namespace AscendC

// The same flags by their intrinsics, as the tree's matmul kernels call them (mat_mul_v3_common.h):
// ffts_cross_core_sync(pipe, config) sets, with config = 1 | mode << 4 | flagId << 8 (the mode in
// bits 4-5, the flag id from bit 8); wait_flag_dev(flagId) waits (CrossCoreWaitFlag's semantics).
inline void ffts_cross_core_sync(pipe_t pipe, std::uint64_t config,
                                 aopt::sim::src_loc loc = aopt::sim::src_loc::current()) {
  aopt::sim::pipe p = aopt::sim::pipe::s;
  if (!aopt::sim::kernel_detail::map_pipe(pipe, p)) p = aopt::sim::pipe::s;
  aopt::sim::cross_core_set(static_cast<std::uint8_t>((config >> 4) & 0x3), static_cast<std::uint16_t>((config >> 8) & 0xff), p,
                            loc, "ffts_cross_core_sync");
}
inline void wait_flag_dev(std::int64_t flagId, aopt::sim::src_loc loc = aopt::sim::src_loc::current()) {
  aopt::sim::cross_core_wait(0, static_cast<std::uint16_t>(flagId), loc, "wait_flag_dev");
}
