// SoftmaxGrad and SoftmaxGradFront (issue 38: math/inplace_fused_matmul_softmax_grad's vector
// part), with their host tiling functions, checked against the documented formula: per row
// d = sum(grad * src); isFront gives d over one 32-byte block per row, otherwise (grad - d) * src.
// Also the host tiling of SoftmaxFlashV2. This file does not compile on main (no SoftmaxGrad,
// GetSoftMaxGradMinTmpSize, SoftMaxGradTilingFunc, SoftMaxFlashV2TilingFunc).
#include <cmath>
#include <cstdint>
#include <vector>

#include "vec_test_util.h"

using namespace AscendC;

namespace {

std::vector<float> row_dots(const std::vector<float>& g, const std::vector<float>& s, std::uint32_t m, std::uint32_t k) {
  std::vector<float> d(m, 0.0f);
  for (std::uint32_t r = 0; r < m; ++r) {
    for (std::uint32_t c = 0; c < k; ++c) d[r] += g[r * k + c] * s[r * k + c];
  }
  return d;
}

TEST(SoftmaxGrad, FloatRowsFollowTheDocumentedFormula) {
  constexpr std::uint32_t m = 4, k = 16;
  const auto g = vt::random_vec<float>(m * k, -2.0f, 2.0f, 301);
  const auto s = vt::random_vec<float>(m * k, 0.0f, 1.0f, 302);
  const ge::Shape shape(std::vector<int64_t>{m, k});
  const std::uint32_t min_tmp = GetSoftMaxGradMinTmpSize(shape, 4, false, false);
  EXPECT_GT(min_tmp, 0u);
  EXPECT_GE(GetSoftMaxGradMaxTmpSize(shape, 4, false, false), min_tmp);
  SoftMaxTiling tiling;
  SoftMaxGradTilingFunc(shape, 4, min_tmp, tiling);
  EXPECT_EQ(tiling.srcM, m);
  EXPECT_EQ(tiling.srcK, k);

  std::vector<float> y, front, front2, inplace;
  vt::run_ok([&] {
    auto gt = vt::ub<float>(0, m * k), st = vt::ub<float>(512, m * k), dt = vt::ub<float>(1024, m * k);
    auto ft = vt::ub<float>(1536, m * 8), ft2 = vt::ub<float>(1792, m * 8);
    auto tmp = vt::ub<uint8_t>(2048, min_tmp);
    vt::fill(gt, g);
    vt::fill(st, s);
    SoftmaxGrad<float, false>(dt, gt, st, tiling, false, SoftMaxShapeInfo{m, k, m, k});
    y = vt::get(dt, m * k);
    SoftmaxGrad<float>(ft, gt, st, tmp, tiling, true);  // isFront, the shape from the tiling
    front = vt::get(ft, m * 8);
    SoftmaxGradFront<float>(ft2, gt, st, tiling, SoftMaxShapeInfo{m, k, m, k});
    front2 = vt::get(ft2, m * 8);
    SoftmaxGrad<float>(st, gt, st, tiling);  // dst reuses src
    inplace = vt::get(st, m * k);
  });
  const auto d = row_dots(g, s, m, k);
  for (std::uint32_t r = 0; r < m; ++r) {
    for (std::uint32_t j = 0; j < 8; ++j) {
      EXPECT_NEAR(front[r * 8 + j], d[r], 1e-5f);
      EXPECT_EQ(front2[r * 8 + j], front[r * 8 + j]);
    }
    for (std::uint32_t c = 0; c < k; ++c) {
      const float want = (g[r * k + c] - d[r]) * s[r * k + c];
      EXPECT_NEAR(y[r * k + c], want, 1e-5f) << r << "," << c;
      EXPECT_EQ(inplace[r * k + c], y[r * k + c]);
    }
  }
}

TEST(SoftmaxGrad, HalfIsComputedInFloatAndRoundedOnce) {
  constexpr std::uint32_t m = 2, k = 32;
  const auto g = vt::random_vec<float>(m * k, -1.0f, 1.0f, 303);
  const auto s = vt::random_vec<float>(m * k, 0.0f, 1.0f, 304);
  SoftMaxTiling tiling;
  const ge::Shape shape(std::vector<int64_t>{m, k});
  SoftMaxGradTilingFunc(shape, 2, GetSoftMaxGradMinTmpSize(shape, 2, false, false), tiling);
  std::vector<half> y, front;
  std::vector<float> gh(m * k), sh(m * k);
  vt::run_ok([&] {
    auto gt = vt::ub<half>(0, m * k), st = vt::ub<half>(256, m * k), dt = vt::ub<half>(512, m * k);
    auto ft = vt::ub<half>(768, m * 16);
    for (std::uint32_t i = 0; i < m * k; ++i) {
      gt.aopt_ptr()[i] = static_cast<half>(g[i]);
      st.aopt_ptr()[i] = static_cast<half>(s[i]);
      gh[i] = static_cast<float>(gt.aopt_ptr()[i]);
      sh[i] = static_cast<float>(st.aopt_ptr()[i]);
    }
    SoftmaxGrad<half>(dt, gt, st, tiling);
    y = vt::get(dt, m * k);
    SoftmaxGradFront<half>(ft, gt, st, tiling);
    front = vt::get(ft, m * 16);
  });
  const auto d = row_dots(gh, sh, m, k);
  for (std::uint32_t r = 0; r < m; ++r) {
    for (std::uint32_t j = 0; j < 16; ++j) EXPECT_EQ(vt::f(front[r * 16 + j]), vt::f(static_cast<half>(d[r])));
    for (std::uint32_t c = 0; c < k; ++c) {
      EXPECT_EQ(vt::f(y[r * k + c]), vt::f(static_cast<half>((gh[r * k + c] - d[r]) * sh[r * k + c])));
    }
  }
}

TEST(SoftmaxGrad, RowsNotAMultipleOf32BytesAreRefused) {
  SoftMaxTiling tiling;
  SoftMaxGradTilingFunc(ge::Shape(std::vector<int64_t>{2, 16}), 4, 4096, tiling);
  const auto r = vt::run([&] {
    auto a = vt::ub<float>(0, 64), b = vt::ub<float>(512, 64), c = vt::ub<float>(1024, 64);
    SoftmaxGrad<float>(c, a, b, tiling, false, SoftMaxShapeInfo{2, 12, 2, 12});  // 48-byte rows
  });
  ASSERT_TRUE(r.error.has_value());
  EXPECT_EQ(r.error->kind, aopt::sim::hw_error_kind::misaligned);
}

// Broadcast, the documented name of BroadCast (math/inplace_fused_matmul_softmax_grad broadcasts a
// row sum with it): one value to a row, and a column to rows.
TEST(SoftmaxGrad, BroadcastIsTheDocumentedNameOfBroadCast) {
  std::vector<float> row, cols;
  vt::run_ok([&] {
    auto s = vt::ub<float>(0, 8), d = vt::ub<float>(256, 16), c = vt::ub<float>(512, 2), e = vt::ub<float>(768, 16);
    s.aopt_ptr()[0] = 2.5f;
    const uint32_t dst1[1] = {16}, src1[1] = {1};
    Broadcast<float, 1, 0>(d, s, dst1, src1);
    row = vt::get(d, 16);
    c.aopt_ptr()[0] = 1.0f;
    c.aopt_ptr()[1] = -3.0f;
    const uint32_t dst2[2] = {2, 8}, src2[2] = {2, 1};
    Broadcast<float, 2, 1>(e, c, dst2, src2, vt::ub<uint8_t>(1024, 256));
    cols = vt::get(e, 16);
  });
  for (float v : row) EXPECT_EQ(v, 2.5f);
  for (int i = 0; i < 8; ++i) {
    EXPECT_EQ(cols[i], 1.0f);
    EXPECT_EQ(cols[8 + i], -3.0f);
  }
}

// The host tiling of SoftmaxFlashV2 (math/flash_attention_score_with_large_head_dim's host code):
// the sum/max block follows the second element size, one value per row with isFlashOutputBrc.
TEST(SoftmaxFlashV2Tiling, TheSumAndMaxBlockFollowsTheirElementSize) {
  const ge::Shape shape(std::vector<int64_t>{8, 64});
  const std::uint32_t min_tmp = GetSoftMaxFlashV2MinTmpSize(shape, 2, 4, true, false);
  EXPECT_GT(min_tmp, 0u);
  EXPECT_GE(GetSoftMaxFlashV2MaxTmpSize(shape, 2, 4, true, false), min_tmp);
  SoftMaxTiling t;
  SoftMaxFlashV2TilingFunc(shape, 2, 4, min_tmp, t, true, IsBasicBlockInSoftMax(t));
  EXPECT_EQ(t.srcM, 8u);
  EXPECT_EQ(t.srcK, 64u);
  EXPECT_EQ(t.outMaxK, 8u);  // float sum/max: 8 per 32-byte block
  SoftMaxFlashV2TilingFunc(shape, 2, 2, min_tmp, t, false);
  EXPECT_EQ(t.outMaxK, 16u);
  SoftMaxFlashV2TilingFunc(shape, 4, 4, min_tmp, t, false, false, true);
  EXPECT_EQ(t.outMaxK, 1u);
  EXPECT_EQ(t.outMaxSize, 8u);
}

}  // namespace
