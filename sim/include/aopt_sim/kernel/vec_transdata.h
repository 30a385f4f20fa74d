// TransDataTo5HD (basic API, data layout conversion) in its three forms (uint64_t address lists,
// LocalTensor<uint64_t> of addresses, LocalTensor lists) and the internal TransDataTo5HDImpl form
// on __ubuf__ pointer lists that kernels also call.
// Per repeat, 16 source data blocks (32 B each, their addresses in srcList) form a matrix of 16
// rows; the instruction writes its transpose to the 16 destination blocks, as the documentation
// describes per element width:
//   2 bytes: element j of every source block fills destination block j (16 x 16);
//   4 bytes: element j of source blocks 0..7 fills destination block 2j, of blocks 8..15 block 2j + 1;
//   1 byte:  element j (+16 with srcHighHalf) of every source block fills half of destination
//            block j, its upper half with dstHighHalf, its lower half otherwise.
// Repeat r adds r * dstRepStride (srcRepStride) data blocks to every destination (source) address.
// Timing: 2 repeats of the unary class per 512 B transposed [ASSUMED: as the raw
// scatter_vnchwconv_b16, docs/sim.md]; an 8-bit repeat moves 256 B: 1 unary repeat.
#pragma once

#include <cstdint>
#include <cstring>

#include "aopt_sim/kernel/vec_base.h"

namespace AscendC {

constexpr std::int32_t NCHW_CONV_ADDR_LIST_SIZE = 16;

struct TransDataTo5HDParams {
  TransDataTo5HDParams() = default;
  TransDataTo5HDParams(bool dstHigh, bool srcHigh, std::uint8_t repeat, std::uint16_t dstRep, std::uint16_t srcRep)
      : dstHighHalf(dstHigh), srcHighHalf(srcHigh), repeatTimes(repeat), dstRepStride(dstRep), srcRepStride(srcRep) {}
  bool dstHighHalf = false;
  bool srcHighHalf = false;
  std::uint8_t repeatTimes = 1;
  std::uint16_t dstRepStride = 0;
  std::uint16_t srcRepStride = 0;
};

}  // namespace AscendC

namespace aopt::sim::vec {

// A UB byte address of an address the kernel took with GetPhyAddr (a host pointer here).
inline std::uint32_t ub_offset_of(std::uint64_t p, const char* what, const src_loc& loc, const char* api) {
  const auto* b = reinterpret_cast<const std::byte*>(static_cast<std::uintptr_t>(p));
  const std::byte* base = ub_base();
  if (b < base || b >= base + ub_capacity()) {
    fail(hw_error_kind::ub_out_of_bounds,
         std::string(what) + " is not an address in this core's UB (take it with LocalTensor::GetPhyAddr())", loc,
         api);
  }
  return static_cast<std::uint32_t>(b - base);
}

template <std::uint32_t bytes>
inline void transdata_5hd(const std::uint32_t (&dst)[16], const std::uint32_t (&src)[16],
                          const AscendC::TransDataTo5HDParams& p, const src_loc& loc, const char* api) {
  static_assert(bytes == 1 || bytes == 2 || bytes == 4, "TransDataTo5HD: 1-, 2- or 4-byte elements");
  std::byte* ub = ub_base();
  const std::uint64_t cap = ub_capacity();
  for (int i = 0; i < 16; ++i) {
    if (dst[i] % 32 != 0 || src[i] % 32 != 0) {
      fail(hw_error_kind::misaligned,
           std::string(dst[i] % 32 != 0 ? "destination" : "source") + " address " + std::to_string(i) +
               " is not 32-byte aligned",
           loc, api);
    }
  }
  for (std::uint32_t r = 0; r < p.repeatTimes; ++r) {
    std::byte in[16][32];
    std::byte* out[16];
    for (int i = 0; i < 16; ++i) {
      const std::uint64_t s = src[i] + std::uint64_t{r} * p.srcRepStride * 32;
      const std::uint64_t d = dst[i] + std::uint64_t{r} * p.dstRepStride * 32;
      check_ub_access(s, 32, cap - std::min<std::uint64_t>(s, cap), "a source block", loc, api);
      check_ub_access(d, 32, cap - std::min<std::uint64_t>(d, cap), "a destination block", loc, api);
      std::memcpy(in[i], ub + s, 32);
      out[i] = ub + d;
    }
    if constexpr (bytes == 2) {
      for (int j = 0; j < 16; ++j)
        for (int i = 0; i < 16; ++i) std::memcpy(out[j] + 2 * i, in[i] + 2 * j, 2);
    } else if constexpr (bytes == 4) {
      for (int j = 0; j < 8; ++j)
        for (int i = 0; i < 16; ++i) std::memcpy(out[2 * j + i / 8] + 4 * (i % 8), in[i] + 4 * j, 4);
    } else {
      const int from = p.srcHighHalf ? 16 : 0, to = p.dstHighHalf ? 16 : 0;
      for (int j = 0; j < 16; ++j)
        for (int i = 0; i < 16; ++i) out[j][to + i] = in[i][from + j];
    }
  }
  if (p.repeatTimes == 0) return;
  const std::uint32_t reps = (bytes == 1 ? 1u : 2u) * p.repeatTimes;
  record_vec(vec_class::unary, bytes, reps, dst[0],
             banks_of({{src[0], 1, 256, false}, {dst[0], 1, 256, true}}), loc, api);
}

template <typename T>
inline void transdata_5hd_ptrs(const std::uint64_t* dst, const std::uint64_t* src,
                               const AscendC::TransDataTo5HDParams& p, const src_loc& loc, const char* api) {
  std::uint32_t d[16], s[16];
  for (int i = 0; i < 16; ++i) {
    d[i] = ub_offset_of(dst[i], "a dstList entry", loc, api);
    s[i] = ub_offset_of(src[i], "a srcList entry", loc, api);
  }
  transdata_5hd<sizeof(T)>(d, s, p, loc, api);
}

}  // namespace aopt::sim::vec

