#include <gtest/gtest.h>

#include <cmath>
#include <iostream>
#include <random>

#include "aopt/evaluation/checker.h"

namespace ev = aopt::evaluation;

TEST(Checker, WithinToleranceIsOk) {
  ev::tolerance_spec tol;
  const std::vector<double> want = {1.0, -2.0, 0.5, 100.0};
  const std::vector<double> got = {1.0005, -2.001, 0.5009, 100.05};  // atol 1e-3 + rtol 1e-3 * |want|
  const auto r = ev::compare_output("z", ev::dtype::float16, got, want, tol);
  EXPECT_TRUE(r.passed) << r.message;
  EXPECT_EQ(r.mismatches, 0u);
  EXPECT_NEAR(r.max_abs_err, 0.05, 1e-9);
  EXPECT_NEAR(r.max_rel_err, 0.0018, 1e-9);
}

TEST(Checker, MismatchRatioDecides) {
  ev::tolerance_spec tol;
  tol.max_mismatch_ratio = 0.01;
  std::vector<double> want(1000, 1.0), got(1000, 1.0);
  for (int i = 0; i < 10; ++i) got[i * 100] = 2.0;  // exactly 1%
  auto r = ev::compare_output("z", ev::dtype::float32, got, want, tol);
  EXPECT_TRUE(r.passed);
  EXPECT_EQ(r.mismatches, 10u);
  EXPECT_DOUBLE_EQ(r.mismatch_ratio, 0.01);
  got[1] = 3.0;  // 1.1%
  r = ev::compare_output("z", ev::dtype::float32, got, want, tol);
  EXPECT_FALSE(r.passed);
  EXPECT_EQ(r.first_mismatch, 0);
  EXPECT_DOUBLE_EQ(r.max_abs_err, 2.0);
  EXPECT_NE(r.message.find("11 of 1000"), std::string::npos) << r.message;
}

TEST(Checker, PerDtypeTolerance) {
  ev::tolerance_spec tol;
  tol.max_mismatch_ratio = 0;
  tol.per_dtype[ev::dtype::float32] = {0.1, 0.0};
  EXPECT_TRUE(ev::compare_output("z", ev::dtype::float32, {1.09}, {1.0}, tol).passed);
  EXPECT_FALSE(ev::compare_output("z", ev::dtype::float32, {1.11}, {1.0}, tol).passed);
  EXPECT_FALSE(ev::compare_output("z", ev::dtype::int32, {3}, {4}, tol).passed);  // ints exact by default
  EXPECT_TRUE(ev::compare_output("z", ev::dtype::int32, {4}, {4}, tol).passed);
}

TEST(Checker, NanAndInf) {
  ev::tolerance_spec tol;
  tol.max_mismatch_ratio = 0;
  EXPECT_TRUE(ev::compare_output("z", ev::dtype::float32, {NAN, INFINITY}, {NAN, INFINITY}, tol).passed);
  EXPECT_FALSE(ev::compare_output("z", ev::dtype::float32, {NAN}, {1.0}, tol).passed);
  EXPECT_FALSE(ev::compare_output("z", ev::dtype::float32, {-INFINITY}, {INFINITY}, tol).passed);
}

TEST(Checker, SizeMismatchFails) {
  ev::tolerance_spec tol;
  const auto r = ev::compare_output("z", ev::dtype::float32, {1, 2}, {1, 2, 3}, tol);
  EXPECT_FALSE(r.passed);
  EXPECT_NE(r.message.find("2 elements"), std::string::npos);
}

TEST(Checker, RawComparisonGivesTheSameResultAsDecoded) {
  const std::uint32_t seed = std::random_device{}();
  std::cout << "seed " << seed << "\n";
  std::mt19937 rng(seed);
  ev::tolerance_spec tol;
  for (auto t : {ev::dtype::float16, ev::dtype::float32, ev::dtype::bfloat16, ev::dtype::int32}) {
    for (double bad_ratio : {0.0, 0.0005, 0.01, 0.6}) {
      const std::size_t n = 20000 + rng() % 5000;
      std::uniform_real_distribution<double> u(-4, 4);
      std::vector<double> want(n);
      for (auto& v : want) v = ev::round_to(t, u(rng));
      want[5] = NAN;
      want[9] = INFINITY;
      std::vector<double> got = want;
      for (std::size_t i = 0; i < n; ++i) {
        if (std::uniform_real_distribution<double>(0, 1)(rng) < bad_ratio) got[i] = ev::round_to(t, got[i] + u(rng));
      }
      if (bad_ratio > 0.5) got[5] = 1.0;  // NaN against a number
      const auto gb = ev::encode(t, got), wb = ev::encode(t, want);
      const auto ref = ev::compare_output("z", t, ev::decode(t, gb.data(), gb.size()), ev::decode(t, wb.data(), wb.size()), tol);
      const auto raw = ev::compare_output_raw("z", t, gb.data(), gb.size(), wb.data(), wb.size(), tol);
      EXPECT_EQ(raw.to_json().dump(), ref.to_json().dump()) << ev::dtype_name(t) << " ratio " << bad_ratio;
    }
  }
}

TEST(Checker, RawComparisonOfDifferentSizesFails) {
  ev::tolerance_spec tol;
  const std::vector<std::uint8_t> a(8), b(12);
  const auto r = ev::compare_output_raw("z", ev::dtype::float32, a.data(), a.size(), b.data(), b.size(), tol);
  EXPECT_FALSE(r.passed);
  EXPECT_NE(r.message.find("2 elements, the reference 3"), std::string::npos) << r.message;
}

TEST(Checker, ElementsTheBaselineReferenceNeverWroteAreNotCompared) {
  ev::tolerance_spec tol;
  tol.max_mismatch_ratio = 0;
  // fp16: 10 elements, the reference left the last 3 at the harness's fill.
  std::vector<std::uint8_t> want(20, 0), got(20, 0);
  for (std::size_t k = 0; k < 7; ++k) want[2 * k + 1] = got[2 * k + 1] = static_cast<std::uint8_t>(0x3C);  // 1.0
  for (std::size_t k = 7; k < 10; ++k) want[2 * k] = want[2 * k + 1] = ev::harness_output_fill;
  // The variant writes those three (any values): without the fill they count as mismatches.
  const auto strict = ev::compare_output_raw("z", ev::dtype::float16, got.data(), got.size(), want.data(), want.size(), tol);
  EXPECT_FALSE(strict.passed);
  EXPECT_EQ(strict.mismatches, 3u);
  const auto r = ev::compare_output_raw("z", ev::dtype::float16, got.data(), got.size(), want.data(), want.size(), tol,
                                        ev::harness_output_fill);
  EXPECT_TRUE(r.passed) << r.message;
  EXPECT_EQ(r.reference_unwritten, 3u);
  EXPECT_EQ(r.elements, 7u);
  EXPECT_EQ(r.to_json().value("reference_unwritten", 0), 3);
  // A written element that differs still fails.
  got[1] = 0x40;  // 2.0
  EXPECT_FALSE(ev::compare_output_raw("z", ev::dtype::float16, got.data(), got.size(), want.data(), want.size(), tol,
                                      ev::harness_output_fill).passed);
  // Integer outputs: 123 is a value like any other, never skipped.
  std::vector<std::uint8_t> wi(4, ev::harness_output_fill), gi(4, 0);
  const auto ri = ev::compare_output_raw("z", ev::dtype::int8, gi.data(), gi.size(), wi.data(), wi.size(), tol,
                                         ev::harness_output_fill);
  EXPECT_EQ(ri.reference_unwritten, 0u);
  EXPECT_FALSE(ri.passed);
}
