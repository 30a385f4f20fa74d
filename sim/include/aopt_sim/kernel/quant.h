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

// ---- AscendAntiQuant (高阶API/量化操作/AscendAntiQuant.md): int8 (or int4b_t) to half / bfloat16 ----
// PER_CHANNEL: src [K, N] (isTranspose: [N, K]); offset and scale [K / groupSize, N] (transposed:
// [N, K / groupSize]) as AntiQuantShapeInfo gives them; dst[i][j] = scale[g][j] * (src[i][j] +
// offset[g][j]) with g = i / groupSize (transposed: along j). PER_TENSOR: a scalar offset and scale,
// over the whole src tensor (GetSize()). The A2 steps: to half, Add/Adds the offset, Mul/Muls the
// scale, each rounded to half; for bfloat16 output through float (cast, add, mul in float, one
// rounding to bfloat16). The PER_TOKEN / PER_GROUP forms (AscendAntiQuantParam) are Ascend 950 only
// and not emulated. A shapeInfo left zero means the tensors' own ShapeInfo (SetShapeInfo). int4b_t: two values a byte, the first in the low
// nibble (ASSUMED: the documentation does not give the packing order).
namespace AscendC {
struct AntiQuantShapeInfo {
  uint32_t offsetHeight{0};
  uint32_t offsetWidth{0};
  uint32_t scaleHeight{0};
  uint32_t scaleWidth{0};
};
}  // namespace AscendC

