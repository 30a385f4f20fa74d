// The raw CCE vector intrinsics of NPU arch 220 that real kernels call directly on `__ubuf__`
// pointers (cann-ops' norm family does, under `#if __CCE_AICORE__ == 220`), and the special
// registers they read. On the chip these are compiler builtins in the global namespace; the
// AscendC basic API is a thin layer over them. Here each one runs the emulated basic-API
// instruction it corresponds to, on a LocalTensor view of the pointer, so values, operand checks,
// the mask register and the timing record are the same as its API neighbour's:
//   vcadd(dst, src, repeat, dstRepStride, srcBlkStride, srcRepStride[, mode])
//       = WholeReduceSum<T, false> (per-repeat sum under the mask register; dstRepStride in
//         results, strides in 32 B blocks): asc-devkit's C API implements its repeat-reduce-sum
//         as exactly this call with mode 0. `mode` must be false/0: the kernels seen pass false,
//         and what a non-zero mode does is not public, so it is refused.
//   vector_dup(dst, scalar, repeat, dstBlkStride, srcBlkStride, dstRepStride, srcRepStride)
//       = Duplicate<T, false>(dst, scalar, MASK_PLACEHOLDER, repeat, dstBlkStride, dstRepStride).
//   vor(dst, src0, src1, repeat, dstBlk, src0Blk, src1Blk, dstRep, src0Rep, src1Rep)
//       = Or<T, false> with those BinaryRepeatParams (the argument order of vadd & co.).
//   copy_ubuf_to_ubuf(dst, src, sid, nBurst, lenBurst, srcGap, dstGap)
//       = DataCopy(UB -> UB, DataCopyParams{nBurst, lenBurst, srcGap, dstGap}), 32 B units.
//   vtranspose(dst, src): one 16 x 16 transpose of 2-byte elements (512 B), as
//       AscendC::Transpose's 16 x 16 form; timed as a 2-repeat vector Copy (class unary).
//   set_va_reg_sb(VAn, uint64_t addrs[8]) / scatter_vnchwconv_b16(dstVA, srcVA, repeat,
//       dstRepStride, srcRepStride): the address registers and the 16 x 16 "NCHW to NC1HWC0"
//       transpose of TransDataTo5HD for 2-byte data. dstVA and dstVA+1 hold the 16 destination
//       rows, srcVA and srcVA+1 the 16 source rows (32 B each); row i of the destination gets
//       element i of every source row. Repeat r adds r * repStride * 32 B to every address.
//   get_max_min_cnt(): the register ReduceMax / ReduceMin leave their result in: the value's bits
//       in the low word (16 bits for half, 32 for float), the index in bits 32..63, the layout
//       AscendC's GetReduceMaxMinCount reads it with (CANN 8.1 basic API, dav_c220
//       kernel_operator_vec_reduce_impl.h).
// A pointer outside the core's UB is a `ub_out_of_bounds` hardware error.
#pragma once

#include <cstdint>
#include <cstring>

#include "aopt_sim/kernel/data_copy.h"
#include "aopt_sim/kernel/vec_misc.h"
#include "aopt_sim/kernel/vec_reduce.h"

namespace aopt::sim::cce {

// A LocalTensor view of a raw UB pointer, reaching to the end of the core's UB.
template <typename T>
inline AscendC::LocalTensor<T> ub_view(const T* p, const src_loc& loc, const char* api) {
  const std::byte* b = reinterpret_cast<const std::byte*>(p);
  const std::byte* base = ub_base();
  const std::uint64_t cap = ub_capacity();
  if (b < base || b >= base + cap) {
    fail(hw_error_kind::ub_out_of_bounds, "the __ubuf__ pointer does not point into this core's UB", loc, api);
  }
  const auto addr = static_cast<std::uint32_t>(b - base);
  const auto n = static_cast<std::uint32_t>((cap - addr) / sizeof(T));
  return AscendC::LocalTensor<T>(addr, n, AscendC::TPosition::VECCALC, n);
}

// The VA address registers (8 addresses each) of the current core.
struct va_regs {
  std::uint64_t v[8][8] = {};
};
inline va_regs& va() {
  struct keyed {
    std::uint64_t serial = 0;
    va_regs r;
  };
  static thread_local keyed k;
  if (k.serial != core_serial()) {
    k.serial = core_serial();
    k.r = va_regs{};
  }
  return k.r;
}

}  // namespace aopt::sim::cce

