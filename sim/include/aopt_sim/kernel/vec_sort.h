// Sort32 (NPU arch 220): each repeat sorts 32 scores of src0 in descending order and writes
// them with their uint32 index (from src1) as (score, index) pairs of 8 bytes each: the score in
// the low bytes (4 for float; 2 for half, then 2 reserved bytes, left unchanged here), the index
// in the high 4 bytes. Equal scores keep their input order (the element with the lower position
// comes first). Repeat r reads src0/src1 at r * 32 elements and writes dst at r * 256 bytes.
// Semantics: the AscendC API reference, "Sort32" (atlasascendc_api_07_0231).
// Timing [ASSUMED]: no public per-repeat cost; one record of `repeatTimes` repeats of the
// reduce_max class (a compare-and-select instruction over 256 B, the closest neighbour).
#pragma once

#include <algorithm>
#include <array>
#include <cstring>

#include "aopt_sim/kernel/vec_base.h"

namespace AscendC {

template <typename T>
inline void Sort32(const LocalTensor<T>& dstLocal, const LocalTensor<T>& src0Local,
                   const LocalTensor<uint32_t>& src1Local, const int32_t repeatTimes,
                   aopt::sim::src_loc loc = aopt::sim::src_loc::current()) {
  static_assert(sizeof(T) == 2 || sizeof(T) == 4, "Sort32 sorts half or float scores");
  namespace v = aopt::sim::vec;
  constexpr const char* api = "Sort32";
  v::check_repeat(repeatTimes, loc, api);
  const auto reps = static_cast<std::uint32_t>(repeatTimes);
  v::check_operand(src0Local, std::uint64_t{reps} * 32, "src0", loc, api);
  v::check_operand(src1Local, std::uint64_t{reps} * 32, "src1", loc, api);
  v::check_operand(dstLocal, std::uint64_t{reps} * 256 / sizeof(T), "dst", loc, api);
  if (reps == 0) return;
  const T* s = src0Local.aopt_ptr();
  const std::uint32_t* ix = src1Local.aopt_ptr();
  std::byte* d = reinterpret_cast<std::byte*>(dstLocal.aopt_ptr());
  for (std::uint32_t r = 0; r < reps; ++r) {
    std::array<std::uint32_t, 32> order;
    for (std::uint32_t i = 0; i < 32; ++i) order[i] = i;
    const T* sr = s + std::uint64_t{r} * 32;
    const std::uint32_t* ir = ix + std::uint64_t{r} * 32;
    // Read both sources before writing (dst may overlap them).
    std::array<T, 32> score;
    std::array<std::uint32_t, 32> index;
    std::copy(sr, sr + 32, score.begin());
    std::copy(ir, ir + 32, index.begin());
    std::stable_sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
      return static_cast<float>(score[a]) > static_cast<float>(score[b]);
    });
    std::byte* dr = d + std::uint64_t{r} * 256;
    for (std::uint32_t k = 0; k < 32; ++k) {
      std::memcpy(dr + k * 8, &score[order[k]], sizeof(T));
      std::memcpy(dr + k * 8 + 4, &index[order[k]], 4);
    }
  }
  v::record_vec(aopt::sim::vec_class::reduce_max, sizeof(T), reps, dstLocal.aopt_addr(),
                v::banks_of({{src0Local.aopt_addr(), 1, 128, false},
                             {src1Local.aopt_addr(), 1, 128, false},
                             {dstLocal.aopt_addr(), 1, 256, true}}),
                loc, api);
}

}  // namespace AscendC
