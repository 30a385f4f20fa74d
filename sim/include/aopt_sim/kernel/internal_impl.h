// Internal functions the CANN basic-API implementation headers declare (impl/basic_api/...) and
// that some kernels call directly: PopStackBuffer (the UB left after the TPipe's buffers),
// DuplicateImpl, DataCopyUB2GMImpl, DataCopyPadGm2UBImpl on raw __ubuf__ / __gm__ pointers,
// MmadImpl on the Cube's tensors (conv3d_backprop_filter_v2's MmadLocal).
// Each runs the public API it implements on a view of the pointers, so values, checks and
// timing are that API's.
#pragma once

#include <cstdint>

#include "aopt_sim/kernel/cce_intrinsics.h"
#include "aopt_sim/kernel/cube.h"
#include "aopt_sim/kernel/data_copy.h"
#include "aopt_sim/kernel/pipe.h"
#include "aopt_sim/kernel/vec_misc.h"

namespace aopt::sim::kernel_detail {
// A GlobalTensor over a raw GM pointer (to the end of its allocation).
template <typename T>
inline AscendC::GlobalTensor<T> gm_view(__gm__ T* p, const src_loc& loc) {
  AscendC::GlobalTensor<T> g;
  g.SetGlobalBuffer(p, loc);
  return g;
}
}  // namespace aopt::sim::kernel_detail

namespace AscendC {

// The UB from the end of the current TPipe's buffers to the end of UB, as one tensor.
template <typename T, TPosition pos>
inline bool PopStackBuffer(LocalTensor<T>& pop, aopt::sim::src_loc loc = aopt::sim::src_loc::current()) {
  const std::uint32_t start = GetTPipePtr(loc)->aopt_used_bytes();
  const std::uint32_t cap = aopt::sim::ub_capacity();
  const std::uint32_t begin = (start + 31u) & ~31u;
  if (begin >= cap) return false;
  pop = LocalTensor<T>(begin, (cap - begin) / static_cast<std::uint32_t>(sizeof(T)), pos);
  return true;
}

// Mmad's implementation function, on the same tensors and MmadParams as the public Mmad
// (基础API/矩阵计算（ISASI）/Mmad计算/Mmad.md): runs it, HF32 mode included.
template <typename T, typename U, typename S>
inline void MmadImpl(const LocalTensor<T>& dst, const LocalTensor<U>& fm, const LocalTensor<S>& filter,
                     const MmadParams& mmadParams, aopt::sim::src_loc loc = aopt::sim::src_loc::current()) {
  Mmad(dst, fm, filter, mmadParams, loc);
}
template <typename T, typename U, typename S, typename V>
inline void MmadImpl(const LocalTensor<T>& dst, const LocalTensor<U>& fm, const LocalTensor<S>& filter,
                     const LocalTensor<V>& bias, const MmadParams& mmadParams,
                     aopt::sim::src_loc loc = aopt::sim::src_loc::current()) {
  Mmad(dst, fm, filter, bias, mmadParams, loc);
}

template <typename T>
inline void DuplicateImpl(__ubuf__ T* dstLocal, const T& scalarValue, const int32_t& count,
                          aopt::sim::src_loc loc = aopt::sim::src_loc::current()) {
  Duplicate(aopt::sim::cce::ub_view(dstLocal, loc, "DuplicateImpl"), scalarValue, count, loc);
}
template <typename T>
inline void DuplicateImpl(__ubuf__ T* dstLocal, const T& scalarValue, uint64_t mask, const uint8_t repeatTime,
                          const uint16_t dstBlockStride, const uint8_t dstRepeatStride,
                          aopt::sim::src_loc loc = aopt::sim::src_loc::current()) {
  Duplicate(aopt::sim::cce::ub_view(dstLocal, loc, "DuplicateImpl"), scalarValue, mask, repeatTime, dstBlockStride,
            dstRepeatStride, loc);
}

template <typename T>
inline void DataCopyUB2GMImpl(__gm__ T* dst, __ubuf__ T* src, const DataCopyParams& intriParams,
                              aopt::sim::src_loc loc = aopt::sim::src_loc::current()) {
  DataCopy(aopt::sim::kernel_detail::gm_view(dst, loc), aopt::sim::cce::ub_view(src, loc, "DataCopyUB2GMImpl"),
           intriParams, loc);
}

template <typename T>
inline void DataCopyPadGm2UBImpl(__ubuf__ T* dst, __gm__ T* src, const DataCopyParams& intriParams,
                                 const DataCopyPadParams& padParams,
                                 aopt::sim::src_loc loc = aopt::sim::src_loc::current()) {
  DataCopyPad(aopt::sim::cce::ub_view(dst, loc, "DataCopyPadGm2UBImpl"), aopt::sim::kernel_detail::gm_view(src, loc),
              intriParams, padParams, loc);
}
template <typename T>
inline void DataCopyPadGm2UBImpl(__ubuf__ T* dst, __gm__ T* src, const DataCopyExtParams& intriParams,
                                 const DataCopyPadExtParams<T>& padParams,
                                 aopt::sim::src_loc loc = aopt::sim::src_loc::current()) {
  DataCopyPad(aopt::sim::cce::ub_view(dst, loc, "DataCopyPadGm2UBImpl"), aopt::sim::kernel_detail::gm_view(src, loc),
              intriParams, padParams, loc);
}

}  // namespace AscendC

