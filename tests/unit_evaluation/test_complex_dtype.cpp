// complex64 tensors (issue 34: the tree's BLAS operators ccopy, scasum, icamax, ... take them):
// aopt.json names the dtype, the generator fills both components, and the check compares
// component by component, the imaginary parts included.
#include <gtest/gtest.h>

#include <cstring>

#include "aopt/evaluation/checker.h"
#include "aopt/evaluation/dtype.h"
#include "aopt/evaluation/inputs.h"
#include "aopt/evaluation/spec.h"

namespace ev = aopt::evaluation;

TEST(ComplexDtype, NamedSizedAndEncodedAsFloatPairs) {
  const auto t = ev::parse_dtype("complex64");
  ASSERT_TRUE(t.has_value());
  EXPECT_EQ(ev::dtype_name(*t), "complex64");
  EXPECT_EQ(ev::dtype_size(*t), 8u);
  EXPECT_STREQ(ev::ge_type(*t), "ge::DT_COMPLEX64");
  // Values are the components, real then imaginary.
  const auto bytes = ev::encode(*t, {1.5, -2.0, 0.25, 3.0});
  ASSERT_EQ(bytes.size(), 16u);
  float f[4];
  std::memcpy(f, bytes.data(), 16);
  EXPECT_EQ(f[0], 1.5f);
  EXPECT_EQ(f[1], -2.0f);
  EXPECT_EQ(f[3], 3.0f);
  EXPECT_EQ(ev::decode(*t, bytes.data(), bytes.size()), (std::vector<double>{1.5, -2.0, 0.25, 3.0}));
  EXPECT_THROW(ev::decode(*t, bytes.data(), 12), std::runtime_error);  // not whole elements
}

TEST(ComplexDtype, GeneratedWithBothComponentsInTheRange) {
  ev::tensor_spec ts;
  ts.shape = {64};
  ts.type = ev::dtype::complex64;
  ts.range = std::make_pair(-1.0, 1.0);
  const auto bytes = ev::generate_tensor(ts, 7, "perf", "x", 0);
  ASSERT_EQ(bytes.size(), 64u * 8u);
  const auto v = ev::decode(ts.type, bytes.data(), bytes.size());
  ASSERT_EQ(v.size(), 128u);
  bool imaginary_nonzero = false;
  for (std::size_t i = 0; i < v.size(); ++i) {
    EXPECT_GE(v[i], -1.0);
    EXPECT_LE(v[i], 1.0);
    if (i % 2 == 1 && v[i] != 0.0) imaginary_nonzero = true;
  }
  EXPECT_TRUE(imaginary_nonzero);
  EXPECT_EQ(ev::generate_values(ts, 7, "perf", "x", 0), v);  // the two generators agree
}

TEST(ComplexDtype, ComparedComponentByComponent) {
  const auto t = ev::dtype::complex64;
  const auto want = ev::encode(t, {1.0, 2.0, 3.0, 4.0});
  auto got = ev::encode(t, {1.0, 2.0, 3.0, -4.0});  // one imaginary part wrong
  ev::tolerance_spec tol;
  auto r = ev::compare_output_raw("y", t, got.data(), got.size(), want.data(), want.size(), tol);
  EXPECT_FALSE(r.passed) << r.message;
  EXPECT_EQ(r.mismatches, 1u);
  EXPECT_EQ(r.first_mismatch, 3);  // component index: element 1, imaginary
  got = ev::encode(t, {1.0, 2.0, 3.0, 4.0 + 1e-6});  // within float32's tolerance
  r = ev::compare_output_raw("y", t, got.data(), got.size(), want.data(), want.size(), tol);
  EXPECT_TRUE(r.passed) << r.message;
}
