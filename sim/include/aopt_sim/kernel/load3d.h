// LoadData 3D v2 (im2col) on the CPU: L1 (A1/B1, a feature map [C1][H][W][C0]) -> L0A/L0B, with
// its configuration registers (SetFmatrix, SetLoadDataPaddingValue, SetLoadDataBoundary,
// SetLoadDataRepeat) and the Pro form (LoadData3DParamsV2Pro). Semantics from the public AscendC
// documentation (asc-devkit docs/zh/api/SIMD-API/基础API/矩阵计算（ISASI）: LoadData_3D, SetFmatrix,
// SetLoadDataRepeat, SetLoadDataBoundary, SetLoadDataPaddingValue); every line written here.
//
// The instruction reads the image-to-column matrix of the feature map: row m is the output
// position (ho, wo) = (m / Wout, m % Wout), column k the (c1, kh, kw, c0) of the filter window,
// k = ((c1 * Hk + kh) * Wk + kw) * C0 + c0; an input row or column outside the map (the padding,
// and past it) reads the padding value. It moves the block of mExtension rows from mStartPt and
// kExtension columns from kStartPt (with SetLoadDataRepeat, repeatTime such blocks, along M
// (repeatMode 0, repeatStride in 16 rows) or along K (repeatMode 1, in C0 columns), as one
// matrix) and writes it as L0A's Zz layout, or with enTranspose its transpose in Zz, or into
// L0B as the right matrix (K of the Mmad = the rows, N = the columns: Zn). C0 = 32 B / element.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>

#include "aopt_sim/kernel/cube.h"

