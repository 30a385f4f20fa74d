// Shared machinery of the vector compute API: AscendC enums and repeat-parameter structs, the
// per-core mask register (normal / counter mode), operand checks (32 B alignment, tensor
// bounds, repeat limit) and the one-record-per-instruction trace helper.
//
// Lane model (NPU arch 220x): one repeat processes 256 B = 8 blocks of 32 B. Lane i of a repeat
// of an operand with element size s lies at element offset
//   r * repStride * (32/s) + (i / (32/s)) * blkStride * (32/s) + i % (32/s)
// from the operand's start (strides in 32 B blocks). In normal mode the mask selects lanes
// (bit i of {mask[0], mask[1]}); in counter mode the mask is the number of elements over all
// repeats, and the repeat count follows from it.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <type_traits>

#include "aopt_sim/kernel/banks.h"
#include "aopt_sim/kernel/core.h"
#include "aopt_sim/kernel/tensor.h"
#include "aopt_sim/kernel/types.h"

namespace AscendC {

inline constexpr std::uint32_t DEFAULT_BLK_NUM = 8;
inline constexpr std::uint8_t DEFAULT_BLK_STRIDE = 1;
inline constexpr std::uint8_t DEFAULT_REPEAT_STRIDE = 8;
// A quarter of it: the repeat stride of a 4-bit source read beside 16-bit results (the int4 ->
// half conversion of weight_quant_batch_matmul_v2) [ASSUMED from the name and that use].
inline constexpr std::uint8_t ONE_FOURTH_DEFAULT_REPEAT_STRIDE = DEFAULT_REPEAT_STRIDE / 4;
inline constexpr std::uint32_t ONE_REPEAT_BYTE_SIZE = 256;
inline constexpr std::uint32_t MAX_REPEAT_TIMES = 255;
// Element counts per block / repeat of the AscendC constants header (kernels of the norm family
// use them unqualified under `using namespace AscendC`).
inline constexpr std::uint32_t B16_BYTE_SIZE = 2;
inline constexpr std::uint32_t B32_BYTE_SIZE = 4;
inline constexpr std::uint32_t ONE_BLK_HALF_NUM = 32 / B16_BYTE_SIZE;
inline constexpr std::uint32_t ONE_BLK_FLOAT_NUM = 32 / B32_BYTE_SIZE;
inline constexpr std::uint32_t ONE_REPEAT_HALF_SIZE = ONE_REPEAT_BYTE_SIZE / B16_BYTE_SIZE;
inline constexpr std::uint32_t ONE_REPEAT_FLOAT_SIZE = ONE_REPEAT_BYTE_SIZE / B32_BYTE_SIZE;
inline constexpr std::uint32_t MAX_REPEAT_HALF_SIZE = ONE_REPEAT_HALF_SIZE * MAX_REPEAT_TIMES;
inline constexpr std::uint32_t MAX_REPEAT_FLOAT_SIZE = ONE_REPEAT_FLOAT_SIZE * MAX_REPEAT_TIMES;
inline constexpr std::uint32_t BRCB_BROADCAST_NUMBER = 8;
inline constexpr std::uint8_t B8_BYTE_SIZE = 1;
inline constexpr std::uint8_t B64_BYTE_SIZE = 8;
inline constexpr std::uint8_t B16_DATA_NUM_PER_BLOCK = 16;
inline constexpr std::uint8_t B32_DATA_NUM_PER_BLOCK = 8;
inline constexpr std::int32_t B16_DATA_NUM_PER_REPEAT = 128;
inline constexpr std::int32_t B32_DATA_NUM_PER_REPEAT = 64;
inline constexpr std::int32_t FULL_MASK_LEN = 128;
inline constexpr std::int32_t HLAF_MASK_LEN = 64;  // sic, the CANN spelling
inline constexpr std::uint64_t FULL_MASK = ~0ull;  // every lane of one half of the mask register
// ceil(a / b) over mixed integer types (0 when b is 0, where the chip's result is undefined).
template <typename T, typename U>
constexpr std::common_type_t<T, U> DivCeil(T a, U b) {
  using R = std::common_type_t<T, U>;
  return b == 0 ? R(0) : static_cast<R>((static_cast<R>(a) + static_cast<R>(b) - 1) / static_cast<R>(b));
}
// The scalar rounding-up division kernel_operator.h declares in namespace AscendC: one plain
// (uint32_t, uint32_t) function, not a template, so mixed integer arguments convert to it
// (grid_sample's `Ceil(int32_t, int64_t)`, adaptive_max_pool3d's `Ceil(long, int64_t)`) and a
// kernel's own `template <typename T> T Ceil(T, T)` stays the exact match for its own types.
// A zero divisor answers 0 (the chip's result is undefined), as DivCeil above.
inline std::uint32_t Ceil(std::uint32_t a, std::uint32_t b) { return b == 0 ? 0u : (a + b - 1) / b; }
inline constexpr std::uint64_t MASK_PLACEHOLDER = 0;
inline constexpr std::uint64_t MASK_PLACEHOLDER_LIST[2] = {0, 0};

enum class RoundMode : std::uint8_t {
  CAST_NONE = 0,
  CAST_RINT,   // round to nearest, ties to even
  CAST_FLOOR,  // toward -inf
  CAST_CEIL,   // toward +inf
  CAST_ROUND,  // to nearest, ties away from zero
  CAST_TRUNC,  // toward zero
  CAST_ODD,    // von Neumann rounding (round to odd)
  CAST_HYBRID,
  UNKNOWN = 0xff,
};

enum class CMPMODE : std::uint8_t { LT = 0, GT, EQ, LE, GE, NE };

enum class SELMODE : std::uint8_t {
  VSEL_CMPMASK_SPR = 0,         // one repeat's worth of selMask, reused by every repeat
  VSEL_TENSOR_SCALAR_MODE = 1,  // src1 is a scalar; selMask consumed continuously
  VSEL_TENSOR_TENSOR_MODE = 2,  // selMask consumed continuously
};

enum class MaskMode : std::uint8_t { NORMAL = 0, COUNTER };

enum class ReduceOrder : std::uint8_t {
  ORDER_VALUE_INDEX = 0,
  ORDER_INDEX_VALUE,
  ORDER_ONLY_VALUE,
  ORDER_ONLY_INDEX,
};

struct BinaryRepeatParams {
  BinaryRepeatParams() {}
  BinaryRepeatParams(const std::uint8_t dstBlkStrideIn, const std::uint8_t src0BlkStrideIn,
                     const std::uint8_t src1BlkStrideIn, const std::uint8_t dstRepStrideIn,
                     const std::uint8_t src0RepStrideIn, const std::uint8_t src1RepStrideIn)
      : dstBlkStride(dstBlkStrideIn), src0BlkStride(src0BlkStrideIn), src1BlkStride(src1BlkStrideIn),
        dstRepStride(dstRepStrideIn), src0RepStride(src0RepStrideIn), src1RepStride(src1RepStrideIn) {}
  std::uint32_t blockNumber = DEFAULT_BLK_NUM;
  std::uint8_t dstBlkStride = DEFAULT_BLK_STRIDE;
  std::uint8_t src0BlkStride = DEFAULT_BLK_STRIDE;
  std::uint8_t src1BlkStride = DEFAULT_BLK_STRIDE;
  std::uint8_t dstRepStride = DEFAULT_REPEAT_STRIDE;
  std::uint8_t src0RepStride = DEFAULT_REPEAT_STRIDE;
  std::uint8_t src1RepStride = DEFAULT_REPEAT_STRIDE;
  bool repeatStrideMode = false;
  bool strideSizeMode = false;
};

struct UnaryRepeatParams {
  UnaryRepeatParams() {}
  UnaryRepeatParams(const std::uint16_t dstBlkStrideIn, const std::uint16_t srcBlkStrideIn,
                    const std::uint8_t dstRepStrideIn, const std::uint8_t srcRepStrideIn)
      : dstBlkStride(dstBlkStrideIn), srcBlkStride(srcBlkStrideIn), dstRepStride(dstRepStrideIn),
        srcRepStride(srcRepStrideIn) {}
  UnaryRepeatParams(const std::uint16_t dstBlkStrideIn, const std::uint16_t srcBlkStrideIn,
                    const std::uint8_t dstRepStrideIn, const std::uint8_t srcRepStrideIn, const bool halfBlockIn)
      : dstBlkStride(dstBlkStrideIn), srcBlkStride(srcBlkStrideIn), dstRepStride(dstRepStrideIn),
        srcRepStride(srcRepStrideIn), halfBlock(halfBlockIn) {}
  std::uint32_t blockNumber = DEFAULT_BLK_NUM;
  std::uint16_t dstBlkStride = DEFAULT_BLK_STRIDE;
  std::uint16_t srcBlkStride = DEFAULT_BLK_STRIDE;
  std::uint8_t dstRepStride = DEFAULT_REPEAT_STRIDE;
  std::uint8_t srcRepStride = DEFAULT_REPEAT_STRIDE;
  bool repeatStrideMode = false;
  bool strideSizeMode = false;
  bool halfBlock = false;
};

// UB -> UB vector copy (Copy): strides in blocks, repeat sizes in blocks.
struct CopyRepeatParams {
  CopyRepeatParams() {}
  CopyRepeatParams(const std::uint16_t dstStrideIn, const std::uint16_t srcStrideIn, std::uint16_t dstRepeatSizeIn,
                   std::uint16_t srcRepeatSizeIn)
      : dstStride(dstStrideIn), srcStride(srcStrideIn), dstRepeatSize(dstRepeatSizeIn),
        srcRepeatSize(srcRepeatSizeIn) {}
  std::uint16_t dstStride = DEFAULT_BLK_STRIDE;
  std::uint16_t srcStride = DEFAULT_BLK_STRIDE;
  std::uint16_t dstRepeatSize = DEFAULT_REPEAT_STRIDE;
  std::uint16_t srcRepeatSize = DEFAULT_REPEAT_STRIDE;
};

enum class GatherMaskMode : std::uint8_t { VERSION_V1 = 0, VERSION_V2 = 1 };
inline constexpr GatherMaskMode defaultGatherMaskMode = GatherMaskMode::VERSION_V2;
inline constexpr GatherMaskMode defaultGahterMaskMode = GatherMaskMode::VERSION_V2;

struct GatherMaskParams {
  GatherMaskParams() {}
  GatherMaskParams(const std::uint8_t src0BlockStrideIn, const std::uint16_t repeatTimesIn,
                   const std::uint16_t src0RepeatStrideIn, const std::uint8_t src1RepeatStrideIn)
      : src0BlockStride(src0BlockStrideIn), repeatTimes(repeatTimesIn), src0RepeatStride(src0RepeatStrideIn),
        src1RepeatStride(src1RepeatStrideIn) {}
  std::uint8_t src0BlockStride = DEFAULT_BLK_STRIDE;
  std::uint16_t repeatTimes = 0;
  std::uint16_t src0RepeatStride = DEFAULT_REPEAT_STRIDE;
  std::uint8_t src1RepeatStride = DEFAULT_REPEAT_STRIDE;
};

// Gatherb's repeat parameters: dstBlkStride (0 counts as 1) and dstRepStride, in 32 B blocks;
// the other fields are documented as reserved and unused.
struct GatherRepeatParams {
  GatherRepeatParams() {}
  GatherRepeatParams(const std::uint8_t dstBlkStrideIn, const std::uint8_t dstRepStrideIn)
      : dstRepStride(dstRepStrideIn), dstBlkStride(dstBlkStrideIn) {}
  std::uint32_t blockNumber = DEFAULT_BLK_NUM;
  std::uint16_t dstRepStride = DEFAULT_REPEAT_STRIDE;
  std::uint8_t dstBlkStride = DEFAULT_BLK_STRIDE;
  std::uint8_t src0BlkStride = DEFAULT_BLK_STRIDE;
  std::uint8_t src1BlkStride = DEFAULT_BLK_STRIDE;
  std::uint8_t src0RepStride = DEFAULT_REPEAT_STRIDE;
  std::uint8_t src1RepStride = DEFAULT_REPEAT_STRIDE;
  bool repeatStrideMode = false;
  bool strideSizeMode = false;
};

struct BrcbRepeatParams {
  BrcbRepeatParams() {}
  BrcbRepeatParams(const std::uint16_t dstBlkStrideIn, const std::uint16_t dstRepStrideIn)
      : dstBlkStride(dstBlkStrideIn), dstRepStride(dstRepStrideIn) {}
  std::uint32_t blockNumber = DEFAULT_BLK_NUM;
  std::uint16_t dstBlkStride = DEFAULT_BLK_STRIDE;
  std::uint16_t dstRepStride = DEFAULT_REPEAT_STRIDE;
  bool repeatStrideMode = false;
  bool strideSizeMode = false;
};

}  // namespace AscendC

