// Compare / CompareScalar (to a bit mask: bit k of the destination bytes, LSB first, is lane k
// counted over the repeats) and Select (SELMODE 0: one repeat's worth of selMask reused by every
// repeat; modes 1 and 2: selMask consumed continuously; bit 1 picks src0, bit 0 src1/scalar).
#pragma once

#include "aopt_sim/kernel/vec_elementwise.h"

namespace aopt::sim::vec {

template <typename T>
inline bool cmp(T a, T b, AscendC::CMPMODE m) {
  using AscendC::CMPMODE;
  switch (m) {
    case CMPMODE::LT: return a < b;
    case CMPMODE::GT: return b < a;
    case CMPMODE::EQ: return a == b;
    case CMPMODE::LE: return a <= b;
    case CMPMODE::GE: return a >= b;
    case CMPMODE::NE: return !(a == b);
  }
  return false;
}
template <>
inline bool cmp<bfloat16_t>(bfloat16_t a, bfloat16_t b, AscendC::CMPMODE m) {
  return cmp<float>(a.ToFloat(), b.ToFloat(), m);
}

inline void put_bit(std::uint8_t* bytes, std::uint64_t k, bool v) {
  const std::uint8_t bit = static_cast<std::uint8_t>(1u << (k & 7));
  if (v) {
    bytes[k >> 3] = static_cast<std::uint8_t>(bytes[k >> 3] | bit);
  } else {
    bytes[k >> 3] = static_cast<std::uint8_t>(bytes[k >> 3] & ~bit);
  }
}
inline bool get_bit(const std::uint8_t* bytes, std::uint64_t k) { return (bytes[k >> 3] >> (k & 7)) & 1u; }

// Compare engine. `b_of(r, i)` gives the second operand of lane i of repeat r.
template <typename T, typename U, class B>
inline void compare_lanes(const LocalTensor<U>& dst, const LocalTensor<T>& s0, const lanes& ln, const layout& l0,
                          AscendC::CMPMODE mode, bool zero_masked, std::uint16_t banks, const char* api,
                          const src_loc& loc, B b_of) {
  constexpr std::uint32_t epb = epb_v<T>;
  check_operand(s0, extent(ln, l0, epb), "src0", loc, api);
  const std::uint64_t bits = static_cast<std::uint64_t>(ln.repeats) * ln.epr;
  const std::uint64_t need_bits = ln.counter ? ln.count : bits;
  check_operand(dst, (need_bits + 8 * sizeof(U) - 1) / (8 * sizeof(U)), "dst", loc, api);
  std::uint8_t* out = reinterpret_cast<std::uint8_t*>(dst.aopt_ptr());
  const T* a = s0.aopt_ptr();
  if (zero_masked && !ln.counter) {
    for (std::uint64_t k = 0; k < bits; ++k) put_bit(out, k, false);
  }
  ln.for_each([&](std::uint32_t r, std::uint32_t i) {
    put_bit(out, static_cast<std::uint64_t>(r) * ln.epr + i, cmp<T>(a[lane_off(l0, epb, r, i)], b_of(r, i), mode));
  });
  if (ln.repeats == 0) return;
  record_vec(vec_class::compare, sizeof(T), ln.repeats, dst.aopt_addr(), banks, loc, api);
}

template <typename T, typename U, class B>
inline void select_lanes(const LocalTensor<T>& dst, const LocalTensor<U>& sel, const LocalTensor<T>& s0,
                         const lanes& ln, const layout& ld, const layout& l0, AscendC::SELMODE mode,
                         std::uint16_t banks, const src_loc& loc, B b_of) {
  constexpr std::uint32_t epb = epb_v<T>;
  const char* api = "Select";
  check_operand(dst, extent(ln, ld, epb), "dst", loc, api);
  check_operand(s0, extent(ln, l0, epb), "src0", loc, api);
  const bool same_each_repeat = mode == AscendC::SELMODE::VSEL_CMPMASK_SPR;
  const std::uint64_t sel_bits =
      same_each_repeat ? ln.epr : (ln.counter ? ln.count : static_cast<std::uint64_t>(ln.repeats) * ln.epr);
  check_operand(sel, (sel_bits + 8 * sizeof(U) - 1) / (8 * sizeof(U)), "selMask", loc, api);
  const std::uint8_t* m = reinterpret_cast<const std::uint8_t*>(sel.aopt_ptr());
  T* d = dst.aopt_ptr();
  const T* a = s0.aopt_ptr();
  ln.for_each([&](std::uint32_t r, std::uint32_t i) {
    const std::uint64_t k = same_each_repeat ? i : static_cast<std::uint64_t>(r) * ln.epr + i;
    const T x = a[lane_off(l0, epb, r, i)];
    d[lane_off(ld, epb, r, i)] = get_bit(m, k) ? x : b_of(r, i);
  });
  if (ln.repeats == 0) return;
  record_vec(vec_class::select, sizeof(T), ln.repeats, dst.aopt_addr(), banks, loc, api);
}

}  // namespace aopt::sim::vec

