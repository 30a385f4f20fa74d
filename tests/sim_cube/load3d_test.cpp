// LoadData 3D v2 (im2col, issue 38): values exact against a plain C++ im2col of the feature map
// (NCHW, convolution window by window) for L0A, L0A transposed and L0B, half / float / int8;
// the registers (SetFmatrix, SetLoadDataPaddingValue, SetLoadDataRepeat, SetLoadDataBoundary),
// the Pro form, bad parameters, the MTE1 record; and a conv2d of our own (im2col + Mmad +
// Fixpipe) against a direct convolution.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <random>
#include <vector>

#include "kernel_operator.h"
#include "sim_core_test_util.h"

using namespace AscendC;
using aopt::sim::rec_kind;
using aopt::sim::test::gm_buffer;
using aopt::sim::test::run;

namespace {

constexpr std::uint32_t seed = 3823;

struct conv_geom {
  std::uint32_t C = 16, H = 5, W = 6, KH = 1, KW = 1, sh = 1, sw = 1, dh = 1, dw = 1;
  std::uint8_t pad[4] = {0, 0, 0, 0};  // left, right, top, bottom
  std::uint32_t wout() const { return (W + pad[0] + pad[1] - ((KW - 1) * dw + 1)) / sw + 1; }
  std::uint32_t hout() const { return (H + pad[2] + pad[3] - ((KH - 1) * dh + 1)) / sh + 1; }
};

// x in NCHW (C x H x W) -> the L1 layout [C1][H][W][C0].
template <typename T>
std::vector<T> to_c1hwc0(const std::vector<T>& x, const conv_geom& g, std::uint32_t c0) {
  std::vector<T> out(x.size());
  for (std::uint32_t c = 0; c < g.C; ++c)
    for (std::uint32_t h = 0; h < g.H; ++h)
      for (std::uint32_t w = 0; w < g.W; ++w)
        out[(((c / c0) * g.H + h) * g.W + w) * c0 + c % c0] = x[(c * g.H + h) * g.W + w];
  return out;
}

// The im2col element of output position m and column k (k = ((c1 * KH + kh) * KW + kw) * C0 + c0,
// the documented column order), straight from NCHW.
template <typename T>
T im2col_ref(const std::vector<T>& x, const conv_geom& g, std::uint32_t c0, std::uint64_t m, std::uint64_t k, T padv) {
  const std::uint64_t ho = m / g.wout(), wo = m % g.wout();
  const std::uint64_t blk = k / c0;
  const std::uint64_t c = (blk / (g.KH * g.KW)) * c0 + k % c0;
  const std::uint64_t kh = (blk % (g.KH * g.KW)) / g.KW, kw = blk % g.KW;
  const long long h = static_cast<long long>(ho * g.sh + kh * g.dh) - g.pad[2];
  const long long w = static_cast<long long>(wo * g.sw + kw * g.dw) - g.pad[0];
  if (c >= g.C || h < 0 || w < 0 || h >= static_cast<long long>(g.H) || w >= static_cast<long long>(g.W)) return padv;
  return x[(c * g.H + static_cast<std::uint64_t>(h)) * g.W + static_cast<std::uint64_t>(w)];
}

template <typename T>
std::vector<T> random_x(const conv_geom& g, std::mt19937& gen) {
  std::vector<T> x(g.C * g.H * g.W);
  std::uniform_int_distribution<int> d(-60, 60);
  for (auto& v : x) v = static_cast<T>(static_cast<float>(d(gen)) / (sizeof(T) == 1 ? 1.0f : 8.0f));
  return x;
}

// Runs `body(dst, src)` on one core with the feature map in L1 (A1) and a zeroed destination of
// `dst_elems` in L0A (A2) or L0B (B2); returns the destination's contents.
template <typename T>
std::vector<T> run_load(const std::vector<T>& fm, bool to_b, std::size_t dst_elems,
                        const std::function<void(LocalTensor<T>&, LocalTensor<T>&)>& body,
                        aopt::sim::launch_result* lr = nullptr) {
  gm_buffer gx(fm.size() * sizeof(T), "x");
  std::memcpy(gx.get(), fm.data(), fm.size() * sizeof(T));
  std::vector<T> out(dst_elems);
  auto r = run(1, [&] {
    TPipe pipe;
    TBuf<TPosition::A1> l1;
    TBuf<TPosition::A2> l0a;
    TBuf<TPosition::B2> l0b;
    pipe.InitBuffer(l1, static_cast<std::uint32_t>((fm.size() * sizeof(T) + 31) / 32 * 32));
    pipe.InitBuffer(l0a, static_cast<std::uint32_t>((dst_elems * sizeof(T) + 511) / 512 * 512));
    pipe.InitBuffer(l0b, static_cast<std::uint32_t>((dst_elems * sizeof(T) + 511) / 512 * 512));
    GlobalTensor<T> g;
    g.SetGlobalBuffer(reinterpret_cast<__gm__ T*>(gx.get()), fm.size());
    LocalTensor<T> src = l1.Get<T>();
    DataCopy(src, g, static_cast<std::uint32_t>(fm.size()));
    LocalTensor<T> dst = to_b ? l0b.Get<T>() : l0a.Get<T>();
    std::memset(dst.aopt_ptr(), 0, dst_elems * sizeof(T));
    body(dst, src);
    std::memcpy(out.data(), dst.aopt_ptr(), dst_elems * sizeof(T));
  });
  EXPECT_FALSE(r.error) << (r.error ? r.error->to_string() : "");
  if (lr != nullptr) *lr = std::move(r);
  return out;
}

template <typename T>
LoadData3DParamsV2<T> params_for(const conv_geom& g, std::uint32_t m_start, std::uint32_t m_ext, std::uint32_t k_start,
                                 std::uint32_t k_ext) {
  LoadData3DParamsV2<T> p;
  for (int i = 0; i < 4; ++i) p.padList[i] = g.pad[i];
  p.l1H = static_cast<std::uint16_t>(g.H);
  p.l1W = static_cast<std::uint16_t>(g.W);
  p.channelSize = static_cast<std::uint16_t>(g.C);
  p.kExtension = static_cast<std::uint16_t>(k_ext);
  p.mExtension = static_cast<std::uint16_t>(m_ext);
  p.kStartPt = static_cast<std::uint16_t>(k_start);
  p.mStartPt = static_cast<std::uint16_t>(m_start);
  p.strideW = static_cast<std::uint8_t>(g.sw);
  p.strideH = static_cast<std::uint8_t>(g.sh);
  p.filterW = static_cast<std::uint8_t>(g.KW);
  p.filterH = static_cast<std::uint8_t>(g.KH);
  p.dilationFilterW = static_cast<std::uint8_t>(g.dw);
  p.dilationFilterH = static_cast<std::uint8_t>(g.dh);
  return p;
}

// Where the element (r, c) of the moved block lies in the destination (the layouts Mmad reads).
std::size_t zz(std::size_t r, std::size_t c, std::size_t cols, std::size_t c0) {  // L0A, rows x cols
  const std::size_t cb = (cols + c0 - 1) / c0;
  return ((r / 16) * cb + c / c0) * 16 * c0 + (r % 16) * c0 + c % c0;
}
std::size_t zn(std::size_t kk, std::size_t n, std::size_t ncols, std::size_t c0) {  // L0B: K = kk, N = n
  const std::size_t nb = (ncols + 15) / 16;
  return ((kk / c0) * nb + n / 16) * 16 * c0 + (n % 16) * c0 + kk % c0;
}

template <typename T>
void expect_block(const std::vector<T>& got, const std::vector<T>& x, const conv_geom& g, std::uint32_t c0,
                  std::uint32_t m_start, std::uint32_t rows, std::uint32_t k_start, std::uint32_t cols, int layout,
                  T padv, const char* what) {
  // layout 0: Zz of the block; 1: Zz of its transpose; 2: Zn (L0B).
  const std::size_t rows16 = (rows + 15) / 16 * 16;
  for (std::uint32_t r = 0; r < rows; ++r)
    for (std::uint32_t c = 0; c < cols; ++c) {
      const T want = im2col_ref(x, g, c0, m_start + r, k_start + c, padv);
      const std::size_t at = layout == 0 ? zz(r, c, cols, c0) : layout == 1 ? zz(c, r, rows16, c0) : zn(r, c, cols, c0);
      ASSERT_EQ(static_cast<float>(got[at]), static_cast<float>(want)) << what << ": row " << r << " column " << c;
    }
}

TEST(Load3d, Im2colIntoL0aMatchesTheReference) {
  std::printf("seed %u\n", seed);
  std::mt19937 gen(seed);
  conv_geom g;
  g.C = 32; g.H = 6; g.W = 7; g.KH = 3; g.KW = 2; g.sh = 2; g.sw = 1; g.dh = 1; g.dw = 2;
  g.pad[0] = 1; g.pad[1] = 0; g.pad[2] = 1; g.pad[3] = 1;
  const auto x = random_x<half>(g, gen);
  const auto fm = to_c1hwc0(x, g, 16);
  // Rows 16..47 (positions past the map's end read the padding), columns from the second k-block.
  const std::uint32_t m0 = 16, rows = 32, k0 = 16, cols = 64;
  auto p = params_for<half>(g, m0, rows, k0, cols);
  p.padValue = half(0.5f);
  auto got = run_load<half>(fm, false, rows * cols, [&](LocalTensor<half>& d, LocalTensor<half>& s) { LoadData(d, s, p); });
  expect_block(got, x, g, 16, m0, rows, k0, cols, 0, half(0.5f), "L0A half");
  // The same block transposed (enTranspose), each fractal and the fractals' order.
  p.enTranspose = true;
  got = run_load<half>(fm, false, rows * cols, [&](LocalTensor<half>& d, LocalTensor<half>& s) { LoadData(d, s, p); });
  expect_block(got, x, g, 16, m0, rows, k0, cols, 1, half(0.5f), "L0A half transposed");
}

TEST(Load3d, Im2colIntoL0bAndOtherTypes) {
  std::mt19937 gen(seed + 1);
  conv_geom g;
  g.C = 16; g.H = 5; g.W = 5; g.KH = 2; g.KW = 3; g.pad[0] = 1; g.pad[1] = 1;
  const auto xh = random_x<half>(g, gen);
  auto ph = params_for<half>(g, 0, 16, 0, 96);
  auto got = run_load<half>(to_c1hwc0(xh, g, 16), true, 16 * 96,
                            [&](LocalTensor<half>& d, LocalTensor<half>& s) { LoadData(d, s, ph); });
  expect_block(got, xh, g, 16, 0, 16, 0, 96, 2, half(0.0f), "L0B half");

  // float: C0 = 8; L0B (Zn of 8-row fractals) and L0A transposed.
  const auto xf = random_x<float>(g, gen);
  auto pf = params_for<float>(g, 16, 16, 8, 32);
  auto gf = run_load<float>(to_c1hwc0(xf, g, 8), true, 16 * 32,
                            [&](LocalTensor<float>& d, LocalTensor<float>& s) { LoadData(d, s, pf); });
  expect_block(gf, xf, g, 8, 16, 16, 8, 32, 2, 0.0f, "L0B float");
  pf.enTranspose = true;
  gf = run_load<float>(to_c1hwc0(xf, g, 8), false, 16 * 32,
                       [&](LocalTensor<float>& d, LocalTensor<float>& s) { LoadData(d, s, pf); });
  expect_block(gf, xf, g, 8, 16, 16, 8, 32, 1, 0.0f, "L0A float transposed");

  // int8: C0 = 32, into L0A.
  conv_geom g8 = g;
  g8.C = 64;
  const auto x8 = random_x<std::int8_t>(g8, gen);
  auto p8 = params_for<std::int8_t>(g8, 0, 16, 32, 64);
  auto got8 = run_load<std::int8_t>(to_c1hwc0(x8, g8, 32), false, 16 * 64,
                                    [&](LocalTensor<std::int8_t>& d, LocalTensor<std::int8_t>& s) { LoadData(d, s, p8); });
  expect_block(got8, x8, g8, 32, 0, 16, 32, 64, 0, std::int8_t{0}, "L0A int8");
}

TEST(Load3d, RegistersRepeatAndTheProForm) {
  std::mt19937 gen(seed + 2);
  conv_geom g;
  g.C = 16; g.H = 4; g.W = 8; g.KH = 3; g.KW = 3; g.pad[0] = 1; g.pad[1] = 1; g.pad[2] = 1; g.pad[3] = 1;
  const auto x = random_x<half>(g, gen);
  const auto fm = to_c1hwc0(x, g, 16);
  // Registers, not the parameters: {false, false} ignores p's l1H/l1W/padList/padValue.
  static constexpr IsResetLoad3dConfig from_registers = {false, false};
  auto p = params_for<half>(g, 0, 16, 0, 48);
  p.l1H = 1; p.l1W = 1; p.padList[0] = 0; p.padValue = half(9.0f);
  auto got = run_load<half>(fm, false, 16 * 48, [&](LocalTensor<half>& d, LocalTensor<half>& s) {
    SetFmatrix(static_cast<std::uint16_t>(g.H), static_cast<std::uint16_t>(g.W), g.pad, FmatrixMode::FMATRIX_LEFT);
    SetLoadDataPaddingValue(half(-2.0f));
    SetLoadDataBoundary(0);
    LoadData<half, from_registers>(d, s, p);
  });
  expect_block(got, x, g, 16, 0, 16, 0, 48, 0, half(-2.0f), "registers");

  // Repeat along M: 2 blocks of 16 rows, the second 16 rows further (repeatStride 1 = 16 rows) -> rows 0..31.
  auto pr = params_for<half>(g, 0, 16, 16, 32);
  got = run_load<half>(fm, false, 32 * 32, [&](LocalTensor<half>& d, LocalTensor<half>& s) {
    SetLoadDataRepeat(LoadDataRepeatParam(1, 2, 0));
    LoadData(d, s, pr);
  });
  expect_block(got, x, g, 16, 0, 32, 16, 32, 0, half(0.0f), "repeat along M");
  // Repeat along K: 3 blocks of 16 columns, repeatStride 1 = C0 columns -> columns 16..63.
  auto pk = params_for<half>(g, 16, 16, 16, 16);
  got = run_load<half>(fm, false, 16 * 48, [&](LocalTensor<half>& d, LocalTensor<half>& s) {
    SetLoadDataRepeat(LoadDataRepeatParam(1, 3, 1));
    LoadData(d, s, pk);
  });
  expect_block(got, x, g, 16, 16, 16, 16, 48, 0, half(0.0f), "repeat along K");

  // The Pro form: extents and filter packed in two words, the map from SetFmatrix.
  LoadData3DParamsV2Pro pro;
  pro.channelSize = 16;
  pro.extConfig = (std::uint64_t{16} << 48) | (std::uint64_t{32} << 32) | (std::uint64_t{16} << 16) | 64u;
  pro.filterConfig = (std::uint64_t{1} << 40) | (std::uint64_t{1} << 32) | (std::uint64_t{3} << 24) |
                     (std::uint64_t{3} << 16) | (std::uint64_t{1} << 8) | 1u;
  got = run_load<half>(fm, false, 16 * 64, [&](LocalTensor<half>& d, LocalTensor<half>& s) {
    Load3DSetFMatrixCal(static_cast<std::uint16_t>(g.H), static_cast<std::uint16_t>(g.W), g.pad);
    SetLoadDataPaddingValue(half(1.0f));
    LoadData(d, s, pro);
  });
  expect_block(got, x, g, 16, 16, 16, 32, 64, 0, half(1.0f), "Pro form");
}

TEST(Load3d, BoundaryWrapsTheReadToTheStartOfL1) {
  // A 1024-byte map (16 channels x 4 x 8 half) loaded from byte 512 of L1 with a boundary of 1024
  // bytes: its second half is read from the start of L1, where the test put it.
  conv_geom g;
  g.C = 16; g.H = 4; g.W = 8;
  std::vector<half> fm(512);
  for (std::size_t i = 0; i < fm.size(); ++i) fm[i] = half(static_cast<float>(i % 97));
  std::vector<half> l1(512);
  for (std::size_t i = 0; i < 256; ++i) {
    l1[256 + i] = fm[i];
    l1[i] = fm[256 + i];
  }
  std::vector<half> x(512);  // NCHW of the map
  for (std::uint32_t c = 0; c < 16; ++c)
    for (std::uint32_t hw = 0; hw < 32; ++hw) x[c * 32 + hw] = fm[hw * 16 + c];
  auto p = params_for<half>(g, 0, 32, 0, 16);
  auto got = run_load<half>(l1, false, 32 * 16, [&](LocalTensor<half>& d, LocalTensor<half>& s) {
    SetLoadDataBoundary(1024);
    LoadData(d, s[256], p);
  });
  expect_block(got, x, g, 16, 0, 32, 0, 16, 0, half(0.0f), "boundary");
}

TEST(Load3d, BadParametersAreRefusedAndTheMoveIsOnMte1) {
  conv_geom g;
  std::vector<half> fm(16 * 5 * 6, half(1.0f));
  aopt::sim::launch_result lr;
  auto p = params_for<half>(g, 0, 16, 0, 16);
  run_load<half>(fm, false, 256, [&](LocalTensor<half>& d, LocalTensor<half>& s) { LoadData(d, s, p); }, &lr);
  int mte1 = 0;
  for (const auto& r : lr.cores[0].recs) {
    if (r.kind == rec_kind::cube_move && r.p == aopt::sim::pipe::mte1) {
      ++mte1;
      EXPECT_EQ(r.blocks, 1u);  // one 512-byte fractal
    }
  }
  EXPECT_EQ(mte1, 1);

  auto bad = [&](const std::function<void(LocalTensor<half>&, LocalTensor<half>&)>& body, const char* needle) {
    auto r = run(1, [&] {
      TPipe pipe;
      TBuf<TPosition::A1> l1;
      TBuf<TPosition::A2> l0a;
      pipe.InitBuffer(l1, 4096);
      pipe.InitBuffer(l0a, 4096);
      auto d = l0a.Get<half>();
      auto s = l1.Get<half>();
      body(d, s);
    });
    ASSERT_TRUE(r.error) << needle;
    EXPECT_NE(r.error->message.find(needle), std::string::npos) << r.error->message;
  };
  auto odd = p;
  odd.channelSize = 20;
  bad([&](LocalTensor<half>& d, LocalTensor<half>& s) { LoadData(d, s, odd); }, "channelSize 20");
  auto ks = p;
  ks.kStartPt = 8;
  bad([&](LocalTensor<half>& d, LocalTensor<half>& s) { LoadData(d, s, ks); }, "kStartPt 8");
  // The source must be in L1: an L0A tensor as the source is refused.
  bad([&](LocalTensor<half>& d, LocalTensor<half>&) { LoadData(d, d, p); }, "L1 (A1/B1)");
}

// conv2d (NCHW x OIHW -> N=1 output [Ho*Wo][Cout]) as a cube kernel: the map into L1 as C1HWC0,
// the weights as the (K = C*KH*KW ordered (c1, kh, kw, c0)) x Cout matrix via Nd2Nz and LoadData
// 2D transposed into L0B, im2col into L0A, Mmad, Fixpipe NZ2ND.
TEST(Load3d, Conv2dWithIm2colMmadFixpipeMatchesTheDirectConvolution) {
  std::mt19937 gen(seed + 3);
  conv_geom g;
  g.C = 32; g.H = 9; g.W = 8; g.KH = 3; g.KW = 3; g.sh = 2; g.sw = 1;
  g.pad[0] = 1; g.pad[1] = 1; g.pad[2] = 1; g.pad[3] = 1;
  const std::uint32_t cout = 32, M = g.hout() * g.wout(), M16 = (M + 15) / 16 * 16, K = g.C * g.KH * g.KW;
  const auto x = random_x<half>(g, gen);
  std::vector<half> wt(cout * K);  // OIHW
  std::uniform_int_distribution<int> d(-8, 8);
  for (auto& v : wt) v = half(static_cast<float>(d(gen)) / 16.0f);
  // B (K x cout, ND) with K in the im2col column order.
  std::vector<half> b(K * cout);
  for (std::uint32_t o = 0; o < cout; ++o)
    for (std::uint32_t c = 0; c < g.C; ++c)
      for (std::uint32_t kh = 0; kh < g.KH; ++kh)
        for (std::uint32_t kw = 0; kw < g.KW; ++kw) {
          const std::uint32_t k = (((c / 16) * g.KH + kh) * g.KW + kw) * 16 + c % 16;
          b[k * cout + o] = wt[((o * g.C + c) * g.KH + kh) * g.KW + kw];
        }
  const auto fm = to_c1hwc0(x, g, 16);
  gm_buffer gx(fm.size() * 2, "x"), gb(b.size() * 2, "w"), gy(M * cout * 4, "y");
  std::memcpy(gx.get(), fm.data(), fm.size() * 2);
  std::memcpy(gb.get(), b.data(), b.size() * 2);
  auto r = run(1, [&] {
    TPipe pipe;
    TQue<TPosition::A1, 1> qa1;
    TQue<TPosition::B1, 1> qb1;
    TQue<TPosition::A2, 1> qa2;
    TQue<TPosition::B2, 1> qb2;
    TQue<TPosition::CO1, 1> qc;
    pipe.InitBuffer(qa1, 1, static_cast<std::uint32_t>(fm.size() * 2));
    pipe.InitBuffer(qb1, 1, K * cout * 2);
    pipe.InitBuffer(qa2, 1, M16 * K * 2);
    pipe.InitBuffer(qb2, 1, K * cout * 2);
    pipe.InitBuffer(qc, 1, M16 * cout * 4);
    GlobalTensor<half> ggx, ggb;
    GlobalTensor<float> ggy;
    ggx.SetGlobalBuffer(reinterpret_cast<__gm__ half*>(gx.get()), fm.size());
    ggb.SetGlobalBuffer(reinterpret_cast<__gm__ half*>(gb.get()), b.size());
    ggy.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(gy.get()), M * cout);
    auto a1 = qa1.AllocTensor<half>();
    auto b1 = qb1.AllocTensor<half>();
    DataCopy(a1, ggx, static_cast<std::uint32_t>(fm.size()));
    DataCopy(b1, ggb, Nd2NzParams(1, K, cout, 0, cout, K, 1, 0));
    qa1.EnQue(a1);
    qb1.EnQue(b1);
    a1 = qa1.DeQue<half>();
    b1 = qb1.DeQue<half>();
    auto a2 = qa2.AllocTensor<half>();
    auto b2 = qb2.AllocTensor<half>();
    LoadData(a2, a1, params_for<half>(g, 0, M16, 0, K));
    for (std::uint32_t i = 0; i < K / 16; ++i) {
      LoadData(b2[i * cout * 16], b1, LoadData2DParams(i, cout / 16, K / 16, 0, 0, true, 0));
    }
    qa2.EnQue(a2);
    qb2.EnQue(b2);
    a2 = qa2.DeQue<half>();
    b2 = qb2.DeQue<half>();
    auto c1 = qc.AllocTensor<float>();
    MmadParams mp;
    mp.m = static_cast<std::uint16_t>(M); mp.n = static_cast<std::uint16_t>(cout); mp.k = static_cast<std::uint16_t>(K);
    Mmad(c1, a2, b2, mp);
    qc.EnQue(c1);
    c1 = qc.DeQue<float>();
    Fixpipe<float, float, CFG_ROW_MAJOR>(ggy, c1, FixpipeParamsV220(cout, M, M16, cout, false));
    qc.FreeTensor(c1);
  });
  ASSERT_FALSE(r.error) << r.error->to_string();
  const float* y = gy.as<float>();
  for (std::uint32_t ho = 0; ho < g.hout(); ++ho)
    for (std::uint32_t wo = 0; wo < g.wout(); ++wo)
      for (std::uint32_t o = 0; o < cout; ++o) {
        double s = 0;
        for (std::uint32_t c = 0; c < g.C; ++c)
          for (std::uint32_t kh = 0; kh < g.KH; ++kh)
            for (std::uint32_t kw = 0; kw < g.KW; ++kw) {
              const long long h = static_cast<long long>(ho * g.sh + kh) - g.pad[2];
              const long long w = static_cast<long long>(wo * g.sw + kw) - g.pad[0];
              if (h < 0 || w < 0 || h >= static_cast<long long>(g.H) || w >= static_cast<long long>(g.W)) continue;
              s += static_cast<double>(static_cast<float>(x[(c * g.H + h) * g.W + w])) *
                   static_cast<float>(wt[((o * g.C + c) * g.KH + kh) * g.KW + kw]);
            }
        ASSERT_NEAR(y[(ho * g.wout() + wo) * cout + o], s, 1e-3) << "output (" << ho << "," << wo << "," << o << ")";
      }
}