// The VA register names of the CCE toolchain.
enum ub_addr8_t : std::uint8_t { VA0 = 0, VA1, VA2, VA3, VA4, VA5, VA6, VA7 };

template <typename T>
inline void vcadd(__ubuf__ T* dst, __ubuf__ T* src, std::uint8_t repeat, std::uint16_t dstRepStride,
                  std::uint16_t srcBlkStride, std::uint16_t srcRepStride, bool mode = false,
                  aopt::sim::src_loc loc = aopt::sim::src_loc::current()) {
  namespace c = aopt::sim::cce;
  if (mode) {
    aopt::sim::fail(aopt::sim::hw_error_kind::param_out_of_range,
                    "vcadd with mode = true (the accumulate form) is not emulated", loc, "vcadd");
  }
  AscendC::WholeReduceSum<T, false>(c::ub_view(dst, loc, "vcadd"), c::ub_view(src, loc, "vcadd"),
                                    static_cast<int32_t>(AscendC::MASK_PLACEHOLDER), repeat, dstRepStride,
                                    srcBlkStride, srcRepStride, loc);
}

// int4 -> half (vconv_s42f16: dst, src, repeat, dstBlkStride, srcBlkStride, dstRepStride,
// srcRepStride, as weight_quant_batch_matmul_v2 calls it): its nibble order is not public, so a
// kernel that reaches it stops with an error naming it rather than guessing values.
template <typename... Args>
inline void vconv_s42f16(Args&&...) {
  aopt::sim::fail(aopt::sim::hw_error_kind::invalid_use,
                  "vconv_s42f16 (int4 -> half) is not emulated: the order of the two 4-bit values in a byte is not "
                  "public; use int8 weights on sim",
                  aopt::sim::src_loc::current(), "vconv_s42f16");
}

template <typename T, typename S>
inline void vector_dup(__ubuf__ T* dst, S scalar, std::uint8_t repeat, std::uint16_t dstBlkStride,
                       std::uint16_t srcBlkStride, std::uint8_t dstRepStride, std::uint8_t srcRepStride,
                       aopt::sim::src_loc loc = aopt::sim::src_loc::current()) {
  (void)srcBlkStride;
  (void)srcRepStride;
  AscendC::Duplicate<T, false>(aopt::sim::cce::ub_view(dst, loc, "vector_dup"), static_cast<T>(scalar),
                               AscendC::MASK_PLACEHOLDER, repeat, dstBlkStride, dstRepStride, loc);
}

template <typename T>
inline void vor(__ubuf__ T* dst, __ubuf__ T* src0, __ubuf__ T* src1, std::uint8_t repeat, std::uint8_t dstBlkStride,
                std::uint8_t src0BlkStride, std::uint8_t src1BlkStride, std::uint8_t dstRepStride,
                std::uint8_t src0RepStride, std::uint8_t src1RepStride,
                aopt::sim::src_loc loc = aopt::sim::src_loc::current()) {
  namespace c = aopt::sim::cce;
  AscendC::Or<T, false>(c::ub_view(dst, loc, "vor"), c::ub_view(src0, loc, "vor"), c::ub_view(src1, loc, "vor"),
                        AscendC::MASK_PLACEHOLDER, repeat,
                        AscendC::BinaryRepeatParams(dstBlkStride, src0BlkStride, src1BlkStride, dstRepStride,
                                                    src0RepStride, src1RepStride),
                        loc);
}

template <typename T>
inline void copy_ubuf_to_ubuf(__ubuf__ T* dst, __ubuf__ T* src, std::uint8_t sid, std::uint16_t nBurst,
                              std::uint16_t lenBurst, std::uint16_t srcGap, std::uint16_t dstGap,
                              aopt::sim::src_loc loc = aopt::sim::src_loc::current()) {
  (void)sid;
  namespace c = aopt::sim::cce;
  AscendC::DataCopy(c::ub_view(dst, loc, "copy_ubuf_to_ubuf"), c::ub_view(src, loc, "copy_ubuf_to_ubuf"),
                    AscendC::DataCopyParams(nBurst, lenBurst, srcGap, dstGap), loc);
}

