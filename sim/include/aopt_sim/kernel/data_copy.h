// Data movement: DataCopy (count and DataCopyParams forms, GM<->UB and UB->UB), DataCopyPad
// (DataCopyExtParams/DataCopyPadExtParams and the older DataCopyParams/DataCopyPadParams),
// InitGlobalMemory and the atomic modes of UB->GM copies. Values are moved with memcpy; every
// call appends one copy record (bursts, bytes, GM offset in its allocation, UB address).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>

#include "aopt_sim/kernel/core.h"
#include "aopt_sim/kernel/global_tensor.h"
#include "aopt_sim/kernel/tensor.h"
#include "aopt_sim/kernel/types.h"

namespace AscendC {

struct DataCopyParams {
  DataCopyParams() {}
  DataCopyParams(const std::uint16_t count, const std::uint16_t len, const std::uint16_t srcStrideIn,
                 const std::uint16_t dstStrideIn)
      : blockCount(count), blockLen(len), srcStride(srcStrideIn), dstStride(dstStrideIn) {}
  std::uint16_t blockCount = DEFAULT_DATA_COPY_NBURST;
  std::uint16_t blockLen = 0;  // DataCopy: 32-byte blocks; DataCopyPad: bytes
  union {
    std::uint16_t srcGap = 0;
    std::uint16_t srcStride;
  };
  union {
    std::uint16_t dstGap = 0;
    std::uint16_t dstStride;
  };
};

struct DataCopyExtParams {
  DataCopyExtParams() {}
  DataCopyExtParams(const std::uint16_t count, const std::uint32_t len, const std::uint32_t srcStrideIn,
                    const std::uint32_t dstStrideIn, const std::uint32_t rsvIn)
      : blockCount(count), blockLen(len), srcStride(srcStrideIn), dstStride(dstStrideIn), rsv(rsvIn) {}
  std::uint16_t blockCount = DEFAULT_DATA_COPY_NBURST;
  std::uint32_t blockLen = 0;  // bytes
  std::uint32_t srcStride = DEFAULT_DATA_COPY_STRIDE;
  std::uint32_t dstStride = DEFAULT_DATA_COPY_STRIDE;
  std::uint32_t rsv = 0;
};

struct DataCopyPadParams {
  DataCopyPadParams() {}
  DataCopyPadParams(const bool isPadValue, const std::uint8_t leftPadValue,
                    const std::uint8_t rightPadValue, const std::uint64_t padValue)
      : isPad(isPadValue), leftPadding(leftPadValue), rightPadding(rightPadValue), paddingValue(padValue) {}
  bool isPad = false;
  std::uint8_t leftPadding = 0;
  std::uint8_t rightPadding = 0;
  std::uint64_t paddingValue = 0;
};

template <typename T>
struct DataCopyPadExtParams {
  DataCopyPadExtParams() {}
  DataCopyPadExtParams(const bool isPadValue, const std::uint8_t leftPadValue,
                       const std::uint8_t rightPadValue, T padValue)
      : isPad(isPadValue), leftPadding(leftPadValue), rightPadding(rightPadValue), paddingValue(padValue) {}
  bool isPad = false;
  std::uint8_t leftPadding = 0;
  std::uint8_t rightPadding = 0;
  T paddingValue = T(0);
};

}  // namespace AscendC

