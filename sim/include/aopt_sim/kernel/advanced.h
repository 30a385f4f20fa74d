// Tier-5 advanced math API (the `lib/math/...`, `lib/activation/...` headers of CANN): Sigmoid,
// Tanh, Power (tensor^tensor, tensor^scalar, scalar^tensor), Erf, Sin, Cos, Log/Log2/Log10, the
// advanced Exp (taylorExpandLevel), Asin, Acos, Atan, Sign, Ceil, Floor (rounding through two casts).
//
// Values: computed per element in float (double for 32-bit integer Power) and rounded once to T,
// i.e. at least as accurate as the chip's library (which evaluates polynomial/series forms).
// Timing: the library composes each function of primitive vector instructions; we append one
// vector record per primitive of that composition (half inputs are cast to float first and
// back at the end, as the library does), so the timing model sees the real instruction mix.
// sharedTmpBuffer, when given, must be 32 B aligned; its content is not modelled.
#pragma once

#include <cmath>
#include <initializer_list>
#include <string>
#include <vector>

#include "aopt_sim/host/softmax_tiling.h"
#include "aopt_sim/kernel/vector.h"

namespace aopt::sim::adv {

using AscendC::LocalTensor;

// One record per primitive of the composition, over `count` elements of type T.
template <typename T>
inline void record_composition(std::initializer_list<vec_class> seq, std::uint32_t count, std::uint32_t dst_addr,
                               const src_loc& loc, const char* api) {
  if (count == 0) return;
  constexpr bool widen = sizeof(T) == 2 && !std::is_integral_v<T>;
  const std::uint32_t work_bytes = widen ? 4 : static_cast<std::uint32_t>(sizeof(T));
  const std::uint32_t reps = (count * work_bytes + 255) / 256;
  if (widen) vec::record_vec(vec_class::cast, 4, reps, dst_addr, 0, loc, api);
  for (vec_class c : seq) vec::record_vec(c, work_bytes, reps, dst_addr, 0, loc, api);
  if (widen) vec::record_vec(vec_class::cast, 4, reps, dst_addr, 0, loc, api);
}

inline void check_tmp(const LocalTensor<std::uint8_t>* tmp, const src_loc& loc, const char* api) {
  if (tmp != nullptr) vec::check_aligned(*tmp, "sharedTmpBuffer", loc, api);
}

template <typename T, class F>
inline void unary_fn(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<std::uint8_t>* tmp,
                     std::uint32_t count, std::initializer_list<vec_class> seq, const src_loc& loc, const char* api,
                     F f) {
  vec::check_operand(dst, count, "dst", loc, api);
  vec::check_operand(src, count, "src", loc, api);
  check_tmp(tmp, loc, api);
  T* d = dst.aopt_ptr();
  const T* s = src.aopt_ptr();
  for (std::uint32_t i = 0; i < count; ++i) d[i] = static_cast<T>(f(static_cast<float>(s[i])));
  record_composition<T>(seq, count, dst.aopt_addr(), loc, api);
}

template <typename T>
inline T pow_elem(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    // Integer power: repeated squaring with wrap-around; negative exponents give 0 except |a| == 1.
    if (b < 0) return a == 1 ? T(1) : (a == static_cast<T>(-1) ? ((b & 1) ? a : T(1)) : T(0));
    using U = std::make_unsigned_t<T>;
    U r = 1, x = static_cast<U>(a);
    for (auto e = static_cast<U>(b); e; e >>= 1) {
      if (e & 1) r = static_cast<U>(r * x);
      x = static_cast<U>(x * x);
    }
    return static_cast<T>(r);
  } else {
    return static_cast<T>(std::pow(static_cast<float>(a), static_cast<float>(b)));
  }
}

template <typename T, class A, class B>
inline void power_fn(const LocalTensor<T>& dst, std::uint32_t count, const LocalTensor<std::uint8_t>* tmp,
                     const src_loc& loc, A a_of, B b_of) {
  const char* api = "Power";
  vec::check_operand(dst, count, "dst", loc, api);
  check_tmp(tmp, loc, api);
  T* d = dst.aopt_ptr();
  for (std::uint32_t i = 0; i < count; ++i) d[i] = pow_elem<T>(a_of(i), b_of(i));
  // |x|, Ln, Mul, Exp, then sign and special-case fix-ups with Compare/Select.
  record_composition<T>({vec_class::unary, vec_class::exp_ln, vec_class::binary, vec_class::exp_ln,
                         vec_class::compare, vec_class::select, vec_class::compare, vec_class::select},
                        count, dst.aopt_addr(), loc, api);
}

}  // namespace aopt::sim::adv

