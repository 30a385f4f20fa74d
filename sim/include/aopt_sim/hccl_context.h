// The HCCL context of a one-rank world (the "消息区" GetHcclContext returns, "HCCL Context"
// pages): a small GM block describing the communication domain, which Hccl::Init reads, and the
// domain's two windows (GetWindowsInAddr / GetWindowsOutAddr: "卡间通信数据" buffers a kernel may
// compute into directly). Implementation: sim/runtime/hccl.cpp.
//
// The documentation leaves the context's contents private to the framework; this layout is
// sim's. Each of the two documented domains (index 0 and 1) gets its block and windows the first
// time a kernel asks for them, so a kernel without HCCL maps nothing.
//
// Window size: HCCL_BUFFSIZE's default, 200 MiB per window (CANN's environment-variable
// reference: the buffer HCCL shares between ranks), so an operator that sizes its use of the
// window by it fits as on the chip. The windows are anonymous mappings, zero-filled on first
// touch: the 400 MiB per domain are address space only (a run's limit is 8 GiB), and the pages
// an operator touches are all it costs.
#pragma once

#include <cstddef>
#include <cstdint>

namespace aopt::sim::hccl {

inline constexpr std::uint32_t context_magic = 0x58544341u;  // "ACTX"
inline constexpr std::size_t window_bytes = std::size_t{200} << 20;
inline constexpr std::uint32_t max_groups = 2;  // "当前只支持2个通信域，index只能为0/1"

struct context_block {
  std::uint32_t magic = context_magic;
  std::uint32_t group_index = 0;
  std::uint32_t rank_id = 0;
  std::uint32_t rank_dim = 1;
  std::uint64_t window_bytes = 0;
  std::uint8_t* window_in = nullptr;   // rank 0's WindowsIn
  std::uint8_t* window_out = nullptr;  // rank 0's WindowsOut
};

// The context of domain `index` (< max_groups): the one SetHcclContext set, else sim's own,
// allocated in GM on the first call. nullptr for an index outside 0..1.
std::uint8_t* group_context(std::uint32_t index);
// SetHcclContext<index>(context): later group_context(index) calls answer `context`.
void set_group_context(std::uint32_t index, std::uint8_t* context);

}  // namespace aopt::sim::hccl
