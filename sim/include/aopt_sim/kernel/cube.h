// The Cube unit's basic API on the CPU (docs/sim.md, "The Cube unit"): GM -> L1 copies with the
// ND -> NZ conversion, LoadData (2D, transposed) L1 -> L0A/L0B, Mmad into L0C, Fixpipe out of
// L0C with NZ -> ND, quantisation and ReLU. Semantics from the public AscendC documentation
// (asc-devkit docs/zh/api/SIMD-API/基础API/矩阵计算（ISASI）); every line written here.
//
// Layouts (fractals of 512 bytes: 16 rows x C0 elements, C0 = 32 bytes / element size):
//   L1 (A1/B1), as Nd2Nz writes it: "Nz": 32-byte column blocks, each holding all rows;
//   L0A (A2): "Zz": fractals row-major over (m-block, k-block), rows of C0 k-values inside;
//   L0B (B2): "Zn": fractals row-major over (k-block, n-block), each n's C0 k-values together;
//   L0C (CO1): "Nz": 16 x 16 fractals column-major over (n-block, m-block), rows inside.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "aopt_sim/kernel/core.h"
#include "aopt_sim/kernel/cube_types.h"
#include "aopt_sim/kernel/data_copy.h"
#include "aopt_sim/kernel/global_tensor.h"
#include "aopt_sim/kernel/mix.h"
#include "aopt_sim/kernel/tensor.h"

