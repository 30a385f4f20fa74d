// Gather (by byte offsets), Gatherb (whole 32 B blocks by byte offsets) and GatherMask (built-in patterns 1..7 or a user bit pattern,
// normal or counter mode, compacting the selected elements into dst; rsvdCnt = how many).
#pragma once

#include "aopt_sim/kernel/vec_elementwise.h"

namespace aopt::sim::vec {

template <typename T>
inline void gather_lanes(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<std::uint32_t>& off,
                         std::uint32_t base, const lanes& ln, std::uint32_t dst_rep, const src_loc& loc) {
  const char* api = "Gather";
  constexpr std::uint32_t epb = epb_v<T>;
  const layout ld{1, dst_rep};
  check_operand(dst, extent(ln, ld, epb), "dst", loc, api);
  const std::uint64_t noff = ln.repeats == 0 ? 0
                             : static_cast<std::uint64_t>(ln.repeats - 1) * ln.epr +
                                   static_cast<std::uint64_t>(ln.max_lane() + 1);
  check_operand(off, noff, "srcOffsetLocal", loc, api);
  check_aligned(src, "src", loc, api);
  const std::uint64_t src_bytes = static_cast<std::uint64_t>(src.aopt_capacity()) * sizeof(T);
  T* d = dst.aopt_ptr();
  const std::uint32_t* o = off.aopt_ptr();
  const unsigned char* s = reinterpret_cast<const unsigned char*>(src.aopt_ptr());
  ln.for_each([&](std::uint32_t r, std::uint32_t i) {
    const std::uint64_t k = static_cast<std::uint64_t>(r) * ln.epr + i;
    const std::uint64_t byte = static_cast<std::uint64_t>(base) + o[k];
    if (byte % sizeof(T) != 0 || byte + sizeof(T) > src_bytes) {
      fail(hw_error_kind::ub_out_of_bounds,
           "offset " + num(byte) + " B (srcBaseAddr " + num(base) + " + srcOffsetLocal[" + num(k) + "] " +
               num(o[k]) + ") is misaligned or outside src (" + num(src_bytes) +
               " B); offsets are in bytes and must be multiples of the element size",
           loc, api);
    }
    T v;
    std::memcpy(&v, s + byte, sizeof v);
    d[lane_off(ld, epb, r, i)] = v;
  });
  if (ln.repeats == 0) return;
  record_vec(vec_class::gather, sizeof(T), ln.repeats, dst.aopt_addr(), 0, loc, api);
}

inline bool builtin_pattern_bit(std::uint8_t pattern, std::uint32_t i) {
  switch (pattern) {
    case 1: return (i & 1) == 0;
    case 2: return (i & 1) == 1;
    case 3: return (i & 3) == 0;
    case 4: return (i & 3) == 1;
    case 5: return (i & 3) == 2;
    case 6: return (i & 3) == 3;
    case 7: return true;
    default: return false;
  }
}

// Gatherb: each repeat collects 8 data blocks of 32 B, block j of repeat r from src at byte
// offset[r * 8 + j] (a multiple of 32, inside src) into dst block r * dstRepStride + j * dstBlkStride.
template <typename T>
inline void gatherb_run(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<std::uint32_t>& off,
                        std::uint8_t repeats, const AscendC::GatherRepeatParams& p, const src_loc& loc) {
  const char* api = "Gatherb";
  constexpr std::uint64_t block = 32;
  const std::uint64_t blk = p.dstBlkStride == 0 ? 1 : p.dstBlkStride;
  if (repeats == 0) return;
  const std::uint64_t dst_blocks = (static_cast<std::uint64_t>(repeats) - 1) * p.dstRepStride + 7 * blk + 1;
  check_operand(dst, dst_blocks * block / sizeof(T), "dst", loc, api);
  check_operand(off, static_cast<std::uint64_t>(repeats) * 8, "offset", loc, api);
  check_aligned(src, "src", loc, api);
  const std::uint64_t src_bytes = static_cast<std::uint64_t>(src.aopt_capacity()) * sizeof(T);
  unsigned char* d = reinterpret_cast<unsigned char*>(dst.aopt_ptr());
  const unsigned char* s = reinterpret_cast<const unsigned char*>(src.aopt_ptr());
  const std::uint32_t* o = off.aopt_ptr();
  for (std::uint64_t r = 0; r < repeats; ++r) {
    for (std::uint64_t j = 0; j < 8; ++j) {
      const std::uint64_t byte = o[r * 8 + j];
      if (byte % block != 0 || byte + block > src_bytes) {
        fail(hw_error_kind::ub_out_of_bounds,
             "offset[" + num(r * 8 + j) + "] = " + num(byte) + " B is not a multiple of 32 or its block ends outside src (" +
                 num(src_bytes) + " B); offsets are in bytes, one per 32 B block",
             loc, api);
      }
      std::memcpy(d + (r * p.dstRepStride + j * blk) * block, s + byte, block);
    }
  }
  record_vec(vec_class::gather, sizeof(T), repeats, dst.aopt_addr(), 0, loc, api);
}

// pattern_bit(r, i) says whether lane i of repeat r is kept.
template <typename T, class P>
inline void gather_mask_run(const LocalTensor<T>& dst, const LocalTensor<T>& src0, bool reduce_mode,
                            std::uint32_t mask, const AscendC::GatherMaskParams& p, std::uint64_t& rsvd,
                            const src_loc& loc, P pattern_bit) {
  const char* api = "GatherMask";
  constexpr std::uint32_t epb = epb_v<T>;
  check_repeat(p.repeatTimes, loc, api);
  lanes ln;
  ln.repeats = p.repeatTimes;
  if (reduce_mode) {
    if (mask == 0) {
      fail(hw_error_kind::param_out_of_range, "counter-mode GatherMask needs mask >= 1 (elements per repeat)", loc, api);
    }
    ln.counter = true;
    ln.epr = mask;
    ln.count = static_cast<std::uint64_t>(mask) * p.repeatTimes;
  } else {
    ln.counter = true;  // every lane of every repeat
    ln.epr = epr_v<T>;
    ln.count = static_cast<std::uint64_t>(ln.epr) * p.repeatTimes;
  }
  const layout ls{p.src0BlockStride, p.src0RepeatStride};
  check_operand(src0, extent(ln, ls, epb), "src0", loc, api);
  check_aligned(dst, "dst", loc, api);
  T* d = dst.aopt_ptr();
  const T* s = src0.aopt_ptr();
  std::uint64_t k = 0;
  const std::uint64_t cap = dst.aopt_capacity();
  for (std::uint32_t r = 0; r < ln.repeats; ++r) {
    for (std::uint32_t i = 0; i < ln.epr; ++i) {
      if (!pattern_bit(r, i)) continue;
      if (k >= cap) {
        fail(hw_error_kind::ub_out_of_bounds,
             "GatherMask keeps more than the " + num(cap) + " elements dst holds; enlarge dst", loc, api);
      }
      d[k++] = s[lane_off(ls, epb, r, i)];
    }
  }
  rsvd = k;
  vec_state& st = state();
  st.counter = false;  // the instruction leaves the core in normal mode
  if (ln.repeats == 0) return;
  record_vec(vec_class::gather_mask, sizeof(T), ln.repeats, dst.aopt_addr(),
             banks_of({{src0.aopt_addr(), ls.blk, 256, false}}), loc, api);
}

}  // namespace aopt::sim::vec

