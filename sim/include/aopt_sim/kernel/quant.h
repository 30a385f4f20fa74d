// The dequantization API of the kernel (CANN: lib/quantization, "AscendDequant"): int32 results of
// an int8 matmul, row by row, times a per-column scale vector or a scalar, to half / bfloat16 /
// float. Written from the public AscendC documentation (高阶API/量化操作/AscendDequant.md):
// - DequantParams {m, n, calCount}: src is m rows of n int32 (n * 4 bytes a multiple of 32); in each
//   row the first calCount elements are scaled, element i by deqScale[i] (or the scalar);
// - dst rows are n_dst wide, n rounded up so that a row of dstT is 32 B; dst elements past calCount
//   are "undetermined" on the chip: sim leaves them as they were;
// - DeQuantMode::DEQUANT_WITH_SINGLE_ROW (the default) reads {1, n, calCount} as
//   {n / calCount, calCount, calCount} when calCount is a multiple of 32 / sizeof(dstT) and divides
//   n; DEQUANT_WITH_MULTI_ROW keeps it one row;
// - a uint64_t scale carries a float in its low 32 bits (the high bits are control fields the API
//   ignores).
// The PER_TOKEN / PER_GROUP forms (AscendDeQuantParam) are Ascend 950 only and not emulated, nor
// are the deprecated overloads without DequantParams (their row semantics are not documented).
// Values: src and scale are converted to float, multiplied in float and rounded once to dstT, as the
// documented algorithm (cast to FP32, Mul under a calCount mask, cast to dstT).
// Timing: one record per step of that algorithm (cast of src, one Mul per row, cast of the result
// when dstT is not float). sharedTmpBuffer's content is not modelled.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>

#include "aopt_sim/kernel/vector.h"

namespace AscendC {

struct DequantParams {
  uint32_t m;
  uint32_t n;
  uint32_t calCount;
};

enum class DeQuantMode { DEQUANT_WITH_SINGLE_ROW = 0, DEQUANT_WITH_MULTI_ROW };

}  // namespace AscendC

namespace aopt::sim::quant {

template <typename S>
inline float scale_value(S s) {
  if constexpr (std::is_same_v<S, std::uint64_t>) {
    const auto low = static_cast<std::uint32_t>(s & 0xffffffffu);
    float f;
    std::memcpy(&f, &low, sizeof f);
    return f;
  } else {
    return static_cast<float>(s);
  }
}

// The shape the API computes on, after DEQUANT_WITH_SINGLE_ROW's reading of one row.
template <typename D, AscendC::DeQuantMode mode>
inline AscendC::DequantParams effective_shape(AscendC::DequantParams p) {
  constexpr std::uint32_t per_block = 32 / sizeof(D);
  if (mode == AscendC::DeQuantMode::DEQUANT_WITH_SINGLE_ROW && p.m == 1 && p.calCount != 0 &&
      p.calCount % per_block == 0 && p.n % p.calCount == 0) {
    return {p.n / p.calCount, p.calCount, p.calCount};
  }
  return p;
}

// scale(i) gives the factor of column i.
template <typename D, AscendC::DeQuantMode mode, class Scale>
inline void dequant(const AscendC::LocalTensor<D>& dst, const AscendC::LocalTensor<std::int32_t>& src,
                    const AscendC::LocalTensor<std::uint8_t>* tmp, AscendC::DequantParams params, Scale scale,
                    std::uint32_t scale_elems, const src_loc& loc) {
  constexpr const char* api = "AscendDequant";
  const AscendC::DequantParams p = effective_shape<D, mode>(params);
  if (p.m == 0) return;
  if (p.calCount == 0 || p.calCount > p.n) {
    fail(hw_error_kind::param_out_of_range,
         "DequantParams.calCount (" + std::to_string(p.calCount) + ") must be in [1, n = " + std::to_string(p.n) +
             "] (AscendDequant: the first calCount elements of each row are dequantized)",
         loc, api);
  }
  if ((p.n * sizeof(std::int32_t)) % 32 != 0) {
    fail(hw_error_kind::param_out_of_range,
         "DequantParams.n (" + std::to_string(p.n) + ") times sizeof(int32_t) is not a multiple of 32 bytes", loc, api);
  }
  if (scale_elems < p.calCount) {
    fail(hw_error_kind::param_out_of_range,
         "deqScale has " + std::to_string(scale_elems) + " elements, fewer than DequantParams.calCount (" +
             std::to_string(p.calCount) + ")",
         loc, api);
  }
  constexpr std::uint32_t per_block = 32 / sizeof(D);
  const std::uint32_t n_dst = (p.n + per_block - 1) / per_block * per_block;
  vec::check_operand(src, static_cast<std::uint64_t>(p.m) * p.n, "srcTensor", loc, api);
  vec::check_operand(dst, static_cast<std::uint64_t>(p.m - 1) * n_dst + p.calCount, "dstTensor", loc, api);
  if (tmp != nullptr) vec::check_aligned(*tmp, "sharedTmpBuffer", loc, api);
  const std::int32_t* s = src.aopt_ptr();
  D* d = dst.aopt_ptr();
  for (std::uint32_t r = 0; r < p.m; ++r) {
    for (std::uint32_t i = 0; i < p.calCount; ++i) {
      d[r * n_dst + i] = static_cast<D>(static_cast<float>(s[r * p.n + i]) * scale(i));
    }
  }
  const std::uint32_t reps_all = (p.m * p.n * 4 + 255) / 256;
  const std::uint32_t reps_row = (p.calCount * 4 + 255) / 256;
  vec::record_vec(vec_class::cast, 4, reps_all, dst.aopt_addr(), 0, loc, api);
  vec::record_vec(vec_class::binary, 4, p.m * reps_row, dst.aopt_addr(), 0, loc, api);
  if constexpr (!std::is_same_v<D, float>) {
    vec::record_vec(vec_class::cast, 4, (p.m * n_dst * 4 + 255) / 256, dst.aopt_addr(), 0, loc, api);
  }
}

}  // namespace aopt::sim::quant

