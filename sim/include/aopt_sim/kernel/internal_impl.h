// Internal functions the CANN basic-API implementation headers declare (impl/basic_api/...) and
// that some kernels call directly: PopStackBuffer (the UB left after the TPipe's buffers),
// DuplicateImpl, DataCopyUB2GMImpl, DataCopyPadGm2UBImpl on raw __ubuf__ / __gm__ pointers.
// Each runs the public API it implements on a view of the pointers, so values, checks and
// timing are that API's.
#pragma once

#include <cstdint>

#include "aopt_sim/kernel/cce_intrinsics.h"
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