namespace aopt::sim::quant {

template <typename In>
inline float anti_src(const In* s, std::uint64_t i) {
  if constexpr (std::is_same_v<In, AscendC::int4b_t>) {
    const std::uint8_t b = reinterpret_cast<const std::uint8_t*>(s)[i / 2];
    const int v = (i % 2 == 0) ? (b & 0xf) : (b >> 4);
    return static_cast<float>(v >= 8 ? v - 16 : v);
  } else {
    return static_cast<float>(s[i]);
  }
}

// off(i, j) / sc(i, j): the offset and scale of src element (i, j) of the [rows, cols] src.
template <typename In, typename Out, class Off, class Sc>
inline void antiquant(const AscendC::LocalTensor<Out>& dst, const AscendC::LocalTensor<In>& src, std::uint64_t rows,
                      std::uint64_t cols, Off off, Sc sc, const src_loc& loc) {
  constexpr const char* api = "AscendAntiQuant";
  static_assert(std::is_same_v<Out, half> || std::is_same_v<Out, bfloat16_t>,
                "AscendAntiQuant: dst is half or bfloat16_t on Atlas A2 (AscendAntiQuant.md)");
  static_assert(std::is_same_v<In, std::int8_t> || std::is_same_v<In, AscendC::int4b_t>,
                "AscendAntiQuant: src is int8_t or int4b_t on Atlas A2 (AscendAntiQuant.md)");
  const std::uint64_t n = rows * cols;
  if ((n * sizeof(Out)) % 32 != 0) {
    fail(hw_error_kind::param_out_of_range,
         "AscendAntiQuant computes " + std::to_string(n) + " elements, not a multiple of 32 bytes of dst (the data "
         "length must be 32-byte aligned)", loc, api);
  }
  vec::check_operand(dst, n, "dst", loc, api);
  const std::uint64_t src_units = std::is_same_v<In, AscendC::int4b_t> ? (n + 1) / 2 : n;
  vec::check_operand(src, src_units, "src", loc, api);
  const In* s = src.aopt_ptr();
  Out* d = dst.aopt_ptr();
  for (std::uint64_t i = 0; i < rows; ++i) {
    for (std::uint64_t j = 0; j < cols; ++j) {
      const std::uint64_t e = i * cols + j;
      if constexpr (std::is_same_v<Out, half>) {
        const half x = static_cast<half>(anti_src(s, e));
        const half y = static_cast<half>(static_cast<float>(x) + off(i, j));
        d[e] = static_cast<half>(static_cast<float>(y) * sc(i, j));
      } else {
        d[e] = static_cast<Out>((anti_src(s, e) + off(i, j)) * sc(i, j));
      }
    }
  }
  const std::uint32_t reps = static_cast<std::uint32_t>((n * 4 + 255) / 256);
  vec::record_vec(vec_class::cast, 4, reps, dst.aopt_addr(), 0, loc, api);
  vec::record_vec(vec_class::binary, 4, reps, dst.aopt_addr(), 0, loc, api);
  vec::record_vec(vec_class::binary, 4, reps, dst.aopt_addr(), 0, loc, api);
  if constexpr (!std::is_same_v<Out, half>) vec::record_vec(vec_class::cast, 4, reps, dst.aopt_addr(), 0, loc, api);
}

// PER_CHANNEL: the group size from K and the parameter tensors' shape.
template <typename In, typename Out, bool isTranspose>
inline void antiquant_channel(const AscendC::LocalTensor<Out>& dst, const AscendC::LocalTensor<In>& src,
                              const AscendC::LocalTensor<Out>* offset, const AscendC::LocalTensor<Out>& scale,
                              std::uint32_t k, const AscendC::AntiQuantShapeInfo& info, const src_loc& loc) {
  constexpr const char* api = "AscendAntiQuant";
  // "如果未传入该参数或者结构体中数据设置为0，将从offset和scale的ShapeInfo中获取": a zero field reads
  // the tensor's own ShapeInfo (its two dimensions, height then width).
  auto dims = [](const AscendC::ShapeInfo& si, std::uint32_t& h, std::uint32_t& w) {
    if (h == 0 && si.shapeDim == 2) h = si.shape[0];
    if (w == 0 && si.shapeDim == 2) w = si.shape[1];
  };
  std::uint32_t sh = info.scaleHeight, sw = info.scaleWidth, oh = info.offsetHeight, ow = info.offsetWidth;
  dims(scale.GetShapeInfo(), sh, sw);
  if (offset != nullptr) dims(offset->GetShapeInfo(), oh, ow);
  if (sh == 0 || sw == 0 || (offset != nullptr && (oh != sh || ow != sw))) {
    fail(hw_error_kind::invalid_use,
         "AscendAntiQuant (PER_CHANNEL): the scale's (and offset's) height and width are not known or differ: give them in "
         "AntiQuantShapeInfo or as the tensors' two-dimensional ShapeInfo (SetShapeInfo)", loc, api);
  }
  if (k == 0) fail(hw_error_kind::param_out_of_range, "AscendAntiQuant: k must be positive", loc, api);
  if (isTranspose && (k * sizeof(Out)) % 32 != 0) {
    fail(hw_error_kind::param_out_of_range, "AscendAntiQuant with isTranspose: k (" + std::to_string(k) + ") must be 32-byte aligned",
         loc, api);
  }
  // Not transposed: src [K, N], parameters [K / g, N]; transposed: src [N, K], parameters [N, K / g].
  const std::uint32_t groups = isTranspose ? sw : sh;
  const std::uint32_t n = isTranspose ? sh : sw;
  if (groups == 0 || k % groups != 0) {
    fail(hw_error_kind::param_out_of_range,
         "AscendAntiQuant: k (" + std::to_string(k) + ") is not a multiple of the parameters' " + (isTranspose ? "width" : "height") +
             " (" + std::to_string(groups) + ")", loc, api);
  }
  const std::uint32_t g = k / groups;
  vec::check_operand(scale, static_cast<std::uint64_t>(sh) * sw, "scale", loc, api);
  if (offset != nullptr) vec::check_operand(*offset, static_cast<std::uint64_t>(sh) * sw, "offset", loc, api);
  const Out* sc = scale.aopt_ptr();
  const Out* of = offset != nullptr ? offset->aopt_ptr() : nullptr;
  auto at = [&](std::uint64_t i, std::uint64_t j) -> std::uint64_t {
    return isTranspose ? i * sw + j / g : (i / g) * sw + j;
  };
  const std::uint64_t rows = isTranspose ? n : k, cols = isTranspose ? k : n;
  antiquant<In, Out>(dst, src, rows, cols,
                     [&](std::uint64_t i, std::uint64_t j) { return of ? static_cast<float>(of[at(i, j)]) : 0.0f; },
                     [&](std::uint64_t i, std::uint64_t j) { return static_cast<float>(sc[at(i, j)]); }, loc);
}

template <typename In, typename Out>
inline void antiquant_tensor(const AscendC::LocalTensor<Out>& dst, const AscendC::LocalTensor<In>& src, float offset, float scale,
                             const src_loc& loc) {
  const std::uint64_t n = std::is_same_v<In, AscendC::int4b_t> ? std::uint64_t{src.GetSize()} * 2 : src.GetSize();
  antiquant<In, Out>(dst, src, 1, n, [offset](std::uint64_t, std::uint64_t) { return offset; },
                     [scale](std::uint64_t, std::uint64_t) { return scale; }, loc);
}

}  // namespace aopt::sim::quant

