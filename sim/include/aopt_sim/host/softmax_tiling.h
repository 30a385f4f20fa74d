// The SoftMax family's tiling struct (optiling::SoftMaxTiling; AscendC::tiling::SoftMaxTiling
// and the global kernel-side SoftMaxTiling name the same struct), its host functions
// (SoftMaxTilingFunc, GetSoftMaxMinTmpSize / GetSoftMaxMaxTmpSize, IsBasicBlockInSoftMax, the
// SoftmaxGrad ones: SoftMaxGradTilingFunc, GetSoftMaxGradMin/MaxTmpSize; SoftMaxFlashV2TilingFunc,
// GetSoftMaxFlashV2Min/MaxTmpSize) and the
// kernel-side SoftMaxShapeInfo. Field names and order follow the public tiling struct; an
// operator embeds it with TILING_DATA_FIELD_DEF_STRUCT(SoftMaxTiling, f) and the kernel copies it
// out. sim's SoftMax computes from the shape (SoftMaxShapeInfo, else srcM/srcK here) and reads
// no split field; the split fields describe the real kernel's UB plan and are filled from the
// work-space size [ASSUMED: the real split rule is not public].
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "aopt_sim/host/tiling_data_ptr.h"

#include "graph/tensor.h"

namespace optiling {

class SoftMaxTiling {
 public:
#define AOPT_SOFTMAX_FIELD(f)                      \
  std::uint32_t f = 0;                             \
  void set_##f(std::uint32_t v) {                                          \
    f = v;                                                     \
    ::aopt::sim::host::write_through(&f, sizeof(f));           \
  }         \
  std::uint32_t get_##f() const { return f; }
  AOPT_SOFTMAX_FIELD(srcM)
  AOPT_SOFTMAX_FIELD(srcK)
  AOPT_SOFTMAX_FIELD(srcSize)
  AOPT_SOFTMAX_FIELD(outMaxM)
  AOPT_SOFTMAX_FIELD(outMaxK)
  AOPT_SOFTMAX_FIELD(outMaxSize)
  AOPT_SOFTMAX_FIELD(splitM)
  AOPT_SOFTMAX_FIELD(splitK)
  AOPT_SOFTMAX_FIELD(splitSize)
  AOPT_SOFTMAX_FIELD(reduceM)
  AOPT_SOFTMAX_FIELD(reduceK)
  AOPT_SOFTMAX_FIELD(reduceSize)
  AOPT_SOFTMAX_FIELD(rangeM)
  AOPT_SOFTMAX_FIELD(tailM)
  AOPT_SOFTMAX_FIELD(tailSplitSize)
  AOPT_SOFTMAX_FIELD(tailReduceSize)
#undef AOPT_SOFTMAX_FIELD
  std::size_t GetDataSize() const { return sizeof(SoftMaxTiling); }
  void SaveToBuffer(void* buf, std::size_t capacity) const {
    if (buf != nullptr) std::memcpy(buf, this, capacity < sizeof(SoftMaxTiling) ? capacity : sizeof(SoftMaxTiling));
  }
  void SetDataPtr(void* buf) {
    if (buf != nullptr) std::memcpy(this, buf, sizeof(SoftMaxTiling));
    ::aopt::sim::host::bind_data_ptr(this, sizeof(SoftMaxTiling), buf);
  }
};

}  // namespace optiling

// The kernel side names the struct unqualified (CANN generates it at global scope).
using optiling::SoftMaxTiling;