template <typename T>
inline void vtranspose(__ubuf__ T* dst, __ubuf__ T* src, aopt::sim::src_loc loc = aopt::sim::src_loc::current()) {
  static_assert(sizeof(T) == 2, "vtranspose transposes 16 x 16 elements of 2 bytes");
  namespace c = aopt::sim::cce;
  const auto d = c::ub_view(dst, loc, "vtranspose");
  const auto s = c::ub_view(src, loc, "vtranspose");
  aopt::sim::vec::check_operand(d, 256, "dst", loc, "vtranspose");
  aopt::sim::vec::check_operand(s, 256, "src", loc, "vtranspose");
  T tmp[256];
  std::memcpy(tmp, s.aopt_ptr(), sizeof tmp);
  T* o = d.aopt_ptr();
  for (int i = 0; i < 16; ++i) {
    for (int j = 0; j < 16; ++j) o[i * 16 + j] = tmp[j * 16 + i];
  }
  aopt::sim::vec::record_vec(aopt::sim::vec_class::unary, sizeof(T), 2, d.aopt_addr(),
                             aopt::sim::vec::banks_of({{s.aopt_addr(), 1, 256, false}, {d.aopt_addr(), 1, 256, true}}),
                             loc, "vtranspose");
}

inline void set_va_reg_sb(ub_addr8_t reg, const std::uint64_t* addrs,
                          aopt::sim::src_loc loc = aopt::sim::src_loc::current()) {
  std::memcpy(aopt::sim::cce::va().v[reg], addrs, sizeof(std::uint64_t) * 8);
  aopt::sim::record_scalar(0, 8, loc, "set_va_reg_sb");
}

inline void scatter_vnchwconv_b16(ub_addr8_t dstReg, ub_addr8_t srcReg, std::uint8_t repeat,
                                  std::uint16_t dstRepStride, std::uint16_t srcRepStride,
                                  aopt::sim::src_loc loc = aopt::sim::src_loc::current()) {
  namespace c = aopt::sim::cce;
  constexpr const char* api = "scatter_vnchwconv_b16";
  if (dstReg > VA6 || srcReg > VA6) {
    aopt::sim::fail(aopt::sim::hw_error_kind::param_out_of_range,
                    "scatter_vnchwconv_b16 reads two consecutive VA registers: VA7 has no successor", loc, api);
  }
  const auto& r = c::va();
  std::uint16_t* drow[16];
  const std::uint16_t* srow[16];
  std::uint32_t first_dst = 0, first_src = 0;
  for (std::uint32_t rep = 0; rep < repeat; ++rep) {
    for (int i = 0; i < 16; ++i) {
      const std::uint64_t da = r.v[dstReg + i / 8][i % 8] + std::uint64_t{rep} * dstRepStride * 32;
      const std::uint64_t sa = r.v[srcReg + i / 8][i % 8] + std::uint64_t{rep} * srcRepStride * 32;
      const auto dv = c::ub_view(reinterpret_cast<std::uint16_t*>(da), loc, api);
      const auto sv = c::ub_view(reinterpret_cast<const std::uint16_t*>(sa), loc, api);
      aopt::sim::vec::check_operand(dv, 16, "a destination row", loc, api);
      aopt::sim::vec::check_operand(sv, 16, "a source row", loc, api);
      if (rep == 0 && i == 0) {
        first_dst = dv.aopt_addr();
        first_src = sv.aopt_addr();
      }
      drow[i] = dv.aopt_ptr();
      srow[i] = sv.aopt_ptr();
    }
    std::uint16_t tmp[16][16];
    for (int j = 0; j < 16; ++j) std::memcpy(tmp[j], srow[j], 32);
    for (int i = 0; i < 16; ++i) {
      for (int j = 0; j < 16; ++j) drow[i][j] = tmp[j][i];
    }
  }
  if (repeat == 0) return;
  aopt::sim::vec::record_vec(aopt::sim::vec_class::unary, 2, 2u * repeat, first_dst,
                             aopt::sim::vec::banks_of({{first_src, 1, 256, false}, {first_dst, 1, 256, true}}), loc,
                             api);
}