namespace AscendC {

// ---- Compare -----------------------------------------------------------------------------------

template <typename T, typename U>
inline void Compare(const LocalTensor<U>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,
                    CMPMODE cmpMode, uint32_t count, AOPT_VEC_LOC) {
  namespace v = aopt::sim::vec;
  const auto ln = v::lanes_from_count(count, v::epr_v<T>, loc, "Compare");
  v::check_operand(src1, count, "src1", loc, "Compare");
  const T* b = src1.aopt_ptr();
  const v::layout l{1, 8};
  v::compare_lanes(dst, src0, ln, l, cmpMode, false,
                   v::banks_of({{src0.aopt_addr(), 1, 256, false}, {src1.aopt_addr(), 1, 256, false}}), "Compare",
                   loc, [&](uint32_t r, uint32_t i) { return b[v::lane_off(l, v::epb_v<T>, r, i)]; });
}

namespace aopt_detail {
template <typename T, typename U>
inline void compare_masked(const LocalTensor<U>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,
                           CMPMODE cmpMode, const aopt::sim::vec::lanes& ln, const BinaryRepeatParams& p,
                           const aopt::sim::src_loc& loc) {
  namespace v = aopt::sim::vec;
  const v::layout l0{p.src0BlkStride, p.src0RepStride}, l1{p.src1BlkStride, p.src1RepStride};
  v::check_operand(src1, v::extent(ln, l1, v::epb_v<T>), "src1", loc, "Compare");
  const T* b = src1.aopt_ptr();
  v::compare_lanes(dst, src0, ln, l0, cmpMode, true,
                   v::banks_of({{src0.aopt_addr(), l0.blk, 256, false}, {src1.aopt_addr(), l1.blk, 256, false}}),
                   "Compare", loc, [&](uint32_t r, uint32_t i) { return b[v::lane_off(l1, v::epb_v<T>, r, i)]; });
}
}  // namespace aopt_detail

template <typename T, typename U, bool isSetMask = true>
inline void Compare(const LocalTensor<U>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,
                    CMPMODE cmpMode, const uint64_t mask[], const int32_t repeatTimes,
                    const BinaryRepeatParams& repeatParams, AOPT_VEC_LOC) {
  const auto ln =
      aopt::sim::vec::lanes_from_bits(isSetMask, mask, repeatTimes, aopt::sim::vec::epr_v<T>, loc, "Compare");
  aopt_detail::compare_masked(dst, src0, src1, cmpMode, ln, repeatParams, loc);
}
template <typename T, typename U, bool isSetMask = true>
inline void Compare(const LocalTensor<U>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,
                    CMPMODE cmpMode, uint64_t mask, const int32_t repeatTimes, const BinaryRepeatParams& repeatParams,
                    AOPT_VEC_LOC) {
  const auto ln =
      aopt::sim::vec::lanes_from_mask(isSetMask, mask, repeatTimes, aopt::sim::vec::epr_v<T>, loc, "Compare");
  aopt_detail::compare_masked(dst, src0, src1, cmpMode, ln, repeatParams, loc);
}

// ---- CompareScalar -------------------------------------------------------------------------------

template <typename T, typename U>
inline void CompareScalar(const LocalTensor<U>& dst, const LocalTensor<T>& src0,
                          const aopt::sim::vec::nodeduce_t<T> src1Scalar, CMPMODE cmpMode, uint32_t count,
                          AOPT_VEC_LOC) {
  namespace v = aopt::sim::vec;
  const auto ln = v::lanes_from_count(count, v::epr_v<T>, loc, "CompareScalar");
  const T s = src1Scalar;
  v::compare_lanes(dst, src0, ln, v::layout{1, 8}, cmpMode, false, 0, "CompareScalar", loc,
                   [&](uint32_t, uint32_t) { return s; });
}
template <typename T, typename U, bool isSetMask = true>
inline void CompareScalar(const LocalTensor<U>& dst, const LocalTensor<T>& src0,
                          const aopt::sim::vec::nodeduce_t<T> src1Scalar, CMPMODE cmpMode, uint64_t mask,
                          const int32_t repeatTimes, const UnaryRepeatParams& repeatParams, AOPT_VEC_LOC) {
  namespace v = aopt::sim::vec;
  const auto ln = v::lanes_from_mask(isSetMask, mask, repeatTimes, v::epr_v<T>, loc, "CompareScalar");
  const T s = src1Scalar;
  v::compare_lanes(dst, src0, ln, v::layout{repeatParams.srcBlkStride, repeatParams.srcRepStride}, cmpMode, true,
                   v::banks_of({{src0.aopt_addr(), repeatParams.srcBlkStride, 256, false}}), "CompareScalar", loc,
                   [&](uint32_t, uint32_t) { return s; });
}
template <typename T, typename U, bool isSetMask = true>
inline void CompareScalar(const LocalTensor<U>& dst, const LocalTensor<T>& src0,
                          const aopt::sim::vec::nodeduce_t<T> src1Scalar, CMPMODE cmpMode, const uint64_t mask[],
                          const int32_t repeatTimes, const UnaryRepeatParams& repeatParams, AOPT_VEC_LOC) {
  namespace v = aopt::sim::vec;
  const auto ln = v::lanes_from_bits(isSetMask, mask, repeatTimes, v::epr_v<T>, loc, "CompareScalar");
  const T s = src1Scalar;
  v::compare_lanes(dst, src0, ln, v::layout{repeatParams.srcBlkStride, repeatParams.srcRepStride}, cmpMode, true,
                   v::banks_of({{src0.aopt_addr(), repeatParams.srcBlkStride, 256, false}}), "CompareScalar", loc,
                   [&](uint32_t, uint32_t) { return s; });
}

// ---- Select --------------------------------------------------------------------------------------

template <typename T, typename U>
inline void Select(const LocalTensor<T>& dst, const LocalTensor<U>& selMask, const LocalTensor<T>& src0,
                   const LocalTensor<T>& src1, SELMODE selMode, uint32_t count, AOPT_VEC_LOC) {
  namespace v = aopt::sim::vec;
  const auto ln = v::lanes_from_count(count, v::epr_v<T>, loc, "Select");
  const v::layout l{1, 8};
  v::check_operand(src1, count, "src1", loc, "Select");
  const T* b = src1.aopt_ptr();
  v::select_lanes(dst, selMask, src0, ln, l, l, selMode,
                  v::banks_of({{src0.aopt_addr(), 1, 256, false}, {src1.aopt_addr(), 1, 256, false},
                               {dst.aopt_addr(), 1, 256, true}}),
                  loc, [&](uint32_t r, uint32_t i) { return b[v::lane_off(l, v::epb_v<T>, r, i)]; });
}
template <typename T, typename U>
inline void Select(const LocalTensor<T>& dst, const LocalTensor<U>& selMask, const LocalTensor<T>& src0,
                   const aopt::sim::vec::nodeduce_t<T> src1Scalar, SELMODE selMode, uint32_t count, AOPT_VEC_LOC) {
  namespace v = aopt::sim::vec;
  const auto ln = v::lanes_from_count(count, v::epr_v<T>, loc, "Select");
  const v::layout l{1, 8};
  const T s = src1Scalar;
  v::select_lanes(dst, selMask, src0, ln, l, l, selMode,
                  v::banks_of({{src0.aopt_addr(), 1, 256, false}, {dst.aopt_addr(), 1, 256, true}}), loc,
                  [&](uint32_t, uint32_t) { return s; });
}

namespace aopt_detail {
template <typename T, typename U>
inline void select_masked(const LocalTensor<T>& dst, const LocalTensor<U>& selMask, const LocalTensor<T>& src0,
                          const LocalTensor<T>& src1, SELMODE selMode, const aopt::sim::vec::lanes& ln,
                          const BinaryRepeatParams& p, const aopt::sim::src_loc& loc) {
  namespace v = aopt::sim::vec;
  const v::layout ld{p.dstBlkStride, p.dstRepStride}, l0{p.src0BlkStride, p.src0RepStride},
      l1{p.src1BlkStride, p.src1RepStride};
  v::check_operand(src1, v::extent(ln, l1, v::epb_v<T>), "src1", loc, "Select");
  const T* b = src1.aopt_ptr();
  v::select_lanes(dst, selMask, src0, ln, ld, l0, selMode,
                  v::banks_of({{src0.aopt_addr(), l0.blk, 256, false}, {src1.aopt_addr(), l1.blk, 256, false},
                               {dst.aopt_addr(), ld.blk, 256, true}}),
                  loc, [&](uint32_t r, uint32_t i) { return b[v::lane_off(l1, v::epb_v<T>, r, i)]; });
}
template <typename T, typename U>
inline void select_masked_scalar(const LocalTensor<T>& dst, const LocalTensor<U>& selMask, const LocalTensor<T>& src0,
                                 T s, SELMODE selMode, const aopt::sim::vec::lanes& ln, const BinaryRepeatParams& p,
                                 const aopt::sim::src_loc& loc) {
  namespace v = aopt::sim::vec;
  const v::layout ld{p.dstBlkStride, p.dstRepStride}, l0{p.src0BlkStride, p.src0RepStride};
  v::select_lanes(dst, selMask, src0, ln, ld, l0, selMode,
                  v::banks_of({{src0.aopt_addr(), l0.blk, 256, false}, {dst.aopt_addr(), ld.blk, 256, true}}), loc,
                  [&](uint32_t, uint32_t) { return s; });
}
}  // namespace aopt_detail

template <typename T, typename U, bool isSetMask = true>
inline void Select(const LocalTensor<T>& dst, const LocalTensor<U>& selMask, const LocalTensor<T>& src0,
                   const LocalTensor<T>& src1, SELMODE selMode, uint64_t mask, const int32_t repeatTimes,
                   const BinaryRepeatParams& repeatParams, AOPT_VEC_LOC) {
  const auto ln = aopt::sim::vec::lanes_from_mask(isSetMask, mask, repeatTimes, aopt::sim::vec::epr_v<T>, loc, "Select");
  aopt_detail::select_masked(dst, selMask, src0, src1, selMode, ln, repeatParams, loc);
}
template <typename T, typename U, bool isSetMask = true>
inline void Select(const LocalTensor<T>& dst, const LocalTensor<U>& selMask, const LocalTensor<T>& src0,
                   const LocalTensor<T>& src1, SELMODE selMode, const uint64_t mask[], const int32_t repeatTimes,
                   const BinaryRepeatParams& repeatParams, AOPT_VEC_LOC) {
  const auto ln = aopt::sim::vec::lanes_from_bits(isSetMask, mask, repeatTimes, aopt::sim::vec::epr_v<T>, loc, "Select");
  aopt_detail::select_masked(dst, selMask, src0, src1, selMode, ln, repeatParams, loc);
}
template <typename T, typename U, bool isSetMask = true>
inline void Select(const LocalTensor<T>& dst, const LocalTensor<U>& selMask, const LocalTensor<T>& src0,
                   const aopt::sim::vec::nodeduce_t<T> src1Scalar, SELMODE selMode, uint64_t mask,
                   const int32_t repeatTimes, const BinaryRepeatParams& repeatParams, AOPT_VEC_LOC) {
  const auto ln = aopt::sim::vec::lanes_from_mask(isSetMask, mask, repeatTimes, aopt::sim::vec::epr_v<T>, loc, "Select");
  aopt_detail::select_masked_scalar(dst, selMask, src0, static_cast<T>(src1Scalar), selMode, ln, repeatParams, loc);
}
template <typename T, typename U, bool isSetMask = true>
inline void Select(const LocalTensor<T>& dst, const LocalTensor<U>& selMask, const LocalTensor<T>& src0,
                   const aopt::sim::vec::nodeduce_t<T> src1Scalar, SELMODE selMode, const uint64_t mask[],
                   const int32_t repeatTimes, const BinaryRepeatParams& repeatParams, AOPT_VEC_LOC) {
  const auto ln = aopt::sim::vec::lanes_from_bits(isSetMask, mask, repeatTimes, aopt::sim::vec::epr_v<T>, loc, "Select");
  aopt_detail::select_masked_scalar(dst, selMask, src0, static_cast<T>(src1Scalar), selMode, ln, repeatParams, loc);
}

}  // namespace AscendC
