// Mask register control (SetVectorMask, SetMaskCount, SetMaskNorm, ResetMask) and the data-fill
// instructions: Duplicate, Copy (UB -> UB vector copy), CreateVecIndex, Brcb.
#pragma once

#include "aopt_sim/kernel/vec_elementwise.h"

namespace AscendC {

// ---- mask register (scalar pipe: one cycle each) ----------------------------------------------

template <typename T, MaskMode mode = MaskMode::NORMAL>
inline void SetVectorMask(const uint64_t maskHigh, const uint64_t maskLow, AOPT_VEC_LOC) {
  auto& st = aopt::sim::vec::state();
  st.mask_hi = maskHigh;
  st.mask_lo = maskLow;
  aopt::sim::record_scalar(0, 1, loc, "SetVectorMask");
}

template <typename T, MaskMode mode = MaskMode::NORMAL>
inline void SetVectorMask(int32_t len, AOPT_VEC_LOC) {
  auto& st = aopt::sim::vec::state();
  if (mode == MaskMode::COUNTER || st.counter) {
    st.mask_hi = 0;
    st.mask_lo = static_cast<uint64_t>(len < 0 ? 0 : len);
  } else {
    const uint64_t n = static_cast<uint64_t>(len < 0 ? 0 : len);
    st.mask_lo = n >= 64 ? ~0ull : ((1ull << n) - 1);
    st.mask_hi = n > 64 ? (n >= 128 ? ~0ull : ((1ull << (n - 64)) - 1)) : 0;
  }
  aopt::sim::record_scalar(0, 1, loc, "SetVectorMask");
}

inline void SetMaskCount(AOPT_VEC_LOC) {
  aopt::sim::vec::state().counter = true;
  aopt::sim::record_scalar(0, 1, loc, "SetMaskCount");
}
inline void SetMaskNorm(AOPT_VEC_LOC) {
  aopt::sim::vec::state().counter = false;
  aopt::sim::record_scalar(0, 1, loc, "SetMaskNorm");
}

// AscendCUtils: the older spelling of the mask controls (SetMask<T>(len) for a continuous mask,
// SetMask<T>(high, low) for a bit mask), and GetC0Count (elements per 32-byte block).
struct AscendCUtils {
  template <typename T>
  static void SetMask(uint64_t len, AOPT_VEC_LOC) { SetVectorMask<T>(static_cast<int32_t>(len), loc); }
  template <typename T>
  static void SetMask(uint64_t maskHigh, uint64_t maskLow, AOPT_VEC_LOC) { SetVectorMask<T>(maskHigh, maskLow, loc); }
  template <typename T>
  static void SetMaskCount(AOPT_VEC_LOC) { AscendC::SetMaskCount(loc); }
  template <typename T>
  static void SetMaskNorm(AOPT_VEC_LOC) { AscendC::SetMaskNorm(loc); }
  static constexpr uint32_t GetC0Count(uint32_t dtypeSize) { return 32 / dtypeSize; }
};
inline void ResetMask(AOPT_VEC_LOC) {
  auto& st = aopt::sim::vec::state();
  st.mask_lo = st.mask_hi = ~0ull;
  aopt::sim::record_scalar(0, 1, loc, "ResetMask");
}

// ---- Duplicate ---------------------------------------------------------------------------------

template <typename T, bool isSetMask = true>
inline void Duplicate(const LocalTensor<T>& dst, const aopt::sim::vec::nodeduce_t<T>& scalarValue,
                      const int32_t& count, AOPT_VEC_LOC) {
  const auto ln = aopt::sim::vec::lanes_from_count(count, aopt::sim::vec::epr_v<T>, loc, "Duplicate");
  aopt::sim::vec::check_operand(dst, ln.count, "dst", loc, "Duplicate");
  T* d = dst.aopt_ptr();
  const T v = scalarValue;
  for (int32_t i = 0; i < count; ++i) d[i] = v;
  if (ln.repeats == 0) return;
  aopt::sim::vec::record_vec(aopt::sim::vec_class::duplicate, sizeof(T), ln.repeats, dst.aopt_addr(), 0, loc,
                             "Duplicate");
}

namespace aopt_detail {
template <typename T>
inline void duplicate_lanes(const LocalTensor<T>& dst, T v, const aopt::sim::vec::lanes& ln, uint16_t blk,
                            uint8_t rep, const aopt::sim::src_loc& loc) {
  const aopt::sim::vec::layout ld{blk, rep};
  constexpr uint32_t epb = aopt::sim::vec::epb_v<T>;
  aopt::sim::vec::check_operand(dst, aopt::sim::vec::extent(ln, ld, epb), "dst", loc, "Duplicate");
  T* d = dst.aopt_ptr();
  ln.for_each([&](uint32_t r, uint32_t i) { d[aopt::sim::vec::lane_off(ld, epb, r, i)] = v; });
  if (ln.repeats == 0) return;
  aopt::sim::vec::record_vec(aopt::sim::vec_class::duplicate, sizeof(T), ln.repeats, dst.aopt_addr(),
                             aopt::sim::vec::banks_of({{dst.aopt_addr(), blk, 256, true}}), loc, "Duplicate");
}
}  // namespace aopt_detail

template <typename T, bool isSetMask = true>
inline void Duplicate(const LocalTensor<T>& dst, const aopt::sim::vec::nodeduce_t<T>& scalarValue, uint64_t mask,
                      const int32_t repeatTimes, const uint16_t dstBlockStride, const uint8_t dstRepeatStride,
                      AOPT_VEC_LOC) {
  const auto ln =
      aopt::sim::vec::lanes_from_mask(isSetMask, mask, repeatTimes, aopt::sim::vec::epr_v<T>, loc, "Duplicate");
  aopt_detail::duplicate_lanes<T>(dst, scalarValue, ln, dstBlockStride, dstRepeatStride, loc);
}
template <typename T, bool isSetMask = true>
inline void Duplicate(const LocalTensor<T>& dst, const aopt::sim::vec::nodeduce_t<T>& scalarValue,
                      const uint64_t mask[], const int32_t repeatTimes, const uint16_t dstBlockStride,
                      const uint8_t dstRepeatStride, AOPT_VEC_LOC) {
  const auto ln =
      aopt::sim::vec::lanes_from_bits(isSetMask, mask, repeatTimes, aopt::sim::vec::epr_v<T>, loc, "Duplicate");
  aopt_detail::duplicate_lanes<T>(dst, scalarValue, ln, dstBlockStride, dstRepeatStride, loc);
}

// ---- Copy (UB -> UB, vector pipe) -----------------------------------------------------------------

template <typename T, bool isSetMask = true>
inline void Copy(const LocalTensor<T>& dst, const LocalTensor<T>& src, uint64_t mask, const int32_t repeatTimes,
                 const CopyRepeatParams& repeatParams, AOPT_VEC_LOC) {
  const auto ln = aopt::sim::vec::lanes_from_mask(isSetMask, mask, repeatTimes, aopt::sim::vec::epr_v<T>, loc, "Copy");
  UnaryRepeatParams p;
  p.dstBlkStride = repeatParams.dstStride;
  p.srcBlkStride = repeatParams.srcStride;
  // Copy's repeat sizes are 16-bit; the lane model takes them as they are.
  const aopt::sim::vec::layout ld{repeatParams.dstStride, repeatParams.dstRepeatSize},
      ls{repeatParams.srcStride, repeatParams.srcRepeatSize};
  constexpr uint32_t epb = aopt::sim::vec::epb_v<T>;
  aopt::sim::vec::check_operand(dst, aopt::sim::vec::extent(ln, ld, epb), "dst", loc, "Copy");
  aopt::sim::vec::check_operand(src, aopt::sim::vec::extent(ln, ls, epb), "src", loc, "Copy");
  T* d = dst.aopt_ptr();
  const T* s = src.aopt_ptr();
  ln.for_each([&](uint32_t r, uint32_t i) {
    d[aopt::sim::vec::lane_off(ld, epb, r, i)] = s[aopt::sim::vec::lane_off(ls, epb, r, i)];
  });
  if (ln.repeats == 0) return;
  aopt::sim::vec::record_vec(aopt::sim::vec_class::unary, sizeof(T), ln.repeats, dst.aopt_addr(),
                             aopt::sim::vec::banks_of({{src.aopt_addr(), ls.blk, 256, false},
                                                       {dst.aopt_addr(), ld.blk, 256, true}}),
                             loc, "Copy");
}
template <typename T, bool isSetMask = true>
inline void Copy(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint64_t mask[],
                 const int32_t repeatTimes, const CopyRepeatParams& repeatParams, AOPT_VEC_LOC) {
  if (!aopt::sim::vec::state().counter) {
    (void)aopt::sim::vec::lanes_from_bits(isSetMask, mask, repeatTimes, aopt::sim::vec::epr_v<T>, loc, "Copy");
    Copy<T, false>(dst, src, 0, repeatTimes, repeatParams, loc);
  } else {
    Copy<T, isSetMask>(dst, src, mask[0], repeatTimes, repeatParams, loc);
  }
}

// ---- CreateVecIndex: dst[i] = firstValue + i ------------------------------------------------------

template <typename T>
inline void CreateVecIndex(const LocalTensor<T>& dst, const aopt::sim::vec::nodeduce_t<T>& firstValue,
                           uint32_t count, AOPT_VEC_LOC) {
  const auto ln = aopt::sim::vec::lanes_from_count(count, aopt::sim::vec::epr_v<T>, loc, "CreateVecIndex");
  aopt::sim::vec::check_operand(dst, ln.count, "dst", loc, "CreateVecIndex");
  T* d = dst.aopt_ptr();
  if constexpr (std::is_integral_v<T>) {
    for (uint32_t i = 0; i < count; ++i) d[i] = aopt::sim::vec::wrap_add<T>(firstValue, static_cast<T>(i));
  } else {
    for (uint32_t i = 0; i < count; ++i) d[i] = static_cast<T>(static_cast<float>(firstValue) + static_cast<float>(i));
  }
  if (ln.repeats == 0) return;
  aopt::sim::vec::record_vec(aopt::sim::vec_class::duplicate, sizeof(T), ln.repeats, dst.aopt_addr(), 0, loc,
                             "CreateVecIndex");
}
template <typename T>
inline void CreateVecIndex(const LocalTensor<T>& dst, const aopt::sim::vec::nodeduce_t<T>& firstValue,
                           uint64_t mask, const int32_t repeatTimes, const uint16_t dstBlkStride,
                           const uint8_t dstRepStride, AOPT_VEC_LOC) {
  const auto ln = aopt::sim::vec::lanes_from_mask(true, mask, repeatTimes, aopt::sim::vec::epr_v<T>, loc,
                                                  "CreateVecIndex");
  const aopt::sim::vec::layout ld{dstBlkStride, dstRepStride};
  constexpr uint32_t epb = aopt::sim::vec::epb_v<T>;
  aopt::sim::vec::check_operand(dst, aopt::sim::vec::extent(ln, ld, epb), "dst", loc, "CreateVecIndex");
  T* d = dst.aopt_ptr();
  ln.for_each([&](uint32_t r, uint32_t i) {
    const uint32_t k = r * ln.epr + i;
    T v;
    if constexpr (std::is_integral_v<T>) {
      v = aopt::sim::vec::wrap_add<T>(firstValue, static_cast<T>(k));
    } else {
      v = static_cast<T>(static_cast<float>(firstValue) + static_cast<float>(k));
    }
    d[aopt::sim::vec::lane_off(ld, epb, r, i)] = v;
  });
  if (ln.repeats == 0) return;
  aopt::sim::vec::record_vec(aopt::sim::vec_class::duplicate, sizeof(T), ln.repeats, dst.aopt_addr(),
                             aopt::sim::vec::banks_of({{dst.aopt_addr(), dstBlkStride, 256, true}}), loc,
                             "CreateVecIndex");
}
template <typename T>
inline void CreateVecIndex(const LocalTensor<T>& dst, const aopt::sim::vec::nodeduce_t<T>& firstValue,
                           const uint64_t mask[], const int32_t repeatTimes, const uint16_t dstBlkStride,
                           const uint8_t dstRepStride, AOPT_VEC_LOC) {
  if (!aopt::sim::vec::state().counter) {
    (void)aopt::sim::vec::lanes_from_bits(true, mask, repeatTimes, aopt::sim::vec::epr_v<T>, loc, "CreateVecIndex");
    auto& st = aopt::sim::vec::state();
    // Bitwise lanes: reuse the lane walker with the register just loaded.
    aopt::sim::vec::lanes ln = aopt::sim::vec::lanes_from_mask(false, 0, repeatTimes, aopt::sim::vec::epr_v<T>, loc,
                                                               "CreateVecIndex");
    (void)st;
    const aopt::sim::vec::layout ld{dstBlkStride, dstRepStride};
    constexpr uint32_t epb = aopt::sim::vec::epb_v<T>;
    aopt::sim::vec::check_operand(dst, aopt::sim::vec::extent(ln, ld, epb), "dst", loc, "CreateVecIndex");
    T* d = dst.aopt_ptr();
    ln.for_each([&](uint32_t r, uint32_t i) {
      const uint32_t k = r * ln.epr + i;
      T v;
      if constexpr (std::is_integral_v<T>) {
        v = aopt::sim::vec::wrap_add<T>(firstValue, static_cast<T>(k));
      } else {
        v = static_cast<T>(static_cast<float>(firstValue) + static_cast<float>(k));
      }
      d[aopt::sim::vec::lane_off(ld, epb, r, i)] = v;
    });
    if (ln.repeats == 0) return;
    aopt::sim::vec::record_vec(aopt::sim::vec_class::duplicate, sizeof(T), ln.repeats, dst.aopt_addr(),
                               aopt::sim::vec::banks_of({{dst.aopt_addr(), dstBlkStride, 256, true}}), loc,
                               "CreateVecIndex");
  } else {
    CreateVecIndex<T>(dst, firstValue, mask[0], repeatTimes, dstBlkStride, dstRepStride, loc);
  }
}

// ---- Brcb: each of 8 source elements per repeat fills one 32 B block of dst ------------------------

template <typename T>
inline void Brcb(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const int32_t repeatTime,
                 const BrcbRepeatParams& repeatParams, AOPT_VEC_LOC) {
  aopt::sim::vec::check_repeat(repeatTime, loc, "Brcb");
  constexpr uint32_t epb = aopt::sim::vec::epb_v<T>;
  const uint32_t reps = static_cast<uint32_t>(repeatTime);
  const uint64_t blk = repeatParams.dstBlkStride, rep = repeatParams.dstRepStride;
  const uint64_t dst_extent = reps == 0 ? 0 : ((reps - 1) * rep + 7 * blk) * epb + epb;
  aopt::sim::vec::check_operand(dst, dst_extent, "dst", loc, "Brcb");
  aopt::sim::vec::check_operand(src0, static_cast<uint64_t>(reps) * 8, "src0", loc, "Brcb");
  T* d = dst.aopt_ptr();
  const T* s = src0.aopt_ptr();
  for (uint32_t r = 0; r < reps; ++r) {
    for (uint32_t b = 0; b < 8; ++b) {
      const T v = s[r * 8 + b];
      T* o = d + (r * rep + b * blk) * epb;
      for (uint32_t e = 0; e < epb; ++e) o[e] = v;
    }
  }
  if (reps == 0) return;
  aopt::sim::vec::record_vec(aopt::sim::vec_class::duplicate, sizeof(T), reps, dst.aopt_addr(),
                             aopt::sim::vec::banks_of({{src0.aopt_addr(), 1, 8 * sizeof(T) < 32 ? 32 : 8 * sizeof(T), false},
                                                       {dst.aopt_addr(), static_cast<uint32_t>(blk), 256, true}}),
                             loc, "Brcb");
}

}  // namespace AscendC