namespace AscendC {

namespace tiling {
using SoftMaxTiling = optiling::SoftMaxTiling;
}

struct SoftMaxShapeInfo {
  std::uint32_t srcM{0};
  std::uint32_t srcK{0};
  std::uint32_t oriSrcM{0};
  std::uint32_t oriSrcK{0};
};

namespace aopt_softmax {
inline void rows_cols(const ge::Shape& s, std::uint32_t& m, std::uint32_t& k) {
  m = 1;
  k = 0;
  const std::size_t n = s.GetDimNum();
  if (n == 0) return;
  for (std::size_t i = 0; i + 1 < n; ++i) m *= static_cast<std::uint32_t>(s.GetDim(i) > 0 ? s.GetDim(i) : 0);
  k = static_cast<std::uint32_t>(s.GetDim(n - 1) > 0 ? s.GetDim(n - 1) : 0);
}
// Bytes of float work per row: the row itself and one block for each of its max and sum.
inline std::uint32_t row_bytes(std::uint32_t k) { return k * 4u + 64u; }
}  // namespace aopt_softmax

// Temporary space of SoftMax/SimpleSoftMax [ASSUMED]: one row of float work at least, every row at most.
inline std::uint32_t GetSoftMaxMinTmpSize(const ge::Shape& srcShape, const std::uint32_t dataTypeSize,
                                          const bool isReuseSource) {
  static_cast<void>(dataTypeSize);
  static_cast<void>(isReuseSource);
  std::uint32_t m = 0, k = 0;
  aopt_softmax::rows_cols(srcShape, m, k);
  return k == 0 ? 0 : aopt_softmax::row_bytes(k);
}
inline std::uint32_t GetSoftMaxMaxTmpSize(const ge::Shape& srcShape, const std::uint32_t dataTypeSize,
                                          const bool isReuseSource) {
  static_cast<void>(dataTypeSize);
  static_cast<void>(isReuseSource);
  std::uint32_t m = 0, k = 0;
  aopt_softmax::rows_cols(srcShape, m, k);
  return m * aopt_softmax::row_bytes(k);
}

// Fills the tiling of SoftMax over srcShape ([m..., k]: m rows of k) for max/sum values of
// dataTypeSize bytes, with localWorkSpaceSize bytes of temporary space.
inline void SoftMaxTilingFunc(const ge::Shape& srcShape, const std::uint32_t dataTypeSize,
                              const std::uint32_t localWorkSpaceSize, optiling::SoftMaxTiling& softmaxTiling) {
  std::uint32_t m = 0, k = 0;
  aopt_softmax::rows_cols(srcShape, m, k);
  const std::uint32_t block = dataTypeSize == 0 ? 8 : 32 / dataTypeSize;
  softmaxTiling.srcM = m;
  softmaxTiling.srcK = k;
  softmaxTiling.srcSize = m * k;
  softmaxTiling.outMaxM = m;
  softmaxTiling.outMaxK = block;
  softmaxTiling.outMaxSize = m * block;
  std::uint32_t split = k == 0 ? 0 : localWorkSpaceSize / aopt_softmax::row_bytes(k);
  if (split > m) split = m;
  if (split == 0 && m > 0) split = 1;
  softmaxTiling.splitM = split;
  softmaxTiling.splitK = k;
  softmaxTiling.splitSize = split * k;
  softmaxTiling.reduceM = split;
  softmaxTiling.reduceK = block;
  softmaxTiling.reduceSize = split * block;
  softmaxTiling.rangeM = split == 0 ? 0 : m / split;
  softmaxTiling.tailM = split == 0 ? 0 : m % split;
  softmaxTiling.tailSplitSize = softmaxTiling.tailM * k;
  softmaxTiling.tailReduceSize = softmaxTiling.tailM * block;
  ::aopt::sim::host::write_through(&softmaxTiling, sizeof(softmaxTiling));  // bound by SetDataPtr
}

// SoftmaxGrad / SoftmaxGradFront (the "SoftmaxGrad Tiling" interface): the same tiling struct and
// the same temporary space as SoftMax [ASSUMED: one row of float work at least, every row at most;
// isFront and isReuseSource do not change it].
inline std::uint32_t GetSoftMaxGradMinTmpSize(const ge::Shape& srcShape, const std::uint32_t dataTypeSize,
                                              const bool isFront, const bool isReuseSource) {
  static_cast<void>(isFront);
  return GetSoftMaxMinTmpSize(srcShape, dataTypeSize, isReuseSource);
}
inline std::uint32_t GetSoftMaxGradMaxTmpSize(const ge::Shape& srcShape, const std::uint32_t dataTypeSize,
                                              const bool isFront, const bool isReuseSource) {
  static_cast<void>(isFront);
  return GetSoftMaxMaxTmpSize(srcShape, dataTypeSize, isReuseSource);
}
inline void SoftMaxGradTilingFunc(const ge::Shape& srcShape, const std::uint32_t dataTypeSize,
                                  const std::uint32_t localWorkSpaceSize, optiling::SoftMaxTiling& softmaxGradTiling,
                                  const bool isFront = false) {
  static_cast<void>(isFront);
  SoftMaxTilingFunc(srcShape, dataTypeSize, localWorkSpaceSize, softmaxGradTiling);
}

// SoftmaxFlashV2 (the "SoftmaxFlashV2 Tiling" interface): dataTypeSize1 is the source's element
// size, dataTypeSize2 that of the sum/max tensors (their block: 32 / dataTypeSize2 values per row,
// one with isFlashOutputBrc); temporary space as SoftMax's [ASSUMED], isUpdate and isBasicBlock do
// not change it.
inline std::uint32_t GetSoftMaxFlashV2MinTmpSize(const ge::Shape& srcShape, const std::uint32_t dataTypeSize1,
                                                 const std::uint32_t dataTypeSize2, const bool isUpdate,
                                                 const bool isBasicBlock = false, const bool isFlashOutputBrc = false) {
  static_cast<void>(dataTypeSize2);
  static_cast<void>(isUpdate);
  static_cast<void>(isBasicBlock);
  static_cast<void>(isFlashOutputBrc);
  return GetSoftMaxMinTmpSize(srcShape, dataTypeSize1, false);
}
inline std::uint32_t GetSoftMaxFlashV2MaxTmpSize(const ge::Shape& srcShape, const std::uint32_t dataTypeSize1,
                                                 const std::uint32_t dataTypeSize2, const bool isUpdate,
                                                 const bool isBasicBlock = false, const bool isFlashOutputBrc = false) {
  static_cast<void>(dataTypeSize2);
  static_cast<void>(isUpdate);
  static_cast<void>(isBasicBlock);
  static_cast<void>(isFlashOutputBrc);
  return GetSoftMaxMaxTmpSize(srcShape, dataTypeSize1, false);
}
inline void SoftMaxFlashV2TilingFunc(const ge::Shape& srcShape, const std::uint32_t dataTypeSize1,
                                     const std::uint32_t dataTypeSize2, const std::uint32_t localWorkSpaceSize,
                                     optiling::SoftMaxTiling& softmaxFlashTiling, const bool isUpdate,
                                     const bool isBasicBlock = false, const bool isFlashOutputBrc = false) {
  static_cast<void>(dataTypeSize1);
  static_cast<void>(isUpdate);
  static_cast<void>(isBasicBlock);
  SoftMaxTilingFunc(srcShape, dataTypeSize2, localWorkSpaceSize, softmaxFlashTiling);
  if (isFlashOutputBrc) {
    softmaxFlashTiling.outMaxK = 1;
    softmaxFlashTiling.outMaxSize = softmaxFlashTiling.outMaxM;
    softmaxFlashTiling.reduceK = 1;
    softmaxFlashTiling.reduceSize = softmaxFlashTiling.reduceM;
    softmaxFlashTiling.tailReduceSize = softmaxFlashTiling.tailM;
    ::aopt::sim::host::write_through(&softmaxFlashTiling, sizeof(softmaxFlashTiling));
  }
}

// The kernel-side tiling function (SoftmaxFlashV2.md, "kernel侧tiling计算接口"): the tiling for the
// shape the kernel has now ([srcM, srcK] of shapeInfo), its arguments as the host function's
// (SoftmaxFlashV2-Tiling接口.md); isDataFormatNZ does not change sim's tiling (NZ data is not
// emulated by SoftmaxFlashV2 itself). Not constexpr here: the struct's setters are not.
inline optiling::SoftMaxTiling SoftMaxFlashV2TilingFunc(const SoftMaxShapeInfo& shapeInfo, const std::uint32_t dataTypeSize1,
                                                        const std::uint32_t dataTypeSize2,
                                                        const std::uint32_t localWorkSpaceSize, const bool isUpdate = false,
                                                        const bool isBasicBlock = false, const bool isDataFormatNZ = false,
                                                        const bool isFlashOutputBrc = false) {
  static_cast<void>(isDataFormatNZ);
  optiling::SoftMaxTiling t;
  const ge::Shape shape(std::vector<int64_t>{static_cast<int64_t>(shapeInfo.srcM), static_cast<int64_t>(shapeInfo.srcK)});
  SoftMaxFlashV2TilingFunc(shape, dataTypeSize1, dataTypeSize2, localWorkSpaceSize, t, isUpdate, isBasicBlock,
                           isFlashOutputBrc);
  return t;
}
// SoftMaxFlashV2TilingFuncImpl: kernels call this name (math/flash_attention_score_with_large_head_dim)
// with the shape as srcM, srcK; it is not in the public reference [ASSUMED: the kernel-side
// function above with the shape given by its two lengths].
inline optiling::SoftMaxTiling SoftMaxFlashV2TilingFuncImpl(const std::uint32_t srcM, const std::uint32_t srcK,
                                                            const std::uint32_t dataTypeSize1,
                                                            const std::uint32_t dataTypeSize2,
                                                            const std::uint32_t localWorkSpaceSize,
                                                            const bool isUpdate = false, const bool isBasicBlock = false,
                                                            const bool isDataFormatNZ = false,
                                                            const bool isFlashOutputBrc = false) {
  return SoftMaxFlashV2TilingFunc(SoftMaxShapeInfo{srcM, srcK, srcM, srcK}, dataTypeSize1, dataTypeSize2,
                                  localWorkSpaceSize, isUpdate, isBasicBlock, isDataFormatNZ, isFlashOutputBrc);
}

// Whether [m, k] meets the documented basic-block conditions for isBasicBlock: k a multiple of
// 64 in [256 / sizeof(T), 2048), m a multiple of 8.
inline bool IsBasicBlockInSoftMax(const optiling::SoftMaxTiling& tiling, const std::uint32_t dataTypeSize = 2) {
  const std::uint32_t k = tiling.srcK, m = tiling.srcM;
  const std::uint32_t kmin = dataTypeSize == 0 ? 64 : 256 / dataTypeSize;
  return k % 64 == 0 && k >= kmin && k < 2048 && m % 8 == 0;
}

}  // namespace AscendC