namespace AscendC {

template <typename T>
inline void Gather(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<uint32_t>& srcOffsetLocal,
                   const uint32_t srcBaseAddr, const uint32_t count, AOPT_VEC_LOC) {
  const auto ln = aopt::sim::vec::lanes_from_count(count, aopt::sim::vec::epr_v<T>, loc, "Gather");
  aopt::sim::vec::gather_lanes(dst, src, srcOffsetLocal, srcBaseAddr, ln, 8, loc);
}
template <typename T>
inline void Gather(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<uint32_t>& srcOffsetLocal,
                   const uint32_t srcBaseAddr, const uint64_t mask, const int32_t repeatTimes,
                   const uint16_t dstRepStride, AOPT_VEC_LOC) {
  const auto ln =
      aopt::sim::vec::lanes_from_mask(true, mask, repeatTimes, aopt::sim::vec::epr_v<T>, loc, "Gather");
  aopt::sim::vec::gather_lanes(dst, src, srcOffsetLocal, srcBaseAddr, ln, dstRepStride, loc);
}
template <typename T>
inline void Gather(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<uint32_t>& srcOffsetLocal,
                   const uint32_t srcBaseAddr, const uint64_t mask[], const int32_t repeatTimes,
                   const uint16_t dstRepStride, AOPT_VEC_LOC) {
  const auto ln =
      aopt::sim::vec::lanes_from_bits(true, mask, repeatTimes, aopt::sim::vec::epr_v<T>, loc, "Gather");
  aopt::sim::vec::gather_lanes(dst, src, srcOffsetLocal, srcBaseAddr, ln, dstRepStride, loc);
}

template <typename T>
inline void Gatherb(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<uint32_t>& offset,
                    const uint8_t repeatTime, const GatherRepeatParams& repeatParams, AOPT_VEC_LOC) {
  aopt::sim::vec::gatherb_run(dst, src, offset, repeatTime, repeatParams, loc);
}

template <typename T, typename U, GatherMaskMode mode = defaultGatherMaskMode>
inline void GatherMask(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<U>& src1Pattern,
                       const bool reduceMode, const uint32_t mask, const GatherMaskParams& gatherMaskParams,
                       uint64_t& rsvdCnt, AOPT_VEC_LOC) {
  namespace v = aopt::sim::vec;
  const uint32_t per_rep = reduceMode ? mask : v::epr_v<T>;
  const uint64_t bits_per_stride = 256;  // one 32 B block of pattern = 256 bits
  const uint64_t last_bit = gatherMaskParams.repeatTimes == 0
                                ? 0
                                : static_cast<uint64_t>(gatherMaskParams.repeatTimes - 1) *
                                          gatherMaskParams.src1RepeatStride * bits_per_stride +
                                      per_rep;
  v::check_operand(src1Pattern, (last_bit + 8 * sizeof(U) - 1) / (8 * sizeof(U)), "src1Pattern", loc, "GatherMask");
  const uint8_t* pat = reinterpret_cast<const uint8_t*>(src1Pattern.aopt_ptr());
  const uint64_t rs = gatherMaskParams.src1RepeatStride;
  v::gather_mask_run(dst, src0, reduceMode, mask, gatherMaskParams, rsvdCnt, loc, [&](uint32_t r, uint32_t i) {
    const uint64_t bit = static_cast<uint64_t>(r) * rs * bits_per_stride + i;
    return ((pat[bit >> 3] >> (bit & 7)) & 1u) != 0;
  });
}
template <typename T, GatherMaskMode mode = defaultGatherMaskMode>
inline void GatherMask(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const uint8_t src1Pattern,
                       const bool reduceMode, const uint32_t mask, const GatherMaskParams& gatherMaskParams,
                       uint64_t& rsvdCnt, AOPT_VEC_LOC) {
  if (src1Pattern < 1 || src1Pattern > 7) {
    aopt::sim::fail(aopt::sim::hw_error_kind::param_out_of_range,
                    "built-in src1Pattern " + std::to_string(src1Pattern) + " is outside [1, 7]", loc, "GatherMask");
  }
  aopt::sim::vec::gather_mask_run(dst, src0, reduceMode, mask, gatherMaskParams, rsvdCnt, loc,
                                  [&](uint32_t, uint32_t i) { return aopt::sim::vec::builtin_pattern_bit(src1Pattern, i); });
}

}  // namespace AscendC
