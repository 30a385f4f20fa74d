// Issue 34: vector API semantics that follow the AscendC documentation.
//  - A vector API is usable by address with its documented type (a function-pointer template
//    argument, `Foo<Adds>`, or a function-pointer parameter), while a direct call keeps its call
//    site in the trace.
//  - Namespace AscendC declares nothing an operator may define itself (is_same).
//  - WholeReduceSum/Max/Min need a destination aligned to one result (half 2 B, float 4 B,
//    float value-index pairs 8 B), not 32 B.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "vec_test_util.h"

using namespace AscendC;

// An operator's own global `is_same` under `using namespace AscendC` (cann-ops scatter_elements_v2,
// masked_select_v3): the kernel API declares none in namespace AscendC, so this is unambiguous.
template <typename Tp, Tp v>
struct integral_constant {
  static constexpr Tp value = v;
};
template <typename, typename>
struct is_same : public integral_constant<bool, false> {};
template <typename Tp>
struct is_same<Tp, Tp> : public integral_constant<bool, true> {};
static_assert(is_same<half, half>::value && !is_same<half, float>::value, "the operator's own is_same");

namespace {

template <typename T>
using ScalarOp = void(const LocalTensor<T>&, const LocalTensor<T>&, const T&, const int32_t&);
template <typename T>
using BinaryOp = void(const LocalTensor<T>&, const LocalTensor<T>&, const LocalTensor<T>&, const int32_t&);
template <typename T>
using UnaryOp = void(const LocalTensor<T>&, const LocalTensor<T>&, const int32_t&);
template <typename T>
using AdvUnaryOp = void(const LocalTensor<T>&, const LocalTensor<T>&, const uint32_t);
template <typename T>
using LevelZeroOp = void(const LocalTensor<T>&, const LocalTensor<T>&, const LocalTensor<T>&, uint64_t, const uint8_t,
                         const BinaryRepeatParams&);

// A kernel-side helper templated on the operation, as the foreach family writes them.
template <typename T, ScalarOp<T>* op>
struct ScalarStage {
  static void Run(const LocalTensor<T>& dst, const LocalTensor<T>& src, T s, int32_t n) { op(dst, src, s, n); }
};
template <typename T, BinaryOp<T>* op>
struct BinaryStage {
  static void Run(const LocalTensor<T>& d, const LocalTensor<T>& a, const LocalTensor<T>& b, int32_t n) {
    op(d, a, b, n);
  }
};
template <typename T, UnaryOp<T>* op>
struct UnaryStage {
  static void Run(const LocalTensor<T>& d, const LocalTensor<T>& a, int32_t n) { op(d, a, n); }
};
template <typename T, AdvUnaryOp<T>* op>
struct AdvStage {
  static void Run(const LocalTensor<T>& d, const LocalTensor<T>& a, uint32_t n) { op(d, a, n); }
};
// A function-pointer parameter in the mask/repeat form (layer-norm-grad style).
void level_zero(const LocalTensor<float>& d, const LocalTensor<float>& a, const LocalTensor<float>& b,
                void (*fn)(const LocalTensor<float>&, const LocalTensor<float>&, const LocalTensor<float>&, uint64_t,
                           uint8_t, const BinaryRepeatParams&)) {
  fn(d, a, b, 64, 1, BinaryRepeatParams{});
}

TEST(Issue34Vector, VectorApisAsFunctionPointerTemplateArguments) {
  std::vector<float> adds, muls, add, mul, ex, tanh_v, lz;
  const auto x = vt::random_vec<float>(64, -1.0f, 1.0f, 34);
  const auto y = vt::random_vec<float>(64, 0.5f, 2.0f, 35);
  auto r = vt::run_ok([&] {
    auto a = vt::ub<float>(0, 64), b = vt::ub<float>(256, 64), d = vt::ub<float>(512, 64);
    vt::fill(a, x);
    vt::fill(b, y);
    ScalarStage<float, Adds>::Run(d, a, 1.5f, 64);
    adds = vt::get(d, 64);
    ScalarStage<float, Muls>::Run(d, a, -2.0f, 64);
    muls = vt::get(d, 64);
    BinaryStage<float, Add>::Run(d, a, b, 64);
    add = vt::get(d, 64);
    BinaryStage<float, Mul>::Run(d, a, b, 64);
    mul = vt::get(d, 64);
    UnaryStage<float, Exp>::Run(d, a, 64);
    ex = vt::get(d, 64);
    AdvStage<float, Tanh<float, false>>::Run(d, a, 64);
    tanh_v = vt::get(d, 64);
    LevelZeroOp<float>* p = Sub;
    level_zero(d, a, b, p);
    lz = vt::get(d, 64);
    Adds(d, a, 1.0f, 64);  // a direct call: its own line
  });
  for (int i = 0; i < 64; ++i) {
    EXPECT_FLOAT_EQ(adds[i], x[i] + 1.5f);
    EXPECT_FLOAT_EQ(muls[i], x[i] * -2.0f);
    EXPECT_FLOAT_EQ(add[i], x[i] + y[i]);
    EXPECT_FLOAT_EQ(mul[i], x[i] * y[i]);
    EXPECT_NEAR(ex[i], std::exp(x[i]), 1e-6f * std::exp(x[i]) + 1e-7f);
    EXPECT_NEAR(tanh_v[i], std::tanh(x[i]), 1e-6f);
    EXPECT_FLOAT_EQ(lz[i], x[i] - y[i]);
  }
  // Every call issued its vector record; the calls through a pointer name the API and the way it
  // was called, the direct call its own line of this file.
  const auto recs = vt::vector_recs(r);
  ASSERT_GE(recs.size(), 8u);
  const auto& sites = r.cores[0].sites;
  const auto& first = sites.at(recs.front().site);
  EXPECT_NE(first.file.find("function pointer"), std::string::npos) << first.file;
  EXPECT_EQ(first.api, "Adds");
  const auto& last = sites.at(recs.back().site);
  EXPECT_NE(last.file.find("test_issue34_semantics.cpp"), std::string::npos) << last.file;
  EXPECT_GT(last.line, 0u);
}

// The mask/repeat form called with integer arguments of other types and a braced
// BinaryRepeatParams (cann-ops rms_norm's reduce_common.h) still resolves to the call-site overload.
TEST(Issue34Vector, MaskFormCallsWithUnsignedArgumentsStayUnambiguous) {
  std::vector<float> out;
  const auto x = vt::random_vec<float>(64, -1.0f, 1.0f, 36);
  auto r = vt::run_ok([&] {
    auto a = vt::ub<float>(0, 64), d = vt::ub<float>(512, 64);
    vt::fill(a, x);
    const uint32_t mask = 64, repeat = 1;
    Add(d, a, a, mask, repeat, {1, 1, 1, 8, 8, 8});
    out = vt::get(d, 64);
  });
  for (int i = 0; i < 64; ++i) EXPECT_FLOAT_EQ(out[i], 2 * x[i]);
  const auto recs = vt::vector_recs(r);
  ASSERT_EQ(recs.size(), 1u);
  EXPECT_NE(r.cores[0].sites.at(recs[0].site).file.find("test_issue34_semantics.cpp"), std::string::npos);
}

TEST(Issue34Vector, WholeReduceDestinationNeedsOnlyTheResultAlignment) {
  std::vector<float> v(64);
  for (int i = 0; i < 64; ++i) v[i] = static_cast<float>(i % 7);
  float want_sum = 0, want_max = 0;
  for (float e : v) {
    want_sum += e;
    want_max = std::max(want_max, e);
  }
  float sum_f = 0, max_f = 0;
  half sum_h = 0;
  auto r = vt::run_ok([&] {
    auto s = vt::ub<float>(0, 64);
    vt::fill(s, v);
    auto sh = vt::ub<half>(256, 128);
    for (int i = 0; i < 64; ++i) sh.aopt_ptr()[i] = static_cast<half>(v[i]);
    // float destination at byte 516 (4 B aligned), half destination at byte 770 (2 B aligned).
    auto df = vt::ub<float>(512, 16);
    WholeReduceSum(df[1], s, 64, 1, 1, 1, 8);
    sum_f = df.GetValue(1);
    WholeReduceMax(df[3], s, 64, 1, 1, 1, 8, ReduceOrder::ORDER_ONLY_VALUE);
    max_f = df.GetValue(3);
    auto dh = vt::ub<half>(768, 32);
    WholeReduceSum(dh[1], sh, 64, 1, 1, 1, 8);
    sum_h = dh.GetValue(1);
  });
  EXPECT_FLOAT_EQ(sum_f, want_sum);
  EXPECT_FLOAT_EQ(max_f, want_max);
  EXPECT_FLOAT_EQ(static_cast<float>(sum_h), want_sum);
  // Finer than the result is still refused: a float sum at byte 514, a value-index pair at 516.
  auto bad = vt::run([&] {
    auto s = vt::ub<float>(0, 64);
    auto df = vt::ub<float>(512, 16);
    auto odd = df.ReinterpretCast<half>()[1];
    WholeReduceSum(odd.ReinterpretCast<float>(), s, 64, 1, 1, 1, 8);
  });
  ASSERT_TRUE(bad.error.has_value());
  EXPECT_EQ(bad.error->kind, aopt::sim::hw_error_kind::misaligned);
  auto pair = vt::run([&] {
    auto s = vt::ub<float>(0, 64);
    auto df = vt::ub<float>(512, 16);
    WholeReduceMax(df[1], s, 64, 1, 1, 1, 8, ReduceOrder::ORDER_VALUE_INDEX);
  });
  ASSERT_TRUE(pair.error.has_value());
  EXPECT_EQ(pair.error->kind, aopt::sim::hw_error_kind::misaligned);
  EXPECT_NE(pair.error->message.find("8-byte"), std::string::npos) << pair.error->message;
}

}  // namespace