// The raw aligned-copy intrinsics of NPU arch 220 under DataCopyPad (cann-ops' mat_mul_v3_common.h
// CopyGmToUbufAlign / CopyUbufToGmAlign), by element width b8 / b16 / b32:
//   copy_gm_to_ubuf_align_bN(dst, src, sid, nBurst, lenBurst, leftPaddingNum, rightPaddingNum, srcGap, dstGap)
//       = DataCopyPad(GM -> UB, DataCopyExtParams{nBurst, lenBurst, srcGap, dstGap},
//         DataCopyPadExtParams{padding when either count is non-zero, left, right, 0}): lenBurst and
//         srcGap in bytes (GM), dstGap in 32 B blocks (UB), the paddings in elements.
//   copy_ubuf_to_gm_align_bN(dst, src, sid, nBurst, lenBurst, leftPaddingNum, rightPaddingNum, srcGap, dstGap)
//       = DataCopyPad(UB -> GM, DataCopyExtParams{nBurst, lenBurst, srcGap, dstGap}): srcGap in
//         32 B blocks (UB), dstGap in bytes (GM); the paddings do not apply to this direction.
namespace aopt::sim::kernel_detail {
template <typename E>
inline void copy_gm_to_ubuf_align(void* dst, void* src, std::uint16_t nBurst, std::uint32_t lenBurst, std::uint8_t left,
                                  std::uint8_t right, std::uint32_t srcGap, std::uint32_t dstGap, const src_loc& loc,
                                  const char* api) {
  const AscendC::DataCopyExtParams params(nBurst, lenBurst, srcGap, dstGap, 0);
  const AscendC::DataCopyPadExtParams<E> pad(left != 0 || right != 0, left, right, E{});
  AscendC::DataCopyPad(aopt::sim::cce::ub_view(static_cast<E*>(dst), loc, api), gm_view(static_cast<E*>(src), loc), params,
                       pad, loc);
}
template <typename E>
inline void copy_ubuf_to_gm_align(void* dst, void* src, std::uint16_t nBurst, std::uint32_t lenBurst, std::uint32_t srcGap,
                                  std::uint32_t dstGap, const src_loc& loc, const char* api) {
  const AscendC::DataCopyExtParams params(nBurst, lenBurst, srcGap, dstGap, 0);
  AscendC::DataCopyPad(gm_view(static_cast<E*>(dst), loc), aopt::sim::cce::ub_view(static_cast<E*>(src), loc, api), params,
                       loc);
}
}  // namespace aopt::sim::kernel_detail

#define AOPT_SIM_ALIGN_COPY(bits, E)                                                                                    \
  inline void copy_gm_to_ubuf_align_b##bits(void* dst, void* src, std::uint8_t /*sid*/, std::uint16_t nBurst,         \
                                            std::uint32_t lenBurst, std::uint8_t leftPaddingNum,                      \
                                            std::uint8_t rightPaddingNum, std::uint32_t srcGap, std::uint32_t dstGap, \
                                            aopt::sim::src_loc loc = aopt::sim::src_loc::current()) {                 \
    aopt::sim::kernel_detail::copy_gm_to_ubuf_align<E>(dst, src, nBurst, lenBurst, leftPaddingNum, rightPaddingNum,  \
                                                       srcGap, dstGap, loc, "copy_gm_to_ubuf_align_b" #bits);         \
  }                                                                                                                   \
  inline void copy_ubuf_to_gm_align_b##bits(void* dst, void* src, std::uint8_t /*sid*/, std::uint16_t nBurst,         \
                                            std::uint32_t lenBurst, std::uint8_t /*leftPaddingNum*/,                  \
                                            std::uint8_t /*rightPaddingNum*/, std::uint32_t srcGap,                   \
                                            std::uint32_t dstGap, aopt::sim::src_loc loc = aopt::sim::src_loc::current()) { \
    aopt::sim::kernel_detail::copy_ubuf_to_gm_align<E>(dst, src, nBurst, lenBurst, srcGap, dstGap, loc,              \
                                                       "copy_ubuf_to_gm_align_b" #bits);                              \
  }
AOPT_SIM_ALIGN_COPY(8, std::uint8_t)
AOPT_SIM_ALIGN_COPY(16, std::uint16_t)
AOPT_SIM_ALIGN_COPY(32, std::uint32_t)
#undef AOPT_SIM_ALIGN_COPY
