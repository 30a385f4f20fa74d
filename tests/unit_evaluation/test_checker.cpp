#include <gtest/gtest.h>

#include <cmath>

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
