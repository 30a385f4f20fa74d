// Reductions: ReduceSum / ReduceMax / ReduceMin (count form and mask form with workLocal,
// calIndex), WholeReduceSum/Max/Min (ReduceOrder), BlockReduceSum/Max/Min, PairReduceSum,
// RepeatReduceSum, GetAccVal.
//
// Sums are computed in the tensor's type as a pairwise tree per repeat (each addition rounds),
// as the vector unit adds lanes pairwise. dstRepStride of the Whole/Block/Pair/Repeat forms is in
// units of one repeat's result (1 element; 2 elements for value+index; 8 for BlockReduce; half a
// repeat for PairReduce). Indices are written as unsigned integers of the element's width into
// the element slot (read them back with ReinterpretCast<uint16_t/uint32_t>).
// ReduceSum/Max/Min count forms run as the library does: one whole-reduce pass over the data,
// then passes over the per-repeat results until one value is left; each pass is one record.
#pragma once

#include <cstring>
#include <vector>

#include "aopt_sim/kernel/vec_elementwise.h"

namespace aopt::sim::vec {

template <typename T>
inline T tree_sum(T* v, std::size_t n) {
  if (n == 0) return T(0);
  while (n > 1) {
    const std::size_t h = n / 2;
    for (std::size_t i = 0; i < h; ++i) v[i] = wrap_add(v[2 * i], v[2 * i + 1]);
    if (n & 1) v[h] = v[n - 1];
    n = h + (n & 1);
  }
  return v[0];
}

template <typename T>
inline std::vector<T>& scratch() {
  static thread_local std::vector<T> s;
  return s;
}

template <typename T>
using index_t = std::conditional_t<sizeof(T) == 2, std::uint16_t, std::uint32_t>;

template <typename T>
inline void put_index(T* slot, std::uint32_t idx) {
  const index_t<T> v = static_cast<index_t<T>>(idx);
  std::memcpy(slot, &v, sizeof(T) < sizeof v ? sizeof(T) : sizeof v);
}

// One whole-reduce pass: per repeat r, reduce the active lanes. Returns (value, lane) pairs.
template <typename T, bool is_max, bool is_sum>
inline void whole_pass(const T* src, const lanes& ln, const layout& ls, std::vector<T>& vals,
                       std::vector<std::uint32_t>& idx) {
  constexpr std::uint32_t epb = epb_v<T>;
  vals.assign(ln.repeats, T(0));
  idx.assign(ln.repeats, 0);
  std::vector<T>& buf = scratch<T>();
  for (std::uint32_t r = 0; r < ln.repeats; ++r) {
    buf.clear();
    std::vector<std::uint32_t> lanes_idx;
    // Collect the active lanes of repeat r.
    if (ln.counter) {
      const std::uint32_t n = ln.lane_count(r);
      for (std::uint32_t i = 0; i < n; ++i) {
        buf.push_back(src[lane_off(ls, epb, r, i)]);
        lanes_idx.push_back(i);
      }
    } else {
      for (std::uint64_t m = ln.m0; m; m &= m - 1) {
        const std::uint32_t i = static_cast<std::uint32_t>(__builtin_ctzll(m));
        buf.push_back(src[lane_off(ls, epb, r, i)]);
        lanes_idx.push_back(i);
      }
      for (std::uint64_t m = ln.m1; m; m &= m - 1) {
        const std::uint32_t i = 64u + static_cast<std::uint32_t>(__builtin_ctzll(m));
        buf.push_back(src[lane_off(ls, epb, r, i)]);
        lanes_idx.push_back(i);
      }
    }
    if (buf.empty()) continue;
    if constexpr (is_sum) {
      vals[r] = tree_sum(buf.data(), buf.size());
    } else {
      std::size_t best = 0;
      for (std::size_t k = 1; k < buf.size(); ++k) {
        if (is_max ? (buf[best] < buf[k]) : (buf[k] < buf[best])) best = k;
      }
      vals[r] = buf[best];
      idx[r] = lanes_idx[best];
    }
  }
}

// The special registers a ReduceSum/Max/Min leaves its result in: ACC_VAL (GetAccVal) for a sum,
// MAX_MIN_CNT (get_max_min_cnt, cce_intrinsics.h) for a max/min: the value's bytes in the low word
// (a float is read back through it, as kernels do), the index in the high word (the layout
// GetReduceMaxMinCount decodes in the CANN 8.1 basic API).
template <typename T, bool is_sum>
inline void note_result(T v, std::uint32_t index) {
  if constexpr (is_sum) {
    state().acc_val = static_cast<double>(static_cast<float>(v));
  } else {
    static_assert(sizeof(T) <= 4, "a reduction result fits the register's low word");
    std::uint32_t bits = 0;
    std::memcpy(&bits, &v, sizeof(T));
    state().max_min_cnt = bits | (std::uint64_t{index} << 32);
  }
}

// Count-form reduction over `count` contiguous elements: returns the value and the index.
template <typename T, bool is_max, bool is_sum>
inline std::pair<T, std::uint32_t> reduce_all(const LocalTensor<T>& src, std::uint32_t count, std::uint32_t dst_addr,
                                              const src_loc& loc, const char* api) {
  constexpr std::uint32_t epr = epr_v<T>;
  const vec_class cls = is_sum ? vec_class::reduce_sum : vec_class::reduce_max;
  std::vector<T> vals(src.aopt_ptr(), src.aopt_ptr() + count);
  std::vector<std::uint32_t> idx(count);
  for (std::uint32_t i = 0; i < count; ++i) idx[i] = i;
  std::uint32_t addr = src.aopt_addr();
  bool first = true;
  do {
    const std::uint32_t n = static_cast<std::uint32_t>(vals.size());
    const std::uint32_t reps = (n + epr - 1) / epr;
    std::vector<T> nv(reps);
    std::vector<std::uint32_t> ni(reps);
    for (std::uint32_t r = 0; r < reps; ++r) {
      const std::uint32_t b = r * epr, e = std::min(n, b + epr);
      if constexpr (is_sum) {
        nv[r] = tree_sum(vals.data() + b, e - b);
      } else {
        std::uint32_t best = b;
        for (std::uint32_t k = b + 1; k < e; ++k) {
          if (is_max ? (vals[best] < vals[k]) : (vals[k] < vals[best])) best = k;
        }
        nv[r] = vals[best];
        ni[r] = idx[best];
      }
    }
    record_vec(cls, sizeof(T), reps, dst_addr, first ? banks_of({{addr, 1, 256, false}}) : 0, loc, api);
    first = false;
    vals.swap(nv);
    idx.swap(ni);
  } while (vals.size() > 1);
  return {vals.empty() ? T(0) : vals[0], idx.empty() ? 0u : idx[0]};
}

template <typename T, bool is_max, bool is_sum>
inline void reduce_count_api(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<T>& work,
                             std::int64_t count, bool cal_index, const src_loc& loc, const char* api) {
  check_count(count, loc, api);
  check_operand(src, static_cast<std::uint64_t>(count), "src", loc, api);
  check_operand(dst, cal_index ? 2 : 1, "dst", loc, api);
  check_aligned(work, "workLocal", loc, api);
  state().counter = false;
  state().mask_lo = state().mask_hi = ~0ull;
  if (count == 0) return;
  const auto [v, i] = reduce_all<T, is_max, is_sum>(src, static_cast<std::uint32_t>(count), dst.aopt_addr(), loc, api);
  T* d = dst.aopt_ptr();
  d[0] = v;
  if (cal_index && !is_sum) put_index(d + 1, i);
  note_result<T, is_sum>(v, i);
}

// Mask form of ReduceSum/Max/Min: repeats of `src` (srcRepStride in blocks), then the result.
template <typename T, bool is_max, bool is_sum>
inline void reduce_masked_api(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<T>& work,
                              const lanes& ln, std::int32_t src_rep_stride, bool cal_index, const src_loc& loc,
                              const char* api) {
  const layout ls{1, static_cast<std::uint32_t>(src_rep_stride)};
  check_operand(src, extent(ln, ls, epb_v<T>), "src", loc, api);
  check_operand(dst, cal_index ? 2 : 1, "dst", loc, api);
  check_aligned(work, "workLocal", loc, api);
  if (ln.repeats == 0) return;
  std::vector<T> vals;
  std::vector<std::uint32_t> idx;
  whole_pass<T, is_max, is_sum>(src.aopt_ptr(), ln, ls, vals, idx);
  record_vec(is_sum ? vec_class::reduce_sum : vec_class::reduce_max, sizeof(T), ln.repeats, dst.aopt_addr(),
             banks_of({{src.aopt_addr(), 1, 256, false}}), loc, api);
  T v{};
  std::uint32_t gi = 0;
  if constexpr (is_sum) {
    v = tree_sum(vals.data(), vals.size());
  } else {
    std::size_t best = 0;
    for (std::size_t k = 1; k < vals.size(); ++k) {
      if (is_max ? (vals[best] < vals[k]) : (vals[k] < vals[best])) best = k;
    }
    v = vals[best];
    gi = static_cast<std::uint32_t>(best) * ln.epr + idx[best];
  }
  if (ln.repeats > 1) {
    record_vec(is_sum ? vec_class::reduce_sum : vec_class::reduce_max, sizeof(T),
               (ln.repeats + ln.epr - 1) / ln.epr, dst.aopt_addr(), 0, loc, api);
  }
  T* d = dst.aopt_ptr();
  d[0] = v;
  if (cal_index && !is_sum) put_index(d + 1, gi);
  note_result<T, is_sum>(v, gi);
}

// WholeReduce / RepeatReduce: per repeat, the result goes to dst at r * dstRepStride results.
template <typename T, bool is_max, bool is_sum>
inline void whole_reduce_api(const LocalTensor<T>& dst, const LocalTensor<T>& src, const lanes& ln,
                             std::int32_t dst_rep, std::int32_t src_blk, std::int32_t src_rep,
                             AscendC::ReduceOrder order, const src_loc& loc, const char* api) {
  using AscendC::ReduceOrder;
  const layout ls{static_cast<std::uint32_t>(src_blk), static_cast<std::uint32_t>(src_rep)};
  check_operand(src, extent(ln, ls, epb_v<T>), "src", loc, api);
  // Result slot size in elements of T.
  std::uint32_t unit = 1;
  if (!is_sum) {
    if (order == ReduceOrder::ORDER_VALUE_INDEX || order == ReduceOrder::ORDER_INDEX_VALUE) {
      unit = 2;
    } else if (order == ReduceOrder::ORDER_ONLY_INDEX) {
      unit = static_cast<std::uint32_t>(sizeof(std::uint32_t) / sizeof(T));
      if (unit == 0) unit = 1;
    }
  }
  const std::uint64_t dst_need =
      ln.repeats == 0 ? 0 : static_cast<std::uint64_t>(ln.repeats - 1) * static_cast<std::uint32_t>(dst_rep) * unit + unit;
  // The destination needs only the alignment of one result (the documented table of WholeReduce:
  // half 2 B, float 4 B, value-index pairs 4 B / 8 B), not 32 B.
  check_aligned_to(dst, unit * static_cast<std::uint32_t>(sizeof(T)), "dst", loc, api);
  check_extent(dst, dst_need, "dst", loc, api);
  if (ln.repeats == 0) return;
  std::vector<T> vals;
  std::vector<std::uint32_t> idx;
  whole_pass<T, is_max, is_sum>(src.aopt_ptr(), ln, ls, vals, idx);
  T* d = dst.aopt_ptr();
  double acc = 0;
  for (std::uint32_t r = 0; r < ln.repeats; ++r) {
    T* o = d + static_cast<std::uint64_t>(r) * static_cast<std::uint32_t>(dst_rep) * unit;
    if constexpr (is_sum) {
      o[0] = vals[r];
      acc += static_cast<double>(static_cast<float>(vals[r]));
    } else {
      switch (order) {
        case ReduceOrder::ORDER_VALUE_INDEX: o[0] = vals[r]; put_index(o + 1, idx[r]); break;
        case ReduceOrder::ORDER_INDEX_VALUE: put_index(o, idx[r]); o[1] = vals[r]; break;
        case ReduceOrder::ORDER_ONLY_VALUE: o[0] = vals[r]; break;
        case ReduceOrder::ORDER_ONLY_INDEX: {
          const std::uint32_t v = idx[r];
          std::memcpy(o, &v, sizeof v);
          break;
        }
      }
    }
  }
  if constexpr (is_sum) {
    state().acc_val = acc;
  } else {
    // The special register holds the extreme over all repeats and its lane index counted from the
    // first repeat (GetReduceRepeatMaxMinSpr / GetReduceMaxMinCount read it) [ASSUMED: the lane
    // numbering across repeats is not documented; ReduceMax's count form numbers them the same way].
    std::uint32_t best = 0;
    for (std::uint32_t r = 1; r < ln.repeats; ++r) {
      if (is_max ? (vals[best] < vals[r]) : (vals[r] < vals[best])) best = r;
    }
    note_result<T, false>(vals[best], best * ln.epr + idx[best]);
  }
  record_vec(is_sum ? vec_class::reduce_sum : vec_class::reduce_max, sizeof(T), ln.repeats, dst.aopt_addr(),
             banks_of({{src.aopt_addr(), ls.blk, 256, false}}), loc, api);
}

// BlockReduce (per 32 B block: 8 results per repeat) and PairReduce (adjacent pairs).
template <typename T, int kind /*0 sum 1 max 2 min*/, bool pair>
inline void block_reduce_api(const LocalTensor<T>& dst, const LocalTensor<T>& src, const lanes& ln,
                             std::int32_t dst_rep, std::int32_t src_blk, std::int32_t src_rep, const src_loc& loc,
                             const char* api) {
  constexpr std::uint32_t epb = epb_v<T>;
  const std::uint32_t group = pair ? 2 : epb;        // lanes reduced into one result
  const std::uint32_t per_rep = ln.epr / group;      // results per repeat
  const layout ls{static_cast<std::uint32_t>(src_blk), static_cast<std::uint32_t>(src_rep)};
  check_operand(src, extent(ln, ls, epb), "src", loc, api);
  const std::uint64_t dst_need =
      ln.repeats == 0 ? 0 : static_cast<std::uint64_t>(ln.repeats - 1) * static_cast<std::uint32_t>(dst_rep) * per_rep + per_rep;
  check_operand(dst, dst_need, "dst", loc, api);
  if (ln.repeats == 0) return;
  const T* s = src.aopt_ptr();
  T* d = dst.aopt_ptr();
  for (std::uint32_t r = 0; r < ln.repeats; ++r) {
    const std::uint32_t active = ln.counter ? ln.lane_count(r) : ln.epr;
    for (std::uint32_t g = 0; g < per_rep; ++g) {
      T buf[32];
      std::uint32_t n = 0;
      for (std::uint32_t k = 0; k < group; ++k) {
        const std::uint32_t i = g * group + k;
        bool on;
        if (ln.counter) {
          on = i < active;
        } else {
          on = i < 64 ? ((ln.m0 >> i) & 1) : ((ln.m1 >> (i - 64)) & 1);
        }
        if (on) buf[n++] = s[lane_off(ls, epb, r, i)];
      }
      T v = T(0);
      if (n > 0) {
        if constexpr (kind == 0) {
          v = tree_sum(buf, n);
        } else {
          v = buf[0];
          for (std::uint32_t k = 1; k < n; ++k) {
            if (kind == 1 ? (v < buf[k]) : (buf[k] < v)) v = buf[k];
          }
        }
      }
      d[static_cast<std::uint64_t>(r) * static_cast<std::uint32_t>(dst_rep) * per_rep + g] = v;
    }
  }
  record_vec(kind == 0 ? vec_class::reduce_sum : vec_class::reduce_max, sizeof(T), ln.repeats, dst.aopt_addr(),
             banks_of({{src.aopt_addr(), ls.blk, 256, false}}), loc, api);
}

}  // namespace aopt::sim::vec