// The backprop-filter pattern: dW (Cout x K) = dY^T (Cout x M) x im2col (M x K), the im2col loaded
// straight into L0B (Mmad's K = the output positions), checked through Mmad against the sums.
TEST(Load3d, Im2colInL0bIsTheRightMatrixOfMmad) {
  std::mt19937 gen(seed + 4);
  conv_geom g;
  g.C = 16; g.H = 4; g.W = 8; g.KH = 3; g.KW = 3;
  g.pad[0] = 1; g.pad[1] = 1; g.pad[2] = 1; g.pad[3] = 1;
  const std::uint32_t cout = 16, M = g.hout() * g.wout(), K = g.C * g.KH * g.KW;  // M 32, K 144
  const auto x = random_x<half>(g, gen);
  const auto fm = to_c1hwc0(x, g, 16);
  std::vector<half> dyt(cout * M);  // dY^T, ND
  std::uniform_int_distribution<int> d(-8, 8);
  for (auto& v : dyt) v = half(static_cast<float>(d(gen)) / 8.0f);
  gm_buffer gx(fm.size() * 2, "x"), ga(dyt.size() * 2, "dyt"), gw(cout * K * 4, "dw");
  std::memcpy(gx.get(), fm.data(), fm.size() * 2);
  std::memcpy(ga.get(), dyt.data(), dyt.size() * 2);
  auto r = run(1, [&] {
    TPipe pipe;
    TBuf<TPosition::A1> l1x, l1a;
    TBuf<TPosition::A2> l0a;
    TBuf<TPosition::B2> l0b;
    TBuf<TPosition::CO1> l0c;
    pipe.InitBuffer(l1x, static_cast<std::uint32_t>(fm.size() * 2));
    pipe.InitBuffer(l1a, cout * M * 2);
    pipe.InitBuffer(l0a, cout * M * 2);
    pipe.InitBuffer(l0b, M * K * 2);
    pipe.InitBuffer(l0c, cout * K * 4);
    GlobalTensor<half> ggx, gga;
    GlobalTensor<float> ggw;
    ggx.SetGlobalBuffer(reinterpret_cast<__gm__ half*>(gx.get()), fm.size());
    gga.SetGlobalBuffer(reinterpret_cast<__gm__ half*>(ga.get()), dyt.size());
    ggw.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(gw.get()), cout * K);
    auto x1 = l1x.Get<half>();
    auto a1 = l1a.Get<half>();
    DataCopy(x1, ggx, static_cast<std::uint32_t>(fm.size()));
    DataCopy(a1, gga, Nd2NzParams(1, cout, M, 0, M, cout, 1, 0));
    SetFlag<HardEvent::MTE2_MTE1>(0);
    WaitFlag<HardEvent::MTE2_MTE1>(0);
    auto a2 = l0a.Get<half>();
    auto b2 = l0b.Get<half>();
    LoadData(a2, a1, LoadData2DParams(0, M / 16, cout / 16, 0, 0, false, 0));
    LoadData(b2, x1, params_for<half>(g, 0, M, 0, K));
    SetFlag<HardEvent::MTE1_M>(0);
    WaitFlag<HardEvent::MTE1_M>(0);
    auto c1 = l0c.Get<float>();
    MmadParams mp;
    mp.m = static_cast<std::uint16_t>(cout); mp.n = static_cast<std::uint16_t>(K); mp.k = static_cast<std::uint16_t>(M);
    Mmad(c1, a2, b2, mp);
    SetFlag<HardEvent::M_FIX>(0);
    WaitFlag<HardEvent::M_FIX>(0);
    Fixpipe<float, float, CFG_ROW_MAJOR>(ggw, c1, FixpipeParamsV220(K, cout, cout, K, false));
  });
  ASSERT_FALSE(r.error) << r.error->to_string();
  const float* dw = gw.as<float>();
  for (std::uint32_t o = 0; o < cout; ++o)
    for (std::uint32_t k = 0; k < K; ++k) {
      double sum = 0;
      for (std::uint32_t m = 0; m < M; ++m)
        sum += static_cast<double>(static_cast<float>(dyt[o * M + m])) *
               static_cast<float>(im2col_ref(x, g, 16, m, k, half(0.0f)));
      ASSERT_NEAR(dw[o * K + k], sum, 1e-3) << "dW (" << o << "," << k << ")";
    }
}

}  // namespace
