// Cast with every RoundMode, count form and mask forms.
// Float targets (half, float, bfloat16_t) round the exact source value to the target precision
// with the chosen mode (IEEE overflow to inf for nearest modes, to the largest finite value for
// the modes that round toward it); integer targets round to an integer and saturate; NaN -> 0.
// CAST_NONE means "exact, or nearest-even where the conversion loses precision".
// float -> float (and half -> half) with a rounding mode rounds to an integral value.
#pragma once

#include <cfloat>
#include <cmath>
#include <limits>

#include "aopt_sim/kernel/vec_elementwise.h"

namespace aopt::sim::vec {

template <typename T>
struct float_fmt {
  static constexpr bool is_float = false;
};
template <>
struct float_fmt<half> {
  static constexpr bool is_float = true;
  static constexpr int p = 11, emin = -14;
  static constexpr double maxv = 65504.0;
};
template <>
struct float_fmt<float> {
  static constexpr bool is_float = true;
  static constexpr int p = 24, emin = -126;
  static constexpr double maxv = static_cast<double>(FLT_MAX);
};
template <>
struct float_fmt<bfloat16_t> {
  static constexpr bool is_float = true;
  static constexpr int p = 8, emin = -126;
  static constexpr double maxv = 3.3895313892515355e38;  // 0x7f7f
};

inline double round_integral(double x, AscendC::RoundMode m) {
  using AscendC::RoundMode;
  switch (m) {
    case RoundMode::CAST_FLOOR: return std::floor(x);
    case RoundMode::CAST_CEIL: return std::ceil(x);
    case RoundMode::CAST_TRUNC: return std::trunc(x);
    case RoundMode::CAST_ROUND: return std::round(x);
    case RoundMode::CAST_ODD: {
      double t = std::trunc(x);
      if (t != x && std::fmod(t, 2.0) == 0.0) t += x > 0 ? 1.0 : -1.0;
      return t;
    }
    default: return std::nearbyint(x);  // ties to even in the default rounding mode
  }
}

// Rounds exact value `x` to the precision and range of float format D with mode `m`.
template <typename D>
inline double round_to_format(double x, AscendC::RoundMode m) {
  using AscendC::RoundMode;
  using F = float_fmt<D>;
  if (!std::isfinite(x) || x == 0.0) return x;
  int k = 0;
  (void)std::frexp(x, &k);  // |x| in [2^(k-1), 2^k)
  const int q = std::max(k - F::p, F::emin - F::p + 1);
  const double r = std::ldexp(round_integral(std::ldexp(x, -q), m), q);
  if (std::fabs(r) <= F::maxv) return r;
  const double inf = std::numeric_limits<double>::infinity();
  switch (m) {
    case RoundMode::CAST_TRUNC:
    case RoundMode::CAST_ODD: return x > 0 ? F::maxv : -F::maxv;
    case RoundMode::CAST_FLOOR: return x > 0 ? F::maxv : -inf;
    case RoundMode::CAST_CEIL: return x > 0 ? inf : -F::maxv;
    default: return x > 0 ? inf : -inf;
  }
}

template <typename D>
inline D from_double(double v) {
  if constexpr (std::is_same_v<D, bfloat16_t>) {
    return bfloat16_t(static_cast<float>(v));  // exact: v is already representable
  } else {
    return static_cast<D>(v);
  }
}

template <typename D, typename S>
struct cast_op {
  AscendC::RoundMode m;
  double deq = 1.0;  // int32 -> half with CAST_NONE: the deq conversion, half(s * SetDeqScale's scale)
  D operator()(S s) const {
    using AscendC::RoundMode;
    if constexpr (float_fmt<D>::is_float) {
      if constexpr (float_fmt<S>::is_float) {
        if constexpr (std::is_same_v<D, S>) {
          if (m == RoundMode::CAST_NONE) return s;
          return from_double<D>(round_integral(static_cast<double>(static_cast<float>(s)), m));
        } else if constexpr (float_fmt<S>::p <= float_fmt<D>::p && float_fmt<S>::emin >= float_fmt<D>::emin) {
          return static_cast<D>(static_cast<float>(s));  // exact widening
        } else {
          if (m == RoundMode::CAST_NONE || m == RoundMode::CAST_RINT) {
            if constexpr (std::is_same_v<D, bfloat16_t>) {
              return bfloat16_t(static_cast<float>(s));
            } else {
              return static_cast<D>(static_cast<float>(s));
            }
          }
          return from_double<D>(round_to_format<D>(static_cast<double>(static_cast<float>(s)), m));
        }
      } else {
        // integer source
        const double x = static_cast<double>(s) * deq;
        if constexpr (sizeof(S) * 8 <= static_cast<std::size_t>(float_fmt<D>::p)) {
          return from_double<D>(x);  // exact
        } else {
          return from_double<D>(round_to_format<D>(x, m == RoundMode::CAST_NONE ? RoundMode::CAST_RINT : m));
        }
      }
    } else {
      double x;
      if constexpr (float_fmt<S>::is_float) {
        const float f = static_cast<float>(s);
        if (std::isnan(f)) return D(0);
        x = round_integral(static_cast<double>(f), m == RoundMode::CAST_ODD ? RoundMode::CAST_RINT : m);
      } else {
        x = static_cast<double>(s);
      }
      constexpr double lo = static_cast<double>(std::numeric_limits<D>::min());
      constexpr double hi = static_cast<double>(std::numeric_limits<D>::max());
      if (x <= lo) return std::numeric_limits<D>::min();
      if (x >= hi) return std::numeric_limits<D>::max();
      return static_cast<D>(x);
    }
  }
};

// The conversion of Cast<D, S>(mode): the int32 -> half Cast in CAST_NONE mode is the deq
// conversion of the API reference ("Cast": int32_t -> half needs SetDeqScale): value x scale,
// rounded to half. Every other pair ignores the scale.
template <typename D, typename S>
inline cast_op<D, S> make_cast(AscendC::RoundMode m) {
  cast_op<D, S> op{m};
  if constexpr (std::is_same_v<D, half> && std::is_same_v<S, std::int32_t>) {
    if (m == AscendC::RoundMode::CAST_NONE) op.deq = state().deq_scale;
  }
  return op;
}

}  // namespace aopt::sim::vec

