// Element-wise vector instructions: binary (Add Sub Mul Div Max Min And Or), unary (Exp Ln Abs
// Sqrt Rsqrt Reciprocal Relu Not), scalar operand (Adds Muls Maxs Mins LeakyRelu ShiftLeft
// ShiftRight) and Axpy, each in the count form and the two mask forms (continuous `uint64_t
// mask`, bitwise `uint64_t mask[2]`) with repeatTimes and Binary/UnaryRepeatParams.
// Each call appends one rec_kind::vector record.
#pragma once

#include <cmath>
#include <cstring>
#include <limits>

#include "aopt_sim/kernel/vec_base.h"

namespace aopt::sim::vec {

// ---- engines ---------------------------------------------------------------------------------

template <typename T, class F>
inline void binary_count(const LocalTensor<T>& dst, const LocalTensor<T>& s0, const LocalTensor<T>& s1,
                         std::int64_t count, vec_class c, const char* api, const src_loc& loc, F f) {
  const lanes ln = lanes_from_count(count, epr_v<T>, loc, api);
  check_operand(dst, ln.count, "dst", loc, api);
  check_operand(s0, ln.count, "src0", loc, api);
  check_operand(s1, ln.count, "src1", loc, api);
  T* d = dst.aopt_ptr();
  const T* a = s0.aopt_ptr();
  const T* b = s1.aopt_ptr();
  const std::int64_t n = count;
  // f(a, b), or f(a, b, dst) for the three-operand forms that also read dst (FusedMulAdd).
  constexpr bool reads_dst = std::is_invocable_v<F, T, T, T>;
  for (std::int64_t i = 0; i < n; ++i) {
    if constexpr (reads_dst) {
      d[i] = f(a[i], b[i], d[i]);
    } else {
      d[i] = f(a[i], b[i]);
    }
  }
  if (ln.repeats == 0) return;
  const bank_op src0{s0.aopt_addr(), 1, 256, false}, src1{s1.aopt_addr(), 1, 256, false},
      dst_r{dst.aopt_addr(), 1, 256, false}, dst_w{dst.aopt_addr(), 1, 256, true};
  record_vec(c, sizeof(T), ln.repeats, dst.aopt_addr(),
             reads_dst ? banks_of({src0, src1, dst_r, dst_w}) : banks_of({src0, src1, dst_w}), loc, api);
}

template <typename T, class F>
inline void binary_lanes(const LocalTensor<T>& dst, const LocalTensor<T>& s0, const LocalTensor<T>& s1,
                         const lanes& ln, const AscendC::BinaryRepeatParams& p, vec_class c, const char* api,
                         const src_loc& loc, F f) {
  constexpr std::uint32_t epb = epb_v<T>;
  const layout ld{p.dstBlkStride, p.dstRepStride}, l0{p.src0BlkStride, p.src0RepStride},
      l1{p.src1BlkStride, p.src1RepStride};
  check_operand(dst, extent(ln, ld, epb), "dst", loc, api);
  check_operand(s0, extent(ln, l0, epb), "src0", loc, api);
  check_operand(s1, extent(ln, l1, epb), "src1", loc, api);
  T* d = dst.aopt_ptr();
  const T* a = s0.aopt_ptr();
  const T* b = s1.aopt_ptr();
  // f(a, b), or f(a, b, dst) for the three-operand forms that also read dst (MulAddDst).
  constexpr bool reads_dst = std::is_invocable_v<F, T, T, T>;
  ln.for_each([&](std::uint32_t r, std::uint32_t i) {
    T& out = d[lane_off(ld, epb, r, i)];
    if constexpr (reads_dst) {
      out = f(a[lane_off(l0, epb, r, i)], b[lane_off(l1, epb, r, i)], out);
    } else {
      out = f(a[lane_off(l0, epb, r, i)], b[lane_off(l1, epb, r, i)]);
    }
  });
  if (ln.repeats == 0) return;
  const bank_op src0{s0.aopt_addr(), l0.blk, 256, false}, src1{s1.aopt_addr(), l1.blk, 256, false},
      dst_r{dst.aopt_addr(), ld.blk, 256, false}, dst_w{dst.aopt_addr(), ld.blk, 256, true};
  record_vec(c, sizeof(T), ln.repeats, dst.aopt_addr(),
             reads_dst ? banks_of({src0, src1, dst_r, dst_w}) : banks_of({src0, src1, dst_w}), loc, api);
}

template <typename D, typename S, class F>
inline void unary_count(const LocalTensor<D>& dst, const LocalTensor<S>& src, std::int64_t count, vec_class c,
                        const char* api, const src_loc& loc, F f) {
  constexpr std::uint32_t wide = sizeof(D) > sizeof(S) ? sizeof(D) : sizeof(S);
  const lanes ln = lanes_from_count(count, 256 / wide, loc, api);
  check_operand(dst, ln.count, "dst", loc, api);
  check_operand(src, ln.count, "src", loc, api);
  D* d = dst.aopt_ptr();
  const S* a = src.aopt_ptr();
  const std::int64_t n = count;
  for (std::int64_t i = 0; i < n; ++i) d[i] = f(a[i]);
  if (ln.repeats == 0) return;
  record_vec(c, wide, ln.repeats, dst.aopt_addr(),
             banks_of({{src.aopt_addr(), 1, 256 * static_cast<std::uint32_t>(sizeof(S)) / wide, false},
                       {dst.aopt_addr(), 1, 256 * static_cast<std::uint32_t>(sizeof(D)) / wide, true}}),
             loc, api);
}

template <typename D, typename S, class F>
inline void unary_lanes(const LocalTensor<D>& dst, const LocalTensor<S>& src, const lanes& ln,
                        const AscendC::UnaryRepeatParams& p, vec_class c, const char* api, const src_loc& loc, F f) {
  constexpr std::uint32_t wide = sizeof(D) > sizeof(S) ? sizeof(D) : sizeof(S);
  const layout ld{p.dstBlkStride, p.dstRepStride}, ls{p.srcBlkStride, p.srcRepStride};
  check_operand(dst, extent(ln, ld, epb_v<D>), "dst", loc, api);
  check_operand(src, extent(ln, ls, epb_v<S>), "src", loc, api);
  D* d = dst.aopt_ptr();
  const S* a = src.aopt_ptr();
  ln.for_each([&](std::uint32_t r, std::uint32_t i) {
    d[lane_off(ld, epb_v<D>, r, i)] = f(a[lane_off(ls, epb_v<S>, r, i)]);
  });
  if (ln.repeats == 0) return;
  record_vec(c, wide, ln.repeats, dst.aopt_addr(),
             banks_of({{src.aopt_addr(), ls.blk, 256 * static_cast<std::uint32_t>(sizeof(S)) / wide, false},
                       {dst.aopt_addr(), ld.blk, 256 * static_cast<std::uint32_t>(sizeof(D)) / wide, true}}),
             loc, api);
}

// ---- element operations ------------------------------------------------------------------------

template <typename T>
inline auto bits_of(T v) {
  using U = std::conditional_t<sizeof(T) == 1, std::uint8_t,
                               std::conditional_t<sizeof(T) == 2, std::uint16_t,
                                                  std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>>>;
  U u;
  std::memcpy(&u, &v, sizeof u);
  return u;
}
template <typename T, typename U>
inline T from_bits(U u) {
  T v;
  std::memcpy(&v, &u, sizeof v);
  return v;
}

struct op_add { template <class T> T operator()(T a, T b) const { return wrap_add(a, b); } };
struct op_sub { template <class T> T operator()(T a, T b) const { return wrap_sub(a, b); } };
struct op_mul { template <class T> T operator()(T a, T b) const { return wrap_mul(a, b); } };
// FusedMulAdd's three operands: dst = src0 * dst + src1 (binary_count/binary_lanes pass dst third).
struct op_fused_mul_add { template <class T> T operator()(T a, T b, T d) const { return wrap_add(wrap_mul(a, d), b); } };
struct op_div { template <class T> T operator()(T a, T b) const { return div_op(a, b); } };
struct op_max { template <class T> T operator()(T a, T b) const { return a < b ? b : a; } };
struct op_min { template <class T> T operator()(T a, T b) const { return b < a ? b : a; } };
struct op_and {
  template <class T> T operator()(T a, T b) const {
    return from_bits<T>(static_cast<decltype(bits_of(a))>(bits_of(a) & bits_of(b)));
  }
};
struct op_or {
  template <class T> T operator()(T a, T b) const {
    return from_bits<T>(static_cast<decltype(bits_of(a))>(bits_of(a) | bits_of(b)));
  }
};

struct op_exp { template <class T> T operator()(T a) const {
  if constexpr (std::is_same_v<T, double>) return std::exp(a); else return static_cast<T>(std::exp(static_cast<float>(a))); } };
struct op_ln { template <class T> T operator()(T a) const {
  if constexpr (std::is_same_v<T, double>) return std::log(a); else return static_cast<T>(std::log(static_cast<float>(a))); } };
struct op_sqrt { template <class T> T operator()(T a) const { return static_cast<T>(std::sqrt(static_cast<float>(a))); } };
struct op_rsqrt { template <class T> T operator()(T a) const { return static_cast<T>(1.0f / std::sqrt(static_cast<float>(a))); } };
struct op_rec { template <class T> T operator()(T a) const { return static_cast<T>(1.0f / static_cast<float>(a)); } };
struct op_abs {
  template <class T> T operator()(T a) const {
    if constexpr (std::is_unsigned_v<T>) {
      return a;
    } else if constexpr (std::is_integral_v<T>) {
      return a < 0 ? wrap_sub(T(0), a) : a;
    } else {
      using U = decltype(bits_of(a));
      constexpr U magnitude = static_cast<U>(std::numeric_limits<U>::max() >> 1);
      return from_bits<T>(static_cast<U>(bits_of(a) & magnitude));
    }
  }
};
struct op_relu { template <class T> T operator()(T a) const { return T(0) < a ? a : T(0); } };
struct op_not {
  template <class T> T operator()(T a) const { return from_bits<T>(static_cast<decltype(bits_of(a))>(~bits_of(a))); }
};

template <class T>
struct op_adds { T s; T operator()(T a) const { return wrap_add(a, s); } };
template <class T>
struct op_muls { T s; T operator()(T a) const { return wrap_mul(a, s); } };
template <class T>
struct op_maxs { T s; T operator()(T a) const { return a < s ? s : a; } };
template <class T>
struct op_mins { T s; T operator()(T a) const { return s < a ? s : a; } };
template <class T>
struct op_lrelu { T s; T operator()(T a) const { return a < T(0) ? wrap_mul(a, s) : a; } };
template <class T>
struct op_shl {
  T s;
  T operator()(T a) const {
    using U = std::make_unsigned_t<T>;
    const unsigned sh = static_cast<unsigned>(s);
    return sh >= sizeof(T) * 8 ? T(0) : static_cast<T>(static_cast<U>(static_cast<U>(a) << sh));
  }
};
template <class T>
struct op_shr {
  T s;
  bool round = false;
  T operator()(T a) const {
    const unsigned sh = static_cast<unsigned>(s);
    if (sh == 0) return a;
    if (sh >= sizeof(T) * 8) return std::is_signed_v<T> && a < 0 ? T(-1) : T(0);
    T r = static_cast<T>(a >> sh);  // arithmetic for signed types
    if (round && ((a >> (sh - 1)) & 1)) r = wrap_add(r, T(1));
    return r;
  }
};

}  // namespace aopt::sim::vec

