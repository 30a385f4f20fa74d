// Element-wise instructions: values in fp16/fp32/bf16/int, masks, strides, counter mode, tails.
#include <chrono>
#include <cmath>

#include "vec_test_util.h"

using namespace AscendC;
using vt::f;

namespace {

template <typename T>
void check_binary_count(float tol) {
  const std::uint32_t n = 300;  // not a multiple of a repeat
  const auto a = vt::random_vec<T>(n, -4, 4, 1), b = vt::random_vec<T>(n, 0.5f, 4, 2);
  std::vector<T> add, sub, mul, div, mx, mn;
  vt::run_ok([&] {
    auto ta = vt::ub<T>(0, n), tb = vt::ub<T>(4096, n), tc = vt::ub<T>(8192, n);
    vt::fill(ta, a);
    vt::fill(tb, b);
    Add(tc, ta, tb, n); add = vt::get(tc, n);
    Sub(tc, ta, tb, n); sub = vt::get(tc, n);
    Mul(tc, ta, tb, n); mul = vt::get(tc, n);
    Div(tc, ta, tb, n); div = vt::get(tc, n);
    Max(tc, ta, tb, n); mx = vt::get(tc, n);
    Min(tc, ta, tb, n); mn = vt::get(tc, n);
  });
  for (std::uint32_t i = 0; i < n; ++i) {
    // Each result is the exact result rounded once to T.
    EXPECT_EQ(f(add[i]), f(static_cast<T>(f(a[i]) + f(b[i])))) << i;
    EXPECT_EQ(f(sub[i]), f(static_cast<T>(f(a[i]) - f(b[i])))) << i;
    EXPECT_EQ(f(mul[i]), f(static_cast<T>(f(a[i]) * f(b[i])))) << i;
    EXPECT_NEAR(f(div[i]), f(a[i]) / f(b[i]), tol * std::fabs(f(a[i]) / f(b[i])) + 1e-6) << i;
    EXPECT_EQ(f(mx[i]), std::max(f(a[i]), f(b[i])));
    EXPECT_EQ(f(mn[i]), std::min(f(a[i]), f(b[i])));
  }
}

}  // namespace

TEST(Elementwise, BinaryCountHalf) { check_binary_count<half>(1e-3f); }
TEST(Elementwise, BinaryCountFloat) { check_binary_count<float>(1e-6f); }
TEST(Elementwise, BinaryCountBf16) { check_binary_count<bfloat16_t>(8e-3f); }

TEST(Elementwise, HalfRoundsEachOperation) {
  // 2048 + 1 is not representable in fp16 (spacing 2 there): ties to even gives 2048.
  std::vector<half> out;
  vt::run_ok([&] {
    auto a = vt::ub<half>(0, 16), b = vt::ub<half>(64, 16), c = vt::ub<half>(128, 16);
    Duplicate(a, static_cast<half>(2048.0f), 16);
    Duplicate(b, static_cast<half>(1.0f), 16);
    Add(c, a, b, 16);
    Adds(c, c, static_cast<half>(1.0f), 16);  // 2048 + 1 -> 2048 again
    out = vt::get(c, 16);
  });
  EXPECT_EQ(f(out[0]), 2048.0f);
  EXPECT_EQ(f(out[15]), 2048.0f);
}

