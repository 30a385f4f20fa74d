// Host-side helpers of the advanced kernel APIs (tiling/tiling_api.h): the temporary UB an
// advanced API asks its caller to reserve, by input shape. sim's advanced APIs compute without
// scratch space, so any size works for values; the sizes below only shape the kernel's UB plan
// [ASSUMED: the real formulas are not public]: the minimum is one 256-byte repeat of float
// work, the maximum a float copy of the whole input (rounded to 32 bytes).
#pragma once

#include <cstdint>

#include "graph/tensor.h"

namespace AscendC {

using TensorShape = ge::Shape;

namespace aopt_adv_tiling {
inline void tmp_sizes(const ge::Shape& srcShape, std::uint32_t typeSize, bool isReuseSource, std::uint32_t& maxValue,
                      std::uint32_t& minValue) {
  const int64_t n = srcShape.GetShapeSize();
  const std::uint64_t elems = n > 0 ? static_cast<std::uint64_t>(n) : 0;
  const std::uint64_t width = typeSize < 4 ? 4 : typeSize;
  std::uint64_t max = (elems * width + 31) / 32 * 32;
  if (isReuseSource && typeSize >= 4) max = 0;
  minValue = max == 0 ? 0 : 256;
  maxValue = static_cast<std::uint32_t>(max < minValue ? minValue : (max > 0xffffffffull ? 0xffffffffull : max));
}
}  // namespace aopt_adv_tiling

inline void GetSigmoidMaxMinTmpSize(const TensorShape& srcShape, const std::uint32_t typeSize, bool isReuseSource,
                                    std::uint32_t& maxValue, std::uint32_t& minValue) {
  aopt_adv_tiling::tmp_sizes(srcShape, typeSize, isReuseSource, maxValue, minValue);
}
inline void GetTanhMaxMinTmpSize(const TensorShape& srcShape, const std::uint32_t typeSize, const bool isReuseSource,
                                 std::uint32_t& maxValue, std::uint32_t& minValue) {
  aopt_adv_tiling::tmp_sizes(srcShape, typeSize, isReuseSource, maxValue, minValue);
}
inline void GetErfMaxMinTmpSize(const TensorShape& srcShape, const std::uint32_t typeSize, const bool isReuseSource,
                                std::uint32_t& maxValue, std::uint32_t& minValue) {
  aopt_adv_tiling::tmp_sizes(srcShape, typeSize, isReuseSource, maxValue, minValue);
}
inline void GetSinMaxMinTmpSize(const TensorShape& srcShape, const std::uint32_t typeSize, const bool isReuseSource,
                                std::uint32_t& maxValue, std::uint32_t& minValue) {
  aopt_adv_tiling::tmp_sizes(srcShape, typeSize, isReuseSource, maxValue, minValue);
}
inline void GetCosMaxMinTmpSize(const TensorShape& srcShape, const std::uint32_t typeSize, const bool isReuseSource,
                                std::uint32_t& maxValue, std::uint32_t& minValue) {
  aopt_adv_tiling::tmp_sizes(srcShape, typeSize, isReuseSource, maxValue, minValue);
}

// Mean's temporary space (documented: the maximum equals the minimum) [ASSUMED size: one row of
// n elements in the wider of the two types, rounded up to 32 bytes].
inline void GetMeanMaxMinTmpSize(const std::uint32_t n, const std::uint32_t srcTypeSize, const std::uint32_t accTypeSize,
                                 const bool isReuseSource, std::uint32_t& maxValue, std::uint32_t& minValue) {
  (void)isReuseSource;
  const std::uint64_t width = srcTypeSize > accTypeSize ? srcTypeSize : accTypeSize;
  const std::uint64_t bytes = (static_cast<std::uint64_t>(n) * width + 31) / 32 * 32;
  minValue = maxValue = static_cast<std::uint32_t>(bytes > 0xffffffffull ? 0xffffffffull : bytes);
}

}  // namespace AscendC