namespace aopt::sim::kernel_detail {

using aopt::sim::hw_error_kind;
using aopt::sim::src_loc;

// A local copy with an operand in one of the Cube's buffers (L1 -> BT, UB -> L1, ...): cube.h.
template <typename T, typename U>
void cube_local_copy(const AscendC::LocalTensor<T>& dst, const AscendC::LocalTensor<U>& src,
                     const AscendC::DataCopyParams& p, const src_loc& loc);
inline bool in_cube_buffer(std::uint32_t addr) { return aopt::sim::local_mem_of(addr) != aopt::sim::local_mem::ub; }

inline constexpr std::uint32_t max_block_count = 4095;
inline constexpr std::uint32_t max_pad_block_len = 2097151;

inline std::uint64_t round32(std::uint64_t v) { return (v + 31u) & ~std::uint64_t{31}; }

// Span of `blocks` bursts of `block_bytes`, `pitch` bytes apart.
inline std::uint64_t span_bytes(std::uint32_t blocks, std::uint64_t block_bytes, std::uint64_t pitch) {
  return blocks == 0 ? 0 : (blocks - 1) * pitch + block_bytes;
}

inline void check_ub_addr(std::uint32_t addr, std::uint64_t span, const src_loc& loc, const char* api,
                          const char* which) {
  if (addr % 32 != 0) {
    fail(hw_error_kind::misaligned,
         std::string(which) + " UB address " + std::to_string(addr) +
             " is not 32-byte aligned: UB operands of copies must start on a 32-byte block "
             "(check the element offset used with operator[])",
         loc, api);
  }
  // UB, or one of the Cube's buffers (L1 for GM -> A1/B1 copies).
  const auto mem = aopt::sim::local_mem_of(addr);
  const std::uint64_t base = mem == aopt::sim::local_mem::ub ? 0 : aopt::sim::local_base(mem);
  if (addr - base + span > aopt::sim::local_capacity(mem)) {
    fail(hw_error_kind::ub_out_of_bounds,
         std::string(which) + " " + aopt::sim::local_mem_name(mem) + " range [" + std::to_string(addr - base) +
             ", " + std::to_string(addr - base + span) + ") is outside the " +
             std::to_string(aopt::sim::local_capacity(mem)) + " bytes of " + aopt::sim::local_mem_name(mem),
         loc, api);
  }
}

template <typename T>
void check_gm_elem_aligned(const void* p, const src_loc& loc, const char* api) {
  if (reinterpret_cast<std::uintptr_t>(p) % sizeof(T) != 0) {
    fail(hw_error_kind::misaligned,
         "GM address is not aligned to the element size (" + std::to_string(sizeof(T)) +
             " bytes): check the byte offset given to SetGlobalBuffer",
         loc, api);
  }
}

// Bytes a contiguous DataCopy of `count` elements moves: the chip moves whole 32-byte blocks
// and silently drops a tail shorter than one; so does the emulator, with a warning (the output
// check decides whether the kernel relied on the dropped bytes).
inline std::uint64_t chip_copy_bytes(std::uint32_t count, std::size_t elem, const src_loc& loc, const char* api) {
  const std::uint64_t bytes = static_cast<std::uint64_t>(count) * elem;
  if (bytes % 32 != 0) {
    warn(hw_error_kind::truncated_copy,
         "copy of " + std::to_string(count) + " elements (" + std::to_string(bytes) +
             " bytes) is not a multiple of 32 bytes: the hardware drops the last " + std::to_string(bytes % 32) +
             " bytes; make count a multiple of " + std::to_string(32 / elem) +
             " or use DataCopyPad for unaligned lengths",
         loc, api);
  }
  return bytes / 32 * 32;
}

template <typename T>
inline void check_tensor_fits(std::uint32_t count, const AscendC::LocalTensor<T>& t, const src_loc& loc,
                              const char* api, const char* which) {
  check_ub_access(t.aopt_addr(), std::uint64_t{count} * sizeof(T), std::uint64_t{t.aopt_capacity()} * sizeof(T), which,
                  loc, api);
}

inline void check_block_params(std::uint32_t count, std::uint64_t len, std::uint64_t max_len,
                               const char* unit, const src_loc& loc, const char* api) {
  if (count == 0 || count > max_block_count) {
    fail(hw_error_kind::param_out_of_range,
         "blockCount " + std::to_string(count) + " is outside 1.." + std::to_string(max_block_count) +
             ": split the copy into several calls",
         loc, api);
  }
  if (len == 0 || len > max_len) {
    fail(hw_error_kind::param_out_of_range,
         "blockLen " + std::to_string(len) + " is outside 1.." + std::to_string(max_len) + " (" +
             unit + ")",
         loc, api);
  }
}

inline void strided_copy(std::byte* dst, std::uint64_t dst_pitch, const std::byte* src,
                         std::uint64_t src_pitch, std::uint32_t blocks, std::uint64_t block_bytes) {
  if (dst_pitch == block_bytes && src_pitch == block_bytes) {
    std::memmove(dst, src, blocks * block_bytes);
    return;
  }
  for (std::uint32_t i = 0; i < blocks; ++i) {
    std::memmove(dst + i * dst_pitch, src + i * src_pitch, block_bytes);
  }
}

template <typename T>
T atomic_combine(aopt::sim::atomic_op op, T old_v, T new_v) {
  switch (op) {
    case aopt::sim::atomic_op::add: return static_cast<T>(old_v + new_v);
    case aopt::sim::atomic_op::max: return (old_v < new_v) ? new_v : old_v;
    case aopt::sim::atomic_op::min: return (new_v < old_v) ? new_v : old_v;
    case aopt::sim::atomic_op::none: break;
  }
  return new_v;
}

// UB -> GM bursts, honouring the core's atomic mode.
template <typename T>
AOPT_SIM_UNTRACED void store_to_gm(std::byte* gm, std::uint64_t gm_pitch, const std::byte* ub, std::uint64_t ub_pitch,
                 std::uint32_t blocks, std::uint64_t block_bytes) {
  const aopt::sim::atomic_op op = aopt::sim::atomic_mode();
  if (op == aopt::sim::atomic_op::none) {
    strided_copy(gm, gm_pitch, ub, ub_pitch, blocks, block_bytes);
    return;
  }
  const std::uint64_t n = block_bytes / sizeof(T);
  aopt::sim::gm_atomic_lock();
  for (std::uint32_t b = 0; b < blocks; ++b) {
    std::byte* g = gm + b * gm_pitch;
    const std::byte* u = ub + b * ub_pitch;
    for (std::uint64_t i = 0; i < n; ++i) {
      T old_v, new_v;
      std::memcpy(&old_v, g + i * sizeof(T), sizeof(T));
      std::memcpy(&new_v, u + i * sizeof(T), sizeof(T));
      const T r = atomic_combine<T>(op, old_v, new_v);
      std::memcpy(g + i * sizeof(T), &r, sizeof(T));
    }
  }
  aopt::sim::gm_atomic_unlock();
}

inline void record_copy(aopt::sim::rec_kind kind, aopt::sim::pipe p, std::uint32_t blocks,
                        std::uint64_t block_bytes, std::uint64_t gm_off, std::uint32_t ub_addr,
                        std::size_t elem, bool atomic, const src_loc& loc, const char* api,
                        std::uint16_t gm_buf = 0, bool l2_bypass = false, std::uint64_t ub_span = 0,
                        std::uint32_t ub_src_addr = 0) {
  // The UB range the copy touches (implicit serialisation in the timing model): copy_in writes
  // [ub_addr, +ub_span), copy_out reads it, copy_local reads [ub_src_addr, +ub_span) and writes
  // [ub_addr, +ub_span). 0 = no UB range (InitGlobalMemory).
  aopt::sim::trace_rec r;
  const auto span = static_cast<std::uint32_t>(std::min<std::uint64_t>(ub_span, std::uint64_t{1} << 24));
  if (kind != aopt::sim::rec_kind::copy_out) r.ub_bytes = span;
  if (kind == aopt::sim::rec_kind::copy_out) {
    r.src_addr[0] = ub_addr;
    r.src_bytes[0] = span;
  } else if (kind == aopt::sim::rec_kind::copy_local) {
    r.src_addr[0] = ub_src_addr;
    r.src_bytes[0] = span;
  }
  r.gm_buf = gm_buf;
  r.l2_bypass = l2_bypass;
  r.kind = kind;
  r.p = p;
  r.blocks = blocks;
  r.block_bytes = static_cast<std::uint32_t>(block_bytes);
  r.gm_addr = gm_off;
  r.ub_addr = ub_addr;
  r.dtype_bytes = static_cast<std::uint8_t>(elem);
  r.atomic = atomic;
  r.site = aopt::sim::site_of(loc, api);
  aopt::sim::record(r);
}

// GM -> UB: `blocks` bursts of `block_bytes`; GM bursts `src_pitch` apart, UB rows `dst_pitch`
// apart, data placed `dst_skip` bytes into each row.
template <typename T>
void gm_to_ub(const AscendC::LocalTensor<T>& dst, const AscendC::GlobalTensor<T>& src,
              std::uint32_t blocks, std::uint64_t block_bytes, std::uint64_t src_pitch,
              std::uint64_t dst_pitch, std::uint64_t dst_row_bytes, const src_loc& loc,
              const char* api) {
  const std::byte* g = reinterpret_cast<const std::byte*>(src.GetPhyAddr());
  src.aopt_check_read(g, span_bytes(blocks, block_bytes, src_pitch), loc, api);
  check_ub_addr(dst.aopt_addr(), span_bytes(blocks, dst_row_bytes, dst_pitch), loc, api, "destination");
  record_copy(aopt::sim::rec_kind::copy_in, aopt::sim::pipe::mte2, blocks, block_bytes,
              src.aopt_gm_offset(g), dst.aopt_addr(), sizeof(T), false, loc, api,
              src.aopt_gm_buf(), src.aopt_l2_bypass(), span_bytes(blocks, dst_row_bytes, dst_pitch));
}

template <typename T>
void ub_to_gm_checks(const AscendC::GlobalTensor<T>& dst, const AscendC::LocalTensor<T>& src,
                     std::uint32_t blocks, std::uint64_t block_bytes, std::uint64_t src_pitch,
                     std::uint64_t dst_pitch, std::uint64_t src_row_bytes, const src_loc& loc,
                     const char* api) {
  const std::byte* g = reinterpret_cast<const std::byte*>(dst.GetPhyAddr());
  dst.aopt_check(g, span_bytes(blocks, block_bytes, dst_pitch), loc, api);
  check_ub_addr(src.aopt_addr(), span_bytes(blocks, src_row_bytes, src_pitch), loc, api, "source");
  record_copy(aopt::sim::rec_kind::copy_out, aopt::sim::pipe::mte3, blocks, block_bytes,
              dst.aopt_gm_offset(g), src.aopt_addr(), sizeof(T),
              aopt::sim::atomic_mode() != aopt::sim::atomic_op::none, loc, api,
              dst.aopt_gm_buf(), dst.aopt_l2_bypass(), span_bytes(blocks, src_row_bytes, src_pitch));
}

template <typename T>
T pad_value_of(std::uint64_t v) {
  if constexpr (std::is_integral_v<T>) {
    return static_cast<T>(v);
  } else {
    return T(static_cast<float>(v));
  }
}

template <typename T>
void pad_gm_to_ub(const AscendC::LocalTensor<T>& dst, const AscendC::GlobalTensor<T>& src,
                  std::uint32_t blocks, std::uint64_t block_len, std::uint64_t src_gap_bytes,
                  std::uint64_t dst_gap_blocks, bool is_pad, std::uint32_t left, std::uint32_t right,
                  T pad, std::uint64_t max_len, const src_loc& loc) {
  const char* api = "DataCopyPad";
  check_block_params(blocks, block_len, max_len, "bytes", loc, api);
  if (left * sizeof(T) > 32 || right * sizeof(T) > 32) {
    fail(hw_error_kind::param_out_of_range,
         "leftPadding " + std::to_string(left) + " / rightPadding " + std::to_string(right) +
             " elements exceed 32 bytes",
         loc, api);
  }
  const std::uint64_t lbytes = left * sizeof(T);
  const std::uint64_t row = round32(lbytes + block_len + right * sizeof(T));
  const std::uint64_t src_pitch = block_len + src_gap_bytes;
  const std::uint64_t dst_pitch = row + dst_gap_blocks * 32;
  gm_to_ub(dst, src, blocks, block_len, src_pitch, dst_pitch, row, loc, api);
  std::byte* u = aopt::sim::ub_base() + dst.aopt_addr();
  const std::byte* g = reinterpret_cast<const std::byte*>(src.GetPhyAddr());
  for (std::uint32_t b = 0; b < blocks; ++b) {
    std::byte* rowp = u + b * dst_pitch;
    std::memcpy(rowp + lbytes, g + b * src_pitch, block_len);
    if (is_pad) {
      // Fill whole elements of the left pad and of everything after the data up to the row end.
      for (std::uint64_t o = 0; o + sizeof(T) <= lbytes; o += sizeof(T)) std::memcpy(rowp + o, &pad, sizeof(T));
      std::uint64_t o = lbytes + block_len;
      // Align the right fill to element boundaries relative to the row start.
      o = (o + sizeof(T) - 1) / sizeof(T) * sizeof(T);
      for (; o + sizeof(T) <= row; o += sizeof(T)) std::memcpy(rowp + o, &pad, sizeof(T));
    }
  }
}

template <typename T>
void pad_ub_to_gm(const AscendC::GlobalTensor<T>& dst, const AscendC::LocalTensor<T>& src,
                  std::uint32_t blocks, std::uint64_t block_len, std::uint64_t src_gap_blocks,
                  std::uint64_t dst_gap_bytes, std::uint64_t max_len, const src_loc& loc) {
  const char* api = "DataCopyPad";
  check_block_params(blocks, block_len, max_len, "bytes", loc, api);
  const std::uint64_t row = round32(block_len);
  const std::uint64_t src_pitch = row + src_gap_blocks * 32;
  const std::uint64_t dst_pitch = block_len + dst_gap_bytes;
  ub_to_gm_checks(dst, src, blocks, block_len, src_pitch, dst_pitch, block_len, loc, api);
  store_to_gm<T>(reinterpret_cast<std::byte*>(dst.GetPhyAddr()), dst_pitch,
                 aopt::sim::ub_base() + src.aopt_addr(), src_pitch, blocks, block_len);
}

}  // namespace aopt::sim::kernel_detail