inline std::uint64_t get_max_min_cnt() { return aopt::sim::vec::state().max_min_cnt; }

// The CTRL register of the core: get_ctrl() reads it, set_ctrl(v) writes it, sbitset1(v, bit) /
// sbitset0(v, bit) answer v with one bit set / cleared (batch_mat_mul_v3's full-load kernel:
// `set_ctrl(sbitset1(get_ctrl(), 51))`). The value is kept per core, starting at 0; no bit changes
// what sim does (the atomic mode of CTRL[8:6] is SetAtomicAdd & co.; bit 51's effect is not public).
namespace aopt::sim::cce {
inline std::uint64_t& ctrl_register() {
  struct keyed {
    std::uint64_t serial = 0;
    std::uint64_t value = 0;
  };
  static thread_local keyed k;
  if (k.serial != core_serial()) {
    k.serial = core_serial();
    k.value = 0;
  }
  return k.value;
}
}  // namespace aopt::sim::cce
// PRELOAD(len): the hint to fetch the next `len` instruction lines (mat_mul_v3's split-K kernel:
// `PRELOAD(4); // preload commands`). Sim has no instruction cache: it evaluates the argument only.
#ifndef PRELOAD
#define PRELOAD(len) static_cast<void>(len)
#endif
// ENABLE_DETERMINISTIC() (conv3d_backprop_filter_v2's kernel, first statement): no public page
// describes this macro. The documented deterministic switch is a build variant: the tiling
// template page (Utils-API/Tiling模板编程/模板参数定义.md, ASCENDC_TPL_DETERMINISTIC_SEL) compiles it
// with -DDETERMINISTIC_MODE=1, which sim never defines, so kernels run their ordinary form. The
// macro is a no-op here [ASSUMED: a compile-time marker; on sim every core's additions into GM
// are done one at a time, so results do not depend on the order cores reach them anyway].
#ifndef ENABLE_DETERMINISTIC
#define ENABLE_DETERMINISTIC() static_cast<void>(0)
#endif
inline std::uint64_t get_ctrl() { return aopt::sim::cce::ctrl_register(); }
inline void set_ctrl(std::uint64_t value) { aopt::sim::cce::ctrl_register() = value; }
inline std::uint64_t sbitset1(std::uint64_t value, std::uint64_t bit) { return value | (std::uint64_t{1} << (bit & 63u)); }
inline std::uint64_t sbitset0(std::uint64_t value, std::uint64_t bit) { return value & ~(std::uint64_t{1} << (bit & 63u)); }
// The mask register's mode, as SetMaskNorm / SetMaskCount set it (rnn/dynamic_rnnv2 calls
// set_mask_norm() at its kernel's start).
inline void set_mask_norm(aopt::sim::src_loc loc = aopt::sim::src_loc::current()) { AscendC::SetMaskNorm(loc); }
inline void set_mask_count(aopt::sim::src_loc loc = aopt::sim::src_loc::current()) { AscendC::SetMaskCount(loc); }

namespace AscendC {
// The value and index of the last ReduceMax/ReduceMin/WholeReduceMax/Min, read from the special
// register (get_max_min_cnt): the value's bits, and the index's 32 bits, each as T (the caller
// reinterprets the index as an integer, as WholeReduceMax's value-index layout in UB).
template <typename T>
inline void GetReduceRepeatMaxMinSpr(T& maxMinValue, T& maxMinIndex) {
  const std::uint64_t reg = get_max_min_cnt();
  const auto value_bits = static_cast<std::uint32_t>(reg & 0xffffffffu);
  const auto index_bits = static_cast<std::uint32_t>(reg >> 32);
  std::memcpy(&maxMinValue, &value_bits, sizeof(T) < 4 ? sizeof(T) : 4);
  std::memcpy(&maxMinIndex, &index_bits, sizeof(T) < 4 ? sizeof(T) : 4);
}
template <typename T>
inline void GetReduceRepeatMaxMinSpr(T& maxMinValue) {
  T index;
  GetReduceRepeatMaxMinSpr(maxMinValue, index);
}
// The earlier names of the same reads.
template <typename T>
inline void GetReduceMaxMinCount(T& maxMinValue, T& maxMinIndex) {
  GetReduceRepeatMaxMinSpr(maxMinValue, maxMinIndex);
}
template <typename T>
inline void GetReduceMaxMinCount(T& maxMinValue) {
  GetReduceRepeatMaxMinSpr(maxMinValue);
}
}  // namespace AscendC