namespace aopt::sim::vec {

using AscendC::LocalTensor;

// A scalar parameter that takes its type from the tensor (Muls(halfTensor, x, 0.5f, n) works).
template <typename T>
struct nodeduce {
  using type = T;
};
template <typename T>
using nodeduce_t = typename nodeduce<T>::type;

// Vector APIs taken by address (a function-pointer template argument, `Foo<Muls>`, or a function
// pointer parameter) need their documented type, which has no room for the call site. So each
// such API has two overloads: the one kernels call, with a defaulted `src_loc` last parameter,
// and the documented signature for the address (its first parameter a deduced `Dst`, equal to
// LocalTensor<T>). A call matches both with the same conversions and partial ordering picks the
// first (more specialised); an address only matches the second, whose records name the API and
// no line: the call through the pointer has no site to give.
inline src_loc indirect_loc(const char* api) { return src_loc{"(called through a function pointer)", 0, api}; }
template <typename Dst, typename T>
using if_tensor_t = std::enable_if_t<std::is_same<Dst, AscendC::LocalTensor<T>>::value, int>;
// The documented `const uint8_t repeatTime` of an address-taken mask form, spelled as a type that
// depends on T: a call with an int repeat then still orders the two overloads (a plain uint8_t
// against the call form's int32_t makes GCC's partial ordering ambiguous).
template <typename T>
struct repeat_u8 {
  using type = std::uint8_t;
};
template <typename T>
using repeat_u8_t = typename repeat_u8<T>::type;

// The per-core vector mask register and mask mode (each emulated core runs on its own thread).
struct vec_state {
  bool counter = false;         // SetMaskCount() active
  std::uint64_t mask_lo = ~0ull;
  std::uint64_t mask_hi = ~0ull;
  double acc_val = 0;           // last ReduceSum-class result, for GetAccVal
  std::uint64_t max_min_cnt = 0;  // last ReduceMax/Min result (value bits | index << 32), get_max_min_cnt
  float deq_scale = 1.0f;         // SetDeqScale(half): the scale of the int32 -> half Cast (CAST_NONE)
};
// A pool thread may serve several blocks or launches: the state is reset whenever a new block
// execution (core_serial) starts using it.
inline vec_state& state() {
  struct keyed {
    std::uint64_t serial = 0;
    vec_state s;
  };
  static thread_local keyed k;
  const std::uint64_t serial = core_serial();
  if (serial != k.serial) {
    k.serial = serial;
    k.s = vec_state{};
  }
  return k.s;
}
inline void reset_state() { state() = vec_state{}; }

template <typename T>
inline constexpr std::uint32_t epb_v = 32 / sizeof(T);  // elements per 32 B block
template <typename T>
inline constexpr std::uint32_t epr_v = 256 / sizeof(T);  // elements per 256 B repeat

// Layout of one operand across repeats, in 32 B blocks.
struct layout {
  std::uint32_t blk = 1;
  std::uint32_t rep = 8;
};

// Lanes processed by a masked/repeated instruction.
struct lanes {
  std::uint32_t repeats = 0;  // repeats executed
  std::uint32_t epr = 0;      // lanes per repeat
  bool counter = false;       // counter mode: `count` elements over the repeats
  std::uint64_t count = 0;
  std::uint64_t m0 = 0, m1 = 0;  // normal mode: lane bits
  // Highest lane index used in any repeat (for bounds), or -1 when none.
  std::int64_t max_lane() const {
    if (repeats == 0) return -1;
    if (counter) return static_cast<std::int64_t>(std::min<std::uint64_t>(count, epr)) - 1;
    if (m1) return 127 - __builtin_clzll(m1);
    if (m0) return 63 - __builtin_clzll(m0);
    return -1;
  }
  std::uint32_t lane_count(std::uint32_t r) const {
    if (counter) {
      const std::uint64_t done = static_cast<std::uint64_t>(r) * epr;
      return static_cast<std::uint32_t>(count > done ? std::min<std::uint64_t>(count - done, epr) : 0);
    }
    return static_cast<std::uint32_t>(__builtin_popcountll(m0) + __builtin_popcountll(m1));
  }
  // Calls f(r, lane) for every active lane, repeat by repeat.
  template <class F>
  void for_each(F&& f) const {
    for (std::uint32_t r = 0; r < repeats; ++r) {
      if (counter) {
        const std::uint32_t n = lane_count(r);
        for (std::uint32_t i = 0; i < n; ++i) f(r, i);
      } else {
        for (std::uint64_t m = m0; m; m &= m - 1) f(r, static_cast<std::uint32_t>(__builtin_ctzll(m)));
        for (std::uint64_t m = m1; m; m &= m - 1) f(r, 64u + static_cast<std::uint32_t>(__builtin_ctzll(m)));
      }
    }
  }
};

// Element offset of lane `i` of repeat `r` for an operand with `epb` elements per block.
inline std::uint64_t lane_off(const layout& l, std::uint32_t epb, std::uint32_t r, std::uint32_t i) {
  return (static_cast<std::uint64_t>(r) * l.rep + static_cast<std::uint64_t>(i / epb) * l.blk) * epb + i % epb;
}

inline std::string num(std::uint64_t v) { return std::to_string(v); }

template <typename T>
inline void check_aligned(const LocalTensor<T>& t, const char* what, const src_loc& loc, const char* api) {
  if (t.aopt_addr() % 32 != 0) {
    fail(hw_error_kind::misaligned,
         std::string(what) + " starts at UB address " + num(t.aopt_addr()) +
             ", which is not 32-byte aligned; vector instructions need 32 B aligned operands "
             "(allocate from TQue/TBuf and offset sub-tensors by multiples of 32 B)",
         loc, api);
  }
}

// An operand whose documented alignment is finer than 32 B (WholeReduce's destination: the size
// of one result, 2 B for half values, 4 B for float values or indices, 8 B for float value-index pairs).
template <typename T>
inline void check_aligned_to(const LocalTensor<T>& t, std::uint32_t bytes, const char* what, const src_loc& loc,
                             const char* api) {
  if (t.aopt_addr() % bytes != 0) {
    fail(hw_error_kind::misaligned,
         std::string(what) + " starts at UB address " + num(t.aopt_addr()) + ", which is not " + num(bytes) +
             "-byte aligned, as " + api + " needs for this data type and result order",
         loc, api);
  }
}

// `elems` elements starting at `t` must stay inside the tensor.
template <typename T>
inline void check_extent(const LocalTensor<T>& t, std::uint64_t elems, const char* what, const src_loc& loc,
                         const char* api) {
  check_ub_access(t.aopt_addr(), elems * sizeof(T), std::uint64_t{t.aopt_capacity()} * sizeof(T), what, loc, api);
}

template <typename T>
inline void check_operand(const LocalTensor<T>& t, std::uint64_t elems, const char* what, const src_loc& loc,
                          const char* api) {
  check_aligned(t, what, loc, api);
  check_extent(t, elems, what, loc, api);
}

inline void check_count(std::int64_t count, const src_loc& loc, const char* api) {
  if (count < 0) {
    fail(hw_error_kind::param_out_of_range, "count " + std::to_string(count) + " is negative", loc, api);
  }
}

inline void check_repeat(std::int64_t repeat, const src_loc& loc, const char* api) {
  if (repeat < 0 || repeat > 255) {
    fail(hw_error_kind::param_out_of_range,
         "repeatTimes " + std::to_string(repeat) +
             " is outside [0, 255]; split the call into several instructions of at most 255 repeats",
         loc, api);
  }
}

// Elements of an operand touched by `ln` in layout `l` (0 when no lane is active).
inline std::uint64_t extent(const lanes& ln, const layout& l, std::uint32_t epb) {
  const std::int64_t ml = ln.max_lane();
  if (ml < 0) return 0;
  return lane_off(l, epb, ln.repeats - 1, static_cast<std::uint32_t>(ml)) + 1;
}

// Lanes of an instruction given the continuous mask argument (isSetMask) or the mask register.
// `epr` = lanes per repeat (256 / size of the widest operand).
inline lanes lanes_from_mask(bool set_mask, std::uint64_t mask, std::int64_t repeat, std::uint32_t epr,
                             const src_loc& loc, const char* api) {
  vec_state& st = state();
  lanes ln;
  ln.epr = epr;
  if (st.counter) {
    if (set_mask) {
      st.mask_lo = mask;
      st.mask_hi = 0;
    }
    ln.counter = true;
    ln.count = st.mask_lo;
    ln.repeats = static_cast<std::uint32_t>((ln.count + epr - 1) / epr);
    return ln;
  }
  check_repeat(repeat, loc, api);
  ln.repeats = static_cast<std::uint32_t>(repeat);
  if (set_mask) {
    const std::uint32_t maxm = std::min<std::uint32_t>(epr, 128);
    if (mask == 0 || mask > maxm) {
      fail(hw_error_kind::param_out_of_range,
           "continuous mask " + num(mask) + " is outside [1, " + num(maxm) +
               "] for this data type (one repeat holds " + num(epr) + " elements)",
           loc, api);
    }
    st.mask_lo = mask >= 64 ? ~0ull : ((1ull << mask) - 1);
    st.mask_hi = mask > 64 ? (mask >= 128 ? ~0ull : ((1ull << (mask - 64)) - 1)) : 0;
  }
  ln.m0 = st.mask_lo;
  ln.m1 = epr > 64 ? st.mask_hi : 0;
  if (epr < 64) ln.m0 &= (1ull << epr) - 1;
  return ln;
}

// Same with the bitwise mask argument {mask[0] = lanes 0..63, mask[1] = lanes 64..127}.
inline lanes lanes_from_bits(bool set_mask, const std::uint64_t mask[], std::int64_t repeat, std::uint32_t epr,
                             const src_loc& loc, const char* api) {
  vec_state& st = state();
  if (st.counter) {
    return lanes_from_mask(set_mask, set_mask ? mask[0] : 0, repeat, epr, loc, api);
  }
  check_repeat(repeat, loc, api);
  lanes ln;
  ln.epr = epr;
  ln.repeats = static_cast<std::uint32_t>(repeat);
  if (set_mask) {
    const std::uint64_t hi = epr > 64 ? mask[1] : 0;
    if (mask[0] == 0 && hi == 0) {
      fail(hw_error_kind::param_out_of_range, "bitwise mask selects no element (mask[0] and mask[1] are 0)", loc,
           api);
    }
    st.mask_lo = mask[0];
    st.mask_hi = hi;
  }
  ln.m0 = st.mask_lo;
  ln.m1 = epr > 64 ? st.mask_hi : 0;
  if (epr < 64) ln.m0 &= (1ull << epr) - 1;
  return ln;
}

// The count form: the API runs the instruction in counter mode with mask = count, then restores
// normal mode with a full mask (as the AscendC library does).
inline lanes lanes_from_count(std::int64_t count, std::uint32_t epr, const src_loc& loc, const char* api) {
  check_count(count, loc, api);
  lanes ln;
  ln.epr = epr;
  ln.counter = true;
  ln.count = static_cast<std::uint64_t>(count);
  ln.repeats = static_cast<std::uint32_t>((ln.count + epr - 1) / epr);
  vec_state& st = state();
  st.counter = false;
  st.mask_lo = st.mask_hi = ~0ull;
  return ln;
}

// Bank cost of an instruction with up to four operands (blocks per repeat from element sizes).
struct bank_op {
  std::uint32_t addr;
  std::uint32_t blk;
  std::uint32_t bytes_per_repeat;
  bool write;
};

// The operands banks_of() saw for the instruction being recorded: record_vec() takes their UB
// ranges for the timing model's implicit serialisation, then clears them.
struct pending_operands {
  bank_op ops[6];
  std::size_t n = 0;
};
inline pending_operands& pending_vec_operands() {
  thread_local pending_operands p;
  return p;
}

inline std::uint16_t banks_of(std::initializer_list<bank_op> ops) {
  bank_access acc[6];
  pending_operands& pend = pending_vec_operands();
  std::size_t n = 0;
  for (const bank_op& o : ops) {
    if (n == 6) break;
    pend.ops[n] = o;
    acc[n++] = bank_access{o.addr, o.blk, std::max<std::uint32_t>(1, o.bytes_per_repeat / 32), o.write};
  }
  pend.n = n;
  return bank_conflict_cycles(acc, n);
}

// The UB span of `repeats` repeats of an operand: repeats x bytes per repeat x block stride, an
// approximation of strided layouts that covers the contiguous ones exactly.
inline std::uint32_t operand_span(const bank_op& o, std::uint32_t repeats) {
  const std::uint64_t per = std::max<std::uint32_t>(1, o.bytes_per_repeat) * std::uint64_t{std::max<std::uint32_t>(1, o.blk)};
  return static_cast<std::uint32_t>(std::min<std::uint64_t>(per * repeats, std::uint64_t{1} << 24));
}

// Puts the pending operands' UB ranges on `r` (dst: the written range; without operands the
// destination's repeats x 256 B) and clears them.
inline void attach_operands(trace_rec& r) {
  pending_operands& pend = pending_vec_operands();
  std::uint32_t reads = 0;
  for (std::size_t i = 0; i < pend.n; ++i) {
    const bank_op& o = pend.ops[i];
    const std::uint32_t span = operand_span(o, r.repeats);
    if (o.write) {
      widen_range(r.ub_addr, r.ub_bytes, o.addr, span);
    } else {
      const std::uint32_t k = reads < 2 ? reads : 1;
      widen_range(r.src_addr[k], r.src_bytes[k], o.addr, span);
      ++reads;
    }
  }
  if (r.ub_bytes == 0) r.ub_bytes = r.repeats * 256u;
  pend.n = 0;
}

// Appends the one vector record of an instruction.
inline void record_vec(vec_class c, std::uint32_t dtype_bytes, std::uint32_t repeats, std::uint32_t dst_addr,
                       std::uint16_t bank_cycles, const src_loc& loc, const char* api) {
  trace_rec r;
  r.kind = rec_kind::vector;
  r.p = pipe::v;
  r.vclass = c;
  r.dtype_bytes = static_cast<std::uint8_t>(dtype_bytes);
  r.repeats = repeats;
  r.ub_addr = dst_addr;
  r.bank_cycles = bank_cycles;
  r.site = site_of(loc, api);
  attach_operands(r);
  record(r);
}

// Arithmetic that matches the hardware: integers wrap, floating types round per operation.
template <typename T>
inline T wrap_add(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(static_cast<U>(a) + static_cast<U>(b)));
  } else {
    return static_cast<T>(a + b);
  }
}
template <typename T>
inline T wrap_sub(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(static_cast<U>(a) - static_cast<U>(b)));
  } else {
    return static_cast<T>(a - b);
  }
}
template <typename T>
inline T wrap_mul(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    using U = std::conditional_t<(sizeof(T) < 4), std::uint32_t, std::make_unsigned_t<T>>;
    return static_cast<T>(static_cast<U>(static_cast<U>(a) * static_cast<U>(b)));
  } else {
    return static_cast<T>(a * b);
  }
}
template <typename T>
inline T div_op(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    return b == 0 ? T(0) : static_cast<T>(a / b);
  } else {
    return static_cast<T>(a / b);
  }
}
// Arithmetic on `float` for the transcendental functions, rounded back to T.
template <typename T>
inline float to_f(T v) {
  return static_cast<float>(v);
}
template <typename T>
inline T from_f(float v) {
  if constexpr (std::is_integral_v<T>) {
    return static_cast<T>(v);
  } else {
    return static_cast<T>(v);
  }
}

}  // namespace aopt::sim::vec