namespace AscendC {

// ScalarCast<T, U, roundMode>(v): one scalar converted by the rules Cast applies to each element.
// The API reference lists float -> half with CAST_ODD and float -> int32_t with CAST_ROUND,
// CAST_CEIL, CAST_FLOOR or CAST_RINT; any other combination does not compile.
template <typename T, typename U, RoundMode roundMode>
inline U ScalarCast(T valueIn) {
  static_assert(std::is_same_v<T, float> && (std::is_same_v<U, half> || std::is_same_v<U, std::int32_t>),
                "ScalarCast converts float to half or to int32_t only (AscendC API reference)");
  static_assert(!std::is_same_v<U, half> || roundMode == RoundMode::CAST_ODD,
                "ScalarCast float -> half takes RoundMode::CAST_ODD only");
  static_assert(!std::is_same_v<U, std::int32_t> ||
                    (roundMode == RoundMode::CAST_ROUND || roundMode == RoundMode::CAST_CEIL ||
                     roundMode == RoundMode::CAST_FLOOR || roundMode == RoundMode::CAST_RINT),
                "ScalarCast float -> int32_t takes CAST_ROUND, CAST_CEIL, CAST_FLOOR or CAST_RINT");
  return aopt::sim::vec::cast_op<U, T>{roundMode}(valueIn);
}

// SetDeqScale(half): the scale register of the int32 -> half deq Cast (scalar pipe, one cycle).
inline void SetDeqScale(half scale, AOPT_VEC_LOC) {
  aopt::sim::vec::state().deq_scale = static_cast<float>(scale);
  aopt::sim::record_scalar(0, 1, loc, "SetDeqScale");
}

template <typename T, typename U>
inline void Cast(const LocalTensor<T>& dst, const LocalTensor<U>& src, const RoundMode& round_mode,
                 const uint32_t count, AOPT_VEC_LOC) {
  aopt::sim::vec::unary_count(dst, src, count, aopt::sim::vec_class::cast, "Cast", loc,
                              aopt::sim::vec::make_cast<T, U>(round_mode));
}
// half -> int4b_t, the count form (Cast reference: int4b_t is a destination of half only; the kernel
// reinterprets an int8_t tensor, as the reference's int4b_t sample does, since a host tensor of int4
// does not exist). Two elements per byte: element 2k in the low nibble of byte k, 2k+1 in the high
// one; the value is rounded by round_mode (CAST_NONE as CAST_RINT, as for the other integer
// destinations) and saturated to [-8, 7]; NaN gives 0. `dst` covers (count + 1) / 2 bytes.
template <typename U>
inline void Cast(const LocalTensor<int4b_t>& dst, const LocalTensor<U>& src, const RoundMode& round_mode,
                 const uint32_t count, AOPT_VEC_LOC) {
  static_assert(std::is_same_v<U, half>, "Cast to int4b_t converts from half only (AscendC API reference)");
  namespace v = aopt::sim::vec;
  const v::lanes ln = v::lanes_from_count(count, 128, loc, "Cast");
  v::check_operand(dst, (ln.count + 1) / 2, "dst", loc, "Cast");
  v::check_operand(src, ln.count, "src", loc, "Cast");
  auto* d = reinterpret_cast<std::uint8_t*>(dst.aopt_ptr());
  const half* a = src.aopt_ptr();
  const RoundMode m =
      (round_mode == RoundMode::CAST_NONE || round_mode == RoundMode::CAST_ODD) ? RoundMode::CAST_RINT : round_mode;
  for (std::uint32_t i = 0; i < count; ++i) {
    const float x = static_cast<float>(a[i]);
    double r = std::isnan(x) ? 0.0 : v::round_integral(static_cast<double>(x), m);
    r = r < -8.0 ? -8.0 : (r > 7.0 ? 7.0 : r);
    const auto nib = static_cast<std::uint8_t>(static_cast<int>(r) & 0xF);
    std::uint8_t& b = d[i / 2];
    b = (i % 2 == 0) ? static_cast<std::uint8_t>((b & 0xF0) | nib) : static_cast<std::uint8_t>((b & 0x0F) | (nib << 4));
  }
  if (ln.repeats == 0) return;
  v::record_vec(aopt::sim::vec_class::cast, 2, ln.repeats, dst.aopt_addr(),
                v::banks_of({{src.aopt_addr(), 1, 256, false}, {dst.aopt_addr(), 1, 64, true}}), loc, "Cast");
}
template <typename T, typename U, bool isSetMask = true>
inline void Cast(const LocalTensor<T>& dst, const LocalTensor<U>& src, const RoundMode& round_mode, uint64_t mask,
                 const int32_t repeatTimes, const UnaryRepeatParams& repeatParams, AOPT_VEC_LOC) {
  constexpr uint32_t wide = sizeof(T) > sizeof(U) ? sizeof(T) : sizeof(U);
  const auto ln = aopt::sim::vec::lanes_from_mask(isSetMask, mask, repeatTimes, 256 / wide, loc, "Cast");
  aopt::sim::vec::unary_lanes(dst, src, ln, repeatParams, aopt::sim::vec_class::cast, "Cast", loc,
                              aopt::sim::vec::make_cast<T, U>(round_mode));
}
template <typename T, typename U, bool isSetMask = true>
inline void Cast(const LocalTensor<T>& dst, const LocalTensor<U>& src, const RoundMode& round_mode,
                 const uint64_t mask[], const int32_t repeatTimes, const UnaryRepeatParams& repeatParams,
                 AOPT_VEC_LOC) {
  constexpr uint32_t wide = sizeof(T) > sizeof(U) ? sizeof(T) : sizeof(U);
  const auto ln = aopt::sim::vec::lanes_from_bits(isSetMask, mask, repeatTimes, 256 / wide, loc, "Cast");
  aopt::sim::vec::unary_lanes(dst, src, ln, repeatParams, aopt::sim::vec_class::cast, "Cast", loc,
                              aopt::sim::vec::make_cast<T, U>(round_mode));
}

}  // namespace AscendC