// ---- GM -> L1 (the Cube's L1 Buffer, `__cbuf__`) ----
// asc-devkit docs/zh/api/SIMD-API/C-API/cube_datamove/asc_copy_gm2l1/asc_copy_gm2l1_arch_2201.md
// (NPU arch 2201, PIPE_MTE2), "普通搬运模式（高维切分）": n_burst bursts of len_burst 32-byte
// DataBlocks, src_gap / dst_gap DataBlocks between the end of one burst and the start of the next
// (n_burst in [1, 4095], len_burst in [1, 65535]); the size form moves `size` bytes as one burst.
// The raw intrinsic kernels call, copy_gm_to_cbuf(dst, src, sid, nBurst, lenBurst, srcGap, dstGap,
// padMode) (conv2d_backprop_filter_v2), is the same move with the stream id and the pad mode:
// PAD_NONE is the plain move, PAD_MODEn the C API's asc_copy_gm2l1_padn (the names correspond; the
// public C-API implementation passes exactly that mode, read, not copied). The page documents the
// removing modes 6, 7, 8: "每32B删除最高位的28B/24B/16B, 最低位的4B/8B/16B连续存储" (of every 32-byte
// block the lowest 4/8/16 bytes, taken as the block's first bytes in address order, are stored
// one after another); those are emulated. The inserting modes 1..5 ("每1B插入31B的pad" ...) do not
// say what the inserted bytes hold, so they stop with an error naming the mode rather than guess.
enum pad_t : std::uint8_t {
  PAD_NONE = 0,
  PAD_MODE1,
  PAD_MODE2,
  PAD_MODE3,
  PAD_MODE4,
  PAD_MODE5,
  PAD_MODE6,
  PAD_MODE7,
  PAD_MODE8,
};

namespace aopt::sim::cce {
// The L1 address of a raw `__cbuf__` pointer, checked to lie in the core's L1.
inline std::uint32_t l1_addr(const void* p, const src_loc& loc, const char* api) {
  const std::byte* b = static_cast<const std::byte*>(p);
  const std::byte* base = ub_base();
  const std::uint64_t off = static_cast<std::uint64_t>(b - base);
  if (b < base || local_mem_of(off) != local_mem::l1) {
    fail(hw_error_kind::ub_out_of_bounds,
         "the __cbuf__ destination does not point into this core's L1 Buffer: pass the address of an A1/B1 "
         "tensor (LocalTensor::GetPhyAddr())",
         loc, api);
  }
  return static_cast<std::uint32_t>(off);
}

// n_burst bursts of len_burst 32-byte blocks from GM into L1, as DataCopy(A1/B1, GM, DataCopyParams)
// does (the same checks and MTE2 record).
inline void copy_gm_to_l1(void* dst, const void* src, std::uint16_t n_burst, std::uint16_t len_burst,
                          std::uint16_t src_gap, std::uint16_t dst_gap, const src_loc& loc, const char* api) {
  if (n_burst < 1 || n_burst > 4095 || len_burst < 1) {
    fail(hw_error_kind::param_out_of_range,
         std::string(api) + ": n_burst " + std::to_string(n_burst) + " must be in [1, 4095] and len_burst " +
             std::to_string(len_burst) + " in [1, 65535] (32-byte blocks)",
         loc, api);
  }
  const std::uint32_t addr = l1_addr(dst, loc, api);
  const std::uint64_t span = (std::uint64_t{n_burst} * (len_burst + dst_gap) - dst_gap) * 32;
  AscendC::GlobalTensor<std::uint8_t> g;
  g.SetGlobalBuffer(static_cast<std::uint8_t*>(const_cast<void*>(src)), loc);
  const auto n = static_cast<std::uint32_t>(span);
  const AscendC::LocalTensor<std::uint8_t> l(addr, n, AscendC::TPosition::A1, n);
  AscendC::DataCopy(l, g, AscendC::DataCopyParams(n_burst, len_burst, src_gap, dst_gap), loc);
}
}  // namespace aopt::sim::cce

