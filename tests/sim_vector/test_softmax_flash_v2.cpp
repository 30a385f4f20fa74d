// SoftmaxFlashV2 (SoftmaxFlashV2.md), its kernel-side tiling (SoftMaxFlashV2TilingFunc on a
// SoftMaxShapeInfo, and the SoftMaxFlashV2TilingFuncImpl name kernels call) and ShapeInfo on
// tensors (LocalTensor/GlobalTensor SetShapeInfo, GetShapeInfo), checked against a plain
// double-precision softmax: isUpdate false is one block, isUpdate true merges further blocks of
// the same rows (the online rule), and the merged result must equal a softmax over the
// concatenated rows. Random data is seeded (vt::seed() prints the seed; AOPT_TEST_SEED sets it).
// This file does not compile on main (no SoftmaxFlashV2, no SetShapeInfo on tensors, no kernel-side
// SoftMaxFlashV2TilingFunc).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "vec_test_util.h"

using namespace AscendC;
using aopt::sim::hw_error_kind;

namespace {

constexpr std::uint32_t kRows = 8;

// Columns [b * k, (b + 1) * k) of each row of an m x (blocks * k) matrix.
std::vector<float> block_of(const std::vector<float>& x, std::uint32_t m, std::uint32_t k, std::uint32_t blocks,
                            std::uint32_t b) {
  std::vector<float> out(m * k);
  for (std::uint32_t r = 0; r < m; ++r) {
    for (std::uint32_t c = 0; c < k; ++c) out[r * k + c] = x[r * k * blocks + b * k + c];
  }
  return out;
}

struct row_ref {
  double max = -INFINITY;
  double sum = 0.0;
};
row_ref reference_row(const std::vector<float>& x, std::uint32_t r, std::uint32_t width) {
  row_ref ref;
  for (std::uint32_t c = 0; c < width; ++c) ref.max = std::max(ref.max, double{x[r * width + c]});
  for (std::uint32_t c = 0; c < width; ++c) ref.sum += std::exp(double{x[r * width + c]} - ref.max);
  return ref;
}

SoftMaxTiling tiling_for(std::uint32_t m, std::uint32_t k, bool update) {
  const ge::Shape shape(std::vector<int64_t>{m, k});
  SoftMaxTiling t;
  SoftMaxFlashV2TilingFunc(shape, 4, 4, GetSoftMaxFlashV2MinTmpSize(shape, 4, 4, update), t, update);
  return t;
}

TEST(SoftmaxFlashV2, WithoutUpdateFollowsTheDocumentedFormula) {
  constexpr std::uint32_t m = kRows, k = 64;
  const auto x = vt::random_vec<float>(m * k, -4.0f, 4.0f, 401);
  const SoftMaxTiling tiling = tiling_for(m, k, false);
  std::vector<float> dst, sum, max;
  vt::run_ok([&] {
    auto src = vt::ub<float>(0, m * k), out = vt::ub<float>(4096, m * k);
    auto s = vt::ub<float>(8192, m * 8), mx = vt::ub<float>(8448, m * 8), em = vt::ub<float>(8704, m * 8);
    vt::fill(src, x);
    SoftmaxFlashV2<float, false>(out, s, mx, src, em, s, mx, tiling);
    dst = vt::get(out, m * k);
    sum = vt::get(s, m * 8);
    max = vt::get(mx, m * 8);
  });
  for (std::uint32_t r = 0; r < m; ++r) {
    const row_ref ref = reference_row(x, r, k);
    for (std::uint32_t j = 0; j < 8; ++j) {  // one value per row over a 32-byte block
      EXPECT_FLOAT_EQ(max[r * 8 + j], static_cast<float>(ref.max)) << r;
      EXPECT_NEAR(sum[r * 8 + j], ref.sum, 1e-5 * ref.sum) << r;
    }
    for (std::uint32_t c = 0; c < k; ++c) {  // exp(x - max), not divided by the sum
      EXPECT_NEAR(dst[r * k + c], std::exp(double{x[r * k + c]} - ref.max), 1e-6) << r << "," << c;
    }
  }
}

// Three blocks of the same rows: the first without update, the others with update, max and sum
// reused in place (the documented reuse). Rescaling each block's exp by the later expMax values
// and dividing by the final sum must give the softmax of the concatenated rows.
TEST(SoftmaxFlashV2, OnlineUpdateOverBlocksEqualsSoftmaxOfTheConcatenatedRows) {
  constexpr std::uint32_t m = kRows, k = 32, blocks = 3, width = k * blocks;
  auto x = vt::random_vec<float>(m * width, -6.0f, 6.0f, 402);
  for (std::uint32_t c = 0; c < k; ++c) x[2 * width + 2 * k + c] += 9.0f;  // row 2's max in the last block
  std::vector<std::vector<float>> exps(blocks), exp_max(blocks);
  std::vector<float> sum, max;
  vt::run_ok([&] {
    auto src = vt::ub<float>(0, m * k), s = vt::ub<float>(2048, m * 8), mx = vt::ub<float>(2304, m * 8);
    auto em = vt::ub<float>(2560, m * 8);
    auto tmp = vt::ub<uint8_t>(4096, 1024);
    for (std::uint32_t b = 0; b < blocks; ++b) {
      vt::fill(src, block_of(x, m, k, blocks, b));
      if (b == 0) {
        SoftmaxFlashV2<float, false>(src, s, mx, src, em, s, mx, tmp, tiling_for(m, k, false));
      } else {
        SoftmaxFlashV2<float, true>(src, s, mx, src, em, s, mx, tmp, tiling_for(m, k, true));
        exp_max[b] = vt::get(em, m * 8);
      }
      exps[b] = vt::get(src, m * k);
    }
    sum = vt::get(s, m * 8);
    max = vt::get(mx, m * 8);
  });
  for (std::uint32_t r = 0; r < m; ++r) {
    const row_ref ref = reference_row(x, r, width);
    EXPECT_FLOAT_EQ(max[r * 8 + 7], static_cast<float>(ref.max)) << r;
    EXPECT_NEAR(sum[r * 8], ref.sum, 1e-5 * ref.sum) << r;
    for (std::uint32_t b = 0; b < blocks; ++b) {
      double scale = 1.0;
      for (std::uint32_t later = b + 1; later < blocks; ++later) scale *= exp_max[later][r * 8];
      for (std::uint32_t c = 0; c < k; ++c) {
        const double want = std::exp(double{x[r * width + b * k + c]} - ref.max) / ref.sum;
        EXPECT_NEAR(exps[b][r * k + c] * scale / sum[r * 8], want, 1e-6) << r << "," << b << "," << c;
      }
    }
  }
}

// half data with float statistics (the mixed form); expMax is half.
TEST(SoftmaxFlashV2, HalfDataWithFloatStatistics) {
  constexpr std::uint32_t m = kRows, k = 32;
  const auto a = vt::random_vec<half>(m * k, -3.0f, 3.0f, 403);
  const auto b = vt::random_vec<half>(m * k, -3.0f, 3.0f, 404);
  const ge::Shape shape(std::vector<int64_t>{m, k});
  SoftMaxTiling t;
  SoftMaxFlashV2TilingFunc(shape, 2, 4, GetSoftMaxFlashV2MinTmpSize(shape, 2, 4, true), t, true);
  std::vector<half> second, em_out;
  std::vector<float> sum;
  vt::run_ok([&] {
    auto src = vt::ub<half>(0, m * k);
    auto s = vt::ub<float>(1024, m * 8), mx = vt::ub<float>(1280, m * 8);
    auto em = vt::ub<half>(1536, m * 16);
    vt::fill(src, a);
    SoftmaxFlashV2<half, false>(src, s, mx, src, em, s, mx, t);
    vt::fill(src, b);
    SoftmaxFlashV2<half, true>(src, s, mx, src, em, s, mx, t);
    second = vt::get(src, m * k);
    em_out = vt::get(em, m * 16);
    sum = vt::get(s, m * 8);
  });
  for (std::uint32_t r = 0; r < m; ++r) {
    double ma = -INFINITY, mb = -INFINITY, sa = 0, sb = 0;
    for (std::uint32_t c = 0; c < k; ++c) ma = std::max(ma, double{vt::f(a[r * k + c])});
    for (std::uint32_t c = 0; c < k; ++c) mb = std::max(mb, double{vt::f(b[r * k + c])});
    const double mx = std::max(ma, mb);
    for (std::uint32_t c = 0; c < k; ++c) sa += std::exp(vt::f(a[r * k + c]) - mx);
    for (std::uint32_t c = 0; c < k; ++c) sb += std::exp(vt::f(b[r * k + c]) - mx);
    EXPECT_NEAR(sum[r * 8], sa + sb, 1e-3 * (sa + sb)) << r;
    for (std::uint32_t j = 0; j < 16; ++j) EXPECT_NEAR(vt::f(em_out[r * 16 + j]), std::exp(ma - mx), 1e-3) << r;
    for (std::uint32_t c = 0; c < k; ++c) EXPECT_NEAR(vt::f(second[r * k + c]), std::exp(vt::f(b[r * k + c]) - mx), 1e-3);
  }
}

constexpr SoftmaxConfig kUnbroadcast = {false, 0, 0, SoftmaxMode::SOFTMAX_OUTPUT_WITHOUT_BRC};

// The outReduceMax form: one value per row in the unbroadcast mode, the row's own max(x) as
// outReduceMax; in the normal mode it does nothing, as documented.
TEST(SoftmaxFlashV2, OutReduceMaxFormRunsOnlyUnbroadcast) {
  constexpr std::uint32_t m = kRows, k = 16;
  const auto x = vt::random_vec<float>(m * k, -1.0f, 1.0f, 405);
  const SoftMaxTiling t = tiling_for(m, k, true);
  std::vector<float> red, mx_out, untouched;
  vt::run_ok([&] {
    auto src = vt::ub<float>(0, m * k), dst = vt::ub<float>(1024, m * k), red_t = vt::ub<float>(2048, 64);
    auto s = vt::ub<float>(2304, 64), mx = vt::ub<float>(2560, 64), em = vt::ub<float>(2816, 64);
    vt::fill(src, x);
    vt::fill(s, std::vector<float>(m, 2.0f));
    vt::fill(mx, std::vector<float>(m, 5.0f));  // above every x: the merged max stays 5
    vt::fill(dst, std::vector<float>(m * k, -7.0f));
    SoftmaxFlashV2<float, true, false, false, false>(dst, red_t, s, mx, src, em, s, mx, t);  // normal mode
    untouched = vt::get(dst, m * k);
    SoftmaxFlashV2<float, true, false, false, false, kUnbroadcast>(dst, red_t, s, mx, src, em, s, mx, t);
    red = vt::get(red_t, m);
    mx_out = vt::get(mx, m);
  });
  for (float v : untouched) EXPECT_EQ(v, -7.0f);
  for (std::uint32_t r = 0; r < m; ++r) {
    EXPECT_FLOAT_EQ(red[r], *std::max_element(x.begin() + r * k, x.begin() + (r + 1) * k));
    EXPECT_EQ(mx_out[r], 5.0f);
  }
}

TEST(SoftmaxFlashV2, RecordsTheDocumentedStepsInTheTrace) {
  constexpr std::uint32_t m = kRows, k = 64;
  const SoftMaxTiling t = tiling_for(m, k, true);
  auto once = [&](bool update) {
    return vt::vector_recs(vt::run_ok([&] {
      auto src = vt::ub<float>(0, m * k), s = vt::ub<float>(4096, m * 8), mx = vt::ub<float>(4352, m * 8);
      auto em = vt::ub<float>(4608, m * 8);
      if (update) {
        SoftmaxFlashV2<float, true>(src, s, mx, src, em, s, mx, t);
      } else {
        SoftmaxFlashV2<float, false>(src, s, mx, src, em, s, mx, t);
      }
    }));
  };
  const auto plain = once(false), merged = once(true);
  EXPECT_EQ(plain.size(), 6u);    // reduce max, sub, exp, reduce sum over the data; two broadcasts
  EXPECT_EQ(merged.size(), 11u);  // and max, sub, exp, mul, add over the statistics
  EXPECT_EQ(plain.front().repeats, m * k * 4 / 256);
}

// The documented constraints, each an error that says what to change.
TEST(SoftmaxFlashV2, DocumentedConstraintsAreErrors) {
  const SoftMaxTiling t = tiling_for(kRows, 64, false);
  auto run = [&](auto body) { return vt::run(body); };
  const auto misaligned = run([&] {  // srcK 4 floats: 16 bytes, not 32-byte aligned
    auto src = vt::ub<float>(0, 32), s = vt::ub<float>(1024, 64), mx = vt::ub<float>(1280, 64);
    SoftmaxFlashV2<float, false>(src, s, mx, src, s, s, mx, t, SoftMaxShapeInfo{8, 4, 8, 4});
  });
  ASSERT_TRUE(misaligned.error.has_value());
  EXPECT_EQ(misaligned.error->kind, hw_error_kind::misaligned);
  const auto overlap = run([&] {  // sharedTmpBuffer over the source
    auto src = vt::ub<float>(0, 512), s = vt::ub<float>(4096, 64), mx = vt::ub<float>(4352, 64);
    auto tmp = vt::ub<uint8_t>(1024, 1024);
    SoftmaxFlashV2<float, false>(src, s, mx, src, s, s, mx, tmp, t);
  });
  ASSERT_TRUE(overlap.error.has_value());
  EXPECT_EQ(overlap.error->kind, hw_error_kind::invalid_use);
  EXPECT_NE(overlap.error->to_string().find("sharedTmpBuffer"), std::string::npos);
  const auto not_basic = run([&] {  // isBasicBlock with 4 rows (not a multiple of 8)
    auto src = vt::ub<float>(0, 256), s = vt::ub<float>(4096, 32), mx = vt::ub<float>(4352, 32);
    SoftmaxFlashV2<float, false, false, true>(src, s, mx, src, s, s, mx, t, SoftMaxShapeInfo{4, 64, 4, 64});
  });
  ASSERT_TRUE(not_basic.error.has_value());
  EXPECT_EQ(not_basic.error->kind, hw_error_kind::param_out_of_range);
  // maxTensor one block short of [m, 8]: as for every vector operand, sim warns (on the chip the
  // write reaches into the next buffer) and runs on.
  const auto small_max = run([&] {
    auto src = vt::ub<float>(0, 512), s = vt::ub<float>(4096, 64), mx = vt::ub<float>(4352, 56);
    SoftmaxFlashV2<float, false>(src, s, mx, src, s, s, mx, t);
  });
  EXPECT_FALSE(small_max.error.has_value());
  ASSERT_EQ(small_max.warnings.size(), 1u);
  EXPECT_EQ(small_max.warnings[0].kind, hw_error_kind::ub_out_of_bounds);
  EXPECT_NE(small_max.warnings[0].to_string().find("maxTensor"), std::string::npos);
  const auto nz = run([&] {
    auto src = vt::ub<float>(0, 512), s = vt::ub<float>(4096, 64), mx = vt::ub<float>(4352, 64);
    SoftmaxFlashV2<float, false, false, false, true>(src, s, mx, src, s, s, mx, t);
  });
  ASSERT_TRUE(nz.error.has_value());
  EXPECT_EQ(nz.error->kind, hw_error_kind::invalid_use);
}

// The kernel-side tiling function gives the host function's tiling for the same shape.
TEST(SoftmaxFlashV2Tiling, KernelSideFunctionMatchesTheHostOne) {
  const SoftMaxShapeInfo info{24, 128, 24, 120};
  const SoftMaxTiling kernel = SoftMaxFlashV2TilingFunc(info, 4, 4, 8192, true, false);
  SoftMaxTiling host;
  SoftMaxFlashV2TilingFunc(ge::Shape(std::vector<int64_t>{24, 128}), 4, 4, 8192, host, true, false);
  EXPECT_EQ(kernel.srcM, 24u);
  EXPECT_EQ(kernel.srcK, 128u);
  EXPECT_EQ(kernel.srcSize, 24u * 128u);
  EXPECT_EQ(kernel.outMaxK, 8u);
  EXPECT_EQ(kernel.outMaxSize, 24u * 8u);
  EXPECT_EQ(std::memcmp(&kernel, &host, sizeof(SoftMaxTiling)), 0);
  const SoftMaxTiling impl = SoftMaxFlashV2TilingFuncImpl(24, 128, 4, 4, 8192, true, false);
  EXPECT_EQ(std::memcmp(&impl, &host, sizeof(SoftMaxTiling)), 0);
  const SoftMaxTiling brc = SoftMaxFlashV2TilingFunc(info, 2, 2, 8192, false, false, false, true);
  EXPECT_EQ(brc.outMaxK, 1u);
  EXPECT_EQ(brc.outMaxSize, 24u);
  EXPECT_EQ(SoftMaxFlashV2TilingFunc(info, 2, 2, 8192).outMaxK, 16u);
}

TEST(TensorShapeInfo, SetAndGetOnLocalAndGlobalTensors) {
  const std::uint32_t shape[] = {4, 64};
  const std::uint32_t orig[] = {4, 60};
  ShapeInfo local_got, sub_got, global_got, global_sub_got;
  std::vector<float> gm(256, 0.0f);
  vt::run_ok([&] {
    auto t = vt::ub<float>(0, 256);
    EXPECT_EQ(t.GetShapeInfo().shapeDim, 0u);  // unset: empty
    t.SetShapeInfo(ShapeInfo(2, shape, 2, orig, DataFormat::ND));
    local_got = t.GetShapeInfo();
    sub_got = t[64].GetShapeInfo();
    GlobalTensor<float> g;
    g.SetGlobalBuffer(gm.data(), gm.size());
    g.SetShapeInfo(ShapeInfo(2, shape, DataFormat::NZ));
    global_got = g.GetShapeInfo();
    global_sub_got = g[8].GetShapeInfo();
  });
  EXPECT_EQ(local_got.shapeDim, 2u);
  EXPECT_EQ(local_got.shape[1], 64u);
  EXPECT_EQ(local_got.originalShapeDim, 2u);
  EXPECT_EQ(local_got.originalShape[1], 60u);
  EXPECT_EQ(GetShapeSize(local_got), 256);
  EXPECT_EQ(sub_got.shapeDim, 0u);  // a sub-tensor is another view
  EXPECT_EQ(global_got.shapeDim, 2u);
  EXPECT_EQ(global_got.dataFormat, DataFormat::NZ);
  EXPECT_EQ(global_got.originalShape[0], 4u);
  EXPECT_EQ(global_sub_got.shapeDim, 0u);
}

}  // namespace