namespace AscendC {

// ---- DataCopy, count form ----
template <typename T>
inline void DataCopy(const LocalTensor<T>& dst, const GlobalTensor<T>& src, const std::uint32_t count,
                     aopt::sim::src_loc loc = aopt::sim::src_loc::current()) {
  namespace d = aopt::sim::kernel_detail;
  const std::uint64_t bytes = d::chip_copy_bytes(count, sizeof(T), loc, "DataCopy");
  d::check_tensor_fits(count, dst, loc, "DataCopy", "destination");
  d::check_gm_elem_aligned<T>(src.GetPhyAddr(), loc, "DataCopy");
  if (bytes == 0) return;
  d::gm_to_ub(dst, src, 1, bytes, bytes, bytes, bytes, loc, "DataCopy");
  std::memcpy(aopt::sim::ub_base() + dst.aopt_addr(), src.GetPhyAddr(), bytes);
}

template <typename T>
inline void DataCopy(const GlobalTensor<T>& dst, const LocalTensor<T>& src, const std::uint32_t count,
                     aopt::sim::src_loc loc = aopt::sim::src_loc::current()) {
  namespace d = aopt::sim::kernel_detail;
  const std::uint64_t bytes = d::chip_copy_bytes(count, sizeof(T), loc, "DataCopy");
  d::check_tensor_fits(count, src, loc, "DataCopy", "source");
  d::check_gm_elem_aligned<T>(dst.GetPhyAddr(), loc, "DataCopy");
  if (bytes == 0) return;
  d::ub_to_gm_checks(dst, src, 1, bytes, bytes, bytes, bytes, loc, "DataCopy");
  d::store_to_gm<T>(reinterpret_cast<std::byte*>(dst.GetPhyAddr()), bytes,
                    aopt::sim::ub_base() + src.aopt_addr(), bytes, 1, bytes);
}

template <typename T>
inline void DataCopy(const LocalTensor<T>& dst, const LocalTensor<T>& src, const std::uint32_t count,
                     aopt::sim::src_loc loc = aopt::sim::src_loc::current()) {
  namespace d = aopt::sim::kernel_detail;
  if (d::in_cube_buffer(dst.aopt_addr()) || d::in_cube_buffer(src.aopt_addr())) {
    // The count form of the Cube's local paths: one block of count elements.
    DataCopyParams p;
    p.blockCount = 1;
    p.blockLen = static_cast<std::uint16_t>(std::uint64_t{count} * sizeof(T) /
                                            (aopt::sim::local_mem_of(dst.aopt_addr()) == aopt::sim::local_mem::bt ? 64 : 32));
    d::cube_local_copy(dst, src, p, loc);
    return;
  }
  const std::uint64_t bytes = d::chip_copy_bytes(count, sizeof(T), loc, "DataCopy");
  d::check_tensor_fits(count, dst, loc, "DataCopy", "destination");
  d::check_tensor_fits(count, src, loc, "DataCopy", "source");
  if (bytes == 0) return;
  d::check_ub_addr(dst.aopt_addr(), bytes, loc, "DataCopy", "destination");
  d::check_ub_addr(src.aopt_addr(), bytes, loc, "DataCopy", "source");
  d::record_copy(aopt::sim::rec_kind::copy_local, aopt::sim::pipe::v, 1, bytes, 0, dst.aopt_addr(),
                 sizeof(T), false, loc, "DataCopy", 0, false, bytes, src.aopt_addr());
  std::memmove(aopt::sim::ub_base() + dst.aopt_addr(), aopt::sim::ub_base() + src.aopt_addr(), bytes);
}

// ---- DataCopy, DataCopyParams form (blockLen and gaps in 32-byte blocks) ----
template <typename T>
inline void DataCopy(const LocalTensor<T>& dst, const GlobalTensor<T>& src,
                     const DataCopyParams& repeatParams,
                     aopt::sim::src_loc loc = aopt::sim::src_loc::current()) {
  namespace d = aopt::sim::kernel_detail;
  d::check_block_params(repeatParams.blockCount, repeatParams.blockLen, 65535, "32-byte blocks", loc,
                        "DataCopy");
  d::check_gm_elem_aligned<T>(src.GetPhyAddr(), loc, "DataCopy");
  const std::uint64_t len = std::uint64_t{repeatParams.blockLen} * 32;
  const std::uint64_t sp = len + std::uint64_t{repeatParams.srcStride} * 32;
  const std::uint64_t dp = len + std::uint64_t{repeatParams.dstStride} * 32;
  d::gm_to_ub(dst, src, repeatParams.blockCount, len, sp, dp, len, loc, "DataCopy");
  d::strided_copy(aopt::sim::ub_base() + dst.aopt_addr(), dp,
                  reinterpret_cast<const std::byte*>(src.GetPhyAddr()), sp, repeatParams.blockCount, len);
}

template <typename T>
inline void DataCopy(const GlobalTensor<T>& dst, const LocalTensor<T>& src,
                     const DataCopyParams& repeatParams,
                     aopt::sim::src_loc loc = aopt::sim::src_loc::current()) {
  namespace d = aopt::sim::kernel_detail;
  d::check_block_params(repeatParams.blockCount, repeatParams.blockLen, 65535, "32-byte blocks", loc,
                        "DataCopy");
  d::check_gm_elem_aligned<T>(dst.GetPhyAddr(), loc, "DataCopy");
  const std::uint64_t len = std::uint64_t{repeatParams.blockLen} * 32;
  const std::uint64_t sp = len + std::uint64_t{repeatParams.srcStride} * 32;
  const std::uint64_t dp = len + std::uint64_t{repeatParams.dstStride} * 32;
  d::ub_to_gm_checks(dst, src, repeatParams.blockCount, len, sp, dp, len, loc, "DataCopy");
  d::store_to_gm<T>(reinterpret_cast<std::byte*>(dst.GetPhyAddr()), dp,
                    aopt::sim::ub_base() + src.aopt_addr(), sp, repeatParams.blockCount, len);
}

template <typename T>
inline void DataCopy(const LocalTensor<T>& dst, const LocalTensor<T>& src,
                     const DataCopyParams& repeatParams,
                     aopt::sim::src_loc loc = aopt::sim::src_loc::current()) {
  namespace d = aopt::sim::kernel_detail;
  if (d::in_cube_buffer(dst.aopt_addr()) || d::in_cube_buffer(src.aopt_addr())) {
    d::cube_local_copy(dst, src, repeatParams, loc);
    return;
  }
  d::check_block_params(repeatParams.blockCount, repeatParams.blockLen, 65535, "32-byte blocks", loc,
                        "DataCopy");
  const std::uint64_t len = std::uint64_t{repeatParams.blockLen} * 32;
  const std::uint64_t sp = len + std::uint64_t{repeatParams.srcStride} * 32;
  const std::uint64_t dp = len + std::uint64_t{repeatParams.dstStride} * 32;
  d::check_ub_addr(dst.aopt_addr(), d::span_bytes(repeatParams.blockCount, len, dp), loc, "DataCopy",
                   "destination");
  d::check_ub_addr(src.aopt_addr(), d::span_bytes(repeatParams.blockCount, len, sp), loc, "DataCopy",
                   "source");
  d::record_copy(aopt::sim::rec_kind::copy_local, aopt::sim::pipe::v, repeatParams.blockCount, len, 0,
                 dst.aopt_addr(), sizeof(T), false, loc, "DataCopy", 0, false,
                 std::max(d::span_bytes(repeatParams.blockCount, len, dp), d::span_bytes(repeatParams.blockCount, len, sp)),
                 src.aopt_addr());
  d::strided_copy(aopt::sim::ub_base() + dst.aopt_addr(), dp, aopt::sim::ub_base() + src.aopt_addr(), sp,
                  repeatParams.blockCount, len);
}

// ---- DataCopyPad (byte lengths; GM gaps in bytes, UB gaps in 32-byte blocks) ----
template <typename T>
inline void DataCopyPad(const LocalTensor<T>& dst, const GlobalTensor<T>& src,
                        const DataCopyExtParams& dataCopyParams, const DataCopyPadExtParams<T>& padParams,
                        aopt::sim::src_loc loc = aopt::sim::src_loc::current()) {
  aopt::sim::kernel_detail::pad_gm_to_ub<T>(
      dst, src, dataCopyParams.blockCount, dataCopyParams.blockLen, dataCopyParams.srcStride,
      dataCopyParams.dstStride, padParams.isPad, padParams.leftPadding, padParams.rightPadding,
      padParams.paddingValue, aopt::sim::kernel_detail::max_pad_block_len, loc);
}

template <typename T>
inline void DataCopyPad(const GlobalTensor<T>& dst, const LocalTensor<T>& src,
                        const DataCopyExtParams& dataCopyParams,
                        aopt::sim::src_loc loc = aopt::sim::src_loc::current()) {
  aopt::sim::kernel_detail::pad_ub_to_gm<T>(dst, src, dataCopyParams.blockCount, dataCopyParams.blockLen,
                                            dataCopyParams.srcStride, dataCopyParams.dstStride,
                                            aopt::sim::kernel_detail::max_pad_block_len, loc);
}

template <typename T>
inline void DataCopyPad(const LocalTensor<T>& dst, const GlobalTensor<T>& src,
                        const DataCopyParams& dataCopyParams, const DataCopyPadParams& padParams,
                        aopt::sim::src_loc loc = aopt::sim::src_loc::current()) {
  aopt::sim::kernel_detail::pad_gm_to_ub<T>(
      dst, src, dataCopyParams.blockCount, dataCopyParams.blockLen, dataCopyParams.srcStride,
      dataCopyParams.dstStride, padParams.isPad, padParams.leftPadding, padParams.rightPadding,
      aopt::sim::kernel_detail::pad_value_of<T>(padParams.paddingValue), 65535, loc);
}

template <typename T>
inline void DataCopyPad(const GlobalTensor<T>& dst, const LocalTensor<T>& src,
                        const DataCopyParams& dataCopyParams,
                        aopt::sim::src_loc loc = aopt::sim::src_loc::current()) {
  aopt::sim::kernel_detail::pad_ub_to_gm<T>(dst, src, dataCopyParams.blockCount, dataCopyParams.blockLen,
                                            dataCopyParams.srcStride, dataCopyParams.dstStride, 65535,
                                            loc);
}

// ---- InitGlobalMemory ----
template <typename T>
AOPT_SIM_UNTRACED inline void InitGlobalMemory(GlobalTensor<T>& gmWorkspaceAddr, const std::uint64_t size, const T value,
                             aopt::sim::src_loc loc = aopt::sim::src_loc::current()) {
  namespace d = aopt::sim::kernel_detail;
  if (size == 0) return;
  T* p = gmWorkspaceAddr.GetPhyAddr();
  const std::uint64_t bytes = size * sizeof(T);
  gmWorkspaceAddr.aopt_check(p, bytes, loc, "InitGlobalMemory");
  for (std::uint64_t i = 0; i < size; ++i) p[i] = value;
  d::record_copy(aopt::sim::rec_kind::copy_out, aopt::sim::pipe::mte3, 1, bytes,
                 gmWorkspaceAddr.aopt_gm_offset(p), 0, sizeof(T), false, loc, "InitGlobalMemory");
}

// InitOutput: the older name of InitGlobalMemory; takes the tensor by value, so a sub-tensor
// (`yGm[offset]`) works.
template <typename T>
inline void InitOutput(GlobalTensor<T> gm, const std::uint64_t size, const typename std::common_type<T>::type value = 0,
                       aopt::sim::src_loc loc = aopt::sim::src_loc::current()) {
  InitGlobalMemory(gm, size, value, loc);
}

// ---- atomic modes of UB -> GM copies ----
template <typename T>
inline void SetAtomicAdd() {
  aopt::sim::set_atomic_mode(aopt::sim::atomic_op::add);
}
template <typename T>
inline void SetAtomicMax() {
  aopt::sim::set_atomic_mode(aopt::sim::atomic_op::max);
}
template <typename T>
inline void SetAtomicMin() {
  aopt::sim::set_atomic_mode(aopt::sim::atomic_op::min);
}
template <typename T>
inline void SetAtomicType() {}
inline void SetAtomicNone() { aopt::sim::set_atomic_mode(aopt::sim::atomic_op::none); }

}  // namespace AscendC