namespace AscendC {

// ---- ReduceSum / ReduceMax / ReduceMin -------------------------------------------------------------

template <typename T>
inline void ReduceSum(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<T>& sharedTmpBuffer,
                      const int32_t count, AOPT_VEC_LOC) {
  aopt::sim::vec::reduce_count_api<T, false, true>(dst, src, sharedTmpBuffer, count, false, loc, "ReduceSum");
}
template <typename T>
inline void ReduceMax(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<T>& sharedTmpBuffer,
                      const int32_t count, bool calIndex = false, AOPT_VEC_LOC) {
  aopt::sim::vec::reduce_count_api<T, true, false>(dst, src, sharedTmpBuffer, count, calIndex, loc, "ReduceMax");
}
template <typename T>
inline void ReduceMin(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<T>& sharedTmpBuffer,
                      const int32_t count, bool calIndex = false, AOPT_VEC_LOC) {
  aopt::sim::vec::reduce_count_api<T, false, false>(dst, src, sharedTmpBuffer, count, calIndex, loc, "ReduceMin");
}

#define AOPT_VEC_REDUCE_MASKED(NAME, IS_MAX, IS_SUM, IDX_PARAM, IDX_ARG)                                         \
  template <typename T>                                                                                          \
  inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<T>& sharedTmpBuffer,  \
                   const int32_t mask, const int32_t repeatTimes, const int32_t srcRepStride IDX_PARAM,          \
                   AOPT_VEC_LOC) {                                                                               \
    const auto ln = aopt::sim::vec::lanes_from_mask(true, static_cast<uint64_t>(mask), repeatTimes,              \
                                                    aopt::sim::vec::epr_v<T>, loc, #NAME);                       \
    aopt::sim::vec::reduce_masked_api<T, IS_MAX, IS_SUM>(dst, src, sharedTmpBuffer, ln, srcRepStride, IDX_ARG,   \
                                                         loc, #NAME);                                            \
  }                                                                                                              \
  template <typename T>                                                                                          \
  inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<T>& sharedTmpBuffer,  \
                   const uint64_t mask[], const int32_t repeatTimes, const int32_t srcRepStride IDX_PARAM,       \
                   AOPT_VEC_LOC) {                                                                               \
    const auto ln =                                                                                              \
        aopt::sim::vec::lanes_from_bits(true, mask, repeatTimes, aopt::sim::vec::epr_v<T>, loc, #NAME);          \
    aopt::sim::vec::reduce_masked_api<T, IS_MAX, IS_SUM>(dst, src, sharedTmpBuffer, ln, srcRepStride, IDX_ARG,   \
                                                         loc, #NAME);                                            \
  }

#define AOPT_VEC_COMMA ,
AOPT_VEC_REDUCE_MASKED(ReduceSum, false, true, , false)
AOPT_VEC_REDUCE_MASKED(ReduceMax, true, false, AOPT_VEC_COMMA bool calIndex = false, calIndex)
AOPT_VEC_REDUCE_MASKED(ReduceMin, false, false, AOPT_VEC_COMMA bool calIndex = false, calIndex)

// ---- WholeReduceSum / Max / Min ---------------------------------------------------------------------

template <typename T, bool isSetMask = true>
inline void WholeReduceSum(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint64_t mask[],
                           const int32_t repeatTimes, const int32_t dstRepStride, const int32_t srcBlkStride,
                           const int32_t srcRepStride, AOPT_VEC_LOC) {
  const auto ln = aopt::sim::vec::lanes_from_bits(isSetMask, mask, repeatTimes, aopt::sim::vec::epr_v<T>, loc,
                                                  "WholeReduceSum");
  aopt::sim::vec::whole_reduce_api<T, false, true>(dst, src, ln, dstRepStride, srcBlkStride, srcRepStride,
                                                   ReduceOrder::ORDER_ONLY_VALUE, loc, "WholeReduceSum");
}
template <typename T, bool isSetMask = true>
inline void WholeReduceSum(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t mask,
                           const int32_t repeatTimes, const int32_t dstRepStride, const int32_t srcBlkStride,
                           const int32_t srcRepStride, AOPT_VEC_LOC) {
  const auto ln = aopt::sim::vec::lanes_from_mask(isSetMask, static_cast<uint64_t>(mask), repeatTimes,
                                                  aopt::sim::vec::epr_v<T>, loc, "WholeReduceSum");
  aopt::sim::vec::whole_reduce_api<T, false, true>(dst, src, ln, dstRepStride, srcBlkStride, srcRepStride,
                                                   ReduceOrder::ORDER_ONLY_VALUE, loc, "WholeReduceSum");
}

#define AOPT_VEC_WHOLE_MAXMIN(NAME, IS_MAX)                                                                    \
  template <typename T, bool isSetMask = true>                                                                 \
  inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint64_t mask[],                \
                   const int32_t repeatTimes, const int32_t dstRepStride, const int32_t srcBlkStride,          \
                   const int32_t srcRepStride, ReduceOrder order = ReduceOrder::ORDER_VALUE_INDEX,             \
                   AOPT_VEC_LOC) {                                                                             \
    const auto ln = aopt::sim::vec::lanes_from_bits(isSetMask, mask, repeatTimes, aopt::sim::vec::epr_v<T>,    \
                                                    loc, #NAME);                                               \
    aopt::sim::vec::whole_reduce_api<T, IS_MAX, false>(dst, src, ln, dstRepStride, srcBlkStride, srcRepStride, \
                                                       order, loc, #NAME);                                     \
  }                                                                                                            \
  template <typename T, bool isSetMask = true>                                                                 \
  inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t mask,                   \
                   const int32_t repeatTimes, const int32_t dstRepStride, const int32_t srcBlkStride,          \
                   const int32_t srcRepStride, ReduceOrder order = ReduceOrder::ORDER_VALUE_INDEX,             \
                   AOPT_VEC_LOC) {                                                                             \
    const auto ln = aopt::sim::vec::lanes_from_mask(isSetMask, static_cast<uint64_t>(mask), repeatTimes,       \
                                                    aopt::sim::vec::epr_v<T>, loc, #NAME);                     \
    aopt::sim::vec::whole_reduce_api<T, IS_MAX, false>(dst, src, ln, dstRepStride, srcBlkStride, srcRepStride, \
                                                       order, loc, #NAME);                                     \
  }
AOPT_VEC_WHOLE_MAXMIN(WholeReduceMax, true)
AOPT_VEC_WHOLE_MAXMIN(WholeReduceMin, false)

// ---- BlockReduceSum / Max / Min, PairReduceSum: (dst, src, repeatTimes, mask, dstRepStride, srcBlkStride, srcRepStride)

#define AOPT_VEC_BLOCK_REDUCE(NAME, KIND, PAIR)                                                                \
  template <typename T, bool isSetMask = true>                                                                 \
  inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t repeatTimes,            \
                   const uint64_t mask[], const int32_t dstRepStride, const int32_t srcBlkStride,              \
                   const int32_t srcRepStride, AOPT_VEC_LOC) {                                                 \
    const auto ln = aopt::sim::vec::lanes_from_bits(isSetMask, mask, repeatTimes, aopt::sim::vec::epr_v<T>,    \
                                                    loc, #NAME);                                               \
    aopt::sim::vec::block_reduce_api<T, KIND, PAIR>(dst, src, ln, dstRepStride, srcBlkStride, srcRepStride,    \
                                                    loc, #NAME);                                               \
  }                                                                                                            \
  template <typename T, bool isSetMask = true>                                                                 \
  inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t repeatTimes,            \
                   const int32_t mask, const int32_t dstRepStride, const int32_t srcBlkStride,                 \
                   const int32_t srcRepStride, AOPT_VEC_LOC) {                                                 \
    const auto ln = aopt::sim::vec::lanes_from_mask(isSetMask, static_cast<uint64_t>(mask), repeatTimes,       \
                                                    aopt::sim::vec::epr_v<T>, loc, #NAME);                     \
    aopt::sim::vec::block_reduce_api<T, KIND, PAIR>(dst, src, ln, dstRepStride, srcBlkStride, srcRepStride,    \
                                                    loc, #NAME);                                               \
  }
AOPT_VEC_BLOCK_REDUCE(BlockReduceSum, 0, false)
AOPT_VEC_BLOCK_REDUCE(BlockReduceMax, 1, false)
AOPT_VEC_BLOCK_REDUCE(BlockReduceMin, 2, false)
AOPT_VEC_BLOCK_REDUCE(PairReduceSum, 0, true)

// ---- RepeatReduceSum (dst, src, repeatTimes, mask, dstBlkStride, srcBlkStride, dstRepStride, srcRepStride)

template <typename T, bool isSetMask = true>
inline void RepeatReduceSum(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t repeatTimes,
                            const int32_t mask, const int32_t dstBlkStride, const int32_t srcBlkStride,
                            const int32_t dstRepStride, const int32_t srcRepStride, AOPT_VEC_LOC) {
  (void)dstBlkStride;
  const auto ln = aopt::sim::vec::lanes_from_mask(isSetMask, static_cast<uint64_t>(mask), repeatTimes,
                                                  aopt::sim::vec::epr_v<T>, loc, "RepeatReduceSum");
  aopt::sim::vec::whole_reduce_api<T, false, true>(dst, src, ln, dstRepStride, srcBlkStride, srcRepStride,
                                                   ReduceOrder::ORDER_ONLY_VALUE, loc, "RepeatReduceSum");
}

// Value accumulated by the last ReduceSum-class instruction of this core (sum over its repeats).
template <typename T = float>
inline T GetAccVal() {
  return static_cast<T>(static_cast<float>(aopt::sim::vec::state().acc_val));
}

// ReduceLastND: a name CANN's headers declare but no public documentation page describes
// (weight_quant_batch_matmul_v2 names it in a using-declaration and never calls it). Declared so
// such kernels compile; a call fails, saying so, rather than computing a guessed reduction.
template <typename... Args>
inline void ReduceLastND(Args&&...) {
  aopt::sim::fail(aopt::sim::hw_error_kind::invalid_use,
                  "ReduceLastND is not emulated: it has no public documentation (use ReduceSum/ReduceMax/WholeReduceSum)",
                  aopt::sim::src_loc::current(), "ReduceLastND");
}

}  // namespace AscendC