inline void asc_copy_gm2l1(__cbuf__ void* dst, __gm__ void* src, std::uint16_t n_burst, std::uint16_t len_burst,
                           std::uint16_t src_gap, std::uint16_t dst_gap,
                           aopt::sim::src_loc loc = aopt::sim::src_loc::current()) {
  aopt::sim::cce::copy_gm_to_l1(dst, src, n_burst, len_burst, src_gap, dst_gap, loc, "asc_copy_gm2l1");
}

// The size form: `size` bytes in one burst. The page does not say what a size that is not a whole
// number of 32-byte DataBlocks moves, so such a size is refused.
inline void asc_copy_gm2l1(__cbuf__ void* dst, __gm__ void* src, std::uint32_t size,
                           aopt::sim::src_loc loc = aopt::sim::src_loc::current()) {
  if (size % 32 != 0 || size / 32 > 65535) {
    aopt::sim::fail(aopt::sim::hw_error_kind::param_out_of_range,
                    "asc_copy_gm2l1: size " + std::to_string(size) +
                        " bytes is not a whole number of 32-byte DataBlocks (at most 65535): what the move does "
                        "with a partial block is not documented, so it is not emulated",
                    loc, "asc_copy_gm2l1");
  }
  aopt::sim::cce::copy_gm_to_l1(dst, src, 1, static_cast<std::uint16_t>(size / 32), 0, 0, loc, "asc_copy_gm2l1");
}

namespace aopt::sim::cce {
// The removing pad modes (6, 7, 8): n_burst bursts of len_burst 32-byte source blocks, src_gap
// blocks apart in GM; of each block its first `keep` bytes (4, 8, 16) land in L1 one after another,
// each burst's right after the previous one's. A dst_gap is refused: the page does not say in which
// unit it counts once the data shrinks. MTE2 reads every source byte (timed as the whole bursts).
inline void copy_gm_to_l1_keep(void* dst, const void* src, std::uint16_t n_burst, std::uint16_t len_burst,
                               std::uint16_t src_gap, std::uint16_t dst_gap, std::uint32_t keep, int mode,
                               const src_loc& loc, const char* api) {
  const std::string name = std::string(api) + " (PAD_MODE" + std::to_string(mode) + ")";
  if (n_burst < 1 || n_burst > 4095 || len_burst < 1) {
    fail(hw_error_kind::param_out_of_range,
         name + ": n_burst " + std::to_string(n_burst) + " must be in [1, 4095] and len_burst " +
             std::to_string(len_burst) + " in [1, 65535] (32-byte blocks)",
         loc, api);
  }
  if (dst_gap != 0) {
    fail(hw_error_kind::invalid_use,
         name + " with dst_gap " + std::to_string(dst_gap) +
             ": the unit of a destination gap after a removing pad mode is not documented; only dst_gap 0 is emulated",
         loc, api);
  }
  const std::uint32_t addr = l1_addr(dst, loc, api);
  const std::uint64_t out_bytes = std::uint64_t{n_burst} * len_burst * keep;
  const std::uint64_t src_pitch = (std::uint64_t{len_burst} + src_gap) * 32;
  AscendC::GlobalTensor<std::uint8_t> g;
  g.SetGlobalBuffer(static_cast<std::uint8_t*>(const_cast<void*>(src)), loc);
  const std::byte* gp = reinterpret_cast<const std::byte*>(g.GetPhyAddr());
  g.aopt_check_read(gp, kernel_detail::span_bytes(n_burst, std::uint64_t{len_burst} * 32, src_pitch), loc, api);
  kernel_detail::check_ub_addr(addr, out_bytes, loc, api, "destination");
  kernel_detail::record_copy(rec_kind::copy_in, pipe::mte2, n_burst, std::uint64_t{len_burst} * 32, g.aopt_gm_offset(gp),
                             addr, 1, false, loc, api, g.aopt_gm_buf(), g.aopt_l2_bypass(), out_bytes);
  std::byte* out = static_cast<std::byte*>(dst);
  for (std::uint32_t b = 0; b < n_burst; ++b) {
    for (std::uint32_t k = 0; k < len_burst; ++k, out += keep) std::memcpy(out, gp + b * src_pitch + k * 32u, keep);
  }
}
}  // namespace aopt::sim::cce