namespace AscendC {

constexpr std::uint32_t PAD_SIZE = 4;

enum class FmatrixMode : std::uint8_t {
  FMATRIX_LEFT = 0,
  FMATRIX_RIGHT = 1,
};

// Whether LoadData 3D sets the feature-map (l1H, l1W, padList) and padding-value registers from
// its parameters (true) or reads what SetFmatrix / SetLoadDataPaddingValue set (false).
struct IsResetLoad3dConfig {
  bool isSetFMatrix = true;
  bool isSetPadding = true;
};
constexpr IsResetLoad3dConfig IS_RESER_LOAD3D_DEFAULT_CONFIG = {true, true};

// The Pro form: the feature map and padding value always come from the registers.
//   extConfig    = mStartPt << 48 | kStartPt << 32 | mExtension << 16 | kExtension
//   filterConfig = dilationFilterH << 40 | dilationFilterW << 32 | filterH << 24 | filterW << 16 |
//                  strideH << 8 | strideW
struct LoadData3DParamsV2Pro {
  LoadData3DParamsV2Pro() = default;
  std::uint16_t channelSize = 0;
  bool enTranspose = false;
  bool enSmallK = false;
  bool filterSizeW = false;
  bool filterSizeH = false;
  bool fMatrixCtrl = false;
  std::uint64_t extConfig = 0;
  std::uint64_t filterConfig = 0x10101010101ULL;
};

namespace cube_impl {

// The per-core registers LoadData 3D reads. [OFFICIAL, SetFmatrix]: only FMATRIX_LEFT is
// supported and both matrices use it, so one feature-map register serves both modes.
struct load3d_regs {
  std::uint64_t serial = 0;
  std::uint16_t l1h = 0, l1w = 0;
  std::uint8_t pad[4] = {0, 0, 0, 0};
  std::uint32_t pad_bits = 0;  // the padding value's bits, low bytes first
  std::uint32_t boundary = 0;  // bytes; 0: the whole L1
  LoadDataRepeatParam repeat;
};
inline load3d_regs& load3d_state() {
  static thread_local load3d_regs s;
  const std::uint64_t serial = aopt::sim::core_serial();
  if (s.serial != serial) {
    s = load3d_regs{};
    s.serial = serial;
  }
  return s;
}

template <typename T>
std::uint32_t value_bits(T v) {
  std::uint32_t bits = 0;
  std::memcpy(&bits, static_cast<const void*>(&v), sizeof(T) < sizeof bits ? sizeof(T) : sizeof bits);
  return bits;
}

// One LoadData 3D, every field resolved (registers included).
struct load3d_args {
  std::uint32_t l1h = 0, l1w = 0;
  std::uint8_t pad[4] = {0, 0, 0, 0};  // left, right, top, bottom
  std::uint32_t channel = 0, k_ext = 0, m_ext = 0, k_start = 0, m_start = 0;
  std::uint32_t stride_w = 1, stride_h = 1, filter_w = 1, filter_h = 1, dil_w = 1, dil_h = 1;
  bool transpose = false;
  std::uint32_t pad_bits = 0;
};

template <typename T>
inline void load3d(const LocalTensor<T>& dst, const LocalTensor<T>& src, const load3d_args& a,
                   const aopt::sim::src_loc& loc, const char* api) {
  namespace c = aopt::sim::cube_detail;
  using aopt::sim::fail;
  using aopt::sim::hw_error_kind;
  static_assert(sizeof(T) == 1 || sizeof(T) == 2 || sizeof(T) == 4, "LoadData 3D moves b8, b16 or b32 elements");
  c::require_mem(src.aopt_addr(), src.GetPosition(), aopt::sim::local_mem::l1, "the source", "L1 (A1/B1)", loc, api);
  const auto dmem = aopt::sim::local_mem_of(dst.aopt_addr());
  if (dmem != aopt::sim::local_mem::l0a && dmem != aopt::sim::local_mem::l0b) {
    c::require_mem(dst.aopt_addr(), dst.GetPosition(), aopt::sim::local_mem::l0a, "the destination",
                   "L0A or L0B (A2/B2)", loc, api);
  }
  const bool to_b = dmem == aopt::sim::local_mem::l0b;
  c::check_align(dst.aopt_addr(), 512, "the destination", loc, api);
  const std::uint32_t src_off = c::check_align(src.aopt_addr(), 32, "the source", loc, api);
  const auto& rep = load3d_state().repeat;
  // [OFFICIAL] any of these zero: the instruction is a no-op.
  if (a.l1h == 0 || a.l1w == 0 || a.channel == 0 || a.k_ext == 0 || a.m_ext == 0 || a.filter_w == 0 ||
      a.filter_h == 0 || rep.repeatTime == 0) {
    return;
  }
  if (to_b && sizeof(T) == 1) {
    fail(hw_error_kind::invalid_use,
         "LoadData 3D into L0B (B2) does not take 1-byte elements on this chip (A2-class): load int8 right matrices "
         "with LoadData 2D / LoadDataWithTranspose",
         loc, api);
  }
  const bool transpose = a.transpose && !to_b;  // [OFFICIAL] L0B always transposes; enTranspose is ignored there
  if (transpose && sizeof(T) == 1) {
    fail(hw_error_kind::invalid_use, "LoadData 3D with enTranspose takes 2- or 4-byte elements, not 1-byte", loc, api);
  }
  constexpr std::uint32_t c0 = 32 / sizeof(T);
  if (a.channel % c0 != 0) {
    fail(hw_error_kind::invalid_use,
         "channelSize " + std::to_string(a.channel) + " is not a multiple of C0 = " + std::to_string(c0) +
             ": sim emulates LoadData 3D on whole C0 channel blocks only (the 4/8-channel compact forms are not "
             "emulated)",
         loc, api);
  }
  if (a.k_start % c0 != 0) {
    fail(hw_error_kind::param_out_of_range,
         "kStartPt " + std::to_string(a.k_start) + " is not a multiple of C0 = " + std::to_string(c0) +
             " elements (32 bytes), as LoadData 3D requires",
         loc, api);
  }
  if (a.stride_w == 0 || a.stride_h == 0 || a.dil_w == 0 || a.dil_h == 0) {
    fail(hw_error_kind::param_out_of_range,
         "strideW/strideH/dilationFilterW/dilationFilterH must be at least 1 (got " + std::to_string(a.stride_w) + "/" +
             std::to_string(a.stride_h) + "/" + std::to_string(a.dil_w) + "/" + std::to_string(a.dil_h) + ")",
         loc, api);
  }
  const std::uint32_t kw_span = (a.filter_w - 1) * a.dil_w + 1;
  const std::uint32_t padded_w = a.l1w + a.pad[0] + a.pad[1];
  if (padded_w < kw_span) {
    fail(hw_error_kind::param_out_of_range,
         "the dilated filter width " + std::to_string(kw_span) + " exceeds the padded feature-map width " +
             std::to_string(padded_w) + " (l1W + padding left + right): no output column",
         loc, api);
  }
  const std::uint32_t wout = (padded_w - kw_span) / a.stride_w + 1;
  const std::uint32_t window = a.filter_h * a.filter_w;
  const std::uint32_t c1 = a.channel / c0;
  const std::uint64_t k_full = std::uint64_t{c1} * window * c0;
  // The moved block: rows x cols, with the repeats as one matrix.
  const std::uint32_t reps = rep.repeatTime;
  const bool along_m = rep.repeatMode == 0;
  const std::uint64_t rows = std::uint64_t{a.m_ext} * (along_m ? reps : 1);
  const std::uint64_t cols = std::uint64_t{a.k_ext} * (along_m ? 1 : reps);
  const std::uint64_t rows16 = (rows + 15) / 16 * 16;
  const std::uint64_t cols_c0 = (cols + c0 - 1) / c0 * c0;
  const std::uint64_t cols16 = (cols + 15) / 16 * 16;
  std::uint64_t dst_elems = 0;
  if (to_b) {
    dst_elems = (rows16 + c0 - 1) / c0 * (cols16 / 16) * 16 * c0;
  } else if (transpose) {
    dst_elems = (cols16 / 16) * (rows16 / c0) * 16 * c0;
  } else {
    dst_elems = (rows16 / 16) * (cols_c0 / c0) * 16 * c0;
  }
  c::check_extent(dst.aopt_addr(), dst_elems * sizeof(T), "the destination", loc, api);
  const std::uint32_t boundary = load3d_state().boundary;
  const std::uint64_t l1_cap = aopt::sim::local_capacity(aopt::sim::local_mem::l1);
  T pad_value{};
  std::memcpy(static_cast<void*>(&pad_value), &a.pad_bits, sizeof(T) < sizeof a.pad_bits ? sizeof(T) : sizeof a.pad_bits);
  const std::byte* l1 = aopt::sim::ub_base() + aopt::sim::local_base(aopt::sim::local_mem::l1);
  T* out = dst.aopt_ptr();
  std::uint64_t src_hi = 0;
  for (std::uint64_t r = 0; r < rows; ++r) {
    const std::uint64_t m = a.m_start + (along_m ? (r / a.m_ext) * std::uint64_t{rep.repeatStride} * 16u + r % a.m_ext : r);
    const std::uint64_t ho = m / wout, wo = m % wout;
    for (std::uint64_t col = 0; col < cols; ++col) {
      const std::uint64_t k =
          a.k_start + (along_m ? col : (col / a.k_ext) * std::uint64_t{rep.repeatStride} * c0 + col % a.k_ext);
      T v = pad_value;
      if (k < k_full) {
        const std::uint64_t blk = k / c0, ci = k % c0;
        const std::uint64_t cb = blk / window, pos = blk % window;
        const std::int64_t h = static_cast<std::int64_t>(ho * a.stride_h + (pos / a.filter_w) * a.dil_h) - a.pad[2];
        const std::int64_t w = static_cast<std::int64_t>(wo * a.stride_w + (pos % a.filter_w) * a.dil_w) - a.pad[0];
        // [ASSUMED] rows/columns outside the map, padding or past it, read the padding value;
        // columns past the channels (k >= C1 * Hk * Wk * C0) too.
        if (h >= 0 && h < static_cast<std::int64_t>(a.l1h) && w >= 0 && w < static_cast<std::int64_t>(a.l1w)) {
          std::uint64_t byte = src_off + (((cb * a.l1h + static_cast<std::uint64_t>(h)) * a.l1w +
                                           static_cast<std::uint64_t>(w)) * c0 + ci) * sizeof(T);
          // [OFFICIAL, SetLoadDataBoundary] past the boundary the read wraps to the start of L1.
          if (boundary != 0 && byte >= boundary) byte %= boundary;
          if (byte + sizeof(T) > l1_cap) {
            fail(hw_error_kind::ub_out_of_bounds,
                 "LoadData 3D reads byte " + std::to_string(byte) + " of L1, past its " + std::to_string(l1_cap) +
                     " bytes: check l1H/l1W/channelSize against the feature map in L1",
                 loc, api);
          }
          src_hi = std::max<std::uint64_t>(src_hi, byte + sizeof(T));
          std::memcpy(static_cast<void*>(&v), l1 + byte, sizeof(T));
        }
      }
      std::uint64_t d;
      if (to_b) {  // Zn of the right matrix: Mmad's K = r (C0 per fractal row), N = col (16 per fractal)
        d = ((r / c0) * (cols16 / 16) + col / 16) * 16 * c0 + (col % 16) * c0 + r % c0;
      } else if (transpose) {  // Zz of the transpose: rows = col, columns = r
        d = ((col / 16) * (rows16 / c0) + r / c0) * 16 * c0 + (col % 16) * c0 + r % c0;
      } else {  // Zz: fractals row-major over (16-row block, C0-column block)
        d = ((r / 16) * (cols_c0 / c0) + col / c0) * 16 * c0 + (r % 16) * c0 + col % c0;
      }
      out[d] = v;
    }
  }
  const std::uint32_t src_lo = src_off;
  c::record_move(aopt::sim::pipe::mte1, dst.aopt_addr(), static_cast<std::uint32_t>(dst_elems * sizeof(T)),
                 src.aopt_addr(), static_cast<std::uint32_t>(src_hi > src_lo ? src_hi - src_lo : 0),
                 static_cast<std::uint32_t>(dst_elems * sizeof(T) / 512), 512, sizeof(T), loc, api);
}

}  // namespace cube_impl

// ---- the registers ----
inline void SetFmatrix(std::uint16_t l1H, std::uint16_t l1W, const std::uint8_t padList[4], const FmatrixMode& fmatrixMode) {
  (void)fmatrixMode;  // [OFFICIAL] one register: FMATRIX_LEFT serves both matrices
  auto& s = cube_impl::load3d_state();
  s.l1h = l1H;
  s.l1w = l1W;
  for (int i = 0; i < 4; ++i) s.pad[i] = padList[i];
}
// The internal name some kernels call directly: the feature map of the left register.
inline void Load3DSetFMatrixCal(std::uint16_t l1H, std::uint16_t l1W, const std::uint8_t padList[4]) {
  SetFmatrix(l1H, l1W, padList, FmatrixMode::FMATRIX_LEFT);
}
template <typename T>
inline void SetLoadDataPaddingValue(const T padValue) {
  cube_impl::load3d_state().pad_bits = cube_impl::value_bits(padValue);
}
inline void SetLoadDataBoundary(std::uint32_t boundaryValue) { cube_impl::load3d_state().boundary = boundaryValue; }
inline void SetLoadDataRepeat(const LoadDataRepeatParam& repeatParams) { cube_impl::load3d_state().repeat = repeatParams; }

// ---- LoadData 3D v2 ----
template <typename T, const IsResetLoad3dConfig& defaultConfig = IS_RESER_LOAD3D_DEFAULT_CONFIG, typename U = T,
          typename std::enable_if<std::is_same<T, U>::value, bool>::type = true>
inline void LoadData(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LoadData3DParamsV2<U>& p,
                     aopt::sim::src_loc loc = aopt::sim::src_loc::current()) {
  auto& s = cube_impl::load3d_state();
  if (defaultConfig.isSetFMatrix) SetFmatrix(p.l1H, p.l1W, p.padList, FmatrixMode::FMATRIX_LEFT);
  if (defaultConfig.isSetPadding) SetLoadDataPaddingValue(p.padValue);
  cube_impl::load3d_args a;
  a.l1h = s.l1h;
  a.l1w = s.l1w;
  for (int i = 0; i < 4; ++i) a.pad[i] = s.pad[i];
  a.pad_bits = s.pad_bits;
  a.channel = p.channelSize;
  a.k_ext = p.kExtension;
  a.m_ext = p.mExtension;
  a.k_start = p.kStartPt;
  a.m_start = p.mStartPt;
  a.stride_w = p.strideW;
  a.stride_h = p.strideH;
  a.filter_w = p.filterW + (p.filterSizeW ? 256u : 0u);
  a.filter_h = p.filterH + (p.filterSizeH ? 256u : 0u);
  a.dil_w = p.dilationFilterW;
  a.dil_h = p.dilationFilterH;
  a.transpose = p.enTranspose;
  cube_impl::load3d(dst, src, a, loc, "LoadData(LoadData3DParamsV2)");
}

// ---- LoadData 3D v2 Pro: the feature map and padding value from the registers ----
template <typename T>
inline void LoadData(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LoadData3DParamsV2Pro& p,
                     aopt::sim::src_loc loc = aopt::sim::src_loc::current()) {
  const auto& s = cube_impl::load3d_state();
  cube_impl::load3d_args a;
  a.l1h = s.l1h;
  a.l1w = s.l1w;
  for (int i = 0; i < 4; ++i) a.pad[i] = s.pad[i];
  a.pad_bits = s.pad_bits;
  a.channel = p.channelSize;
  a.k_ext = static_cast<std::uint16_t>(p.extConfig);
  a.m_ext = static_cast<std::uint16_t>(p.extConfig >> 16);
  a.k_start = static_cast<std::uint16_t>(p.extConfig >> 32);
  a.m_start = static_cast<std::uint16_t>(p.extConfig >> 48);
  a.stride_w = static_cast<std::uint8_t>(p.filterConfig);
  a.stride_h = static_cast<std::uint8_t>(p.filterConfig >> 8);
  a.filter_w = static_cast<std::uint8_t>(p.filterConfig >> 16) + (p.filterSizeW ? 256u : 0u);
  a.filter_h = static_cast<std::uint8_t>(p.filterConfig >> 24) + (p.filterSizeH ? 256u : 0u);
  a.dil_w = static_cast<std::uint8_t>(p.filterConfig >> 32);
  a.dil_h = static_cast<std::uint8_t>(p.filterConfig >> 40);
  a.transpose = p.enTranspose;
  cube_impl::load3d(dst, src, a, loc, "LoadData(LoadData3DParamsV2Pro)");
}

// The internal name the convolution kernels call for the same instruction.
template <typename T, typename U>
inline void LoadDataImpl(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LoadData3DParamsV2<U>& p,
                         aopt::sim::src_loc loc = aopt::sim::src_loc::current()) {
  LoadData<T, IS_RESER_LOAD3D_DEFAULT_CONFIG, U>(dst, src, p, loc);
}

}  // namespace AscendC