namespace aopt::sim::cube_detail {

using AscendC::TPosition;
constexpr std::uint32_t fractal_bytes = 512;

inline const char* position_name(TPosition p) {
  switch (p) {
    case TPosition::GM: return "GM";
    case TPosition::A1: return "A1";
    case TPosition::A2: return "A2";
    case TPosition::B1: return "B1";
    case TPosition::B2: return "B2";
    case TPosition::C1: return "C1";
    case TPosition::C2: return "C2";
    case TPosition::CO1: return "CO1";
    case TPosition::CO2: return "CO2";
    case TPosition::VECIN: return "VECIN";
    case TPosition::VECOUT: return "VECOUT";
    case TPosition::VECCALC: return "VECCALC";
    case TPosition::TSCM: return "TSCM";
    default: return "another position";
  }
}

// The tensor must lie in buffer `mem` (its position's buffer); `role` names it in the message.
inline void require_mem(std::uint32_t addr, TPosition pos, aopt::sim::local_mem mem, const char* role,
                        const char* expected, const src_loc& loc, const char* api) {
  if (aopt::sim::local_mem_of(addr) != mem) {
    fail(hw_error_kind::invalid_use,
         std::string(role) + " is a tensor of position " + position_name(pos) + " (" +
             aopt::sim::local_mem_name(aopt::sim::local_mem_of(addr)) + "), but " + api + " takes it from " + expected +
             ": allocate it from a TQue/TBuf of that position",
         loc, api);
  }
}

// Byte offset of addr in its buffer, checked to be a multiple of `align`.
inline std::uint32_t check_align(std::uint32_t addr, std::uint32_t align, const char* role, const src_loc& loc,
                                 const char* api) {
  const auto mem = aopt::sim::local_mem_of(addr);
  const std::uint32_t off = addr - (mem == aopt::sim::local_mem::ub ? 0 : aopt::sim::local_base(mem));
  if (off % align != 0) {
    fail(hw_error_kind::misaligned,
         std::string(role) + " starts at byte " + std::to_string(off) + " of " + aopt::sim::local_mem_name(mem) +
             ", not a multiple of " + std::to_string(align) + " bytes, as " + api + " requires there",
         loc, api);
  }
  return off;
}

// [addr, addr + bytes) must stay inside the buffer addr lies in.
inline void check_extent(std::uint32_t addr, std::uint64_t bytes, const char* role, const src_loc& loc,
                         const char* api) {
  const auto mem = aopt::sim::local_mem_of(addr);
  const std::uint64_t off = addr - (mem == aopt::sim::local_mem::ub ? 0 : aopt::sim::local_base(mem));
  if (off + bytes > aopt::sim::local_capacity(mem)) {
    fail(hw_error_kind::ub_out_of_bounds,
         std::string(role) + " spans bytes [" + std::to_string(off) + ", " + std::to_string(off + bytes) + ") of " +
             aopt::sim::local_mem_name(mem) + ", past its " + std::to_string(aopt::sim::local_capacity(mem)) +
             " bytes: check the sizes and strides of the parameters",
         loc, api);
  }
}

inline void record_move(aopt::sim::pipe p, std::uint32_t dst, std::uint32_t dst_bytes, std::uint32_t src,
                        std::uint32_t src_bytes, std::uint32_t blocks, std::uint32_t block_bytes, std::size_t elem,
                        const src_loc& loc, const char* api) {
  trace_rec r;
  r.kind = rec_kind::cube_move;
  r.p = p;
  r.blocks = blocks;
  r.block_bytes = block_bytes;
  r.ub_addr = dst;
  r.ub_bytes = dst_bytes;
  r.src_addr[0] = src;
  r.src_bytes[0] = src_bytes;
  r.dtype_bytes = static_cast<std::uint8_t>(elem);
  r.event = aopt::sim::local_mem_of(dst) == aopt::sim::local_mem::l0b ? 1 : 0;
  r.site = aopt::sim::site_of(loc, api);
  aopt::sim::record(r);
}

template <typename T>
float to_f(T v) {
  if constexpr (std::is_same_v<T, bfloat16_t>) {
    return v.ToFloat();
  } else {
    return static_cast<float>(v);
  }
}

// The quantisation parameter's multiplier: bits 0..31 read as a float whose mantissa the
// hardware keeps to 10 bits (bits 13..22) [OFFICIAL, 随路量化 table 1].
inline float quant_scale(std::uint64_t q) {
  std::uint32_t bits = static_cast<std::uint32_t>(q & 0xFFFFFFFFu) & ~0x1FFFu;
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}
inline std::int32_t quant_offset(std::uint64_t q) {  // bits 37..45, a 9-bit signed integer
  std::int32_t o = static_cast<std::int32_t>((q >> 37) & 0x1FFu);
  return o >= 256 ? o - 512 : o;
}
inline bool quant_signed(std::uint64_t q) { return ((q >> 46) & 1u) != 0; }

// One accumulator value through ReLU and the quantisation mode, to the destination type.
template <typename D, typename S>
D fix_convert(S acc, AscendC::QuantMode_t mode, std::uint64_t q, bool relu) {
  using AscendC::QuantMode_t;
  double v = static_cast<double>(acc);
  if constexpr (std::is_integral_v<S>) {
    // REQ8 with the MCB bit: shift right by N (bits 32..35, 1..16) first [OFFICIAL, table 1].
    if ((mode == QuantMode_t::REQ8 || mode == QuantMode_t::VREQ8 || mode == QuantMode_t::DEQF16 ||
         mode == QuantMode_t::VDEQF16) &&
        ((q >> 36) & 1u) != 0) {
      const int n = static_cast<int>((q >> 32) & 0xFu) + 1;
      v = static_cast<double>(static_cast<std::int16_t>(acc >> n));
    }
  }
  // [ASSUMED] ReLU applies to the accumulator before the quantisation (the documentation's
  // "pre" stage order: the quantisation scale is positive in every use we know).
  if (relu && v < 0) v = 0;
  switch (mode) {
    case QuantMode_t::NoQuant:
      if constexpr (std::is_same_v<D, S>) {
        return relu && acc < 0 ? D{} : acc;
      } else {
        return static_cast<D>(static_cast<float>(v));
      }
    case QuantMode_t::F322F16:
    case QuantMode_t::F322BF16:
      return D(static_cast<float>(v));  // half / bfloat16_t round to nearest even
    case QuantMode_t::DEQF16:
    case QuantMode_t::VDEQF16:
      return D(static_cast<float>(v) * quant_scale(q));
    case QuantMode_t::QF322B8_PRE:
    case QuantMode_t::VQF322B8_PRE:
    case QuantMode_t::REQ8:
    case QuantMode_t::VREQ8: {
      // [ASSUMED] round to nearest even, then the offset, then saturation to int8 or uint8.
      double x = std::nearbyint(static_cast<double>(static_cast<float>(v) * quant_scale(q))) + quant_offset(q);
      const bool sgn = quant_signed(q);
      const double lo = sgn ? -128.0 : 0.0, hi = sgn ? 127.0 : 255.0;
      x = x < lo ? lo : (x > hi ? hi : x);
      return static_cast<D>(static_cast<std::int32_t>(x));
    }
  }
  return D{};
}

template <typename D, typename S>
constexpr bool fix_types_ok(AscendC::QuantMode_t mode) {
  using AscendC::QuantMode_t;
  constexpr bool f32 = std::is_same_v<S, float>, i32 = std::is_same_v<S, std::int32_t>;
  constexpr bool b8 = std::is_same_v<D, std::int8_t> || std::is_same_v<D, std::uint8_t>;
  switch (mode) {
    case QuantMode_t::NoQuant: return (f32 && std::is_same_v<D, float>) || (i32 && std::is_same_v<D, std::int32_t>);
    case QuantMode_t::F322F16: return f32 && std::is_same_v<D, half>;
    case QuantMode_t::F322BF16: return f32 && std::is_same_v<D, bfloat16_t>;
    case QuantMode_t::DEQF16: case QuantMode_t::VDEQF16: return i32 && std::is_same_v<D, half>;
    case QuantMode_t::QF322B8_PRE: case QuantMode_t::VQF322B8_PRE: return f32 && b8;
    case QuantMode_t::REQ8: case QuantMode_t::VREQ8: return i32 && b8;
  }
  return false;
}

inline bool vector_quant(AscendC::QuantMode_t m) {
  return m == AscendC::QuantMode_t::VDEQF16 || m == AscendC::QuantMode_t::VQF322B8_PRE ||
         m == AscendC::QuantMode_t::VREQ8;
}

inline const char* quant_name(AscendC::QuantMode_t m) {
  switch (m) {
    case AscendC::QuantMode_t::NoQuant: return "NoQuant";
    case AscendC::QuantMode_t::F322F16: return "F322F16";
    case AscendC::QuantMode_t::F322BF16: return "F322BF16";
    case AscendC::QuantMode_t::DEQF16: return "DEQF16";
    case AscendC::QuantMode_t::VDEQF16: return "VDEQF16";
    case AscendC::QuantMode_t::QF322B8_PRE: return "QF322B8_PRE";
    case AscendC::QuantMode_t::VQF322B8_PRE: return "VQF322B8_PRE";
    case AscendC::QuantMode_t::REQ8: return "REQ8";
    case AscendC::QuantMode_t::VREQ8: return "VREQ8";
  }
  return "?";
}

// The elements Fixpipe writes, in destination order: one callback per (row, column) of each of
// the ndNum matrices with the source element offset (in L0C elements) and the destination one.
struct fix_geometry {
  std::uint32_t n = 0, m = 0, src_stride = 0, nd_num = 1, src_nd_stride = 0, dst_nd_stride = 0;
  std::uint64_t dst_stride = 0;
  bool nz_out = false;
  std::uint32_t c0_out = 16;  // NZ output: elements per fractal row of the destination
  std::size_t dst_elem = 4;
  template <typename F>
  void each(F&& f) const {
    for (std::uint32_t j = 0; j < nd_num; ++j) {
      const std::uint64_t sbase = std::uint64_t{j} * src_nd_stride * 256u;
      const std::uint64_t dbase = std::uint64_t{j} * dst_nd_stride;
      for (std::uint32_t mi = 0; mi < m; ++mi) {
        for (std::uint32_t ni = 0; ni < n; ++ni) {
          const std::uint64_t s = sbase + std::uint64_t{ni / 16} * src_stride * 16u + mi * 16u + ni % 16;
          std::uint64_t d;
          if (nz_out) {
            // dstStride: 32-byte blocks between adjacent column blocks of the NZ destination.
            d = dbase + std::uint64_t{ni / c0_out} * dst_stride * 32u / dst_elem + std::uint64_t{mi} * c0_out +
                ni % c0_out;
          } else {
            d = dbase + std::uint64_t{mi} * dst_stride + ni;
          }
          f(j, mi, ni, s, d);
        }
      }
    }
  }
  std::uint64_t src_span_elems() const {
    if (m == 0 || n == 0 || nd_num == 0) return 0;
    return std::uint64_t{nd_num - 1} * src_nd_stride * 256u + std::uint64_t{(n - 1) / 16} * src_stride * 16u +
           std::uint64_t{m - 1} * 16u + 16u;
  }
  std::uint64_t dst_span_elems() const {
    if (m == 0 || n == 0 || nd_num == 0) return 0;
    const std::uint64_t last = std::uint64_t{nd_num - 1} * dst_nd_stride;
    if (nz_out) return last + std::uint64_t{(n - 1) / c0_out} * dst_stride * 32u / dst_elem + std::uint64_t{m} * c0_out;
    return last + std::uint64_t{m - 1} * dst_stride + n;
  }
};

template <typename D, typename S>
fix_geometry make_fix_geometry(const AscendC::FixpipeParamsV220& p, bool nz_out, const src_loc& loc, const char* api) {
  fix_geometry g;
  g.n = p.nSize;
  g.m = p.mSize;
  g.src_stride = p.srcStride;
  g.dst_stride = p.dstStride;
  g.nd_num = nz_out ? 1 : p.ndNum;
  g.src_nd_stride = p.srcNdStride;
  g.dst_nd_stride = p.dstNdStride;
  g.nz_out = nz_out;
  g.dst_elem = sizeof(D);
  g.c0_out = p.isChannelSplit ? 8 : (sizeof(D) == 1 ? 32 : 16);
  if (p.isChannelSplit && (!std::is_same_v<D, float> || !std::is_same_v<S, float> || !nz_out)) {
    fail(hw_error_kind::invalid_use,
         "isChannelSplit needs a float source and destination and the NZ output (CFG_NZ), not NZ2ND", loc, api);
  }
  // The parameter table asks nSize in whole 16-column fractals; the NZ2ND page's conversion walks
  // ceil(nSize / 16) blocks per row, and kernels with NZ2ND take any nSize (conv3dv2's pointwise
  // output of 24 channels): with NZ2ND the last block writes only its nSize % 16 columns.
  if (g.nz_out && g.n % (p.isChannelSplit ? 8 : 16) != 0) {
    fail(hw_error_kind::param_out_of_range,
         "nSize " + std::to_string(g.n) + " is not a multiple of " + std::string(p.isChannelSplit ? "8" : "16") +
             " (FixpipeParamsV220): the source is whole 16-column fractals of L0C",
         loc, api);
  }
  if (!nz_out && g.m > 8192) {
    fail(hw_error_kind::param_out_of_range, "mSize " + std::to_string(g.m) + " exceeds 8192 with NZ2ND", loc, api);
  }
  if (g.m != 0 && g.n != 0 && g.src_stride < (g.m + 15) / 16 * 16 && g.n > 16) {
    fail(hw_error_kind::param_out_of_range,
         "srcStride " + std::to_string(g.src_stride) + " is smaller than mSize " + std::to_string(g.m) +
             " rounded up to 16: adjacent column blocks of L0C would overlap (set srcStride = CeilAlign(mSize, 16))",
         loc, api);
  }
  if (g.dst_stride == 0 && g.m * g.n != 0) {
    fail(hw_error_kind::param_out_of_range,
         "dstStride is 0: with NZ2ND it is the destination row length in elements, with NZ the distance of column "
         "blocks in 32-byte blocks; it must be positive",
         loc, api);
  }
  if (!fix_types_ok<D, S>(p.quantPre)) {
    fail(hw_error_kind::invalid_use,
         std::string("quantPre ") + quant_name(p.quantPre) +
             " does not convert this L0C type to this destination type: float -> float/int32 -> int32 take NoQuant, "
             "float -> half F322F16, float -> bfloat16_t F322BF16, int32 -> half (V)DEQF16, float -> int8 "
             "(V)QF322B8_PRE, int32 -> int8 (V)REQ8",
         loc, api);
  }
  return g;
}

// Runs the conversion into a host buffer of destination elements laid out as the destination.
template <typename D, typename S>
void fix_run(const fix_geometry& g, const S* src, D* dst, const AscendC::FixpipeParamsV220& p,
             const std::uint64_t* vq) {
  g.each([&](std::uint32_t, std::uint32_t, std::uint32_t ni, std::uint64_t s, std::uint64_t d) {
    const std::uint64_t q = vq != nullptr ? vq[ni] : p.deqScalar;
    dst[d] = fix_convert<D, S>(src[s], p.quantPre, q, p.reluEn);
  });
}

}  // namespace aopt::sim::cube_detail

