// Compare / CompareScalar to bit masks and Select in its three modes.
#include "vec_test_util.h"

using namespace AscendC;
using vt::f;

namespace {
bool bit(const std::vector<uint8_t>& m, int k) { return (m[k / 8] >> (k % 8)) & 1; }
}  // namespace

TEST(CompareSelect, CompareModesHalf) {
  const int n = 256;
  const auto a = vt::random_vec<half>(n, -2, 2, 11);
  auto b = vt::random_vec<half>(n, -2, 2, 12);
  for (int i = 0; i < n; i += 7) b[i] = a[i];  // some equal pairs
  const CMPMODE modes[] = {CMPMODE::LT, CMPMODE::GT, CMPMODE::EQ, CMPMODE::LE, CMPMODE::GE, CMPMODE::NE};
  std::vector<std::vector<uint8_t>> got;
  vt::run_ok([&] {
    auto ta = vt::ub<half>(0, n), tb = vt::ub<half>(1024, n);
    auto m = vt::ub<uint8_t>(2048, n / 8);
    vt::fill(ta, a);
    vt::fill(tb, b);
    for (CMPMODE md : modes) {
      Compare(m, ta, tb, md, n);
      got.push_back(vt::get(m, n / 8));
    }
  });
  for (int i = 0; i < n; ++i) {
    const float x = f(a[i]), y = f(b[i]);
    EXPECT_EQ(bit(got[0], i), x < y);
    EXPECT_EQ(bit(got[1], i), x > y);
    EXPECT_EQ(bit(got[2], i), x == y);
    EXPECT_EQ(bit(got[3], i), x <= y);
    EXPECT_EQ(bit(got[4], i), x >= y);
    EXPECT_EQ(bit(got[5], i), x != y);
  }
}

TEST(CompareSelect, CompareScalarThenSelectFloat) {
  // ReLU-like clamp built the way operators do it: mask = x >= 0.5, dst = mask ? x : 0.5.
  const int n = 128;
  const auto a = vt::random_vec<float>(n, -1, 2, 13);
  std::vector<float> sel_scalar, sel_tensor;
  vt::run_ok([&] {
    auto ta = vt::ub<float>(0, n), tb = vt::ub<float>(1024, n), td = vt::ub<float>(2048, n);
    auto m = vt::ub<uint8_t>(4096, 32);
    vt::fill(ta, a);
    Duplicate(tb, -7.0f, n);
    CompareScalar(m, ta, 0.5f, CMPMODE::GE, n);
    Select(td, m, ta, 0.5f, SELMODE::VSEL_TENSOR_SCALAR_MODE, n);
    sel_scalar = vt::get(td, n);
    Select(td, m, ta, tb, SELMODE::VSEL_TENSOR_TENSOR_MODE, n);
    sel_tensor = vt::get(td, n);
  });
  for (int i = 0; i < n; ++i) {
    EXPECT_EQ(sel_scalar[i], a[i] >= 0.5f ? a[i] : 0.5f) << i;
    EXPECT_EQ(sel_tensor[i], a[i] >= 0.5f ? a[i] : -7.0f) << i;
  }
}

TEST(CompareSelect, SelectMode0ReusesOneRepeatOfMask) {
  // fp32: 64 lanes per repeat; mode 0 applies bits 0..63 to every repeat.
  std::vector<float> out;
  vt::run_ok([&] {
    auto a = vt::ub<float>(0, 192), b = vt::ub<float>(1024, 192), d = vt::ub<float>(2048, 192);
    auto m = vt::ub<uint8_t>(4096, 32);
    Duplicate(a, 1.0f, 192);
    Duplicate(b, 2.0f, 192);
    std::vector<uint8_t> bits(32, 0);
    bits[0] = 0x0F;  // lanes 0..3
    bits[8] = 0xFF;  // lanes 64..71: ignored in mode 0
    vt::fill(m, bits);
    Select(d, m, a, b, SELMODE::VSEL_CMPMASK_SPR, 64, 3, {1, 1, 1, 8, 8, 8});
    out = vt::get(d, 192);
  });
  for (int r = 0; r < 3; ++r) {
    for (int i = 0; i < 64; ++i) EXPECT_EQ(out[r * 64 + i], i < 4 ? 1.0f : 2.0f) << r << "," << i;
  }
}

TEST(CompareSelect, CompareMaskFormZeroesMaskedLanes) {
  std::vector<uint8_t> out;
  vt::run_ok([&] {
    auto a = vt::ub<float>(0, 128), b = vt::ub<float>(1024, 128);
    auto m = vt::ub<uint8_t>(2048, 32);
    Duplicate(a, 1.0f, 128);
    Duplicate(b, 2.0f, 128);
    vt::fill(m, std::vector<uint8_t>(32, 0xFF));
    Compare(m, a, b, CMPMODE::LT, 16, 2, {1, 1, 1, 8, 8, 8});
    out = vt::get(m, 32);
  });
  for (int k = 0; k < 128; ++k) EXPECT_EQ(bit(out, k), (k % 64) < 16) << k;
  for (int k = 128; k < 256; ++k) EXPECT_TRUE(bit(out, k)) << "beyond the repeats: untouched " << k;
}