// Declares the four documented overloads of a unary advanced function:
// (dst, src, sharedTmpBuffer, calCount), (dst, src, calCount), (dst, src, sharedTmpBuffer), (dst, src).
#define AOPT_ADV_UNARY(NAME, FN, ...)                                                                            \
  template <typename T, bool isReuseSource = false>                                                              \
  inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src,                                         \
                   const LocalTensor<uint8_t>& sharedTmpBuffer, const uint32_t calCount, AOPT_VEC_LOC) {         \
    aopt::sim::adv::unary_fn(dst, src, &sharedTmpBuffer, calCount, {__VA_ARGS__}, loc, #NAME, FN);               \
  }                                                                                                              \
  template <typename T, bool isReuseSource = false>                                                              \
  inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint32_t calCount, AOPT_VEC_LOC) { \
    aopt::sim::adv::unary_fn(dst, src, nullptr, calCount, {__VA_ARGS__}, loc, #NAME, FN);                        \
  }                                                                                                              \
  template <typename T, bool isReuseSource = false, typename Dst, aopt::sim::vec::if_tensor_t<Dst, T> = 0>       \
  inline void NAME(const Dst& dst, const LocalTensor<T>& src, const uint32_t calCount) {                         \
    NAME<T, isReuseSource>(dst, src, calCount, aopt::sim::vec::indirect_loc(#NAME));                             \
  }                                                                                                              \
  template <typename T, bool isReuseSource = false, typename Dst, aopt::sim::vec::if_tensor_t<Dst, T> = 0>       \
  inline void NAME(const Dst& dst, const LocalTensor<T>& src, const LocalTensor<uint8_t>& sharedTmpBuffer,       \
                   const uint32_t calCount) {                                                                    \
    NAME<T, isReuseSource>(dst, src, sharedTmpBuffer, calCount, aopt::sim::vec::indirect_loc(#NAME));            \
  }                                                                                                              \
  template <typename T, bool isReuseSource = false>                                                              \
  inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src,                                         \
                   const LocalTensor<uint8_t>& sharedTmpBuffer, AOPT_VEC_LOC) {                                  \
    aopt::sim::adv::unary_fn(dst, src, &sharedTmpBuffer, src.GetSize(), {__VA_ARGS__}, loc, #NAME, FN);          \
  }                                                                                                              \
  template <typename T, bool isReuseSource = false>                                                              \
  inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, AOPT_VEC_LOC) {                         \
    aopt::sim::adv::unary_fn(dst, src, nullptr, src.GetSize(), {__VA_ARGS__}, loc, #NAME, FN);                   \
  }

namespace AscendC {

namespace aopt_adv_fn {
inline float sigmoid(float x) { return 1.0f / (1.0f + std::exp(-x)); }
inline float tanh_(float x) { return std::tanh(x); }
inline float erf_(float x) { return std::erf(x); }
inline float sin_(float x) { return std::sin(x); }
inline float cos_(float x) { return std::cos(x); }
inline float log_(float x) { return std::log(x); }
inline float log2_(float x) { return std::log2(x); }
inline float log10_(float x) { return std::log10(x); }
inline float exp_(float x) { return std::exp(x); }
inline float tan_(float x) { return std::tan(x); }
inline float sinh_(float x) { return std::sinh(x); }
inline float cosh_(float x) { return std::cosh(x); }
inline float erfc_(float x) { return std::erfc(x); }
inline float asin_(float x) { return std::asin(x); }
inline float acos_(float x) { return std::acos(x); }
inline float atan_(float x) { return std::atan(x); }
inline float sign_(float x) { return x > 0.0f ? 1.0f : (x < 0.0f ? -1.0f : 0.0f); }
inline float ceil_(float x) { return std::ceil(x); }
inline float floor_(float x) { return std::floor(x); }
}  // namespace aopt_adv_fn

using aopt::sim::vec_class;

AOPT_ADV_UNARY(Sigmoid, aopt_adv_fn::sigmoid, vec_class::unary, vec_class::exp_ln, vec_class::unary, vec_class::div)
AOPT_ADV_UNARY(Tanh, aopt_adv_fn::tanh_, vec_class::unary, vec_class::unary, vec_class::unary, vec_class::exp_ln,
               vec_class::unary, vec_class::unary, vec_class::div)
AOPT_ADV_UNARY(Erf, aopt_adv_fn::erf_, vec_class::unary, vec_class::unary, vec_class::binary, vec_class::unary,
               vec_class::binary, vec_class::unary, vec_class::binary, vec_class::unary, vec_class::binary,
               vec_class::unary, vec_class::binary, vec_class::unary, vec_class::binary, vec_class::unary,
               vec_class::binary, vec_class::div)
AOPT_ADV_UNARY(Sin, aopt_adv_fn::sin_, vec_class::unary, vec_class::cast, vec_class::cast, vec_class::binary,
               vec_class::binary, vec_class::binary, vec_class::binary, vec_class::unary, vec_class::binary,
               vec_class::unary, vec_class::binary, vec_class::unary, vec_class::binary, vec_class::unary,
               vec_class::binary, vec_class::compare, vec_class::select)
AOPT_ADV_UNARY(Cos, aopt_adv_fn::cos_, vec_class::unary, vec_class::cast, vec_class::cast, vec_class::binary,
               vec_class::binary, vec_class::binary, vec_class::binary, vec_class::unary, vec_class::binary,
               vec_class::unary, vec_class::binary, vec_class::unary, vec_class::binary, vec_class::unary,
               vec_class::binary, vec_class::compare, vec_class::select)
AOPT_ADV_UNARY(Log, aopt_adv_fn::log_, vec_class::exp_ln)
AOPT_ADV_UNARY(Log2, aopt_adv_fn::log2_, vec_class::exp_ln, vec_class::unary)
AOPT_ADV_UNARY(Log10, aopt_adv_fn::log10_, vec_class::exp_ln, vec_class::unary)
AOPT_ADV_UNARY(Asin, aopt_adv_fn::asin_, vec_class::unary, vec_class::binary, vec_class::unary, vec_class::sqrt,
               vec_class::binary, vec_class::unary, vec_class::binary, vec_class::unary, vec_class::binary,
               vec_class::unary, vec_class::binary, vec_class::unary, vec_class::binary, vec_class::compare,
               vec_class::select)
AOPT_ADV_UNARY(Acos, aopt_adv_fn::acos_, vec_class::unary, vec_class::binary, vec_class::unary, vec_class::sqrt,
               vec_class::binary, vec_class::unary, vec_class::binary, vec_class::unary, vec_class::binary,
               vec_class::unary, vec_class::binary, vec_class::unary, vec_class::binary, vec_class::compare,
               vec_class::select, vec_class::unary)
AOPT_ADV_UNARY(Atan, aopt_adv_fn::atan_, vec_class::unary, vec_class::unary, vec_class::div, vec_class::binary,
               vec_class::unary, vec_class::binary, vec_class::unary, vec_class::binary, vec_class::unary,
               vec_class::binary, vec_class::unary, vec_class::binary, vec_class::compare, vec_class::select)
AOPT_ADV_UNARY(Ceil, aopt_adv_fn::ceil_, vec_class::cast, vec_class::cast)
AOPT_ADV_UNARY(Floor, aopt_adv_fn::floor_, vec_class::cast, vec_class::cast)
// Issue 34 (foreach family): Tan, Sinh, Cosh, Erfc. Their instruction sequences are not public
// [ASSUMED]: Tan as Sin's range reduction plus a division; Sinh/Cosh as two Exp, a subtraction or
// addition and a scaling; Erfc as Erf plus one subtraction.
AOPT_ADV_UNARY(Tan, aopt_adv_fn::tan_, vec_class::unary, vec_class::cast, vec_class::cast, vec_class::binary,
               vec_class::binary, vec_class::binary, vec_class::binary, vec_class::unary, vec_class::binary,
               vec_class::unary, vec_class::binary, vec_class::unary, vec_class::binary, vec_class::div)
AOPT_ADV_UNARY(Sinh, aopt_adv_fn::sinh_, vec_class::unary, vec_class::exp_ln, vec_class::exp_ln, vec_class::binary,
               vec_class::unary)
AOPT_ADV_UNARY(Cosh, aopt_adv_fn::cosh_, vec_class::unary, vec_class::exp_ln, vec_class::exp_ln, vec_class::binary,
               vec_class::unary)
AOPT_ADV_UNARY(Erfc, aopt_adv_fn::erfc_, vec_class::unary, vec_class::unary, vec_class::binary, vec_class::unary,
               vec_class::binary, vec_class::unary, vec_class::binary, vec_class::unary, vec_class::binary,
               vec_class::unary, vec_class::binary, vec_class::unary, vec_class::binary, vec_class::unary,
               vec_class::binary, vec_class::div, vec_class::unary)
AOPT_ADV_UNARY(Sign, aopt_adv_fn::sign_, vec_class::compare, vec_class::select, vec_class::compare,
               vec_class::select)

// Advanced Exp: Exp<T, taylorExpandLevel, isReuseSource>. Level 0 is one Exp instruction; a
// higher level splits x into integer and fraction parts and sums that many Taylor terms.
template <typename T, uint8_t taylorExpandLevel, bool isReuseSource = false>
inline void Exp(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<uint8_t>& sharedTmpBuffer,
                const uint32_t calCount, AOPT_VEC_LOC) {
  namespace a = aopt::sim::adv;
  a::unary_fn(dst, src, &sharedTmpBuffer, calCount, {vec_class::exp_ln}, loc, "Exp", aopt_adv_fn::exp_);
  for (uint8_t k = 0; k < taylorExpandLevel; ++k) {
    a::record_composition<T>({vec_class::binary, vec_class::unary}, calCount, dst.aopt_addr(), loc, "Exp");
  }
}
template <typename T, uint8_t taylorExpandLevel, bool isReuseSource = false>
inline void Exp(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint32_t calCount, AOPT_VEC_LOC) {
  namespace a = aopt::sim::adv;
  a::unary_fn(dst, src, nullptr, calCount, {vec_class::exp_ln}, loc, "Exp", aopt_adv_fn::exp_);
  for (uint8_t k = 0; k < taylorExpandLevel; ++k) {
    a::record_composition<T>({vec_class::binary, vec_class::unary}, calCount, dst.aopt_addr(), loc, "Exp");
  }
}

// ---- Power -------------------------------------------------------------------------------------

template <typename T, bool isReuseSource = false>
inline void Power(const LocalTensor<T>& dst, const LocalTensor<T>& src0Tensor, const LocalTensor<T>& src1Tensor,
                  const LocalTensor<uint8_t>& sharedTmpBuffer, uint32_t calCount, AOPT_VEC_LOC) {
  aopt::sim::vec::check_operand(src0Tensor, calCount, "src0Tensor", loc, "Power");
  aopt::sim::vec::check_operand(src1Tensor, calCount, "src1Tensor", loc, "Power");
  const T* a = src0Tensor.aopt_ptr();
  const T* b = src1Tensor.aopt_ptr();
  aopt::sim::adv::power_fn<T>(dst, calCount, &sharedTmpBuffer, loc, [&](uint32_t i) { return a[i]; },
                              [&](uint32_t i) { return b[i]; });
}
template <typename T, bool isReuseSource = false>
inline void Power(const LocalTensor<T>& dst, const LocalTensor<T>& src0Tensor, const LocalTensor<T>& src1Tensor,
                  uint32_t calCount, AOPT_VEC_LOC) {
  aopt::sim::vec::check_operand(src0Tensor, calCount, "src0Tensor", loc, "Power");
  aopt::sim::vec::check_operand(src1Tensor, calCount, "src1Tensor", loc, "Power");
  const T* a = src0Tensor.aopt_ptr();
  const T* b = src1Tensor.aopt_ptr();
  aopt::sim::adv::power_fn<T>(dst, calCount, nullptr, loc, [&](uint32_t i) { return a[i]; },
                              [&](uint32_t i) { return b[i]; });
}
template <typename T, bool isReuseSource = false>
inline void Power(const LocalTensor<T>& dst, const LocalTensor<T>& src0Tensor, const LocalTensor<T>& src1Tensor,
                  const LocalTensor<uint8_t>& sharedTmpBuffer, AOPT_VEC_LOC) {
  Power<T, isReuseSource>(dst, src0Tensor, src1Tensor, sharedTmpBuffer, src0Tensor.GetSize(), loc);
}
template <typename T, bool isReuseSource = false>
inline void Power(const LocalTensor<T>& dst, const LocalTensor<T>& src0Tensor, const LocalTensor<T>& src1Tensor,
                  AOPT_VEC_LOC) {
  Power<T, isReuseSource>(dst, src0Tensor, src1Tensor, src0Tensor.GetSize(), loc);
}

template <typename T, bool isReuseSource = false>
inline void Power(const LocalTensor<T>& dst, const LocalTensor<T>& src0Tensor,
                  const aopt::sim::vec::nodeduce_t<T>& src1Scalar, const LocalTensor<uint8_t>& sharedTmpBuffer,
                  uint32_t calCount, AOPT_VEC_LOC) {
  aopt::sim::vec::check_operand(src0Tensor, calCount, "src0Tensor", loc, "Power");
  const T* a = src0Tensor.aopt_ptr();
  const T e = src1Scalar;
  aopt::sim::adv::power_fn<T>(dst, calCount, &sharedTmpBuffer, loc, [&](uint32_t i) { return a[i]; },
                              [&](uint32_t) { return e; });
}
template <typename T, bool isReuseSource = false>
inline void Power(const LocalTensor<T>& dst, const LocalTensor<T>& src0Tensor,
                  const aopt::sim::vec::nodeduce_t<T>& src1Scalar, uint32_t calCount, AOPT_VEC_LOC) {
  aopt::sim::vec::check_operand(src0Tensor, calCount, "src0Tensor", loc, "Power");
  const T* a = src0Tensor.aopt_ptr();
  const T e = src1Scalar;
  aopt::sim::adv::power_fn<T>(dst, calCount, nullptr, loc, [&](uint32_t i) { return a[i]; },
                              [&](uint32_t) { return e; });
}
template <typename T, bool isReuseSource = false>
inline void Power(const LocalTensor<T>& dst, const LocalTensor<T>& src0Tensor,
                  const aopt::sim::vec::nodeduce_t<T>& src1Scalar, const LocalTensor<uint8_t>& sharedTmpBuffer,
                  AOPT_VEC_LOC) {
  Power<T, isReuseSource>(dst, src0Tensor, src1Scalar, sharedTmpBuffer, src0Tensor.GetSize(), loc);
}
template <typename T, bool isReuseSource = false>
inline void Power(const LocalTensor<T>& dst, const LocalTensor<T>& src0Tensor,
                  const aopt::sim::vec::nodeduce_t<T>& src1Scalar, AOPT_VEC_LOC) {
  Power<T, isReuseSource>(dst, src0Tensor, src1Scalar, src0Tensor.GetSize(), loc);
}

template <typename T, bool isReuseSource = false>
inline void Power(const LocalTensor<T>& dst, const aopt::sim::vec::nodeduce_t<T>& src0Scalar,
                  const LocalTensor<T>& src1Tensor, const LocalTensor<uint8_t>& sharedTmpBuffer, uint32_t calCount,
                  AOPT_VEC_LOC) {
  aopt::sim::vec::check_operand(src1Tensor, calCount, "src1Tensor", loc, "Power");
  const T base = src0Scalar;
  const T* b = src1Tensor.aopt_ptr();
  aopt::sim::adv::power_fn<T>(dst, calCount, &sharedTmpBuffer, loc, [&](uint32_t) { return base; },
                              [&](uint32_t i) { return b[i]; });
}
template <typename T, bool isReuseSource = false>
inline void Power(const LocalTensor<T>& dst, const aopt::sim::vec::nodeduce_t<T>& src0Scalar,
                  const LocalTensor<T>& src1Tensor, uint32_t calCount, AOPT_VEC_LOC) {
  aopt::sim::vec::check_operand(src1Tensor, calCount, "src1Tensor", loc, "Power");
  const T base = src0Scalar;
  const T* b = src1Tensor.aopt_ptr();
  aopt::sim::adv::power_fn<T>(dst, calCount, nullptr, loc, [&](uint32_t) { return base; },
                              [&](uint32_t i) { return b[i]; });
}
template <typename T, bool isReuseSource = false>
inline void Power(const LocalTensor<T>& dst, const aopt::sim::vec::nodeduce_t<T>& src0Scalar,
                  const LocalTensor<T>& src1Tensor, const LocalTensor<uint8_t>& sharedTmpBuffer, AOPT_VEC_LOC) {
  Power<T, isReuseSource>(dst, src0Scalar, src1Tensor, sharedTmpBuffer, src1Tensor.GetSize(), loc);
}
template <typename T, bool isReuseSource = false>
inline void Power(const LocalTensor<T>& dst, const aopt::sim::vec::nodeduce_t<T>& src0Scalar,
                  const LocalTensor<T>& src1Tensor, AOPT_VEC_LOC) {
  Power<T, isReuseSource>(dst, src0Scalar, src1Tensor, src1Tensor.GetSize(), loc);
}

// Sum (lib/reduce): dst[i] = the sum of the first n elements of row i, for `outter` rows of
// `inner` elements (inner: the row length padded to 32 bytes). Accumulated in float, rounded
// once; timed as one reduce_sum pass over the rows (plus the casts of half).
struct SumParams {
  uint32_t outter = 1;
  uint32_t inner = 0;
  uint32_t n = 0;
};

template <typename T, int32_t reduceDim = -1, bool isReuseSource = false, bool isBasicBlock = false>
inline void Sum(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<uint8_t>& sharedTmpBuffer,
                const SumParams& sumParams, AOPT_VEC_LOC) {
  aopt::sim::adv::check_tmp(&sharedTmpBuffer, loc, "Sum");
  const std::uint32_t rows = sumParams.outter;
  aopt::sim::vec::check_operand(src, rows * sumParams.inner, "src", loc, "Sum");
  aopt::sim::vec::check_operand(dst, rows, "dst", loc, "Sum");
  if (sumParams.n > sumParams.inner) {
    aopt::sim::fail(aopt::sim::hw_error_kind::param_out_of_range,
                    "SumParams.n (" + std::to_string(sumParams.n) + ") is larger than SumParams.inner (" +
                        std::to_string(sumParams.inner) + ")",
                    loc, "Sum");
  }
  const T* s = src.aopt_ptr();
  T* d = dst.aopt_ptr();
  for (std::uint32_t r = 0; r < rows; ++r) {
    float acc = 0;
    for (std::uint32_t j = 0; j < sumParams.n; ++j) acc += static_cast<float>(s[r * sumParams.inner + j]);
    d[r] = static_cast<T>(acc);
  }
  aopt::sim::adv::record_composition<T>({aopt::sim::vec_class::reduce_sum}, rows * sumParams.inner, dst.aopt_addr(), loc,
                                        "Sum");
}
template <typename T, int32_t reduceDim = -1, bool isReuseSource = false, bool isBasicBlock = false>
inline void Sum(const LocalTensor<T>& dst, const LocalTensor<T>& src, const SumParams& sumParams, AOPT_VEC_LOC) {
  Sum<T, reduceDim, isReuseSource, isBasicBlock>(dst, src, LocalTensor<uint8_t>(), sumParams, loc);
}

// BroadCast (lib/pad/broadcast.h): dim 1 broadcasts src[0] to dstShape[0] elements; dim 2 with
// axis 0 repeats the row src (1, N) into dst (M, N), axis 1 the column src (M, 1) into (M, N).
// dst may be src (the row form in place). Timing [ASSUMED: the library's Brcb/Copy sequence is not
// public per shape]: one duplicate-class record over the bytes written, as Duplicate.
template <typename T, int32_t dim, int32_t axis, bool isReuseSource = false>
inline void BroadCast(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint32_t dstShape[dim],
                      const uint32_t srcShape[dim], const LocalTensor<uint8_t>& sharedTmpBuffer, AOPT_VEC_LOC) {
  static_assert(dim == 1 || dim == 2, "BroadCast supports 1 or 2 dimensions");
  static_assert(axis == 0 || axis == 1, "BroadCast broadcasts axis 0 or 1");
  constexpr const char* api = "BroadCast";
  if (sharedTmpBuffer.aopt_valid()) aopt::sim::adv::check_tmp(&sharedTmpBuffer, loc, api);
  const std::uint32_t rows = dim == 1 ? 1 : dstShape[0];
  const std::uint32_t cols = dim == 1 ? dstShape[0] : dstShape[1];
  const bool row_form = dim == 1 || axis == 0;
  const std::uint32_t want_src_rows = row_form ? 1 : rows;
  const std::uint32_t want_src_cols = dim == 1 ? 1 : (row_form ? cols : 1);
  const std::uint32_t src_rows = dim == 1 ? 1 : srcShape[0];
  const std::uint32_t src_cols = dim == 1 ? srcShape[0] : srcShape[1];
  if (src_rows != want_src_rows || src_cols != want_src_cols) {
    aopt::sim::fail(aopt::sim::hw_error_kind::param_out_of_range,
                    "srcShape does not broadcast to dstShape along axis " + std::to_string(axis), loc, api);
  }
  const std::uint64_t n = std::uint64_t{rows} * cols;
  aopt::sim::vec::check_operand(src, std::uint64_t{src_rows} * src_cols, "src", loc, api);
  aopt::sim::vec::check_operand(dst, n, "dst", loc, api);
  std::vector<T> in(src.aopt_ptr(), src.aopt_ptr() + std::uint64_t{src_rows} * src_cols);
  T* d = dst.aopt_ptr();
  for (std::uint32_t r = 0; r < rows; ++r) {
    for (std::uint32_t c = 0; c < cols; ++c) {
      d[std::uint64_t{r} * cols + c] = dim == 1 ? in[0] : (axis == 0 ? in[c] : in[r]);
    }
  }
  if (n == 0) return;
  aopt::sim::vec::record_vec(aopt::sim::vec_class::duplicate, sizeof(T),
                             static_cast<std::uint32_t>((n * sizeof(T) + 255) / 256), dst.aopt_addr(), 0, loc, api);
}
template <typename T, int32_t dim, int32_t axis, bool isReuseSource = false>
inline void BroadCast(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint32_t dstShape[dim],
                      const uint32_t srcShape[dim], AOPT_VEC_LOC) {
  BroadCast<T, dim, axis, isReuseSource>(dst, src, dstShape, srcShape, LocalTensor<uint8_t>(), loc);
}
// Broadcast: the documented name of the same API (lib/pad/broadcast.h, "Broadcast";
// math/inplace_fused_matmul_softmax_grad calls it so).
template <typename T, int32_t dim, int32_t axis, bool isReuseSource = false>
inline void Broadcast(const LocalTensor<T>& dstLocal, const LocalTensor<T>& srcLocal, const uint32_t dstShape[dim],
                      const uint32_t srcShape[dim], const LocalTensor<uint8_t>& sharedTmpBuffer, AOPT_VEC_LOC) {
  BroadCast<T, dim, axis, isReuseSource>(dstLocal, srcLocal, dstShape, srcShape, sharedTmpBuffer, loc);
}
template <typename T, int32_t dim, int32_t axis, bool isReuseSource = false>
inline void Broadcast(const LocalTensor<T>& dstLocal, const LocalTensor<T>& srcLocal, const uint32_t dstShape[dim],
                      const uint32_t srcShape[dim], AOPT_VEC_LOC) {
  BroadCast<T, dim, axis, isReuseSource>(dstLocal, srcLocal, dstShape, srcShape, LocalTensor<uint8_t>(), loc);
}

// ---- Arange / ArithProgression ------------------------------------------------------------------
// dst[i] = firstValue + i * diffValue for i < count, built as the documentation describes: the
// first 8 values by scalar SetValue (half computed in float), then blocks of 8 up to 64 and
// blocks of 64 beyond, each an Adds of the block before it and 8 (64) differences, so floats
// round as the chip's additions do. Timing: one scalar access per first value, one 1-repeat Adds
// per extension block.
template <typename T>
inline void Arange(const LocalTensor<T>& dst, const T firstValue, const T diffValue, const int32_t count,
                   AOPT_VEC_LOC) {
  constexpr const char* api = "Arange";
  if (count <= 0) {
    aopt::sim::fail(aopt::sim::hw_error_kind::param_out_of_range,
                    "Arange count " + std::to_string(count) + " must be positive", loc, api);
  }
  aopt::sim::vec::check_operand(dst, static_cast<std::uint64_t>(count), "dst", loc, api);
  T* d = dst.aopt_ptr();
  const std::int32_t head = count < 8 ? count : 8;
  for (std::int32_t i = 0; i < head; ++i) {
    if constexpr (std::is_integral_v<T>) {
      d[i] = static_cast<T>(firstValue + static_cast<T>(i) * diffValue);
    } else {
      d[i] = static_cast<T>(static_cast<float>(firstValue) + static_cast<float>(i) * static_cast<float>(diffValue));
    }
    aopt::sim::record_ub_access(dst.aopt_addr() + static_cast<std::uint32_t>(i * sizeof(T)), sizeof(T), false, true,
                                loc, api);
  }
  auto extend = [&](std::int32_t from, std::int32_t block) {
    const T step = static_cast<T>(diffValue * static_cast<T>(block));
    const std::int32_t n = std::min(block, count - from);
    for (std::int32_t i = 0; i < n; ++i) d[from + i] = aopt::sim::vec::wrap_add(d[from - block + i], step);
    aopt::sim::vec::record_vec(aopt::sim::vec_class::unary, sizeof(T), 1,
                               dst.aopt_addr() + static_cast<std::uint32_t>(from * sizeof(T)), 0, loc, api);
  };
  std::int32_t done = head;
  while (done < count && done < 64) {
    extend(done, 8);
    done += 8;
  }
  while (done < count) {
    extend(done, 64);
    done += 64;
  }
}
// The earlier name of Arange (lib/index/arithprogression.h).
template <typename T>
inline void ArithProgression(const LocalTensor<T>& dst, const T firstValue, const T diffValue, const int32_t count,
                             AOPT_VEC_LOC) {
  Arange<T>(dst, firstValue, diffValue, count, loc);
}

// ---- SoftMax (ND) --------------------------------------------------------------------------------
// Per row of the [srcM, srcK] source (SoftMaxShapeInfo, else the tiling's srcM/srcK): max, exp(x -
// max), sum, exp / sum, as the documented algorithm; the kernel pads the rows to srcK (padding
// takes part, as the documentation warns). Computed in float, rounded once to the dst type. The
// sum and max outputs hold each row's value repeated over one 32-byte block. NZ data is not
// emulated. Timing: the documented steps (reduce max, broadcast, sub, exp, reduce sum,
// broadcast, div) as vector records over the data (half widened to float).
enum class SoftmaxMode { SOFTMAX_NORMAL = 0, SOFTMAX_OUTPUT_WITHOUT_BRC = 1 };
struct SoftmaxConfig {
  bool isCheckTiling = true;
  uint32_t oriSrcM = 0;
  uint32_t oriSrcK = 0;
  SoftmaxMode mode = SoftmaxMode::SOFTMAX_NORMAL;
};
constexpr SoftmaxConfig SOFTMAX_DEFAULT_CFG = {true, 0, 0, SoftmaxMode::SOFTMAX_NORMAL};

}  // namespace AscendC

namespace aopt::sim::adv {
// The [m, k] rows a SoftMax-family call works on (SoftMax.md, SoftmaxFlashV2.md, SoftmaxGrad.md:
// "softmaxShapeInfo", else the tiling's srcM/srcK); srcK must be 32-byte aligned ("srcK：尾轴长度，
// 必须32Byte对齐"). NZ data is not emulated.
struct softmax_rows {
  std::uint32_t m = 0;
  std::uint32_t k = 0;
  std::uint64_t n() const { return std::uint64_t{m} * k; }
};
inline softmax_rows softmax_shape(const optiling::SoftMaxTiling& tiling, const AscendC::SoftMaxShapeInfo& info,
                                  std::uint32_t elem_bytes, bool nz, const char* api, const src_loc& loc) {
  if (nz) fail(hw_error_kind::invalid_use, std::string(api) + " on NZ data (isDataFormatNZ) is not emulated", loc, api);
  const softmax_rows r{info.srcM != 0 ? info.srcM : tiling.srcM, info.srcK != 0 ? info.srcK : tiling.srcK};
  if (r.k * elem_bytes % 32 != 0) {
    fail(hw_error_kind::misaligned,
         std::string(api) + ": srcK " + std::to_string(r.k) + " is not a multiple of 32 bytes (pad the rows)", loc,
         api);
  }
  return r;
}
template <typename T>
inline float row_max(const T* s, std::uint32_t k) {
  float mx = -INFINITY;
  for (std::uint32_t c = 0; c < k; ++c) mx = std::max(mx, static_cast<float>(s[c]));
  return mx;
}
// exp(x - mx) of one row into `out`, in float; returns the row's sum of them.
template <typename T>
inline float exp_row(const T* s, std::uint32_t k, float mx, std::vector<float>& out) {
  out.resize(k);
  float total = 0.0f;
  for (std::uint32_t c = 0; c < k; ++c) {
    out[c] = std::exp(static_cast<float>(s[c]) - mx);
    total += out[c];
  }
  return total;
}
// Row r's value repeated over its `blk` elements (one 32-byte block, or 1 unbroadcast).
template <typename T>
inline void fill_row_block(const AscendC::LocalTensor<T>& t, std::uint32_t r, std::uint32_t blk, float v) {
  for (std::uint32_t j = 0; j < blk; ++j) t.aopt_ptr()[std::uint64_t{r} * blk + j] = static_cast<T>(v);
}

template <typename T1, typename T2>
inline void softmax_nd(const AscendC::LocalTensor<T1>& dst, const AscendC::LocalTensor<T2>* sum,
                       const AscendC::LocalTensor<T2>* max, const AscendC::LocalTensor<T1>& src,
                       const optiling::SoftMaxTiling& tiling, const AscendC::SoftMaxShapeInfo& info, bool nz,
                       const src_loc& loc) {
  constexpr const char* api = "SoftMax";
  const softmax_rows sh = softmax_shape(tiling, info, sizeof(T1), nz, api, loc);
  const std::uint32_t m = sh.m, k = sh.k;
  const std::uint64_t n = sh.n();
  vec::check_operand(src, n, "srcTensor", loc, api);
  vec::check_operand(dst, n, "dstTensor", loc, api);
  constexpr std::uint32_t blk = 32 / sizeof(T2);
  if (sum != nullptr) vec::check_operand(*sum, std::uint64_t{m} * blk, "sumTensor", loc, api);
  if (max != nullptr) vec::check_operand(*max, std::uint64_t{m} * blk, "maxTensor", loc, api);
  const T1* s = src.aopt_ptr();
  T1* d = dst.aopt_ptr();
  std::vector<float> row(k);
  for (std::uint32_t r = 0; r < m; ++r) {
    const T1* sr = s + std::uint64_t{r} * k;
    const float mx = row_max(sr, k);
    const float total = exp_row(sr, k, mx, row);
    for (std::uint32_t c = 0; c < k; ++c) d[std::uint64_t{r} * k + c] = static_cast<T1>(row[c] / total);
    if (sum != nullptr) fill_row_block(*sum, r, blk, total);
    if (max != nullptr) fill_row_block(*max, r, blk, mx);
  }
  record_composition<T1>({vec_class::reduce_max, vec_class::duplicate, vec_class::binary, vec_class::exp_ln,
                          vec_class::reduce_sum, vec_class::duplicate, vec_class::div},
                         static_cast<std::uint32_t>(n), dst.aopt_addr(), loc, api);
}
}  // namespace aopt::sim::adv

namespace AscendC {

template <typename T, bool isReuseSource = false, bool isBasicBlock = false, bool isDataFormatNZ = false,
          const SoftmaxConfig& config = SOFTMAX_DEFAULT_CFG>
inline void SoftMax(const LocalTensor<T>& dstTensor, const LocalTensor<T>& sumTensor, const LocalTensor<T>& maxTensor,
                    const LocalTensor<T>& srcTensor, const SoftMaxTiling& tiling,
                    const SoftMaxShapeInfo& softmaxShapeInfo = {}, AOPT_VEC_LOC) {
  aopt::sim::adv::softmax_nd<T, T>(dstTensor, &sumTensor, &maxTensor, srcTensor, tiling, softmaxShapeInfo,
                                   isDataFormatNZ, loc);
}
// half data with float sum and max.
template <typename T, bool isReuseSource = false, bool isBasicBlock = false, bool isDataFormatNZ = false,
          const SoftmaxConfig& config = SOFTMAX_DEFAULT_CFG>
inline void SoftMax(const LocalTensor<half>& dstTensor, const LocalTensor<float>& sumTensor,
                    const LocalTensor<float>& maxTensor, const LocalTensor<half>& srcTensor,
                    const SoftMaxTiling& tiling, const SoftMaxShapeInfo& softmaxShapeInfo = {}, AOPT_VEC_LOC) {
  aopt::sim::adv::softmax_nd<half, float>(dstTensor, &sumTensor, &maxTensor, srcTensor, tiling, softmaxShapeInfo,
                                          isDataFormatNZ, loc);
}
template <typename T, bool isReuseSource = false, bool isBasicBlock = false, bool isDataFormatNZ = false,
          const SoftmaxConfig& config = SOFTMAX_DEFAULT_CFG>
inline void SoftMax(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor, const SoftMaxTiling& tiling,
                    const SoftMaxShapeInfo& softmaxShapeInfo = {}, AOPT_VEC_LOC) {
  aopt::sim::adv::softmax_nd<T, T>(dstTensor, nullptr, nullptr, srcTensor, tiling, softmaxShapeInfo, isDataFormatNZ,
                                   loc);
}
// The forms with a caller's temporary buffer (sim needs none).
template <typename T, bool isReuseSource = false, bool isBasicBlock = false, bool isDataFormatNZ = false,
          const SoftmaxConfig& config = SOFTMAX_DEFAULT_CFG>
inline void SoftMax(const LocalTensor<T>& dstTensor, const LocalTensor<T>& sumTensor, const LocalTensor<T>& maxTensor,
                    const LocalTensor<T>& srcTensor, const LocalTensor<uint8_t>& sharedTmpBuffer,
                    const SoftMaxTiling& tiling, const SoftMaxShapeInfo& softmaxShapeInfo = {}, AOPT_VEC_LOC) {
  aopt::sim::adv::check_tmp(&sharedTmpBuffer, loc, "SoftMax");
  aopt::sim::adv::softmax_nd<T, T>(dstTensor, &sumTensor, &maxTensor, srcTensor, tiling, softmaxShapeInfo,
                                   isDataFormatNZ, loc);
}
template <typename T, bool isReuseSource = false, bool isBasicBlock = false, bool isDataFormatNZ = false,
          const SoftmaxConfig& config = SOFTMAX_DEFAULT_CFG>
inline void SoftMax(const LocalTensor<half>& dstTensor, const LocalTensor<float>& sumTensor,
                    const LocalTensor<float>& maxTensor, const LocalTensor<half>& srcTensor,
                    const LocalTensor<uint8_t>& sharedTmpBuffer, const SoftMaxTiling& tiling,
                    const SoftMaxShapeInfo& softmaxShapeInfo = {}, AOPT_VEC_LOC) {
  aopt::sim::adv::check_tmp(&sharedTmpBuffer, loc, "SoftMax");
  aopt::sim::adv::softmax_nd<half, float>(dstTensor, &sumTensor, &maxTensor, srcTensor, tiling, softmaxShapeInfo,
                                          isDataFormatNZ, loc);
}
template <typename T, bool isReuseSource = false, bool isBasicBlock = false, bool isDataFormatNZ = false,
          const SoftmaxConfig& config = SOFTMAX_DEFAULT_CFG>
inline void SoftMax(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor,
                    const LocalTensor<uint8_t>& sharedTmpBuffer, const SoftMaxTiling& tiling,
                    const SoftMaxShapeInfo& softmaxShapeInfo = {}, AOPT_VEC_LOC) {
  aopt::sim::adv::check_tmp(&sharedTmpBuffer, loc, "SoftMax");
  aopt::sim::adv::softmax_nd<T, T>(dstTensor, nullptr, nullptr, srcTensor, tiling, softmaxShapeInfo, isDataFormatNZ,
                                   loc);
}

// ---- SoftmaxFlashV2 (ND) -------------------------------------------------------------------------
// By the public documentation (SoftmaxFlashV2.md), per row of the [srcM, srcK] source
// (softmaxShapeInfo, else the tiling's srcM/srcK; padding columns take part, as documented):
//   isUpdate false: max = max(x), dst = exp(x - max), sum = sum(dst);
//   isUpdate true:  max = max(inMax, max(x)), dst = exp(x - max), expMax = exp(inMax - max),
//                   sum = expMax * inSum + sum(dst)
// (the documentation's Python: the running max of FlashAttention-2 and the rescaling of the old
// sum). dst is not divided by the sum. max, sum, expMax, inMax and inSum hold one value per row
// repeated over one 32-byte block (32 / sizeof of their type), or one value per row with
// config.mode SOFTMAX_OUTPUT_WITHOUT_BRC; the inputs are read at each row's first element. The
// documented reuse (dst = src, max = inMax, sum = inSum) works: a row's inputs are read before it
// is written. Computed in float, rounded once to each output's type. The outReduceMax forms also
// write the row's own max(x) (isUpdate true only) and, as documented, do nothing unless config.mode
// is SOFTMAX_OUTPUT_WITHOUT_BRC. Errors (the documented constraints): srcK not 32-byte aligned,
// operands smaller than their shape, sharedTmpBuffer overlapping src or dst, isBasicBlock on a
// shape that is no basic block (n a multiple of 64 in [256 / sizeof(T), 2048), m a multiple of 8;
// "isBasicBlock" in the template parameter table; not checked when config sets oriSrcM/oriSrcK,
// which then make isBasicBlock ineffective). config.isCheckTiling has no effect (sim computes from
// the shape, never from the tiling's split) and config.oriSrcM/oriSrcK are not read [ASSUMED: the
// shape they fix equals the one given]. Timing: the documented steps as vector records, over the
// data (reduce max, sub, exp, reduce sum) and over the [m, block] statistics (two broadcasts; with
// isUpdate max, sub, exp, mul, add).
}  // namespace AscendC

namespace aopt::sim::adv {
template <typename T1, typename T2>
struct flash_v2_operands {
  const AscendC::LocalTensor<T1>& dst;
  const AscendC::LocalTensor<T2>* reduce_max;  // the outReduceMax forms only
  const AscendC::LocalTensor<T2>& sum;
  const AscendC::LocalTensor<T2>& max;
  const AscendC::LocalTensor<T1>& src;
  const AscendC::LocalTensor<T1>& exp_max;
  const AscendC::LocalTensor<T2>& in_sum;
  const AscendC::LocalTensor<T2>& in_max;
  const AscendC::LocalTensor<std::uint8_t>* tmp;
};
struct flash_v2_mode {
  bool update = false;
  bool basic_block = false;
  bool nz = false;
  const AscendC::SoftmaxConfig* config = nullptr;
};

inline bool softmax_basic_block(const softmax_rows& sh, std::uint32_t elem_bytes) {
  return sh.k % 64 == 0 && sh.k >= 256 / elem_bytes && sh.k < 2048 && sh.m % 8 == 0;
}

// "不支持sharedTmpBuffer与源操作数和目的操作数地址重叠" (SoftmaxFlashV2.md, constraints).
template <typename T>
inline void check_tmp_apart(const AscendC::LocalTensor<std::uint8_t>& tmp, const AscendC::LocalTensor<T>& t,
                            std::uint64_t elems, const char* what, const src_loc& loc, const char* api) {
  const std::uint64_t a0 = tmp.aopt_addr(), a1 = a0 + tmp.GetSize();
  const std::uint64_t b0 = t.aopt_addr(), b1 = b0 + elems * sizeof(T);
  if (a0 < b1 && b0 < a1 && a1 > a0) {
    fail(hw_error_kind::invalid_use,
         std::string(api) + ": sharedTmpBuffer [" + std::to_string(a0) + ", " + std::to_string(a1) +
             ") overlaps " + what + " [" + std::to_string(b0) + ", " + std::to_string(b1) +
             "); the documentation forbids it: give the temporary space its own buffer",
         loc, api);
  }
}

template <typename T1, typename T2>
inline void flash_v2_checks(const flash_v2_operands<T1, T2>& o, const softmax_rows& sh, const flash_v2_mode& md,
                            std::uint32_t blk2, std::uint32_t blk1, const src_loc& loc, const char* api) {
  const bool shape_fixed = md.config != nullptr && (md.config->oriSrcM != 0 || md.config->oriSrcK != 0);
  if (md.basic_block && !shape_fixed && !softmax_basic_block(sh, sizeof(T1))) {
    fail(hw_error_kind::param_out_of_range,
         std::string(api) + ": isBasicBlock is set but [" + std::to_string(sh.m) + ", " + std::to_string(sh.k) +
             "] is no basic block (the last axis a multiple of 64 in [" + std::to_string(256 / sizeof(T1)) +
             ", 2048), the rows a multiple of 8): set isBasicBlock only when IsBasicBlockInSoftMax holds",
         loc, api);
  }
  vec::check_operand(o.src, sh.n(), "srcTensor", loc, api);
  vec::check_operand(o.dst, sh.n(), "dstTensor", loc, api);
  const std::uint64_t stats = std::uint64_t{sh.m} * blk2;
  vec::check_operand(o.sum, stats, "expSumTensor", loc, api);
  vec::check_operand(o.max, stats, "maxTensor", loc, api);
  if (o.reduce_max != nullptr && md.update) vec::check_operand(*o.reduce_max, stats, "outReduceMax", loc, api);
  if (md.update) {
    vec::check_operand(o.exp_max, std::uint64_t{sh.m} * blk1, "expMaxTensor", loc, api);
    vec::check_operand(o.in_sum, stats, "inExpSumTensor", loc, api);
    vec::check_operand(o.in_max, stats, "inMaxTensor", loc, api);
  }
  if (o.tmp != nullptr) {
    check_tmp(o.tmp, loc, api);
    check_tmp_apart(*o.tmp, o.src, sh.n(), "srcTensor", loc, api);
    check_tmp_apart(*o.tmp, o.dst, sh.n(), "dstTensor", loc, api);
  }
}

template <typename T1, typename T2>
inline void softmax_flash_v2(const flash_v2_operands<T1, T2>& o, const optiling::SoftMaxTiling& tiling,
                             const AscendC::SoftMaxShapeInfo& info, const flash_v2_mode& md, const src_loc& loc) {
  constexpr const char* api = "SoftmaxFlashV2";
  const bool unbroadcast = md.config != nullptr && md.config->mode == AscendC::SoftmaxMode::SOFTMAX_OUTPUT_WITHOUT_BRC;
  // The outReduceMax forms run only in the unbroadcast mode ("其配置为SOFTMAX_NORMAL模式时，接口功能不执行").
  if (o.reduce_max != nullptr && !unbroadcast) return;
  const softmax_rows sh = softmax_shape(tiling, info, sizeof(T1), md.nz, api, loc);
  const std::uint32_t blk2 = unbroadcast ? 1 : 32 / sizeof(T2), blk1 = unbroadcast ? 1 : 32 / sizeof(T1);
  flash_v2_checks(o, sh, md, blk2, blk1, loc, api);
  std::vector<float> row;
  for (std::uint32_t r = 0; r < sh.m; ++r) {
    const std::uint64_t base = std::uint64_t{r} * sh.k;
    const float own = row_max(o.src.aopt_ptr() + base, sh.k);
    float mx = own, scale = 0.0f, carried = 0.0f;
    if (md.update) {
      const float in_max = static_cast<float>(o.in_max.aopt_ptr()[std::uint64_t{r} * blk2]);
      carried = static_cast<float>(o.in_sum.aopt_ptr()[std::uint64_t{r} * blk2]);
      mx = std::max(in_max, own);
      scale = std::exp(in_max - mx);
    }
    const float total = exp_row(o.src.aopt_ptr() + base, sh.k, mx, row) + scale * carried;
    for (std::uint32_t c = 0; c < sh.k; ++c) o.dst.aopt_ptr()[base + c] = static_cast<T1>(row[c]);
    fill_row_block(o.max, r, blk2, mx);
    fill_row_block(o.sum, r, blk2, total);
    if (md.update) fill_row_block(o.exp_max, r, blk1, scale);
    if (md.update && o.reduce_max != nullptr) fill_row_block(*o.reduce_max, r, blk2, own);
  }
  record_composition<T1>({vec_class::reduce_max, vec_class::binary, vec_class::exp_ln, vec_class::reduce_sum},
                         static_cast<std::uint32_t>(sh.n()), o.dst.aopt_addr(), loc, api);
  if (md.update) {
    record_composition<T2>({vec_class::duplicate, vec_class::binary, vec_class::binary, vec_class::exp_ln,
                            vec_class::duplicate, vec_class::binary, vec_class::binary},
                           sh.m * blk2, o.sum.aopt_addr(), loc, api);
  } else {
    record_composition<T2>({vec_class::duplicate, vec_class::duplicate}, sh.m * blk2, o.sum.aopt_addr(), loc, api);
  }
}
}  // namespace aopt::sim::adv

namespace AscendC {

// The documented overloads (SoftmaxFlashV2.md, 函数原型): same types or half data with float
// statistics; with or without the outReduceMax output; the temporary space from the framework or
// the caller's sharedTmpBuffer (sim needs none, but checks it as documented).
#define AOPT_FLASH_V2_TEMPLATE                                                                      \
  template <typename T, bool isUpdate = false, bool isReuseSource = false, bool isBasicBlock = false, \
            bool isDataFormatNZ = false, const SoftmaxConfig& config = SOFTMAX_DEFAULT_CFG>
#define AOPT_FLASH_V2_MODE aopt::sim::adv::flash_v2_mode{isUpdate, isBasicBlock, isDataFormatNZ, &config}

AOPT_FLASH_V2_TEMPLATE
inline void SoftmaxFlashV2(const LocalTensor<T>& dstTensor, const LocalTensor<T>& expSumTensor,
                           const LocalTensor<T>& maxTensor, const LocalTensor<T>& srcTensor,
                           const LocalTensor<T>& expMaxTensor, const LocalTensor<T>& inExpSumTensor,
                           const LocalTensor<T>& inMaxTensor, const SoftMaxTiling& tiling,
                           const SoftMaxShapeInfo& softmaxShapeInfo = {}, AOPT_VEC_LOC) {
  aopt::sim::adv::softmax_flash_v2<T, T>({dstTensor, nullptr, expSumTensor, maxTensor, srcTensor, expMaxTensor,
                                          inExpSumTensor, inMaxTensor, nullptr},
                                         tiling, softmaxShapeInfo, AOPT_FLASH_V2_MODE, loc);
}
AOPT_FLASH_V2_TEMPLATE
inline void SoftmaxFlashV2(const LocalTensor<T>& dstTensor, const LocalTensor<T>& outReduceMax,
                           const LocalTensor<T>& outExpSum, const LocalTensor<T>& outMax, const LocalTensor<T>& srcTensor,
                           const LocalTensor<T>& outExpMax, const LocalTensor<T>& inExpSum, const LocalTensor<T>& inMax,
                           const SoftMaxTiling& tiling, const SoftMaxShapeInfo& softmaxShapeInfo = {}, AOPT_VEC_LOC) {
  aopt::sim::adv::softmax_flash_v2<T, T>(
      {dstTensor, &outReduceMax, outExpSum, outMax, srcTensor, outExpMax, inExpSum, inMax, nullptr}, tiling,
      softmaxShapeInfo, AOPT_FLASH_V2_MODE, loc);
}
AOPT_FLASH_V2_TEMPLATE
inline void SoftmaxFlashV2(const LocalTensor<half>& dstTensor, const LocalTensor<float>& expSumTensor,
                           const LocalTensor<float>& maxTensor, const LocalTensor<half>& srcTensor,
                           const LocalTensor<half>& expMaxTensor, const LocalTensor<float>& inExpSumTensor,
                           const LocalTensor<float>& inMaxTensor, const SoftMaxTiling& tiling,
                           const SoftMaxShapeInfo& softmaxShapeInfo = {}, AOPT_VEC_LOC) {
  aopt::sim::adv::softmax_flash_v2<half, float>({dstTensor, nullptr, expSumTensor, maxTensor, srcTensor, expMaxTensor,
                                                 inExpSumTensor, inMaxTensor, nullptr},
                                                tiling, softmaxShapeInfo, AOPT_FLASH_V2_MODE, loc);
}
AOPT_FLASH_V2_TEMPLATE
inline void SoftmaxFlashV2(const LocalTensor<T>& dstTensor, const LocalTensor<T>& outExpSum,
                           const LocalTensor<T>& outMax, const LocalTensor<T>& srcTensor, const LocalTensor<T>& outExpMax,
                           const LocalTensor<T>& inExpSum, const LocalTensor<T>& inMax,
                           const LocalTensor<uint8_t>& sharedTmpBuffer, const SoftMaxTiling& tiling,
                           const SoftMaxShapeInfo& softmaxShapeInfo = {}, AOPT_VEC_LOC) {
  aopt::sim::adv::softmax_flash_v2<T, T>(
      {dstTensor, nullptr, outExpSum, outMax, srcTensor, outExpMax, inExpSum, inMax, &sharedTmpBuffer}, tiling,
      softmaxShapeInfo, AOPT_FLASH_V2_MODE, loc);
}
AOPT_FLASH_V2_TEMPLATE
inline void SoftmaxFlashV2(const LocalTensor<T>& dstTensor, const LocalTensor<T>& outReduceMax,
                           const LocalTensor<T>& expSumTensor, const LocalTensor<T>& maxTensor,
                           const LocalTensor<T>& srcTensor, const LocalTensor<T>& expMaxTensor,
                           const LocalTensor<T>& inExpSumTensor, const LocalTensor<T>& inMaxTensor,
                           const LocalTensor<uint8_t>& sharedTmpBuffer, const SoftMaxTiling& tiling,
                           const SoftMaxShapeInfo& softmaxShapeInfo = {}, AOPT_VEC_LOC) {
  aopt::sim::adv::softmax_flash_v2<T, T>({dstTensor, &outReduceMax, expSumTensor, maxTensor, srcTensor, expMaxTensor,
                                          inExpSumTensor, inMaxTensor, &sharedTmpBuffer},
                                         tiling, softmaxShapeInfo, AOPT_FLASH_V2_MODE, loc);
}
AOPT_FLASH_V2_TEMPLATE
inline void SoftmaxFlashV2(const LocalTensor<half>& dstTensor, const LocalTensor<float>& expSumTensor,
                           const LocalTensor<float>& maxTensor, const LocalTensor<half>& srcTensor,
                           const LocalTensor<half>& expMaxTensor, const LocalTensor<float>& inExpSumTensor,
                           const LocalTensor<float>& inMaxTensor, const LocalTensor<uint8_t>& sharedTmpBuffer,
                           const SoftMaxTiling& tiling, const SoftMaxShapeInfo& softmaxShapeInfo = {}, AOPT_VEC_LOC) {
  aopt::sim::adv::softmax_flash_v2<half, float>({dstTensor, nullptr, expSumTensor, maxTensor, srcTensor, expMaxTensor,
                                                 inExpSumTensor, inMaxTensor, &sharedTmpBuffer},
                                                tiling, softmaxShapeInfo, AOPT_FLASH_V2_MODE, loc);
}
#undef AOPT_FLASH_V2_MODE
#undef AOPT_FLASH_V2_TEMPLATE

// ---- SoftmaxGrad / SoftmaxGradFront (ND) ---------------------------------------------------------
// By the public documentation, per row of the [srcM, srcK] operands (SoftMaxShapeInfo, else the
// tiling's srcM/srcK): d = sum(grad * src) over the row; isFront (and SoftmaxGradFront) writes d
// repeated over one 32-byte block per row ([srcM, 32 / sizeof(T)]), otherwise dst = (grad - d) *
// src. Computed in float, rounded once to T; padding columns take part, as the documentation says.
// dst may be src or grad (the documented reuse). NZ data is not emulated. Timing: the documented
// steps (mul, reduce sum, broadcast; then broadcast, sub, mul) as vector records over the data.
}  // namespace AscendC

namespace aopt::sim::adv {
template <typename T>
inline void softmax_grad_nd(const AscendC::LocalTensor<T>& dst, const AscendC::LocalTensor<T>& grad,
                            const AscendC::LocalTensor<T>& src, const optiling::SoftMaxTiling& tiling, bool isFront,
                            const AscendC::SoftMaxShapeInfo& info, bool nz, const char* api, const src_loc& loc) {
  const softmax_rows sh = softmax_shape(tiling, info, sizeof(T), nz, api, loc);
  const std::uint32_t m = sh.m, k = sh.k;
  constexpr std::uint32_t blk = 32 / sizeof(T);
  const std::uint64_t n = sh.n();
  vec::check_operand(grad, n, "gradTensor", loc, api);
  vec::check_operand(src, n, "srcTensor", loc, api);
  vec::check_operand(dst, isFront ? std::uint64_t{m} * blk : n, "dstTensor", loc, api);
  const T* g = grad.aopt_ptr();
  const T* s = src.aopt_ptr();
  T* d = dst.aopt_ptr();
  for (std::uint32_t r = 0; r < m; ++r) {
    const std::uint64_t base = std::uint64_t{r} * k;
    float dot = 0.0f;
    for (std::uint32_t c = 0; c < k; ++c) dot += static_cast<float>(g[base + c]) * static_cast<float>(s[base + c]);
    if (isFront) {
      for (std::uint32_t j = 0; j < blk; ++j) d[std::uint64_t{r} * blk + j] = static_cast<T>(dot);
      continue;
    }
    for (std::uint32_t c = 0; c < k; ++c) {
      const float y = (static_cast<float>(g[base + c]) - dot) * static_cast<float>(s[base + c]);
      d[base + c] = static_cast<T>(y);
    }
  }
  if (isFront) {
    record_composition<T>({vec_class::binary, vec_class::reduce_sum, vec_class::duplicate}, static_cast<std::uint32_t>(n),
                          dst.aopt_addr(), loc, api);
  } else {
    record_composition<T>({vec_class::binary, vec_class::reduce_sum, vec_class::duplicate, vec_class::duplicate,
                           vec_class::binary, vec_class::binary},
                          static_cast<std::uint32_t>(n), dst.aopt_addr(), loc, api);
  }
}
}  // namespace aopt::sim::adv

namespace AscendC {

template <typename T, bool isReuseSource = false, bool isDataFormatNZ = false>
inline void SoftmaxGrad(const LocalTensor<T>& dstTensor, const LocalTensor<T>& gradTensor,
                        const LocalTensor<T>& srcTensor, const SoftMaxTiling& tiling, bool isFront = false,
                        const SoftMaxShapeInfo& softmaxShapeInfo = {}, AOPT_VEC_LOC) {
  aopt::sim::adv::softmax_grad_nd<T>(dstTensor, gradTensor, srcTensor, tiling, isFront, softmaxShapeInfo,
                                     isDataFormatNZ, "SoftmaxGrad", loc);
}
template <typename T, bool isReuseSource = false, bool isDataFormatNZ = false>
inline void SoftmaxGrad(const LocalTensor<T>& dstTensor, const LocalTensor<T>& gradTensor,
                        const LocalTensor<T>& srcTensor, const LocalTensor<uint8_t>& sharedTmpBuffer,
                        const SoftMaxTiling& tiling, bool isFront = false, const SoftMaxShapeInfo& softmaxShapeInfo = {},
                        AOPT_VEC_LOC) {
  aopt::sim::adv::check_tmp(&sharedTmpBuffer, loc, "SoftmaxGrad");
  aopt::sim::adv::softmax_grad_nd<T>(dstTensor, gradTensor, srcTensor, tiling, isFront, softmaxShapeInfo,
                                     isDataFormatNZ, "SoftmaxGrad", loc);
}
template <typename T, bool isBasicBlock = false, bool isDataFormatNZ = false>
inline void SoftmaxGradFront(const LocalTensor<T>& dstTensor, const LocalTensor<T>& gradTensor,
                             const LocalTensor<T>& srcTensor, const SoftMaxTiling& tiling,
                             const SoftMaxShapeInfo& softmaxShapeInfo = {}, AOPT_VEC_LOC) {
  aopt::sim::adv::softmax_grad_nd<T>(dstTensor, gradTensor, srcTensor, tiling, true, softmaxShapeInfo, isDataFormatNZ,
                                     "SoftmaxGradFront", loc);
}
template <typename T, bool isBasicBlock = false, bool isDataFormatNZ = false>
inline void SoftmaxGradFront(const LocalTensor<T>& dstTensor, const LocalTensor<T>& gradTensor,
                             const LocalTensor<T>& srcTensor, const LocalTensor<uint8_t>& sharedTmpBuffer,
                             const SoftMaxTiling& tiling, const SoftMaxShapeInfo& softmaxShapeInfo = {}, AOPT_VEC_LOC) {
  aopt::sim::adv::check_tmp(&sharedTmpBuffer, loc, "SoftmaxGradFront");
  aopt::sim::adv::softmax_grad_nd<T>(dstTensor, gradTensor, srcTensor, tiling, true, softmaxShapeInfo, isDataFormatNZ,
                                     "SoftmaxGradFront", loc);
}

// ---- SelectWithBytesMask (issue 34) ----------------------------------------------------------
// By the public documentation: dst = mask == 0 ? src0 : src1, one of the sources a scalar, over
// [firstAxis, srcLastAxis] elements; the mask holds one byte-or-wider value per element (not bits),
// rows of maskLastAxis (>= srcLastAxis; the rest of each row is ignored). The mask's last axis is
// 32-byte aligned and a multiple of 16 elements, the source's 32-byte aligned. Timing: the
// documented composition, GatherMask (when the axes differ), Cast, Compare and Select, each over
// the whole source.
struct SelectWithBytesMaskShapeInfo {
  uint32_t firstAxis = 0;
  uint32_t srcLastAxis = 0;
  uint32_t maskLastAxis = 0;
};

}  // namespace AscendC

namespace aopt::sim::adv {
template <typename T, typename U, class Pick>
inline void select_bytes_mask(const LocalTensor<T>& dst, const LocalTensor<U>& mask, const LocalTensor<uint8_t>& tmp,
                              const AscendC::SelectWithBytesMaskShapeInfo& info, const src_loc& loc, Pick pick) {
  const char* api = "SelectWithBytesMask";
  const std::uint64_t rows = info.firstAxis, cols = info.srcLastAxis, mcols = info.maskLastAxis;
  if (mcols < cols || mcols % 16 != 0 || (mcols * sizeof(U)) % 32 != 0 || (cols * sizeof(T)) % 32 != 0) {
    aopt::sim::fail(aopt::sim::hw_error_kind::param_out_of_range,
              "shape info: maskLastAxis " + std::to_string(mcols) + " must be >= srcLastAxis " + std::to_string(cols) +
                  ", a multiple of 16 and 32-byte aligned, and srcLastAxis 32-byte aligned",
              loc, api);
  }
  vec::check_operand(dst, rows * cols, "dst", loc, api);
  vec::check_operand(mask, rows * mcols, "mask", loc, api);
  check_tmp(&tmp, loc, api);
  T* d = dst.aopt_ptr();
  const U* m = mask.aopt_ptr();
  for (std::uint64_t r = 0; r < rows; ++r) {
    for (std::uint64_t c = 0; c < cols; ++c) d[r * cols + c] = pick(m[r * mcols + c] == U(0), r * cols + c);
  }
  const auto n = static_cast<std::uint32_t>(rows * cols);
  if (mcols != cols) record_composition<T>({vec_class::unary}, n, dst.aopt_addr(), loc, api);  // GatherMask
  record_composition<T>({vec_class::cast, vec_class::compare, vec_class::select}, n, dst.aopt_addr(), loc, api);
}
}  // namespace aopt::sim::adv

namespace AscendC {

template <typename T, typename U, bool isReuseMask = true>
inline void SelectWithBytesMask(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const aopt::sim::vec::nodeduce_t<T> src1,
                                const LocalTensor<U>& mask, const LocalTensor<uint8_t>& sharedTmpBuffer,
                                const SelectWithBytesMaskShapeInfo& info, AOPT_VEC_LOC) {
  aopt::sim::vec::check_operand(src0, std::uint64_t(info.firstAxis) * info.srcLastAxis, "src0", loc, "SelectWithBytesMask");
  const T* a = src0.aopt_ptr();
  const T b = src1;
  aopt::sim::adv::select_bytes_mask(dst, mask, sharedTmpBuffer, info, loc,
                                    [&](bool zero, std::uint64_t i) { return zero ? a[i] : b; });
}
template <typename T, typename U, bool isReuseMask = true>
inline void SelectWithBytesMask(const LocalTensor<T>& dst, const aopt::sim::vec::nodeduce_t<T> src0, const LocalTensor<T>& src1,
                                const LocalTensor<U>& mask, const LocalTensor<uint8_t>& sharedTmpBuffer,
                                const SelectWithBytesMaskShapeInfo& info, AOPT_VEC_LOC) {
  aopt::sim::vec::check_operand(src1, std::uint64_t(info.firstAxis) * info.srcLastAxis, "src1", loc, "SelectWithBytesMask");
  const T a = src0;
  const T* b = src1.aopt_ptr();
  aopt::sim::adv::select_bytes_mask(dst, mask, sharedTmpBuffer, info, loc,
                                    [&](bool zero, std::uint64_t i) { return zero ? a : b[i]; });
}

// ---- Mean (issue 34) ------------------------------------------------------------------------
// By the public documentation: the mean of each row along the last axis, for `outter` rows of
// `inner` elements (n rounded up to 32 bytes) of which the first `n` count; dst holds `outter`
// values. Computed in accType (wider than T allowed) and rounded once to T; values here are
// summed in double, at least as accurate as the chip's reduction. Timing: the documented
// composition, a cast up when accType is wider, a sum reduction, a scaling, a cast back.
struct MeanParams {
  uint32_t outter = 1;
  uint32_t inner = 0;
  uint32_t n = 0;
};

}  // namespace AscendC

namespace aopt::sim::adv {
template <typename T, typename accType>
inline void mean_rows(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor, const LocalTensor<uint8_t>* tmp,
                      const AscendC::MeanParams& meanParams, const src_loc& loc) {
  const char* api = "Mean";
  const std::uint64_t rows = meanParams.outter, inner = meanParams.inner, n = meanParams.n;
  if (n == 0 || n > inner || (inner * sizeof(T)) % 32 != 0) {
    aopt::sim::fail(aopt::sim::hw_error_kind::param_out_of_range,
                    "MeanParams: n " + std::to_string(n) + " must be in [1, inner " + std::to_string(inner) +
                        "] and inner * sizeof(T) a multiple of 32 bytes",
                    loc, api);
  }
  vec::check_operand(srcTensor, rows * inner, "srcTensor", loc, api);
  vec::check_operand(dstTensor, rows, "dstTensor", loc, api);
  check_tmp(tmp, loc, api);
  const T* s = srcTensor.aopt_ptr();
  T* d = dstTensor.aopt_ptr();
  for (std::uint64_t r = 0; r < rows; ++r) {
    double sum = 0.0;
    for (std::uint64_t i = 0; i < n; ++i) sum += static_cast<double>(static_cast<float>(s[r * inner + i]));
    d[r] = static_cast<T>(static_cast<float>(static_cast<accType>(static_cast<float>(sum / static_cast<double>(n)))));
  }
  record_composition<accType>({vec_class::reduce_sum, vec_class::unary}, static_cast<std::uint32_t>(rows * inner),
                              dstTensor.aopt_addr(), loc, api);
}
}  // namespace aopt::sim::adv

namespace AscendC {

template <typename T, typename accType = T, bool isReuseSource = false, bool isBasicBlock = false, int32_t reduceDim = -1>
inline void Mean(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor, const LocalTensor<uint8_t>& sharedTmpBuffer,
                 const MeanParams& meanParams, AOPT_VEC_LOC) {
  aopt::sim::adv::mean_rows<T, accType>(dstTensor, srcTensor, &sharedTmpBuffer, meanParams, loc);
}
template <typename T, typename accType = T, bool isReuseSource = false, bool isBasicBlock = false, int32_t reduceDim = -1>
inline void Mean(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor, const MeanParams& meanParams, AOPT_VEC_LOC) {
  aopt::sim::adv::mean_rows<T, accType>(dstTensor, srcTensor, nullptr, meanParams, loc);
}


}  // namespace AscendC