namespace AscendC {

// ---- GM -> L1 (A1/B1/C1) with the ND -> NZ conversion ----
template <typename T>
inline void DataCopy(const LocalTensor<T>& dst, const GlobalTensor<T>& src, const Nd2NzParams& p,
                     aopt::sim::src_loc loc = aopt::sim::src_loc::current()) {
  namespace c = aopt::sim::cube_detail;
  const char* api = "DataCopy(Nd2NzParams)";
  static_assert(sizeof(T) == 1 || sizeof(T) == 2 || sizeof(T) == 4, "Nd2Nz moves b8, b16 or b32 elements");
  const bool to_l1 = aopt::sim::local_mem_of(dst.aopt_addr()) == aopt::sim::local_mem::l1;
  if (!to_l1 && aopt::sim::local_mem_of(dst.aopt_addr()) != aopt::sim::local_mem::ub) {
    c::require_mem(dst.aopt_addr(), dst.GetPosition(), aopt::sim::local_mem::l1, "the destination", "L1 (A1/B1)", loc, api);
  }
  c::check_align(dst.aopt_addr(), 32, "the destination", loc, api);
  if (p.ndNum > 4095 || p.nValue > 16384 || p.dValue > 65535) {
    aopt::sim::fail(aopt::sim::hw_error_kind::param_out_of_range,
                    "Nd2NzParams out of range: ndNum " + std::to_string(p.ndNum) + " (<= 4095), nValue " +
                        std::to_string(p.nValue) + " (<= 16384)",
                    loc, api);
  }
  if (p.ndNum == 0 || p.nValue == 0 || p.dValue == 0) return;
  if (p.srcDValue < p.dValue) {
    aopt::sim::fail(aopt::sim::hw_error_kind::param_out_of_range,
                    "srcDValue " + std::to_string(p.srcDValue) + " is smaller than dValue " + std::to_string(p.dValue) +
                        ": the source rows would overlap",
                    loc, api);
  }
  constexpr std::uint32_t c0 = 32 / sizeof(T);
  const std::uint32_t nblk = (p.dValue + c0 - 1) / c0;
  // Span of the destination (bytes) and of the source (elements).
  std::uint64_t dst_end = 0;
  for (std::uint32_t i = 0; i < p.ndNum; ++i) {
    const std::uint64_t base = std::uint64_t{i} * p.dstNzMatrixStride * sizeof(T);
    const std::uint64_t last = base + static_cast<std::uint64_t>(p.nValue - 1) * p.dstNzNStride * 32u +
                               std::uint64_t{nblk - 1} * p.dstNzC0Stride * 32u + 32u;
    dst_end = std::max(dst_end, last);
  }
  c::check_extent(dst.aopt_addr(), dst_end, "the NZ destination", loc, api);
  const std::uint64_t src_elems = static_cast<std::uint64_t>(p.ndNum - 1) * p.srcNdMatrixStride +
                                  static_cast<std::uint64_t>(p.nValue - 1) * p.srcDValue + p.dValue;
  const std::byte* g = reinterpret_cast<const std::byte*>(src.GetPhyAddr());
  src.aopt_check_read(g, src_elems * sizeof(T), loc, api);
  std::byte* l1 = aopt::sim::ub_base() + dst.aopt_addr();
  for (std::uint32_t i = 0; i < p.ndNum; ++i) {
    const std::byte* sm = g + std::uint64_t{i} * p.srcNdMatrixStride * sizeof(T);
    std::byte* dm = l1 + std::uint64_t{i} * p.dstNzMatrixStride * sizeof(T);
    for (std::uint32_t j = 0; j < p.nValue; ++j) {
      const std::byte* srow = sm + std::uint64_t{j} * p.srcDValue * sizeof(T);
      std::byte* drow = dm + std::uint64_t{j} * p.dstNzNStride * 32u;
      for (std::uint32_t k = 0; k < nblk; ++k) {
        std::byte* blk = drow + std::uint64_t{k} * p.dstNzC0Stride * 32u;
        const std::uint32_t have = std::min<std::uint32_t>(c0, p.dValue - k * c0);
        std::memcpy(blk, srow + std::uint64_t{k} * 32u, have * sizeof(T));
        // A row whose last block is partial is padded with zeros in L1 [OFFICIAL, nd2nz].
        if (have < c0) std::memset(blk + have * sizeof(T), 0, (c0 - have) * sizeof(T));
      }
    }
  }
  aopt::sim::trace_rec r;
  r.kind = aopt::sim::rec_kind::copy_in;
  r.p = aopt::sim::pipe::mte2;
  r.event = 2;  // ND -> NZ: priced by rows (trace.h)
  r.blocks = std::uint32_t{p.ndNum} * p.nValue;
  r.block_bytes = static_cast<std::uint32_t>(std::uint64_t{p.dValue} * sizeof(T));
  r.gm_addr = src.aopt_gm_offset(g);
  r.gm_buf = src.aopt_gm_buf();
  r.l2_bypass = src.aopt_l2_bypass();
  r.ub_addr = dst.aopt_addr();
  r.ub_bytes = static_cast<std::uint32_t>(dst_end);
  r.dtype_bytes = static_cast<std::uint8_t>(sizeof(T));
  r.site = aopt::sim::site_of(loc, api);
  aopt::sim::record(r);
}

// ---- LoadData 2D: L1 (A1/B1) -> L0A/L0B (A2/B2), and GM -> L0A/L0B ----
namespace cube_impl {
template <typename T>
inline void load2d_local(const LocalTensor<T>& dst, std::uint32_t src_addr, const std::byte* src_host, bool from_gm,
                         const LoadData2DParams& p, const aopt::sim::src_loc& loc, const char* api) {
  namespace c = aopt::sim::cube_detail;
  const auto dmem = aopt::sim::local_mem_of(dst.aopt_addr());
  if (dmem != aopt::sim::local_mem::l0a && dmem != aopt::sim::local_mem::l0b) {
    c::require_mem(dst.aopt_addr(), dst.GetPosition(), aopt::sim::local_mem::l0a, "the destination",
                   "L0A or L0B (A2/B2)", loc, api);
  }
  c::check_align(dst.aopt_addr(), 512, "the destination", loc, api);
  if (p.repeatTimes == 0) return;
  if (p.ifTranspose && sizeof(T) != 2) {
    aopt::sim::fail(aopt::sim::hw_error_kind::invalid_use,
                    "LoadData with ifTranspose needs 2-byte elements (half/bfloat16_t); use LoadDataWithTranspose for "
                    "int8 and float",
                    loc, api);
  }
  if (p.ifTranspose && from_gm) {
    aopt::sim::fail(aopt::sim::hw_error_kind::invalid_use,
                    "LoadData from GM cannot transpose: only L1 -> L0A/L0B may set ifTranspose", loc, api);
  }
  const std::uint64_t dst_span = std::uint64_t{p.repeatTimes} * 512u + static_cast<std::uint64_t>(p.repeatTimes - 1) * p.dstGap * 512u;
  c::check_extent(dst.aopt_addr(), dst_span, "the destination", loc, api);
  std::int64_t lo = p.startIndex, hi = p.startIndex;
  for (std::uint32_t i = 0; i < p.repeatTimes; ++i) {
    const std::int64_t idx = p.addrMode == 0 ? std::int64_t{p.startIndex} + std::int64_t{i} * p.srcStride
                                             : std::int64_t{p.startIndex} - std::int64_t{i} * p.srcStride;
    lo = std::min(lo, idx);
    hi = std::max(hi, idx);
  }
  if (lo < 0) {
    aopt::sim::fail(aopt::sim::hw_error_kind::param_out_of_range,
                    "addrMode 1 walks below the source's first fractal (startIndex " + std::to_string(p.startIndex) +
                        ", srcStride " + std::to_string(p.srcStride) + ", repeatTimes " + std::to_string(p.repeatTimes) + ")",
                    loc, api);
  }
  const std::uint64_t src_span = static_cast<std::uint64_t>(hi + 1) * 512u;
  if (!from_gm) c::check_extent(src_addr, src_span, "the source", loc, api);
  std::byte* out = aopt::sim::ub_base() + dst.aopt_addr();
  for (std::uint32_t i = 0; i < p.repeatTimes; ++i) {
    const std::int64_t idx = p.addrMode == 0 ? std::int64_t{p.startIndex} + std::int64_t{i} * p.srcStride
                                             : std::int64_t{p.startIndex} - std::int64_t{i} * p.srcStride;
    const std::byte* f = src_host + static_cast<std::uint64_t>(idx) * 512u;
    std::byte* o = out + std::uint64_t{i} * (512u + std::uint64_t{p.dstGap} * 512u);
    if (!p.ifTranspose) {
      std::memmove(o, f, 512);
    } else {
      std::byte tmp[512];
      for (int r = 0; r < 16; ++r)
        for (int cc = 0; cc < 16; ++cc) std::memcpy(tmp + (cc * 16 + r) * 2, f + (r * 16 + cc) * 2, 2);
      std::memcpy(o, tmp, 512);
    }
  }
  if (!from_gm) {
    c::record_move(aopt::sim::pipe::mte1, dst.aopt_addr(), static_cast<std::uint32_t>(dst_span), src_addr,
                   static_cast<std::uint32_t>(src_span), p.repeatTimes, 512, sizeof(T), loc, api);
  }
}
}  // namespace cube_impl

template <typename T>
inline void LoadData(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LoadData2DParams& p,
                     aopt::sim::src_loc loc = aopt::sim::src_loc::current()) {
  namespace c = aopt::sim::cube_detail;
  const char* api = "LoadData";
  c::require_mem(src.aopt_addr(), src.GetPosition(), aopt::sim::local_mem::l1, "the source", "L1 (A1/B1)", loc, api);
  c::check_align(src.aopt_addr(), 32, "the source", loc, api);
  cube_impl::load2d_local(dst, src.aopt_addr(), aopt::sim::ub_base() + src.aopt_addr(), false, p, loc, api);
}

template <typename T>
inline void LoadData(const LocalTensor<T>& dst, const GlobalTensor<T>& src, const LoadData2DParams& p,
                     aopt::sim::src_loc loc = aopt::sim::src_loc::current()) {
  namespace d = aopt::sim::kernel_detail;
  const char* api = "LoadData";
  if (p.repeatTimes == 0) return;
  std::int64_t hi = p.startIndex;
  for (std::uint32_t i = 0; i < p.repeatTimes; ++i) {
    const std::int64_t idx = p.addrMode == 0 ? std::int64_t{p.startIndex} + std::int64_t{i} * p.srcStride
                                             : std::int64_t{p.startIndex} - std::int64_t{i} * p.srcStride;
    hi = std::max(hi, idx);
  }
  const std::byte* g = reinterpret_cast<const std::byte*>(src.GetPhyAddr());
  src.aopt_check_read(g, static_cast<std::uint64_t>(hi + 1) * 512u, loc, api);
  cube_impl::load2d_local(dst, 0, g, true, p, loc, api);
  const std::uint64_t dst_span = std::uint64_t{p.repeatTimes} * 512u + static_cast<std::uint64_t>(p.repeatTimes - 1) * p.dstGap * 512u;
  d::record_copy(aopt::sim::rec_kind::copy_in, aopt::sim::pipe::mte2, p.repeatTimes, 512,
                 src.aopt_gm_offset(g) + std::uint64_t{p.startIndex} * 512u, dst.aopt_addr(), sizeof(T), false, loc, api,
                 src.aopt_gm_buf(), src.aopt_l2_bypass(), dst_span);
}

// ---- LoadDataWithTranspose: L1 -> L0A/L0B, square blocks transposed ----
template <typename T>
inline void LoadDataWithTranspose(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LoadData2dTransposeParams& p,
                                  aopt::sim::src_loc loc = aopt::sim::src_loc::current()) {
  namespace c = aopt::sim::cube_detail;
  const char* api = "LoadDataWithTranspose";
  c::require_mem(src.aopt_addr(), src.GetPosition(), aopt::sim::local_mem::l1, "the source", "L1 (A1/B1)", loc, api);
  const auto dmem = aopt::sim::local_mem_of(dst.aopt_addr());
  if (dmem != aopt::sim::local_mem::l0a && dmem != aopt::sim::local_mem::l0b) {
    c::require_mem(dst.aopt_addr(), dst.GetPosition(), aopt::sim::local_mem::l0b, "the destination",
                   "L0A or L0B (A2/B2)", loc, api);
  }
  c::check_align(dst.aopt_addr(), 512, "the destination", loc, api);
  c::check_align(src.aopt_addr(), 32, "the source", loc, api);
  if (p.repeatTimes == 0) return;
  // Fractals per block: b16 one 16 x 16; b8 two 16 x 32 (one 32 x 32 block); b32 two 16 x 8 (one 16 x 16 block).
  constexpr std::uint32_t fracs = sizeof(T) == 2 ? 1 : 2;
  constexpr std::uint32_t side = sizeof(T) == 1 ? 32 : 16;  // the square block's side in elements
  const std::uint32_t block_bytes = fracs * 512u;
  std::uint64_t src_hi = 0, dst_hi = 0;
  std::byte* base = aopt::sim::ub_base();
  for (std::uint32_t i = 0; i < p.repeatTimes; ++i) {
    const std::int64_t idx = p.addrMode == 0 ? std::int64_t{p.startIndex} + std::int64_t{i} * p.srcStride
                                             : std::int64_t{p.startIndex} - std::int64_t{i} * p.srcStride;
    if (idx < 0) aopt::sim::fail(aopt::sim::hw_error_kind::param_out_of_range, "addrMode 1 walks below the source", loc, api);
    src_hi = std::max<std::uint64_t>(src_hi, static_cast<std::uint64_t>(idx + 1) * block_bytes);
    // dstGap: from the end of this repeat's first fractal to the next repeat's first fractal.
    const std::uint64_t dfirst = std::uint64_t{i} * (512u + std::uint64_t{p.dstGap} * 512u) *
                                 (fracs == 1 ? 1u : 1u);
    const std::uint64_t dlast = dfirst + (fracs - 1) * (512u + std::uint64_t{p.dstFracGap} * 512u) + 512u;
    dst_hi = std::max(dst_hi, dlast);
  }
  c::check_extent(src.aopt_addr(), src_hi, "the source", loc, api);
  c::check_extent(dst.aopt_addr(), dst_hi, "the destination", loc, api);
  std::vector<T> blk(side * side), tr(side * side);
  for (std::uint32_t i = 0; i < p.repeatTimes; ++i) {
    const std::int64_t idx = p.addrMode == 0 ? std::int64_t{p.startIndex} + std::int64_t{i} * p.srcStride
                                             : std::int64_t{p.startIndex} - std::int64_t{i} * p.srcStride;
    std::memcpy(blk.data(), base + src.aopt_addr() + static_cast<std::uint64_t>(idx) * block_bytes, block_bytes);
    // The fractals stacked vertically form a side x side row-major block; transpose it.
    for (std::uint32_t r = 0; r < side; ++r)
      for (std::uint32_t cc = 0; cc < side; ++cc) tr[cc * side + r] = blk[r * side + cc];
    const std::uint64_t dfirst = std::uint64_t{i} * (512u + std::uint64_t{p.dstGap} * 512u);
    for (std::uint32_t f = 0; f < fracs; ++f) {
      std::memcpy(base + dst.aopt_addr() + dfirst + f * (512u + std::uint64_t{p.dstFracGap} * 512u),
                  reinterpret_cast<const std::byte*>(tr.data()) + f * 512u, 512);
    }
  }
  c::record_move(aopt::sim::pipe::mte1, dst.aopt_addr(), static_cast<std::uint32_t>(dst_hi), src.aopt_addr(),
                 static_cast<std::uint32_t>(src_hi), p.repeatTimes * fracs, 512, sizeof(T), loc, api);
}

// ---- HF32 mode of Mmad ----
// SetHF32Mode / SetHF32TransMode (asc-devkit docs/zh/api/SIMD-API/基础API/矩阵计算（ISASI）/
// Mmad计算辅助配置接口/SetHF32Mode.md, SetHF32TransMode.md; Mmad计算关键特性说明/HF32.md; the C API's
// cube_compute/asc_enable_hf32.md): once enabled, the fp32 data of L0A/L0B are rounded to HF32
// before a float x float Mmad, and the Mmad runs at twice the fp32 rate (asc_enable_hf32.md,
// NPU arch 2201: cube_k 4 -> 8). The HF32 format's mantissa width on 910B-class chips is shown only
// in a figure that is not public here (the text gives 10 bits for the 950 only), so the values stay
// fp32 [ASSUMED]; the mode, the rounding mode and the doubled rate are modelled.
// Both documented signatures: the HF32Mode/HF32TransMode enums, and the earlier bool forms
// (SetHF32Mode(bool hf32Mode): true = enable; SetHF32TransMode(bool): true = toward zero), which
// kernels call with their tiling's flag (conv3d_backprop_filter_v2: SetHF32Mode(tiling->hf32Flag)).
enum class HF32Mode : std::uint8_t { DISABLE = 0, ENABLE = 1 };
enum class HF32TransMode : std::uint8_t { NEAREST_EVEN = 0, NEAREST_ZERO = 1 };
namespace cube_impl {
struct hf32_state {
  std::uint64_t serial = 0;
  bool enabled = false;
  bool toward_zero = false;
};
inline hf32_state& hf32() {
  static thread_local hf32_state s;
  const std::uint64_t serial = aopt::sim::core_serial();
  if (s.serial != serial) s = hf32_state{serial, false, false};
  return s;
}
}  // namespace cube_impl
inline void SetHF32Mode(HF32Mode mode) { cube_impl::hf32().enabled = mode == HF32Mode::ENABLE; }
inline void SetHF32Mode(bool hf32Mode) { cube_impl::hf32().enabled = hf32Mode; }
inline void SetHF32TransMode(HF32TransMode mode) {
  cube_impl::hf32().toward_zero = mode == HF32TransMode::NEAREST_ZERO;
}
inline void SetHF32TransMode(bool hf32TransMode) { cube_impl::hf32().toward_zero = hf32TransMode; }
// What the core's HF32 register holds now (for tests and the Mmad record).
inline bool aopt_hf32_enabled() { return cube_impl::hf32().enabled; }
inline bool aopt_hf32_toward_zero() { return cube_impl::hf32().toward_zero; }

// ---- Mmad: C (CO1) = A (A2) x B (B2) + C's initial value ----
namespace cube_impl {
template <typename T, typename U, typename S, typename V>
inline void mmad(const LocalTensor<T>& dst, const LocalTensor<U>& fm, const LocalTensor<S>& filter,
                 const LocalTensor<V>* bias, const MmadParams& p, const aopt::sim::src_loc& loc) {
  namespace c = aopt::sim::cube_detail;
  const char* api = "Mmad";
  // A kernel that uses Mmad is a Cube kernel (AIC-only unless it declares a type; mix.h).
  // Dependent on T, so only a kernel that instantiates Mmad registers the mark.
  static_cast<void>(aopt::sim::kernel_detail::cube_use_mark<static_cast<int>(sizeof(T) * 0)>::registered);
  constexpr bool fp16 = (std::is_same_v<U, half> && std::is_same_v<S, half>) ||
                        (std::is_same_v<U, bfloat16_t> && std::is_same_v<S, bfloat16_t>);
  constexpr bool i8 = (std::is_same_v<U, std::int8_t> || std::is_same_v<U, std::uint8_t>) &&
                      (std::is_same_v<S, std::int8_t> || std::is_same_v<S, std::uint8_t>);
  constexpr bool f32 = std::is_same_v<U, float> && std::is_same_v<S, float>;
  static_assert((fp16 && std::is_same_v<T, float>) || (i8 && std::is_same_v<T, std::int32_t>) ||
                    (f32 && std::is_same_v<T, float>),
                "Mmad type combination: half x half / bfloat16_t x bfloat16_t / float x float -> float, "
                "int8 x int8 -> int32");
  c::require_mem(dst.aopt_addr(), dst.GetPosition(), aopt::sim::local_mem::l0c, "the destination (C)", "L0C (CO1)", loc, api);
  c::require_mem(fm.aopt_addr(), fm.GetPosition(), aopt::sim::local_mem::l0a, "the left matrix (A)", "L0A (A2)", loc, api);
  c::require_mem(filter.aopt_addr(), filter.GetPosition(), aopt::sim::local_mem::l0b, "the right matrix (B)", "L0B (B2)", loc, api);
  c::check_align(dst.aopt_addr(), 1024, "the destination (C)", loc, api);
  c::check_align(fm.aopt_addr(), 512, "the left matrix (A)", loc, api);
  c::check_align(filter.aopt_addr(), 512, "the right matrix (B)", loc, api);
  if (p.m > 4095 || p.n > 4095 || p.k > 4095) {
    aopt::sim::fail(aopt::sim::hw_error_kind::param_out_of_range,
                    "MmadParams m " + std::to_string(p.m) + ", n " + std::to_string(p.n) + ", k " + std::to_string(p.k) +
                        ": each must be at most 4095",
                    loc, api);
  }
  if (p.m == 0 || p.n == 0 || p.k == 0) return;
  constexpr std::uint32_t c0 = 32 / sizeof(U);  // k per fractal row: half 16, int8 32, float 8
  std::uint32_t kalign = c0;
  if (f32 && p.kDirectionAlign) kalign = 16;
  const std::uint32_t kb = (p.k + kalign - 1) / kalign * kalign / c0;  // k-blocks of c0
  const std::uint32_t mb = (p.m + 15) / 16, nb = (p.n + 15) / 16;
  c::check_extent(fm.aopt_addr(), std::uint64_t{mb} * kb * 16 * c0 * sizeof(U), "the left matrix (A)", loc, api);
  c::check_extent(filter.aopt_addr(), std::uint64_t{kb} * nb * 16 * c0 * sizeof(S), "the right matrix (B)", loc, api);
  c::check_extent(dst.aopt_addr(), std::uint64_t{mb} * nb * 256 * sizeof(T), "the destination (C)", loc, api);
  const U* a = fm.aopt_ptr();
  const S* b = filter.aopt_ptr();
  T* cc = dst.aopt_ptr();
  const V* bv = nullptr;
  if (bias != nullptr) {
    const auto bm = aopt::sim::local_mem_of(bias->aopt_addr());
    if (bm != aopt::sim::local_mem::bt && bm != aopt::sim::local_mem::l0c) {
      c::require_mem(bias->aopt_addr(), bias->GetPosition(), aopt::sim::local_mem::bt, "the bias", "BT (C2)", loc, api);
    }
    c::check_extent(bias->aopt_addr(), std::uint64_t{nb} * 16 * sizeof(V), "the bias", loc, api);
    bv = bias->aopt_ptr();
  }
  // Initial value: the bias (bias form, or cmatrixSource), the L0C contents (accumulate), or 0.
  const bool accumulate = bias == nullptr && (p.isBias || (!p.cmatrixInitVal && !p.cmatrixSource));
  if (bias == nullptr && !p.cmatrixInitVal && p.cmatrixSource) {
    aopt::sim::fail(aopt::sim::hw_error_kind::invalid_use,
                    "cmatrixSource = true initialises C from the bias table, but this Mmad passes no bias tensor: use "
                    "the Mmad overload with the bias (C2) tensor",
                    loc, api);
  }
  using acc_t = std::conditional_t<std::is_same_v<T, float>, float, std::int64_t>;
  // AOPT_SIM_CUBE_TIMING_ONLY=1 (benchmarks of the timing model only, scripts/bench-matmul.sh):
  // the instruction is checked and recorded, its values are not computed.
  static const bool timing_only = [] {
    const char* e = std::getenv("AOPT_SIM_CUBE_TIMING_ONLY");
    return e != nullptr && e[0] == '1';
  }();
  for (std::uint32_t mi = 0; mi < (timing_only ? 0u : mb * 16); ++mi) {
    const std::uint32_t ma = (mi / 16) * kb * 16 * c0 + (mi % 16) * c0;
    for (std::uint32_t ni = 0; ni < nb * 16; ++ni) {
      T& out = cc[(std::uint64_t{ni / 16} * mb + mi / 16) * 256u + (mi % 16) * 16u + ni % 16];
      acc_t acc{};
      if (bv != nullptr) {
        acc = static_cast<acc_t>(c::to_f(bv[ni]));
      } else if (accumulate) {
        acc = static_cast<acc_t>(out);
      }
      const std::uint32_t nbase = (ni / 16) * 16 * c0 + (ni % 16) * c0;
      if constexpr (std::is_same_v<T, float>) {
        // fp32 accumulation of exact products [ASSUMED: summation order along k].
        for (std::uint32_t ki = 0; ki < p.k; ++ki) {
          const U av = a[ma + (ki / c0) * 16 * c0 + ki % c0];
          const S bw = b[(std::uint64_t{ki / c0} * nb) * 16 * c0 + nbase + ki % c0];
          acc += c::to_f(av) * c::to_f(bw);
        }
        out = acc;
      } else {
        for (std::uint32_t ki = 0; ki < p.k; ++ki) {
          const U av = a[ma + (ki / c0) * 16 * c0 + ki % c0];
          const S bw = b[(std::uint64_t{ki / c0} * nb) * 16 * c0 + nbase + ki % c0];
          acc += static_cast<std::int64_t>(av) * static_cast<std::int64_t>(bw);
        }
        out = static_cast<T>(static_cast<std::int32_t>(static_cast<std::uint32_t>(acc)));  // wraps like int32
      }
    }
  }
  aopt::sim::trace_rec r;
  r.kind = aopt::sim::rec_kind::mmad;
  r.p = aopt::sim::pipe::m;
  r.blocks = p.m;
  r.block_bytes = p.n;
  r.repeats = p.k;
  r.dtype_bytes = static_cast<std::uint8_t>(sizeof(U));
  // event 1: a float Mmad under HF32 mode, priced at twice the fp32 rate (asc_enable_hf32.md).
  r.event = (f32 && hf32().enabled) ? 1 : 0;
  r.ub_addr = dst.aopt_addr();
  r.ub_bytes = mb * nb * 256u * sizeof(T);
  r.src_addr[0] = fm.aopt_addr();
  r.src_bytes[0] = mb * kb * 16u * c0 * sizeof(U);
  r.src_addr[1] = filter.aopt_addr();
  r.src_bytes[1] = kb * nb * 16u * c0 * sizeof(S);
  r.site = aopt::sim::site_of(loc, api);
  aopt::sim::record(r);
}
}  // namespace cube_impl

template <typename T, typename U, typename S>
inline void Mmad(const LocalTensor<T>& dst, const LocalTensor<U>& fm, const LocalTensor<S>& filter,
                 const MmadParams& mmadParams, aopt::sim::src_loc loc = aopt::sim::src_loc::current()) {
  cube_impl::mmad<T, U, S, T>(dst, fm, filter, nullptr, mmadParams, loc);
}
template <typename T, typename U, typename S, typename V>
inline void Mmad(const LocalTensor<T>& dst, const LocalTensor<U>& fm, const LocalTensor<S>& filter,
                 const LocalTensor<V>& bias, const MmadParams& mmadParams,
                 aopt::sim::src_loc loc = aopt::sim::src_loc::current()) {
  cube_impl::mmad<T, U, S, V>(dst, fm, filter, &bias, mmadParams, loc);
}

// ---- Fixpipe: L0C (CO1) -> GM, NZ2ND (CFG_ROW_MAJOR) or NZ (CFG_NZ) ----
namespace cube_impl {
template <typename T, typename U>
inline void fixpipe_gm(const GlobalTensor<T>& dst, const LocalTensor<U>& src, const std::uint64_t* vq,
                       const FixpipeParamsV220& p, bool nz_out, const aopt::sim::src_loc& loc, const char* api) {
  namespace c = aopt::sim::cube_detail;
  namespace d = aopt::sim::kernel_detail;
  c::require_mem(src.aopt_addr(), src.GetPosition(), aopt::sim::local_mem::l0c, "the source", "L0C (CO1)", loc, api);
  if (p.mSize == 0 || p.nSize == 0 || (!nz_out && p.ndNum == 0)) return;
  const c::fix_geometry g = c::make_fix_geometry<T, U>(p, nz_out, loc, api);
  c::check_extent(src.aopt_addr(), g.src_span_elems() * sizeof(U), "the source", loc, api);
  const std::uint64_t dspan = g.dst_span_elems();
  std::byte* gp = reinterpret_cast<std::byte*>(dst.GetPhyAddr());
  // Rows not written keep GM's contents: start from them.
  std::vector<T> out(dspan);
  dst.aopt_check(gp, dspan * sizeof(T), loc, api);
  std::memcpy(out.data(), gp, dspan * sizeof(T));
  std::vector<char> written(dspan, 0);
  c::fix_run<T, U>(g, src.aopt_ptr(), out.data(), p, vq);
  g.each([&](std::uint32_t, std::uint32_t, std::uint32_t, std::uint64_t, std::uint64_t e) { written[e] = 1; });
  // Store the written elements (atomic mode honoured), run by run.
  std::uint64_t i = 0;
  while (i < dspan) {
    if (!written[i]) { ++i; continue; }
    std::uint64_t j = i;
    while (j < dspan && written[j]) ++j;
    d::store_to_gm<T>(gp + i * sizeof(T), 0, reinterpret_cast<const std::byte*>(out.data() + i), 0, 1, (j - i) * sizeof(T));
    i = j;
  }
  const std::uint32_t rows = g.nd_num * g.m;
  d::record_copy(aopt::sim::rec_kind::copy_out, aopt::sim::pipe::fix, nz_out ? (g.n + g.c0_out - 1) / g.c0_out : rows,
                 nz_out ? std::uint64_t{g.m} * g.c0_out * sizeof(T) : std::uint64_t{g.n} * sizeof(T), dst.aopt_gm_offset(gp),
                 src.aopt_addr(), sizeof(T), aopt::sim::atomic_mode() != aopt::sim::atomic_op::none, loc, api,
                 dst.aopt_gm_buf(), dst.aopt_l2_bypass(), g.src_span_elems() * sizeof(U));
}

template <typename T, typename U>
inline void fixpipe_local(const LocalTensor<T>& dst, const LocalTensor<U>& src, const std::uint64_t* vq,
                          const FixpipeParamsV220& p, bool nz_out, const aopt::sim::src_loc& loc, const char* api) {
  namespace c = aopt::sim::cube_detail;
  c::require_mem(src.aopt_addr(), src.GetPosition(), aopt::sim::local_mem::l0c, "the source", "L0C (CO1)", loc, api);
  const auto dm = aopt::sim::local_mem_of(dst.aopt_addr());
  if (dm != aopt::sim::local_mem::l1 && dm != aopt::sim::local_mem::ub) {
    c::require_mem(dst.aopt_addr(), dst.GetPosition(), aopt::sim::local_mem::l1, "the destination", "L1 (A1/B1) or UB",
                   loc, api);
  }
  c::check_align(dst.aopt_addr(), 32, "the destination", loc, api);
  if (p.mSize == 0 || p.nSize == 0 || (!nz_out && p.ndNum == 0)) return;
  const c::fix_geometry g = c::make_fix_geometry<T, U>(p, nz_out, loc, api);
  c::check_extent(src.aopt_addr(), g.src_span_elems() * sizeof(U), "the source", loc, api);
  c::check_extent(dst.aopt_addr(), g.dst_span_elems() * sizeof(T), "the destination", loc, api);
  c::fix_run<T, U>(g, src.aopt_ptr(), dst.aopt_ptr(), p, vq);
  c::record_move(aopt::sim::pipe::fix, dst.aopt_addr(), static_cast<std::uint32_t>(g.dst_span_elems() * sizeof(T)),
                 src.aopt_addr(), static_cast<std::uint32_t>(g.src_span_elems() * sizeof(U)), g.nd_num * g.m,
                 g.n * static_cast<std::uint32_t>(sizeof(T)), sizeof(T), loc, api);
}

template <typename S>
inline const std::uint64_t* quant_vector(const LocalTensor<S>& ws, const FixpipeParamsV220& p,
                                         const aopt::sim::src_loc& loc, const char* api) {
  namespace c = aopt::sim::cube_detail;
  static_assert(std::is_same_v<S, std::uint64_t>, "cbufWorkspace holds uint64_t quantisation parameters");
  c::require_mem(ws.aopt_addr(), ws.GetPosition(), aopt::sim::local_mem::l1, "cbufWorkspace", "L1 (C1)", loc, api);
  if (!c::vector_quant(p.quantPre)) return nullptr;
  c::check_extent(ws.aopt_addr(), std::uint64_t{p.nSize} * sizeof(std::uint64_t), "cbufWorkspace", loc, api);
  return ws.aopt_ptr();
}
// The forms without cbufWorkspace take the scalar modes only.
inline void require_scalar_quant(const FixpipeParamsV220& p, const aopt::sim::src_loc& loc) {
  if (aopt::sim::cube_detail::vector_quant(p.quantPre)) {
    aopt::sim::fail(aopt::sim::hw_error_kind::invalid_use,
                    std::string("quantPre ") + aopt::sim::cube_detail::quant_name(p.quantPre) +
                        " takes per-column parameters: use the Fixpipe overload with cbufWorkspace",
                    loc, "Fixpipe");
  }
}
}  // namespace cube_impl

template <typename T, typename U, const FixpipeConfig& config = CFG_ROW_MAJOR>
inline void Fixpipe(const GlobalTensor<T>& dst, const LocalTensor<U>& src, const FixpipeParamsV220& intriParams,
                    aopt::sim::src_loc loc = aopt::sim::src_loc::current()) {
  cube_impl::require_scalar_quant(intriParams, loc);
  cube_impl::fixpipe_gm<T, U>(dst, src, nullptr, intriParams, config.format == CO2Layout::NZ, loc, "Fixpipe");
}
template <typename T, typename U, const FixpipeConfig& config = CFG_ROW_MAJOR, typename S = std::uint64_t>
inline void Fixpipe(const GlobalTensor<T>& dst, const LocalTensor<U>& src, const LocalTensor<S>& cbufWorkspace,
                    const FixpipeParamsV220& intriParams, aopt::sim::src_loc loc = aopt::sim::src_loc::current()) {
  const std::uint64_t* vq = cube_impl::quant_vector(cbufWorkspace, intriParams, loc, "Fixpipe");
  cube_impl::fixpipe_gm<T, U>(dst, src, vq, intriParams, config.format == CO2Layout::NZ, loc, "Fixpipe");
}
template <typename T, typename U, const FixpipeConfig& config = CFG_ROW_MAJOR>
inline void Fixpipe(const LocalTensor<T>& dst, const LocalTensor<U>& src, const FixpipeParamsV220& intriParams,
                    aopt::sim::src_loc loc = aopt::sim::src_loc::current()) {
  cube_impl::require_scalar_quant(intriParams, loc);
  cube_impl::fixpipe_local<T, U>(dst, src, nullptr, intriParams, config.format == CO2Layout::NZ, loc, "Fixpipe");
}
template <typename T, typename U, const FixpipeConfig& config = CFG_ROW_MAJOR, typename S = std::uint64_t>
inline void Fixpipe(const LocalTensor<T>& dst, const LocalTensor<U>& src, const LocalTensor<S>& cbufWorkspace,
                    const FixpipeParamsV220& intriParams, aopt::sim::src_loc loc = aopt::sim::src_loc::current()) {
  const std::uint64_t* vq = cube_impl::quant_vector(cbufWorkspace, intriParams, loc, "Fixpipe");
  cube_impl::fixpipe_local<T, U>(dst, src, vq, intriParams, config.format == CO2Layout::NZ, loc, "Fixpipe");
}

// The templated FixpipeParams<T>(cburstNum, burstLen, srcStride, dstStride) that cann-ops'
// convolution kernels pass to Fixpipe (conv3d_backprop_input_v2 into its workspace,
// conv2d_backprop_filter_v2). Fixpipe（L0C到GM数据搬运）.md documents only FixpipeParamsV220 for
// A2/A3, yet these A2 kernels call this form. [ASSUMED, from the fields' names and the calls: one
// burst per 16-column block of L0C (cburstNum = ceil(N / 16)), each burstLen 32-byte blocks of L0C
// elements (M rows of 16: burstLen = M * 16 * sizeof(L0C type) / 32), written to GM in NZ (block
// after block, M rows of 16 destination elements each) through quantParams.quantPre; only gapless
// bursts (srcStride and dstStride 0), the others refused; conv3d_backprop_input_v2's input gradient
// matches a computation of our own with it (scripts/check-conv-output.py).]
template <typename T>
struct FixpipeParams {
  FixpipeParams() = default;
  FixpipeParams(std::uint16_t v0, std::uint16_t v1, std::uint16_t v2, std::uint32_t v3) : values{v0, v1, v2, v3} {}
  std::uint32_t values[4] = {0, 0, 0, 0};  // cburstNum, burstLen, srcStride, dstStride
  // The quantization part kernels set before the call (`fixpipeParams.quantParams.quantPre = ...`).
  struct {
    QuantMode_t quantPre = QuantMode_t::NoQuant;
  } quantParams;
};
template <typename T, typename U, typename S>
inline void Fixpipe(const GlobalTensor<T>& dst, const LocalTensor<U>& src, const FixpipeParams<S>& p,
                    aopt::sim::src_loc loc = aopt::sim::src_loc::current()) {
  const std::uint32_t bursts = p.values[0], len = p.values[1];
  if (p.values[2] != 0 || p.values[3] != 0 || (len * 32u) % (16u * sizeof(U)) != 0) {
    aopt::sim::fail(aopt::sim::hw_error_kind::invalid_use,
                    "Fixpipe with FixpipeParams<T>: only gapless bursts of whole L0C rows are emulated (srcStride " +
                        std::to_string(p.values[2]) + ", dstStride " + std::to_string(p.values[3]) + ", burstLen " +
                        std::to_string(len) + "): no public page gives this form's fields on A2/A3; use FixpipeParamsV220",
                    loc, "Fixpipe");
  }
  const auto m = static_cast<std::uint16_t>(len * 32u / (16u * sizeof(U)));
  FixpipeParamsV220 v(static_cast<std::uint16_t>(bursts * 16u), m, static_cast<std::uint16_t>((m + 15u) / 16u * 16u),
                      static_cast<std::uint32_t>(std::uint64_t{m} * 16u * sizeof(T) / 32u), false);
  v.quantPre = p.quantParams.quantPre;
  Fixpipe<T, U, CFG_NZ>(dst, src, v, loc);
}

// ---- Fill (InitConstValue): L1 in 32-byte blocks, L0A/L0B in 512-byte blocks, on MTE2 ----
template <typename T, typename U = T>
inline void Fill(const LocalTensor<T>& dst, const InitConstValueParams<U>& p,
                 aopt::sim::src_loc loc = aopt::sim::src_loc::current()) {
  static_assert(std::is_same_v<T, U>, "InitConstValueParams' type is the tensor's");
  namespace c = aopt::sim::cube_detail;
  const char* api = "Fill";
  const auto mem = aopt::sim::local_mem_of(dst.aopt_addr());
  if (mem != aopt::sim::local_mem::l1 && mem != aopt::sim::local_mem::l0a && mem != aopt::sim::local_mem::l0b) {
    c::require_mem(dst.aopt_addr(), dst.GetPosition(), aopt::sim::local_mem::l1, "the destination",
                   "L1, L0A or L0B (A1/B1/A2/B2)", loc, api);
  }
  if (p.repeatTimes == 0 || p.blockNum == 0) return;
  const std::uint64_t blk = mem == aopt::sim::local_mem::l1 ? 32 : 512;
  c::check_align(dst.aopt_addr(), static_cast<std::uint32_t>(blk), "the destination", loc, api);
  const std::uint64_t round = std::uint64_t{p.blockNum} * blk, pitch = round + std::uint64_t{p.dstGap} * blk;
  const std::uint64_t span = (p.repeatTimes - 1u) * pitch + round;
  c::check_extent(dst.aopt_addr(), span, "the destination", loc, api);
  std::byte* base = aopt::sim::ub_base() + dst.aopt_addr();
  for (std::uint32_t r = 0; r < p.repeatTimes; ++r) {
    T* d = reinterpret_cast<T*>(base + r * pitch);
    for (std::uint64_t i = 0; i < round / sizeof(T); ++i) d[i] = p.initValue;
  }
  c::record_move(aopt::sim::pipe::mte2, dst.aopt_addr(), static_cast<std::uint32_t>(span), 0, 0, p.repeatTimes,
                 static_cast<std::uint32_t>(round), sizeof(T), loc, api);
}
// The older name of Fill.
template <typename T, typename U = T>
inline void InitConstValue(const LocalTensor<T>& dst, const InitConstValueParams<U>& p,
                           aopt::sim::src_loc loc = aopt::sim::src_loc::current()) {
  Fill(dst, p, loc);
}

// ---- Local copies with the Cube's buffers: L1 (C1) -> BT (C2), UB -> L1, L1 -> L1 ----
template <typename T, typename U>
inline void DataCopy(const LocalTensor<T>& dst, const LocalTensor<U>& src, const DataCopyParams& repeatParams,
                     aopt::sim::src_loc loc = aopt::sim::src_loc::current()) {
  aopt::sim::kernel_detail::cube_local_copy(dst, src, repeatParams, loc);
}

// ---- DataCopy L0C -> GM (DataCopyCO12DstParams): the older form of the fixpipe path ----
namespace cube_impl {
struct co12_state {
  std::uint64_t serial = 0;
  std::uint64_t quant = 0;
  Nz2NdParams nz2nd;
};
inline co12_state& co12() {
  static thread_local co12_state s;
  const std::uint64_t serial = aopt::sim::core_serial();
  if (s.serial != serial) s = co12_state{serial, 0, {}};
  return s;
}
}  // namespace cube_impl

// Scalar quantisation parameter of the DataCopy L0C -> GM path.
inline void SetFixpipePreQuantFlag(std::uint64_t config) { cube_impl::co12().quant = config; }
// NZ2ND matrices of the DataCopy L0C -> GM path.
inline void SetFixpipeNz2ndFlag(std::uint16_t ndNum, std::uint16_t srcNdStride, std::uint16_t dstNdStride) {
  cube_impl::co12().nz2nd = Nz2NdParams{ndNum, srcNdStride, dstNdStride};
}

template <typename T, typename U>
inline void DataCopy(const GlobalTensor<T>& dst, const LocalTensor<U>& src, const DataCopyCO12DstParams& p,
                     aopt::sim::src_loc loc = aopt::sim::src_loc::current()) {
  FixpipeParamsV220 f;
  f.nSize = p.nSize;
  f.mSize = p.mSize;
  f.srcStride = p.srcStride;
  f.quantPre = p.quantPre;
  f.deqScalar = cube_impl::co12().quant;
  f.reluEn = p.reluPre != 0;
  f.isChannelSplit = p.channelSplit;
  if (p.nz2ndEn) {
    f.dstStride = p.dstStride;
    f.ndNum = cube_impl::co12().nz2nd.ndNum;
    f.srcNdStride = cube_impl::co12().nz2nd.srcNdStride;
    f.dstNdStride = cube_impl::co12().nz2nd.dstNdStride;
  } else {
    // NZ output: dstStride is in 32-byte blocks between adjacent column blocks [OFFICIAL].
    f.dstStride = p.dstStride;
  }
  cube_impl::fixpipe_gm<T, U>(dst, src, nullptr, f, !p.nz2ndEn, loc, "DataCopy(DataCopyCO12DstParams)");
}

}  // namespace AscendC