TEST(Elementwise, IntegersWrap) {
  std::vector<int32_t> add, mul;
  std::vector<int16_t> sh, shr, nt, an, orr;
  vt::run_ok([&] {
    auto a = vt::ub<int32_t>(0, 8), c = vt::ub<int32_t>(64, 8);
    vt::fill(a, std::vector<int32_t>(8, INT32_MAX));
    Adds(c, a, 1, 8); add = vt::get(c, 8);
    Muls(c, a, 2, 8); mul = vt::get(c, 8);
    auto s = vt::ub<int16_t>(128, 16), d = vt::ub<int16_t>(192, 16), e = vt::ub<int16_t>(256, 16);
    vt::fill(s, std::vector<int16_t>(16, static_cast<int16_t>(-20000)));
    vt::fill(e, std::vector<int16_t>(16, static_cast<int16_t>(0x0ff0)));
    ShiftLeft(d, s, static_cast<int16_t>(2), 16); sh = vt::get(d, 16);
    ShiftRight(d, s, static_cast<int16_t>(2), 16); shr = vt::get(d, 16);
    Not(d, e, 16); nt = vt::get(d, 16);
    And(d, s, e, 16); an = vt::get(d, 16);
    Or(d, s, e, 16); orr = vt::get(d, 16);
  });
  EXPECT_EQ(add[0], INT32_MIN);
  EXPECT_EQ(mul[0], -2);
  EXPECT_EQ(sh[0], static_cast<int16_t>(static_cast<uint16_t>(-20000 * 4)));
  EXPECT_EQ(shr[0], -5000);
  EXPECT_EQ(nt[0], static_cast<int16_t>(~0x0ff0));
  EXPECT_EQ(an[0], static_cast<int16_t>(-20000 & 0x0ff0));
  EXPECT_EQ(orr[0], static_cast<int16_t>(-20000 | 0x0ff0));
}

TEST(Elementwise, UnaryAndScalarHalf) {
  const std::uint32_t n = 200;
  const auto a = vt::random_vec<half>(n, -3, 3, 3);
  std::vector<half> ex, ab, re, ad, mu, mxs, mns, lr, ax;
  std::vector<half> ln, sq, rs, rc;
  vt::run_ok([&] {
    auto ta = vt::ub<half>(0, n), tc = vt::ub<half>(1024, n), tp = vt::ub<half>(2048, n);
    vt::fill(ta, a);
    Exp(tc, ta, n); ex = vt::get(tc, n);
    Abs(tc, ta, n); ab = vt::get(tc, n);
    Relu(tc, ta, n); re = vt::get(tc, n);
    Adds(tc, ta, 1.5f, n); ad = vt::get(tc, n);
    Muls(tc, ta, -0.5f, n); mu = vt::get(tc, n);
    Maxs(tc, ta, 0.25f, n); mxs = vt::get(tc, n);
    Mins(tc, ta, 0.25f, n); mns = vt::get(tc, n);
    LeakyRelu(tc, ta, 0.1f, n); lr = vt::get(tc, n);
    Duplicate(tc, static_cast<half>(1.0f), n);
    Axpy(tc, ta, static_cast<half>(2.0f), n); ax = vt::get(tc, n);
    Abs(tp, ta, n);
    Adds(tp, tp, 0.5f, n);
    Ln(tc, tp, n); ln = vt::get(tc, n);
    Sqrt(tc, tp, n); sq = vt::get(tc, n);
    Rsqrt(tc, tp, n); rs = vt::get(tc, n);
    Reciprocal(tc, tp, n); rc = vt::get(tc, n);
  });
  for (std::uint32_t i = 0; i < n; ++i) {
    const float x = f(a[i]);
    EXPECT_NEAR(f(ex[i]), std::exp(x), 1e-3f * std::exp(x)) << i;
    EXPECT_EQ(f(ab[i]), std::fabs(x));
    EXPECT_EQ(f(re[i]), x > 0 ? x : 0.0f);
    EXPECT_EQ(f(ad[i]), f(static_cast<half>(x + 1.5f)));
    EXPECT_EQ(f(mu[i]), f(static_cast<half>(x * -0.5f)));
    EXPECT_EQ(f(mxs[i]), std::max(x, 0.25f));
    EXPECT_EQ(f(mns[i]), std::min(x, 0.25f));
    EXPECT_EQ(f(lr[i]), x < 0 ? f(static_cast<half>(x * f(static_cast<half>(0.1f)))) : x);
    EXPECT_EQ(f(ax[i]), f(static_cast<half>(f(static_cast<half>(x * 2.0f)) + 1.0f)));
    const float p = f(static_cast<half>(std::fabs(x) + 0.5f));
    EXPECT_NEAR(f(ln[i]), std::log(p), 1e-3f);
    EXPECT_NEAR(f(sq[i]), std::sqrt(p), 1e-3f * std::sqrt(p));
    EXPECT_NEAR(f(rs[i]), 1.0f / std::sqrt(p), 1e-3f / std::sqrt(p));
    EXPECT_NEAR(f(rc[i]), 1.0f / p, 1e-3f / p);
  }
}

