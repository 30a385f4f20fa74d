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
#include <vector>

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

// Sort<T, isFullSort> and Extract (issue 34), by the AscendC API reference ("Sort", "Extract"):
// Sort orders repeatTimes * 32 scores of concatLocal, descending, into (score, index) pairs laid
// out as Sort32's; equal scores keep their input order. With isFullSort the whole input is one
// order, without it each group of 32 is ordered on its own (Sort32). tmpLocal is the caller's
// scratch (not modelled). Extract splits repeatTimes * 32 pairs back into scores and indices.
// Timing [ASSUMED]: Sort32's record, then for a full sort one merge pass (four-way, as MrgSort)
// per factor of 4 in the group count, each a record over the whole input.
template <typename T, bool isFullSort>
inline void Sort(const LocalTensor<T>& dstLocal, const LocalTensor<T>& concatLocal, const LocalTensor<uint32_t>& indexLocal,
                 LocalTensor<T>& tmpLocal, const int32_t repeatTimes, aopt::sim::src_loc loc = aopt::sim::src_loc::current()) {
  (void)tmpLocal;
  Sort32(dstLocal, concatLocal, indexLocal, repeatTimes, loc);
  if (!isFullSort || repeatTimes <= 1) return;
  namespace v = aopt::sim::vec;
  const auto n = static_cast<std::uint64_t>(repeatTimes) * 32;
  std::byte* d = reinterpret_cast<std::byte*>(dstLocal.aopt_ptr());
  std::vector<std::array<std::byte, 8>> pairs(n);
  for (std::uint64_t k = 0; k < n; ++k) std::memcpy(pairs[k].data(), d + k * 8, 8);
  auto score = [](const std::array<std::byte, 8>& p) {
    T t;
    std::memcpy(&t, p.data(), sizeof(T));
    return static_cast<float>(t);
  };
  // Groups are already ordered and stable; a stable sort of the whole keeps the input order of
  // equal scores across groups too (the earlier group's element first).
  std::stable_sort(pairs.begin(), pairs.end(), [&](const auto& a, const auto& b) { return score(a) > score(b); });
  for (std::uint64_t k = 0; k < n; ++k) std::memcpy(d + k * 8, pairs[k].data(), 8);
  for (std::uint64_t groups = static_cast<std::uint64_t>(repeatTimes); groups > 1; groups = (groups + 3) / 4) {
    v::record_vec(aopt::sim::vec_class::reduce_max, sizeof(T), static_cast<std::uint32_t>(repeatTimes), dstLocal.aopt_addr(),
                  v::banks_of({{dstLocal.aopt_addr(), 1, 256, true}}), loc, "Sort");
  }
}

template <typename T>
inline void Extract(const LocalTensor<T>& dstValueLocal, const LocalTensor<uint32_t>& dstIndexLocal,
                    const LocalTensor<T>& sortedLocal, const int32_t repeatTimes,
                    aopt::sim::src_loc loc = aopt::sim::src_loc::current()) {
  static_assert(sizeof(T) == 2 || sizeof(T) == 4, "Extract takes half or float scores");
  namespace v = aopt::sim::vec;
  constexpr const char* api = "Extract";
  v::check_repeat(repeatTimes, loc, api);
  const auto n = static_cast<std::uint64_t>(repeatTimes) * 32;
  v::check_operand(sortedLocal, n * 8 / sizeof(T), "sorted", loc, api);
  v::check_operand(dstValueLocal, n, "dstValue", loc, api);
  v::check_operand(dstIndexLocal, n, "dstIndex", loc, api);
  std::vector<std::byte> src(n * 8);  // read before writing: the destinations may overlap it
  std::memcpy(src.data(), sortedLocal.aopt_ptr(), src.size());
  for (std::uint64_t k = 0; k < n; ++k) {
    std::memcpy(dstValueLocal.aopt_ptr() + k, src.data() + k * 8, sizeof(T));
    std::memcpy(dstIndexLocal.aopt_ptr() + k, src.data() + k * 8 + 4, 4);
  }
  v::record_vec(aopt::sim::vec_class::unary, sizeof(T), static_cast<std::uint32_t>(repeatTimes), dstValueLocal.aopt_addr(),
                v::banks_of({{sortedLocal.aopt_addr(), 1, 256, false}, {dstValueLocal.aopt_addr(), 1, 128, true}}), loc, api);
}

}  // namespace AscendC
