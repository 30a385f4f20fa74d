// Issue 34 (tree_b): kernel APIs of the cann-ops tree's math operators that sim lacked, each
// checked for its documented values: SelectWithBytesMask (both forms: tensor then scalar, scalar
// then tensor; a byte mask whose rows are wider than the source's, the rest ignored) and Mean
// (row means over the first n of each inner-aligned row, half data with a float accumulator),
// Sort<T, isFullSort> and Extract.
#include <algorithm>

#include "vec_test_util.h"

using namespace AscendC;
using aopt::sim::hw_error_kind;

namespace {

// src [2, 8] float (rows of 32 bytes); mask [2, 32] uint8, only its first 8 per row used.
TEST(TreeBApi, SelectWithBytesMaskTakesSrc0WhereTheMaskIsZero) {
  std::vector<float> out(16), out2(16);
  std::vector<std::uint8_t> mask(64, 0);
  for (int r = 0; r < 2; ++r) {
    for (int c = 0; c < 32; ++c) mask[r * 32 + c] = static_cast<std::uint8_t>(c >= 8 ? 1 : (c + r) % 3 == 0 ? 7 : 0);
  }
  const auto src = vt::random_vec<float>(16, -4.0f, 4.0f);
  vt::run_ok([&] {
    auto s = vt::ub<float>(0, 16), d = vt::ub<float>(256, 16), d2 = vt::ub<float>(512, 16);
    auto m = vt::ub<std::uint8_t>(1024, 64);
    auto tmp = vt::ub<std::uint8_t>(2048, 1024);
    vt::fill(s, src);
    vt::fill(m, mask);
    SelectWithBytesMaskShapeInfo info;
    info.firstAxis = 2;
    info.srcLastAxis = 8;
    info.maskLastAxis = 32;
    SelectWithBytesMask(d, s, 9.0f, m, tmp, info);
    SelectWithBytesMask(d2, 9.0f, s, m, tmp, info);
    out = vt::get(d, 16);
    out2 = vt::get(d2, 16);
  });
  for (int r = 0; r < 2; ++r) {
    for (int c = 0; c < 8; ++c) {
      const bool zero = mask[r * 32 + c] == 0;
      EXPECT_EQ(out[r * 8 + c], zero ? src[r * 8 + c] : 9.0f) << r << "," << c;
      EXPECT_EQ(out2[r * 8 + c], zero ? 9.0f : src[r * 8 + c]) << r << "," << c;
    }
  }
}

TEST(TreeBApi, SelectWithBytesMaskRefusesAMaskNarrowerThanTheSource) {
  const auto r = vt::run([&] {
    auto s = vt::ub<float>(0, 16), d = vt::ub<float>(256, 16);
    auto m = vt::ub<std::uint8_t>(1024, 64);
    auto tmp = vt::ub<std::uint8_t>(2048, 1024);
    SelectWithBytesMaskShapeInfo info;
    info.firstAxis = 1;
    info.srcLastAxis = 16;
    info.maskLastAxis = 0;
    SelectWithBytesMask(d, s, 0.0f, m, tmp, info);
  });
  ASSERT_TRUE(r.error.has_value());
  EXPECT_EQ(r.error->kind, hw_error_kind::param_out_of_range) << r.error->to_string();
}

// The documentation's example: a (4, 5) float matrix, rows padded to 8, means [3, 8, 13, 18].
TEST(TreeBApi, MeanAveragesTheFirstNOfEachRow) {
  std::vector<float> out(8);
  vt::run_ok([&] {
    auto s = vt::ub<float>(0, 32), d = vt::ub<float>(256, 8);
    std::vector<float> v(32, 1000.0f);  // the padding must not count
    for (int r = 0; r < 4; ++r)
      for (int c = 0; c < 5; ++c) v[r * 8 + c] = static_cast<float>(r * 5 + c + 1);
    vt::fill(s, v);
    MeanParams p;
    p.outter = 4;
    p.inner = 8;
    p.n = 5;
    Mean<float>(d, s, p);
    out = vt::get(d, 4);
  });
  EXPECT_EQ(out[0], 3.0f);
  EXPECT_EQ(out[1], 8.0f);
  EXPECT_EQ(out[2], 13.0f);
  EXPECT_EQ(out[3], 18.0f);
}

TEST(TreeBApi, MeanOfHalfWithAFloatAccumulatorAndItsLimits) {
  const auto v = vt::random_vec<half>(16, -2.0f, 2.0f, 3);
  half got{};
  vt::run_ok([&] {
    auto s = vt::ub<half>(0, 16), d = vt::ub<half>(256, 16);
    auto tmp = vt::ub<std::uint8_t>(512, 256);
    vt::fill(s, v);
    MeanParams p;
    p.outter = 1;
    p.inner = 16;
    p.n = 16;
    Mean<half, float>(d, s, tmp, p);
    got = d.aopt_ptr()[0];
  });
  double want = 0;
  for (const auto& x : v) want += vt::f(x);
  EXPECT_NEAR(vt::f(got), want / 16.0, 2e-3);
  const auto r = vt::run([&] {  // n beyond inner
    auto s = vt::ub<float>(0, 8), d = vt::ub<float>(256, 8);
    MeanParams p;
    p.inner = 8;
    p.n = 9;
    Mean<float>(d, s, p);
  });
  ASSERT_TRUE(r.error.has_value());
  EXPECT_EQ(r.error->kind, hw_error_kind::param_out_of_range) << r.error->to_string();
}

// A full sort orders all repeatTimes * 32 scores (descending, equal ones in input order); without
// isFullSort each group of 32 on its own; Extract gives the scores and indices back.
TEST(TreeBApi, SortFullOrdersEveryScoreAndExtractSplitsThePairs) {
  constexpr int n = 96;
  std::vector<float> scores(n);
  for (int i = 0; i < n; ++i) scores[i] = static_cast<float>((i * 37) % 50);  // repeats: ties
  std::vector<float> full(n), part(n);
  std::vector<std::uint32_t> full_idx(n), part_idx(n);
  vt::run_ok([&] {
    auto s = vt::ub<float>(0, n), d = vt::ub<float>(1024, 2 * n), tmp = vt::ub<float>(2048, 2 * n);
    auto ix = vt::ub<std::uint32_t>(3072, n);
    auto vals = vt::ub<float>(4096, n);
    auto outix = vt::ub<std::uint32_t>(5120, n);
    vt::fill(s, scores);
    for (int i = 0; i < n; ++i) ix.aopt_ptr()[i] = static_cast<std::uint32_t>(i);
    Sort<float, true>(d, s, ix, tmp, n / 32);
    Extract(vals, outix, d, n / 32);
    full = vt::get(vals, n);
    full_idx = vt::get(outix, n);
    Sort<float, false>(d, s, ix, tmp, n / 32);
    Extract(vals, outix, d, n / 32);
    part = vt::get(vals, n);
    part_idx = vt::get(outix, n);
  });
  std::vector<int> order(n);
  for (int i = 0; i < n; ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return scores[a] > scores[b]; });
  for (int k = 0; k < n; ++k) {
    EXPECT_EQ(full_idx[k], static_cast<std::uint32_t>(order[k])) << k;
    EXPECT_EQ(full[k], scores[order[k]]) << k;
  }
  for (int g = 0; g < n / 32; ++g) {
    std::vector<int> o(32);
    for (int i = 0; i < 32; ++i) o[i] = g * 32 + i;
    std::stable_sort(o.begin(), o.end(), [&](int a, int b) { return scores[a] > scores[b]; });
    for (int k = 0; k < 32; ++k) EXPECT_EQ(part_idx[g * 32 + k], static_cast<std::uint32_t>(o[k])) << g << "," << k;
  }
}

}  // namespace