TEST(Elementwise, AxpyMixedPrecision) {
  std::vector<float> out;
  vt::run_ok([&] {
    auto s = vt::ub<half>(0, 64);
    auto d = vt::ub<float>(256, 64);
    Duplicate(s, static_cast<half>(3.0f), 64);
    Duplicate(d, 0.25f, 64);
    Axpy(d, s, static_cast<half>(0.5f), 64);
    out = vt::get(d, 64);
  });
  EXPECT_EQ(out[0], 1.75f);
  EXPECT_EQ(out[63], 1.75f);
}

TEST(Elementwise, ContinuousMaskAndRepStride) {
  // fp32: 64 lanes per repeat; mask 10 keeps lanes 0..9; 3 repeats with repStride 8 (contiguous).
  std::vector<float> out;
  vt::run_ok([&] {
    auto a = vt::ub<float>(0, 192), b = vt::ub<float>(1024, 192), c = vt::ub<float>(2048, 192);
    Duplicate(a, 1.0f, 192);
    Duplicate(b, 2.0f, 192);
    Duplicate(c, -1.0f, 192);
    Add(c, a, b, 10, 3, {1, 1, 1, 8, 8, 8});
    out = vt::get(c, 192);
  });
  for (int r = 0; r < 3; ++r) {
    for (int i = 0; i < 64; ++i) EXPECT_EQ(out[r * 64 + i], i < 10 ? 3.0f : -1.0f) << r << "," << i;
  }
}

TEST(Elementwise, BitwiseMaskHalf) {
  // 128 lanes; mask[0] = every other lane of 0..63, mask[1] = lane 64 and lane 127.
  std::vector<half> out;
  uint64_t mask[2] = {0x5555555555555555ull, 0x8000000000000001ull};
  vt::run_ok([&] {
    auto a = vt::ub<half>(0, 128), c = vt::ub<half>(512, 128);
    Duplicate(a, static_cast<half>(2.0f), 128);
    Duplicate(c, static_cast<half>(0.0f), 128);
    Muls(c, a, 3.0f, mask, 1, {1, 1, 8, 8});
    out = vt::get(c, 128);
  });
  for (int i = 0; i < 128; ++i) {
    const bool on = i < 64 ? (i % 2 == 0) : (i == 64 || i == 127);
    EXPECT_EQ(f(out[i]), on ? 6.0f : 0.0f) << i;
  }
}

TEST(Elementwise, BlockAndRepeatStrides) {
  // dst block stride 2: block b of repeat 0 lands at block 2b; src repStride 0 re-reads repeat 0.
  std::vector<float> out;
  vt::run_ok([&] {
    auto a = vt::ub<float>(0, 64), c = vt::ub<float>(1024, 512);
    std::vector<float> v(64);
    for (int i = 0; i < 64; ++i) v[i] = static_cast<float>(i);
    vt::fill(a, v);
    Duplicate(c, -1.0f, 512);
    Adds(c, a, 100.0f, 64, 2, {2, 1, 16, 0});
    out = vt::get(c, 512);
  });
  for (int r = 0; r < 2; ++r) {
    for (int i = 0; i < 64; ++i) {
      const int blk = i / 8, e = i % 8;
      EXPECT_EQ(out[r * 128 + blk * 16 + e], 100.0f + i) << r << "," << i;
      EXPECT_EQ(out[r * 128 + blk * 16 + 8 + e], -1.0f);  // gap blocks untouched
    }
  }
}