// ---- AscendC API -------------------------------------------------------------------------------

#define AOPT_VEC_LOC aopt::sim::src_loc loc = aopt::sim::src_loc::current()

#define AOPT_VEC_BINARY(NAME, CLASS, OP)                                                                       \
  template <typename T, bool isSetMask = true>                                                                 \
  inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,          \
                   const int32_t& count, AOPT_VEC_LOC) {                                                       \
    aopt::sim::vec::binary_count(dst, src0, src1, count, aopt::sim::vec_class::CLASS, #NAME, loc, OP{});       \
  }                                                                                                            \
  template <typename T, bool isSetMask = true, typename Dst, aopt::sim::vec::if_tensor_t<Dst, T> = 0>         \
  inline void NAME(const Dst& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,                     \
                   const int32_t& count) {                                                                     \
    NAME<T, isSetMask>(dst, src0, src1, count, aopt::sim::vec::indirect_loc(#NAME));                          \
  }                                                                                                            \
  template <typename T, bool isSetMask = true>                                                                 \
  inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,          \
                   const uint64_t mask[], const int32_t repeatTimes, const BinaryRepeatParams& repeatParams,   \
                   AOPT_VEC_LOC) {                                                                             \
    const auto ln = aopt::sim::vec::lanes_from_bits(isSetMask, mask, repeatTimes, aopt::sim::vec::epr_v<T>,    \
                                                    loc, #NAME);                                               \
    aopt::sim::vec::binary_lanes(dst, src0, src1, ln, repeatParams, aopt::sim::vec_class::CLASS, #NAME, loc,   \
                                 OP{});                                                                        \
  }                                                                                                            \
  template <typename T, bool isSetMask = true>                                                                 \
  inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,          \
                   uint64_t mask, const int32_t repeatTimes, const BinaryRepeatParams& repeatParams,           \
                   AOPT_VEC_LOC) {                                                                             \
    const auto ln = aopt::sim::vec::lanes_from_mask(isSetMask, mask, repeatTimes, aopt::sim::vec::epr_v<T>,    \
                                                    loc, #NAME);                                               \
    aopt::sim::vec::binary_lanes(dst, src0, src1, ln, repeatParams, aopt::sim::vec_class::CLASS, #NAME, loc,   \
                                 OP{});                                                                        \
  }                                                                                                            \
  template <typename T, bool isSetMask = true, typename Dst, aopt::sim::vec::if_tensor_t<Dst, T> = 0>         \
  inline void NAME(const Dst& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1, uint64_t mask,      \
                   const aopt::sim::vec::repeat_u8_t<T> repeatTime,                                            \
                   const BinaryRepeatParams& repeatParams) {                                                   \
    NAME<T, isSetMask>(dst, src0, src1, mask, static_cast<int32_t>(repeatTime), repeatParams,                  \
                       aopt::sim::vec::indirect_loc(#NAME));                                                   \
  }

#define AOPT_VEC_UNARY(NAME, CLASS, OP)                                                                        \
  template <typename T, bool isSetMask = true>                                                                 \
  inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t& count, AOPT_VEC_LOC) { \
    aopt::sim::vec::unary_count(dst, src, count, aopt::sim::vec_class::CLASS, #NAME, loc, OP{});               \
  }                                                                                                            \
  template <typename T, bool isSetMask = true, typename Dst, aopt::sim::vec::if_tensor_t<Dst, T> = 0>         \
  inline void NAME(const Dst& dst, const LocalTensor<T>& src, const int32_t& count) {                          \
    NAME<T, isSetMask>(dst, src, count, aopt::sim::vec::indirect_loc(#NAME));                                 \
  }                                                                                                            \
  template <typename T, bool isSetMask = true>                                                                 \
  inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint64_t mask[],                \
                   const int32_t repeatTimes, const UnaryRepeatParams& repeatParams, AOPT_VEC_LOC) {           \
    const auto ln = aopt::sim::vec::lanes_from_bits(isSetMask, mask, repeatTimes, aopt::sim::vec::epr_v<T>,    \
                                                    loc, #NAME);                                               \
    aopt::sim::vec::unary_lanes(dst, src, ln, repeatParams, aopt::sim::vec_class::CLASS, #NAME, loc, OP{});    \
  }                                                                                                            \
  template <typename T, bool isSetMask = true>                                                                 \
  inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, uint64_t mask,                        \
                   const int32_t repeatTimes, const UnaryRepeatParams& repeatParams, AOPT_VEC_LOC) {           \
    const auto ln = aopt::sim::vec::lanes_from_mask(isSetMask, mask, repeatTimes, aopt::sim::vec::epr_v<T>,    \
                                                    loc, #NAME);                                               \
    aopt::sim::vec::unary_lanes(dst, src, ln, repeatParams, aopt::sim::vec_class::CLASS, #NAME, loc, OP{});    \
  }

// Scalar-operand forms: the scalar takes the tensor's type (not deduced from the argument).
#define AOPT_VEC_SCALAR(NAME, CLASS, OP)                                                                       \
  template <typename T, bool isSetMask = true>                                                                 \
  inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src,                                       \
                   const aopt::sim::vec::nodeduce_t<T>& scalarValue, const int32_t& count, AOPT_VEC_LOC) {     \
    aopt::sim::vec::unary_count(dst, src, count, aopt::sim::vec_class::CLASS, #NAME, loc, OP<T>{scalarValue}); \
  }                                                                                                            \
  template <typename T, bool isSetMask = true, typename Dst, aopt::sim::vec::if_tensor_t<Dst, T> = 0>         \
  inline void NAME(const Dst& dst, const LocalTensor<T>& src, const aopt::sim::vec::nodeduce_t<T>& scalarValue, \
                   const int32_t& count) {                                                                     \
    NAME<T, isSetMask>(dst, src, scalarValue, count, aopt::sim::vec::indirect_loc(#NAME));                    \
  }                                                                                                            \
  template <typename T, bool isSetMask = true>                                                                 \
  inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src,                                       \
                   const aopt::sim::vec::nodeduce_t<T>& scalarValue, const uint64_t mask[],                    \
                   const int32_t repeatTimes, const UnaryRepeatParams& repeatParams, AOPT_VEC_LOC) {           \
    const auto ln = aopt::sim::vec::lanes_from_bits(isSetMask, mask, repeatTimes, aopt::sim::vec::epr_v<T>,    \
                                                    loc, #NAME);                                               \
    aopt::sim::vec::unary_lanes(dst, src, ln, repeatParams, aopt::sim::vec_class::CLASS, #NAME, loc,           \
                                OP<T>{scalarValue});                                                           \
  }                                                                                                            \
  template <typename T, bool isSetMask = true>                                                                 \
  inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src,                                       \
                   const aopt::sim::vec::nodeduce_t<T>& scalarValue, uint64_t mask,                            \
                   const int32_t repeatTimes, const UnaryRepeatParams& repeatParams, AOPT_VEC_LOC) {           \
    const auto ln = aopt::sim::vec::lanes_from_mask(isSetMask, mask, repeatTimes, aopt::sim::vec::epr_v<T>,    \
                                                    loc, #NAME);                                               \
    aopt::sim::vec::unary_lanes(dst, src, ln, repeatParams, aopt::sim::vec_class::CLASS, #NAME, loc,           \
                                OP<T>{scalarValue});                                                           \
  }

namespace AscendC {

AOPT_VEC_BINARY(Add, binary, aopt::sim::vec::op_add)
AOPT_VEC_BINARY(Sub, binary, aopt::sim::vec::op_sub)
AOPT_VEC_BINARY(Mul, binary, aopt::sim::vec::op_mul)
AOPT_VEC_BINARY(Div, div, aopt::sim::vec::op_div)
AOPT_VEC_BINARY(Max, binary, aopt::sim::vec::op_max)
AOPT_VEC_BINARY(Min, binary, aopt::sim::vec::op_min)
AOPT_VEC_BINARY(And, binary, aopt::sim::vec::op_and)
AOPT_VEC_BINARY(Or, binary, aopt::sim::vec::op_or)

AOPT_VEC_UNARY(Exp, exp_ln, aopt::sim::vec::op_exp)
AOPT_VEC_UNARY(Ln, exp_ln, aopt::sim::vec::op_ln)
AOPT_VEC_UNARY(Abs, unary, aopt::sim::vec::op_abs)
AOPT_VEC_UNARY(Sqrt, sqrt, aopt::sim::vec::op_sqrt)
AOPT_VEC_UNARY(Rsqrt, unary, aopt::sim::vec::op_rsqrt)
AOPT_VEC_UNARY(Reciprocal, unary, aopt::sim::vec::op_rec)
AOPT_VEC_UNARY(Relu, unary, aopt::sim::vec::op_relu)
AOPT_VEC_UNARY(Not, unary, aopt::sim::vec::op_not)

AOPT_VEC_SCALAR(Adds, unary, aopt::sim::vec::op_adds)
AOPT_VEC_SCALAR(Muls, unary, aopt::sim::vec::op_muls)
AOPT_VEC_SCALAR(Maxs, unary, aopt::sim::vec::op_maxs)
AOPT_VEC_SCALAR(Mins, unary, aopt::sim::vec::op_mins)
AOPT_VEC_SCALAR(LeakyRelu, unary, aopt::sim::vec::op_lrelu)
AOPT_VEC_SCALAR(ShiftLeft, unary, aopt::sim::vec::op_shl)

// ShiftRight: the mask forms take an extra roundEn (round the shifted-out half bit up).
template <typename T, bool isSetMask = true>
inline void ShiftRight(const LocalTensor<T>& dst, const LocalTensor<T>& src,
                       const aopt::sim::vec::nodeduce_t<T>& scalarValue, const int32_t& count, AOPT_VEC_LOC) {
  aopt::sim::vec::unary_count(dst, src, count, aopt::sim::vec_class::unary, "ShiftRight", loc,
                              aopt::sim::vec::op_shr<T>{scalarValue, false});
}
template <typename T, bool isSetMask = true>
inline void ShiftRight(const LocalTensor<T>& dst, const LocalTensor<T>& src,
                       const aopt::sim::vec::nodeduce_t<T>& scalarValue, const uint64_t mask[],
                       const int32_t repeatTimes, const UnaryRepeatParams& repeatParams, bool roundEn = false,
                       AOPT_VEC_LOC) {
  const auto ln = aopt::sim::vec::lanes_from_bits(isSetMask, mask, repeatTimes, aopt::sim::vec::epr_v<T>, loc,
                                                  "ShiftRight");
  aopt::sim::vec::unary_lanes(dst, src, ln, repeatParams, aopt::sim::vec_class::unary, "ShiftRight", loc,
                              aopt::sim::vec::op_shr<T>{scalarValue, roundEn});
}
template <typename T, bool isSetMask = true>
inline void ShiftRight(const LocalTensor<T>& dst, const LocalTensor<T>& src,
                       const aopt::sim::vec::nodeduce_t<T>& scalarValue, uint64_t mask, const int32_t repeatTimes,
                       const UnaryRepeatParams& repeatParams, bool roundEn = false, AOPT_VEC_LOC) {
  const auto ln = aopt::sim::vec::lanes_from_mask(isSetMask, mask, repeatTimes, aopt::sim::vec::epr_v<T>, loc,
                                                  "ShiftRight");
  aopt::sim::vec::unary_lanes(dst, src, ln, repeatParams, aopt::sim::vec_class::unary, "ShiftRight", loc,
                              aopt::sim::vec::op_shr<T>{scalarValue, roundEn});
}

// FusedMulAdd: dst = src0 * dst + src1, its count and mask forms (the three-operand mul_add class of
// the profile); each step rounds to T, as Axpy.
AOPT_VEC_BINARY(FusedMulAdd, mul_add, aopt::sim::vec::op_fused_mul_add)

}  // namespace AscendC

namespace aopt::sim::vec {
// MulAddDst (基础API/Memory矢量计算/复合计算/MulAddDst.md): dst (T) = src0 * src1 + dst with sources
// of type U, T = U or T = float with U = half (PAR 64: a repeat is 256 bytes of the wider type);
// the product rounds to U, the sum to T, as each step of sim's other compound instructions.
template <typename T, typename U>
inline void mul_add_dst(const AscendC::LocalTensor<T>& dst, const AscendC::LocalTensor<U>& s0, const AscendC::LocalTensor<U>& s1,
                        const lanes& ln, const layout& ld, const layout& l0, const layout& l1, const src_loc& loc) {
  static_assert(std::is_same_v<T, U> || (std::is_same_v<T, float> && std::is_same_v<U, half>),
                "MulAddDst: dst and sources of one type, or float dst with half sources (MulAddDst.md)");
  constexpr const char* api = "MulAddDst";
  check_operand(dst, extent(ln, ld, epb_v<T>), "dst", loc, api);
  check_operand(s0, extent(ln, l0, epb_v<U>), "src0", loc, api);
  check_operand(s1, extent(ln, l1, epb_v<U>), "src1", loc, api);
  T* d = dst.aopt_ptr();
  const U* a = s0.aopt_ptr();
  const U* b = s1.aopt_ptr();
  ln.for_each([&](std::uint32_t r, std::uint32_t i) {
    T& out = d[lane_off(ld, epb_v<T>, r, i)];
    const U prod = wrap_mul(a[lane_off(l0, epb_v<U>, r, i)], b[lane_off(l1, epb_v<U>, r, i)]);
    out = wrap_add(static_cast<T>(prod), out);
  });
  if (ln.repeats == 0) return;
  record_vec(vec_class::mul_add, sizeof(T) > sizeof(U) ? sizeof(T) : sizeof(U), ln.repeats, dst.aopt_addr(),
             banks_of({{s0.aopt_addr(), l0.blk, 256, false}, {s1.aopt_addr(), l1.blk, 256, false},
                       {dst.aopt_addr(), ld.blk, 256, false}, {dst.aopt_addr(), ld.blk, 256, true}}),
             loc, api);
}
template <typename T, typename U>
constexpr std::uint32_t mul_add_epr = 256 / (sizeof(T) > sizeof(U) ? sizeof(T) : sizeof(U));
}  // namespace aopt::sim::vec

namespace AscendC {

template <typename T, typename U, bool isSetMask = true>
inline void MulAddDst(const LocalTensor<T>& dst, const LocalTensor<U>& src0, const LocalTensor<U>& src1, const int32_t& count,
                      AOPT_VEC_LOC) {
  namespace v = aopt::sim::vec;
  const auto ln = v::lanes_from_count(count, v::mul_add_epr<T, U>, loc, "MulAddDst");
  // Contiguous: each repeat's elements right after the last one's, in each operand's own width.
  constexpr std::uint32_t epr = v::mul_add_epr<T, U>;
  const v::layout ld{1, static_cast<std::uint32_t>(epr * sizeof(T) / 32)}, ls{1, static_cast<std::uint32_t>(epr * sizeof(U) / 32)};
  v::mul_add_dst(dst, src0, src1, ln, ld, ls, ls, loc);
}
template <typename T, typename U, bool isSetMask = true>
inline void MulAddDst(const LocalTensor<T>& dst, const LocalTensor<U>& src0, const LocalTensor<U>& src1, const uint64_t mask[],
                      const int32_t repeatTimes, const BinaryRepeatParams& p, AOPT_VEC_LOC) {
  namespace v = aopt::sim::vec;
  const auto ln = v::lanes_from_bits(isSetMask, mask, repeatTimes, v::mul_add_epr<T, U>, loc, "MulAddDst");
  v::mul_add_dst(dst, src0, src1, ln, {p.dstBlkStride, p.dstRepStride}, {p.src0BlkStride, p.src0RepStride},
                 {p.src1BlkStride, p.src1RepStride}, loc);
}
template <typename T, typename U, bool isSetMask = true>
inline void MulAddDst(const LocalTensor<T>& dst, const LocalTensor<U>& src0, const LocalTensor<U>& src1, uint64_t mask,
                      const int32_t repeatTimes, const BinaryRepeatParams& p, AOPT_VEC_LOC) {
  namespace v = aopt::sim::vec;
  const auto ln = v::lanes_from_mask(isSetMask, mask, repeatTimes, v::mul_add_epr<T, U>, loc, "MulAddDst");
  v::mul_add_dst(dst, src0, src1, ln, {p.dstBlkStride, p.dstRepStride}, {p.src0BlkStride, p.src0RepStride},
                 {p.src1BlkStride, p.src1RepStride}, loc);
}

// Axpy: dst = src * scalar + dst (T = U, or T = float with U = half). Each step rounds to T.
template <typename T, typename U, bool isSetMask = true>
inline void Axpy(const LocalTensor<T>& dst, const LocalTensor<U>& src, const aopt::sim::vec::nodeduce_t<U> scalarValue,
                 const int32_t& count, AOPT_VEC_LOC) {
  const auto ln = aopt::sim::vec::lanes_from_count(count, 256 / (sizeof(T) > sizeof(U) ? sizeof(T) : sizeof(U)),
                                                   loc, "Axpy");
  aopt::sim::vec::check_operand(dst, ln.count, "dst", loc, "Axpy");
  aopt::sim::vec::check_operand(src, ln.count, "src", loc, "Axpy");
  T* d = dst.aopt_ptr();
  const U* s = src.aopt_ptr();
  const T sc = static_cast<T>(scalarValue);
  for (int32_t i = 0; i < count; ++i) {
    const T prod = aopt::sim::vec::wrap_mul(static_cast<T>(s[i]), sc);
    d[i] = aopt::sim::vec::wrap_add(prod, d[i]);
  }
  if (ln.repeats == 0) return;
  aopt::sim::vec::record_vec(aopt::sim::vec_class::binary, sizeof(T) > sizeof(U) ? sizeof(T) : sizeof(U),
                             ln.repeats, dst.aopt_addr(),
                             aopt::sim::vec::banks_of({{src.aopt_addr(), 1, 256, false},
                                                       {dst.aopt_addr(), 1, 256, false},
                                                       {dst.aopt_addr(), 1, 256, true}}),
                             loc, "Axpy");
}
template <typename T, typename U, bool isSetMask = true>
inline void Axpy(const LocalTensor<T>& dst, const LocalTensor<U>& src, const aopt::sim::vec::nodeduce_t<U> scalarValue,
                 uint64_t mask, const int32_t repeatTimes, const UnaryRepeatParams& repeatParams, AOPT_VEC_LOC) {
  constexpr std::uint32_t wide = sizeof(T) > sizeof(U) ? sizeof(T) : sizeof(U);
  const auto ln = aopt::sim::vec::lanes_from_mask(isSetMask, mask, repeatTimes, 256 / wide, loc, "Axpy");
  const T sc = static_cast<T>(scalarValue);
  const aopt::sim::vec::layout ld{repeatParams.dstBlkStride, repeatParams.dstRepStride},
      ls{repeatParams.srcBlkStride, repeatParams.srcRepStride};
  aopt::sim::vec::check_operand(dst, aopt::sim::vec::extent(ln, ld, aopt::sim::vec::epb_v<T>), "dst", loc, "Axpy");
  aopt::sim::vec::check_operand(src, aopt::sim::vec::extent(ln, ls, aopt::sim::vec::epb_v<U>), "src", loc, "Axpy");
  T* d = dst.aopt_ptr();
  const U* s = src.aopt_ptr();
  ln.for_each([&](std::uint32_t r, std::uint32_t i) {
    T& o = d[aopt::sim::vec::lane_off(ld, aopt::sim::vec::epb_v<T>, r, i)];
    const T prod = aopt::sim::vec::wrap_mul(static_cast<T>(s[aopt::sim::vec::lane_off(ls, aopt::sim::vec::epb_v<U>, r, i)]), sc);
    o = aopt::sim::vec::wrap_add(prod, o);
  });
  if (ln.repeats == 0) return;
  aopt::sim::vec::record_vec(aopt::sim::vec_class::binary, wide, ln.repeats, dst.aopt_addr(),
                             aopt::sim::vec::banks_of({{src.aopt_addr(), ls.blk, 256 * sizeof(U) / wide, false},
                                                       {dst.aopt_addr(), ld.blk, 256 * sizeof(T) / wide, false},
                                                       {dst.aopt_addr(), ld.blk, 256 * sizeof(T) / wide, true}}),
                             loc, "Axpy");
}
template <typename T, typename U, bool isSetMask = true>
inline void Axpy(const LocalTensor<T>& dst, const LocalTensor<U>& src, const aopt::sim::vec::nodeduce_t<U> scalarValue,
                 const uint64_t mask[], const int32_t repeatTimes, const UnaryRepeatParams& repeatParams, AOPT_VEC_LOC) {
  constexpr std::uint32_t wide = sizeof(T) > sizeof(U) ? sizeof(T) : sizeof(U);
  auto& st = aopt::sim::vec::state();
  if (!st.counter) {
    // Validate and load the bitwise mask, then reuse the continuous-mask path on the register.
    (void)aopt::sim::vec::lanes_from_bits(isSetMask, mask, repeatTimes, 256 / wide, loc, "Axpy");
    Axpy<T, U, false>(dst, src, scalarValue, 0, repeatTimes, repeatParams, loc);
  } else {
    Axpy<T, U, isSetMask>(dst, src, scalarValue, mask[0], repeatTimes, repeatParams, loc);
  }
}

}  // namespace AscendC
