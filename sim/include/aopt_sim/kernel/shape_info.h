// ShapeInfo and DataFormat (AscendC 基础API/辅助数据结构/ShapeInfo.md): the shape record a kernel
// may attach to a tensor; GetShapeSize multiplies its dimensions. K_MAX_DIM is not in the public
// reference [ASSUMED 8]. InitDump (the dump facility's set-up, which kernels name beside
// DumpTensor) is not documented: accepted with any arguments and does nothing, as sim's dumps need
// no set-up.
#pragma once

#include <cstdint>

namespace AscendC {

enum class DataFormat : std::uint8_t { ND = 0, NZ, NCHW, NC1HWC0, NHWC };

constexpr std::uint32_t K_MAX_DIM = 8;

struct ShapeInfo {
  ShapeInfo() = default;
  ShapeInfo(const std::uint8_t inputShapeDim, const std::uint32_t inputShape[], const std::uint8_t inputOriginalShapeDim,
            const std::uint32_t inputOriginalShape[], const DataFormat inputFormat)
      : shapeDim(clamp(inputShapeDim)), originalShapeDim(clamp(inputOriginalShapeDim)), dataFormat(inputFormat) {
    for (std::uint32_t i = 0; i < shapeDim; ++i) shape[i] = inputShape[i];
    for (std::uint32_t i = 0; i < originalShapeDim; ++i) originalShape[i] = inputOriginalShape[i];
  }
  ShapeInfo(const std::uint8_t inputShapeDim, const std::uint32_t inputShape[], const DataFormat inputFormat)
      : ShapeInfo(inputShapeDim, inputShape, inputShapeDim, inputShape, inputFormat) {}
  ShapeInfo(const std::uint8_t inputShapeDim, const std::uint32_t inputShape[])
      : ShapeInfo(inputShapeDim, inputShape, DataFormat::ND) {}
  std::uint8_t shapeDim = 0;
  std::uint8_t originalShapeDim = 0;
  std::uint32_t shape[K_MAX_DIM] = {};
  std::uint32_t originalShape[K_MAX_DIM] = {};
  DataFormat dataFormat = DataFormat::ND;

 private:
  static constexpr std::uint8_t clamp(std::uint8_t d) { return d > K_MAX_DIM ? static_cast<std::uint8_t>(K_MAX_DIM) : d; }
};

inline int GetShapeSize(const ShapeInfo& shapeInfo) {
  int n = 1;
  for (std::uint32_t i = 0; i < shapeInfo.shapeDim; ++i) n *= static_cast<int>(shapeInfo.shape[i]);
  return n;
}

template <class... Args>
inline void InitDump(Args&&...) {}

}  // namespace AscendC