namespace aopt::sim::kernel_detail {

// L1 -> BT: blockLen in 64-byte units of the destination [OFFICIAL, DataCopy（L1ToBiasTable）: A2],
// dstGap in 64-byte units, srcGap in 32-byte blocks; half -> float converted on the way, int32 and
// float as they are. UB -> L1 (MTE3) and L1 -> L1 (MTE1): same type, 32-byte units.
template <typename T, typename U>
void cube_local_copy(const AscendC::LocalTensor<T>& dst, const AscendC::LocalTensor<U>& src,
                     const AscendC::DataCopyParams& p, const src_loc& loc) {
  namespace c = aopt::sim::cube_detail;
  const char* api = "DataCopy";
  const auto dm = aopt::sim::local_mem_of(dst.aopt_addr()), sm = aopt::sim::local_mem_of(src.aopt_addr());
  if (p.blockCount == 0 || p.blockLen == 0) return;
  std::byte* base = aopt::sim::ub_base();
  if (dm == aopt::sim::local_mem::bt && sm == aopt::sim::local_mem::l1) {
    constexpr bool ok = (std::is_same_v<T, float> && (std::is_same_v<U, half> || std::is_same_v<U, float>)) ||
                        (std::is_same_v<T, std::int32_t> && std::is_same_v<U, std::int32_t>);
    if constexpr (!ok) {
      fail(hw_error_kind::invalid_use,
           "L1 -> bias table copies take half or float into float, or int32 into int32", loc, api);
    } else {
      c::check_align(dst.aopt_addr(), 64, "the destination (C2)", loc, api);
      c::check_align(src.aopt_addr(), 32, "the source (C1)", loc, api);
      const std::uint64_t dlen = std::uint64_t{p.blockLen} * 64, n = dlen / sizeof(T);
      const std::uint64_t slen = n * sizeof(U);
      const std::uint64_t dpitch = dlen + std::uint64_t{p.dstGap} * 64;
      const std::uint64_t spitch = (slen + 31) / 32 * 32 + std::uint64_t{p.srcGap} * 32;
      const std::uint64_t dspan = (p.blockCount - 1u) * dpitch + dlen, sspan = (p.blockCount - 1u) * spitch + slen;
      c::check_extent(dst.aopt_addr(), dspan, "the destination (C2)", loc, api);
      c::check_extent(src.aopt_addr(), sspan, "the source (C1)", loc, api);
      for (std::uint32_t b = 0; b < p.blockCount; ++b) {
        T* d = reinterpret_cast<T*>(base + dst.aopt_addr() + b * dpitch);
        const U* s = reinterpret_cast<const U*>(base + src.aopt_addr() + b * spitch);
        for (std::uint64_t i = 0; i < n; ++i) d[i] = static_cast<T>(c::to_f(s[i]));
      }
      c::record_move(aopt::sim::pipe::mte1, dst.aopt_addr(), static_cast<std::uint32_t>(dspan), src.aopt_addr(),
                     static_cast<std::uint32_t>(sspan), p.blockCount, static_cast<std::uint32_t>(dlen), sizeof(T), loc, api);
    }
    return;
  }
  const bool ub_l1 = dm == aopt::sim::local_mem::l1 && sm == aopt::sim::local_mem::ub;
  const bool l1_l1 = dm == aopt::sim::local_mem::l1 && sm == aopt::sim::local_mem::l1;
  if (!(ub_l1 || l1_l1) || !std::is_same_v<T, U>) {
    fail(hw_error_kind::invalid_use,
         std::string("DataCopy from ") + aopt::sim::local_mem_name(sm) + " to " + aopt::sim::local_mem_name(dm) +
             " is not a path sim emulates between local buffers (L1 -> BT, UB -> L1, L1 -> L1, each of one type)",
         loc, api);
  }
  const std::uint64_t len = std::uint64_t{p.blockLen} * 32;
  const std::uint64_t sp = len + std::uint64_t{p.srcGap} * 32, dp = len + std::uint64_t{p.dstGap} * 32;
  const std::uint64_t dspan = (p.blockCount - 1u) * dp + len, sspan = (p.blockCount - 1u) * sp + len;
  c::check_align(dst.aopt_addr(), 32, "the destination", loc, api);
  c::check_align(src.aopt_addr(), 32, "the source", loc, api);
  c::check_extent(dst.aopt_addr(), dspan, "the destination", loc, api);
  c::check_extent(src.aopt_addr(), sspan, "the source", loc, api);
  strided_copy(base + dst.aopt_addr(), dp, base + src.aopt_addr(), sp, p.blockCount, len);
  c::record_move(ub_l1 ? aopt::sim::pipe::mte3 : aopt::sim::pipe::mte1, dst.aopt_addr(), static_cast<std::uint32_t>(dspan),
                 src.aopt_addr(), static_cast<std::uint32_t>(sspan), p.blockCount, static_cast<std::uint32_t>(len), sizeof(T),
                 loc, api);
}

}  // namespace aopt::sim::kernel_detail