TEST(Elementwise, CounterModeIgnoresRepeatTimes) {
  std::vector<half> out;
  vt::run_ok([&] {
    auto a = vt::ub<half>(0, 512), c = vt::ub<half>(1024, 512);
    Duplicate(a, static_cast<half>(1.0f), 512);
    Duplicate(c, static_cast<half>(0.0f), 512);
    SetMaskCount();
    SetVectorMask<half, MaskMode::COUNTER>(0, 300);
    Adds<half, false>(c, a, static_cast<half>(4.0f), MASK_PLACEHOLDER, 1, {1, 1, 8, 8});
    SetMaskNorm();
    ResetMask();
    out = vt::get(c, 512);
  });
  for (int i = 0; i < 512; ++i) EXPECT_EQ(f(out[i]), i < 300 ? 5.0f : 0.0f) << i;
}

TEST(Elementwise, SetVectorMaskNormalWithoutSetMask) {
  std::vector<float> out;
  vt::run_ok([&] {
    auto a = vt::ub<float>(0, 64), c = vt::ub<float>(256, 64);
    Duplicate(a, 1.0f, 64);
    Duplicate(c, 0.0f, 64);
    SetVectorMask<float>(0, 0xF0);
    Muls<float, false>(c, a, 7.0f, MASK_PLACEHOLDER, 1, {1, 1, 8, 8});
    ResetMask();
    out = vt::get(c, 64);
  });
  for (int i = 0; i < 64; ++i) EXPECT_EQ(out[i], (i >= 4 && i < 8) ? 7.0f : 0.0f) << i;
}

TEST(Elementwise, CopyDuplicateCreateVecIndexBrcb) {
  std::vector<float> cp, dup, brcb;
  std::vector<int32_t> idx;
  vt::run_ok([&] {
    auto a = vt::ub<float>(0, 128), c = vt::ub<float>(1024, 128);
    std::vector<float> v(128);
    for (int i = 0; i < 128; ++i) v[i] = static_cast<float>(i);
    vt::fill(a, v);
    Duplicate(c, 0.0f, 128);
    Copy(c, a, 16, 2, {1, 1, 8, 8});
    cp = vt::get(c, 128);
    Duplicate(c, 9.0f, 8, 2, 1, 8);
    dup = vt::get(c, 128);
    auto ti = vt::ub<int32_t>(2048, 40);
    CreateVecIndex(ti, 5, 40);
    idx = vt::get(ti, 40);
    auto b = vt::ub<float>(4096, 128);
    Brcb(b, a, 2, {1, 8});
    brcb = vt::get(b, 128);
  });
  for (int r = 0; r < 2; ++r) {
    for (int i = 0; i < 64; ++i) EXPECT_EQ(cp[r * 64 + i], i < 16 ? static_cast<float>(r * 64 + i) : 0.0f);
  }
  for (int r = 0; r < 2; ++r) {
    for (int i = 0; i < 64; ++i) EXPECT_EQ(dup[r * 64 + i], i < 8 ? 9.0f : (i < 16 ? static_cast<float>(r * 64 + i) : 0.0f));
  }
  for (int i = 0; i < 40; ++i) EXPECT_EQ(idx[i], 5 + i);
  for (int k = 0; k < 16; ++k) {
    for (int e = 0; e < 8; ++e) EXPECT_EQ(brcb[k * 8 + e], static_cast<float>(k));
  }
}

TEST(Elementwise, CountFormAdd16MElementsIsFast) {
  // 16M fp16 elements in 8K-element tiles: the emulation must stay well under 0.3 s.
  const std::uint32_t tile = 8192, tiles = 2048;
  double seconds = 0;
  vt::run_ok([&] {
    auto a = vt::ub<half>(0, tile), b = vt::ub<half>(16384 + 256, tile), c = vt::ub<half>(65536, tile);
    Duplicate(a, static_cast<half>(1.0f), tile);
    Duplicate(b, static_cast<half>(2.0f), tile);
    const auto t0 = std::chrono::steady_clock::now();
    for (std::uint32_t t = 0; t < tiles; ++t) Add(c, a, b, tile);
    seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    EXPECT_EQ(f(c.aopt_ptr()[tile - 1]), 3.0f);
  });
  std::cout << "[sim_vector] 16M-element fp16 Add: " << seconds << " s\n";
  EXPECT_LT(seconds, 0.3);
}