inline void copy_gm_to_cbuf(__cbuf__ void* dst, __gm__ void* src, std::int8_t sid, std::uint16_t nBurst,
                            std::uint16_t lenBurst, std::uint16_t srcGap, std::uint16_t dstGap, pad_t padMode,
                            aopt::sim::src_loc loc = aopt::sim::src_loc::current()) {
  (void)sid;  // the stream id: no effect on the data
  if (padMode == PAD_MODE6 || padMode == PAD_MODE7 || padMode == PAD_MODE8) {
    const std::uint32_t keep = padMode == PAD_MODE6 ? 4 : padMode == PAD_MODE7 ? 8 : 16;
    aopt::sim::cce::copy_gm_to_l1_keep(dst, src, nBurst, lenBurst, srcGap, dstGap, keep, static_cast<int>(padMode), loc,
                                       "copy_gm_to_cbuf");
    return;
  }
  if (padMode != PAD_NONE) {
    aopt::sim::fail(aopt::sim::hw_error_kind::invalid_use,
                    "copy_gm_to_cbuf with pad mode PAD_MODE" + std::to_string(static_cast<int>(padMode)) +
                        " is not emulated: asc_copy_gm2l1_pad1..5 insert pad bytes whose value the page does not "
                        "give; PAD_NONE and the removing modes PAD_MODE6..8 are emulated",
                    loc, "copy_gm_to_cbuf");
  }
  aopt::sim::cce::copy_gm_to_l1(dst, src, nBurst, lenBurst, srcGap, dstGap, loc, "copy_gm_to_cbuf");
}

// The C API's removing forms (asc_copy_gm2l1_pad6/7/8), burst and size forms.
#define AOPT_GM2L1_KEEP(n, keep)                                                                                      \
  inline void asc_copy_gm2l1_pad##n(__cbuf__ void* dst, __gm__ void* src, std::uint16_t n_burst,                      \
                                    std::uint16_t len_burst, std::uint16_t src_gap, std::uint16_t dst_gap,            \
                                    aopt::sim::src_loc loc = aopt::sim::src_loc::current()) {                         \
    aopt::sim::cce::copy_gm_to_l1_keep(dst, src, n_burst, len_burst, src_gap, dst_gap, keep, n, loc,                 \
                                       "asc_copy_gm2l1_pad" #n);                                                      \
  }                                                                                                                   \
  inline void asc_copy_gm2l1_pad##n(__cbuf__ void* dst, __gm__ void* src, std::uint32_t size,                         \
                                    aopt::sim::src_loc loc = aopt::sim::src_loc::current()) {                         \
    if (size % 32 != 0 || size / 32 > 65535) {                                                                        \
      aopt::sim::fail(aopt::sim::hw_error_kind::param_out_of_range,                                                   \
                      "asc_copy_gm2l1_pad" #n ": size " + std::to_string(size) +                                      \
                          " bytes is not a whole number of 32-byte DataBlocks (at most 65535)",                       \
                      loc, "asc_copy_gm2l1_pad" #n);                                                                  \
    }                                                                                                                 \
    aopt::sim::cce::copy_gm_to_l1_keep(dst, src, 1, static_cast<std::uint16_t>(size / 32), 0, 0, keep, n, loc,       \
                                       "asc_copy_gm2l1_pad" #n);                                                      \
  }
AOPT_GM2L1_KEEP(6, 4)
AOPT_GM2L1_KEEP(7, 8)
AOPT_GM2L1_KEEP(8, 16)
#undef AOPT_GM2L1_KEEP