namespace AscendC {

template <typename T>
inline void TransDataTo5HD(std::uint64_t dstList[NCHW_CONV_ADDR_LIST_SIZE], std::uint64_t srcList[NCHW_CONV_ADDR_LIST_SIZE],
                           const TransDataTo5HDParams& nchwconvParams,
                           aopt::sim::src_loc loc = aopt::sim::src_loc::current()) {
  aopt::sim::vec::transdata_5hd_ptrs<T>(dstList, srcList, nchwconvParams, loc, "TransDataTo5HD");
}
// The address lists held in UB tensors of uint64_t (16 addresses each).
template <typename T>
inline void TransDataTo5HD(const LocalTensor<std::uint64_t>& dst, const LocalTensor<std::uint64_t>& src,
                           const TransDataTo5HDParams& nchwconvParams,
                           aopt::sim::src_loc loc = aopt::sim::src_loc::current()) {
  aopt::sim::vec::check_extent(dst, 16, "dst", loc, "TransDataTo5HD");
  aopt::sim::vec::check_extent(src, 16, "src", loc, "TransDataTo5HD");
  aopt::sim::vec::transdata_5hd_ptrs<T>(dst.aopt_ptr(), src.aopt_ptr(), nchwconvParams, loc, "TransDataTo5HD");
}
template <typename T>
inline void TransDataTo5HD(const LocalTensor<T> (&dstList)[NCHW_CONV_ADDR_LIST_SIZE],
                           const LocalTensor<T> (&srcList)[NCHW_CONV_ADDR_LIST_SIZE],
                           const TransDataTo5HDParams& nchwconvParams,
                           aopt::sim::src_loc loc = aopt::sim::src_loc::current()) {
  std::uint32_t d[16], s[16];
  for (int i = 0; i < 16; ++i) {
    d[i] = dstList[i].aopt_addr();
    s[i] = srcList[i].aopt_addr();
  }
  aopt::sim::vec::transdata_5hd<sizeof(T)>(d, s, nchwconvParams, loc, "TransDataTo5HD");
}
// The internal forms the dav_c220 implementation declares (kernels call them directly).
template <typename T>
inline void TransDataTo5HDImpl(__ubuf__ T* dstList[16], __ubuf__ T* srcList[16],
                               const TransDataTo5HDParams& transDataTo5HDParams,
                               aopt::sim::src_loc loc = aopt::sim::src_loc::current()) {
  std::uint64_t d[16], s[16];
  for (int i = 0; i < 16; ++i) {
    d[i] = reinterpret_cast<std::uintptr_t>(dstList[i]);
    s[i] = reinterpret_cast<std::uintptr_t>(srcList[i]);
  }
  aopt::sim::vec::transdata_5hd_ptrs<T>(d, s, transDataTo5HDParams, loc, "TransDataTo5HDImpl");
}
template <typename T>
inline void TransDataTo5HDImpl(std::uint64_t dstList[NCHW_CONV_ADDR_LIST_SIZE],
                               std::uint64_t srcList[NCHW_CONV_ADDR_LIST_SIZE],
                               const TransDataTo5HDParams& transDataTo5HDParams,
                               aopt::sim::src_loc loc = aopt::sim::src_loc::current()) {
  aopt::sim::vec::transdata_5hd_ptrs<T>(dstList, srcList, transDataTo5HDParams, loc, "TransDataTo5HDImpl");
}

}  // namespace AscendC
