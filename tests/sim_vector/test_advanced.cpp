// Tier-5 advanced API against std:: math, and the primitive composition each one records.
#include <cmath>

#include "lib/activation/sigmoid.h"
#include "lib/math/power.h"
#include "vec_test_util.h"

using namespace AscendC;
using vt::f;

namespace {

template <typename T, class Api, class Ref>
void check_unary(Api api, Ref ref, float lo, float hi, float rtol, float atol, std::uint32_t salt) {
  const std::uint32_t n = 333;
  const auto a = vt::random_vec<T>(n, lo, hi, salt);
  std::vector<T> out;
  vt::run_ok([&] {
    auto s = vt::ub<T>(0, n), d = vt::ub<T>(4096, n);
    auto tmp = vt::ub<uint8_t>(8192, 4096);
    vt::fill(s, a);
    api(d, s, tmp, n);
    out = vt::get(d, n);
  });
  for (std::uint32_t i = 0; i < n; ++i) {
    const double want = ref(static_cast<double>(f(a[i])));
    EXPECT_NEAR(f(out[i]), want, atol + rtol * std::fabs(want)) << "x=" << f(a[i]);
  }
}

#define API2(NAME) [](auto& d, auto& s, auto& tmp, uint32_t n) { NAME(d, s, tmp, n); }
#define API1(NAME) [](auto& d, auto& s, auto&, uint32_t n) { NAME(d, s, n); }

}  // namespace

TEST(Advanced, FloatFunctions) {
  check_unary<float>(API2(Sigmoid), [](double x) { return 1 / (1 + std::exp(-x)); }, -8, 8, 1e-6f, 1e-7f, 31);
  check_unary<float>(API1(Tanh), [](double x) { return std::tanh(x); }, -4, 4, 1e-6f, 1e-7f, 32);
  check_unary<float>(API2(Erf), [](double x) { return std::erf(x); }, -3, 3, 1e-6f, 1e-7f, 33);
  check_unary<float>(API1(Sin), [](double x) { return std::sin(x); }, -10, 10, 1e-6f, 1e-6f, 34);
  check_unary<float>(API2(Cos), [](double x) { return std::cos(x); }, -10, 10, 1e-6f, 1e-6f, 35);
  check_unary<float>(API1(Log), [](double x) { return std::log(x); }, 0.01f, 100, 1e-6f, 1e-6f, 36);
  check_unary<float>(API1(Log2), [](double x) { return std::log2(x); }, 0.01f, 100, 1e-6f, 1e-6f, 37);
  check_unary<float>(API2(Log10), [](double x) { return std::log10(x); }, 0.01f, 100, 1e-6f, 1e-6f, 38);
  check_unary<float>(API1(Asin), [](double x) { return std::asin(x); }, -1, 1, 1e-6f, 1e-6f, 39);
  check_unary<float>(API1(Acos), [](double x) { return std::acos(x); }, -1, 1, 1e-6f, 1e-6f, 40);
  check_unary<float>(API1(Atan), [](double x) { return std::atan(x); }, -20, 20, 1e-6f, 1e-6f, 41);
  check_unary<float>(API1(Sign), [](double x) { return x > 0 ? 1.0 : (x < 0 ? -1.0 : 0.0); }, -2, 2, 0, 0, 42);
  check_unary<float>([](auto& d, auto& s, auto& tmp, uint32_t n) { Exp<float, 2, false>(d, s, tmp, n); },
                     [](double x) { return std::exp(x); }, -5, 5, 1e-6f, 0, 43);
}

TEST(Advanced, HalfFunctionsWithinHalfPrecision) {
  check_unary<half>(API1(Sigmoid), [](double x) { return 1 / (1 + std::exp(-x)); }, -8, 8, 1e-3f, 1e-4f, 51);
  check_unary<half>(API2(Tanh), [](double x) { return std::tanh(x); }, -4, 4, 1e-3f, 1e-4f, 52);
  check_unary<half>(API1(Erf), [](double x) { return std::erf(x); }, -3, 3, 1e-3f, 1e-4f, 53);
  check_unary<half>(API1(Sin), [](double x) { return std::sin(x); }, -3, 3, 1e-3f, 1e-3f, 54);
}

TEST(Advanced, PowerForms) {
  const std::uint32_t n = 64;
  const auto base = vt::random_vec<float>(n, 0.1f, 3, 61), ex = vt::random_vec<float>(n, -2, 2, 62);
  std::vector<float> tt, ts, st;
  std::vector<int32_t> ints;
  vt::run_ok([&] {
    auto b = vt::ub<float>(0, n), e = vt::ub<float>(1024, n), d = vt::ub<float>(2048, n);
    auto tmp = vt::ub<uint8_t>(4096, 1024);
    vt::fill(b, base);
    vt::fill(e, ex);
    Power(d, b, e, tmp, n); tt = vt::get(d, n);
    Power(d, b, 3.0f, n); ts = vt::get(d, n);
    Power(d, 2.0f, e); st = vt::get(d, n);
    auto ib = vt::ub<int32_t>(8192, 8), ie = vt::ub<int32_t>(8448, 8), id = vt::ub<int32_t>(8704, 8);
    vt::fill(ib, std::vector<int32_t>{2, -3, 5, 7, 1, -1, 0, 10});
    vt::fill(ie, std::vector<int32_t>{10, 3, 0, 2, -4, 5, 3, 1});
    Power(id, ib, ie, 8); ints = vt::get(id, 8);
  });
  for (std::uint32_t i = 0; i < n; ++i) {
    EXPECT_NEAR(tt[i], std::pow(base[i], ex[i]), 1e-5 * std::pow(base[i], ex[i]));
    EXPECT_NEAR(ts[i], std::pow(base[i], 3.0f), 1e-5 * std::pow(base[i], 3.0f));
    EXPECT_NEAR(st[i], std::pow(2.0f, ex[i]), 1e-5 * std::pow(2.0f, ex[i]));
  }
  EXPECT_EQ(ints, (std::vector<int32_t>{1024, -27, 1, 49, 1, -1, 0, 10}));
}

TEST(Advanced, CompositionIsRecorded) {
  auto r = vt::run_ok([&] {
    auto s = vt::ub<half>(0, 256), d = vt::ub<half>(1024, 256);
    Sigmoid(d, s, 256);
  });
  const auto recs = vt::vector_recs(r);
  // cast up, Muls, Exp, Adds, Div, cast down; 256 fp16 computed as fp32 = 4 repeats each.
  ASSERT_EQ(recs.size(), 6u);
  EXPECT_EQ(recs[0].vclass, aopt::sim::vec_class::cast);
  EXPECT_EQ(recs[2].vclass, aopt::sim::vec_class::exp_ln);
  EXPECT_EQ(recs[4].vclass, aopt::sim::vec_class::div);
  EXPECT_EQ(recs[5].vclass, aopt::sim::vec_class::cast);
  for (const auto& rec : recs) EXPECT_EQ(rec.repeats, 4u);
  EXPECT_EQ(r.cores[0].sites.at(recs[0].site).api, "Sigmoid");
}