namespace AscendC {

// PER_CHANNEL, with offset (sharedTmpBuffer's content is not modelled; the framework form takes none).
template <typename InputDataType, typename OutputDataType, bool isTranspose>
inline void AscendAntiQuant(const LocalTensor<OutputDataType>& dst, const LocalTensor<InputDataType>& src,
                            const LocalTensor<OutputDataType>& offset, const LocalTensor<OutputDataType>& scale,
                            const LocalTensor<uint8_t>& sharedTmpBuffer, const uint32_t k, const AntiQuantShapeInfo& shapeInfo = {},
                            AOPT_VEC_LOC) {
  static_cast<void>(sharedTmpBuffer);
  aopt::sim::quant::antiquant_channel<InputDataType, OutputDataType, isTranspose>(dst, src, &offset, scale, k, shapeInfo, loc);
}
template <typename InputDataType, typename OutputDataType, bool isTranspose>
inline void AscendAntiQuant(const LocalTensor<OutputDataType>& dst, const LocalTensor<InputDataType>& src,
                            const LocalTensor<OutputDataType>& offset, const LocalTensor<OutputDataType>& scale, const uint32_t k,
                            const AntiQuantShapeInfo& shapeInfo = {}, AOPT_VEC_LOC) {
  aopt::sim::quant::antiquant_channel<InputDataType, OutputDataType, isTranspose>(dst, src, &offset, scale, k, shapeInfo, loc);
}
// PER_CHANNEL without offset.
template <typename InputDataType, typename OutputDataType, bool isTranspose>
inline void AscendAntiQuant(const LocalTensor<OutputDataType>& dst, const LocalTensor<InputDataType>& src,
                            const LocalTensor<OutputDataType>& scale, const LocalTensor<uint8_t>& sharedTmpBuffer, const uint32_t k,
                            const AntiQuantShapeInfo& shapeInfo = {}, AOPT_VEC_LOC) {
  static_cast<void>(sharedTmpBuffer);
  aopt::sim::quant::antiquant_channel<InputDataType, OutputDataType, isTranspose>(dst, src, nullptr, scale, k, shapeInfo, loc);
}
// PER_TENSOR, with and without offset.
template <typename InputDataType, typename OutputDataType, bool isTranspose>
inline void AscendAntiQuant(const LocalTensor<OutputDataType>& dst, const LocalTensor<InputDataType>& src, const OutputDataType offset,
                            const OutputDataType scale, const LocalTensor<uint8_t>& sharedTmpBuffer, const uint32_t k,
                            const AntiQuantShapeInfo& shapeInfo = {}, AOPT_VEC_LOC) {
  static_cast<void>(sharedTmpBuffer);
  static_cast<void>(k);
  static_cast<void>(shapeInfo);
  aopt::sim::quant::antiquant_tensor<InputDataType, OutputDataType>(dst, src, static_cast<float>(offset), static_cast<float>(scale), loc);
}
template <typename InputDataType, typename OutputDataType, bool isTranspose>
inline void AscendAntiQuant(const LocalTensor<OutputDataType>& dst, const LocalTensor<InputDataType>& src, const OutputDataType offset,
                            const OutputDataType scale, const uint32_t k, const AntiQuantShapeInfo& shapeInfo = {}, AOPT_VEC_LOC) {
  static_cast<void>(k);
  static_cast<void>(shapeInfo);
  aopt::sim::quant::antiquant_tensor<InputDataType, OutputDataType>(dst, src, static_cast<float>(offset), static_cast<float>(scale), loc);
}
template <typename InputDataType, typename OutputDataType, bool isTranspose>
inline void AscendAntiQuant(const LocalTensor<OutputDataType>& dst, const LocalTensor<InputDataType>& src, const OutputDataType scale,
                            const LocalTensor<uint8_t>& sharedTmpBuffer, const uint32_t k, const AntiQuantShapeInfo& shapeInfo = {},
                            AOPT_VEC_LOC) {
  static_cast<void>(sharedTmpBuffer);
  static_cast<void>(k);
  static_cast<void>(shapeInfo);
  aopt::sim::quant::antiquant_tensor<InputDataType, OutputDataType>(dst, src, 0.0f, static_cast<float>(scale), loc);
}

}  // namespace AscendC