namespace AscendC {

// deqScale a vector: element i of each row times deqScale[i].
template <typename dstT, typename scaleT, DeQuantMode mode = DeQuantMode::DEQUANT_WITH_SINGLE_ROW>
inline void AscendDequant(const LocalTensor<dstT>& dstTensor, const LocalTensor<int32_t>& srcTensor,
                          const LocalTensor<scaleT>& deqScale, const LocalTensor<uint8_t>& sharedTmpBuffer,
                          DequantParams params, AOPT_VEC_LOC) {
  const scaleT* sc = deqScale.aopt_ptr();
  aopt::sim::quant::dequant<dstT, mode>(
      dstTensor, srcTensor, &sharedTmpBuffer, params,
      [sc](std::uint32_t i) { return aopt::sim::quant::scale_value(sc[i]); }, deqScale.GetSize(), loc);
}
template <typename dstT, typename scaleT, DeQuantMode mode = DeQuantMode::DEQUANT_WITH_SINGLE_ROW>
inline void AscendDequant(const LocalTensor<dstT>& dstTensor, const LocalTensor<int32_t>& srcTensor,
                          const LocalTensor<scaleT>& deqScale, DequantParams params, AOPT_VEC_LOC) {
  const scaleT* sc = deqScale.aopt_ptr();
  aopt::sim::quant::dequant<dstT, mode>(
      dstTensor, srcTensor, nullptr, params,
      [sc](std::uint32_t i) { return aopt::sim::quant::scale_value(sc[i]); }, deqScale.GetSize(), loc);
}
// deqScale a scalar: every dequantized element times it.
template <typename dstT, typename scaleT, DeQuantMode mode = DeQuantMode::DEQUANT_WITH_SINGLE_ROW>
inline void AscendDequant(const LocalTensor<dstT>& dstTensor, const LocalTensor<int32_t>& srcTensor,
                          const scaleT deqScale, const LocalTensor<uint8_t>& sharedTmpBuffer, DequantParams params,
                          AOPT_VEC_LOC) {
  const float f = aopt::sim::quant::scale_value(deqScale);
  aopt::sim::quant::dequant<dstT, mode>(
      dstTensor, srcTensor, &sharedTmpBuffer, params, [f](std::uint32_t) { return f; }, UINT32_MAX, loc);
}
template <typename dstT, typename scaleT, DeQuantMode mode = DeQuantMode::DEQUANT_WITH_SINGLE_ROW>
inline void AscendDequant(const LocalTensor<dstT>& dstTensor, const LocalTensor<int32_t>& srcTensor,
                          const scaleT deqScale, DequantParams params, AOPT_VEC_LOC) {
  const float f = aopt::sim::quant::scale_value(deqScale);
  aopt::sim::quant::dequant<dstT, mode>(
      dstTensor, srcTensor, nullptr, params, [f](std::uint32_t) { return f; }, UINT32_MAX, loc);
}

}  // namespace AscendC
