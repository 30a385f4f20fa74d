// Cast: every RoundMode on halfway cases, saturation, overflow, exact widenings, mask form.
#include <cmath>
#include <limits>

#include "vec_test_util.h"

using namespace AscendC;
using vt::f;

namespace {

template <typename D, typename S>
std::vector<D> cast_all(const std::vector<S>& in, RoundMode m) {
  std::vector<D> out;
  vt::run_ok([&] {
    auto s = vt::ub<S>(0, 256), d = vt::ub<D>(4096, 256);
    vt::fill(s, in);
    Cast(d, s, m, static_cast<uint32_t>(in.size()));
    out = vt::get(d, in.size());
  });
  return out;
}

const float u11 = std::ldexp(1.0f, -11);  // half of fp16's ulp at 1.0

}  // namespace

TEST(Cast, FloatToHalfHalfwayCases) {
  const std::vector<float> in = {1 + u11, 1 + 3 * u11, -1 - u11, 1.0f, 1 + u11 / 2};
  struct row { RoundMode m; std::vector<float> want; };
  const float up = 1 + 2 * u11, up2 = 1 + 4 * u11;
  const std::vector<row> rows = {
      {RoundMode::CAST_RINT, {1.0f, up2, -1.0f, 1.0f, 1.0f}},
      {RoundMode::CAST_NONE, {1.0f, up2, -1.0f, 1.0f, 1.0f}},
      {RoundMode::CAST_ROUND, {up, up2, -up, 1.0f, 1.0f}},
      {RoundMode::CAST_FLOOR, {1.0f, up, -up, 1.0f, 1.0f}},
      {RoundMode::CAST_CEIL, {up, up2, -1.0f, 1.0f, up}},
      {RoundMode::CAST_TRUNC, {1.0f, up, -1.0f, 1.0f, 1.0f}},
      {RoundMode::CAST_ODD, {up, up, -up, 1.0f, up}},
  };
  for (const auto& r : rows) {
    const auto out = cast_all<half>(in, r.m);
    for (std::size_t i = 0; i < in.size(); ++i) {
      EXPECT_EQ(f(out[i]), r.want[i]) << "mode " << static_cast<int>(r.m) << " input " << i;
    }
  }
}

TEST(Cast, FloatToInt32AllModes) {
  const std::vector<float> in = {2.5f, -2.5f, 3.5f, -0.5f, 1e10f, -1e10f, std::nanf("")};
  struct row { RoundMode m; std::vector<int32_t> want; };
  const std::vector<row> rows = {
      {RoundMode::CAST_RINT, {2, -2, 4, 0, INT32_MAX, INT32_MIN, 0}},
      {RoundMode::CAST_ROUND, {3, -3, 4, -1, INT32_MAX, INT32_MIN, 0}},
      {RoundMode::CAST_FLOOR, {2, -3, 3, -1, INT32_MAX, INT32_MIN, 0}},
      {RoundMode::CAST_CEIL, {3, -2, 4, 0, INT32_MAX, INT32_MIN, 0}},
      {RoundMode::CAST_TRUNC, {2, -2, 3, 0, INT32_MAX, INT32_MIN, 0}},
  };
  for (const auto& r : rows) {
    const auto out = cast_all<int32_t>(in, r.m);
    for (std::size_t i = 0; i < in.size(); ++i) {
      EXPECT_EQ(out[i], r.want[i]) << "mode " << static_cast<int>(r.m) << " input " << i;
    }
  }
}

TEST(Cast, HalfToInt8SaturatesAndRounds) {
  const std::vector<half> in = {static_cast<half>(300.0f), static_cast<half>(-300.0f), static_cast<half>(2.5f),
                                static_cast<half>(-1.5f)};
  const auto rint = cast_all<int8_t>(in, RoundMode::CAST_RINT);
  EXPECT_EQ(rint[0], 127);
  EXPECT_EQ(rint[1], -128);
  EXPECT_EQ(rint[2], 2);
  EXPECT_EQ(rint[3], -2);
  const auto rnd = cast_all<uint8_t>(in, RoundMode::CAST_ROUND);
  EXPECT_EQ(rnd[0], 255);
  EXPECT_EQ(rnd[1], 0);
  EXPECT_EQ(rnd[2], 3);
}

TEST(Cast, FloatToBf16Modes) {
  const float u8 = std::ldexp(1.0f, -8);
  const std::vector<float> in = {1 + u8, 1 + 3 * u8, -1 - u8};
  const auto rint = cast_all<bfloat16_t>(in, RoundMode::CAST_RINT);
  EXPECT_EQ(f(rint[0]), 1.0f);
  EXPECT_EQ(f(rint[1]), 1 + 4 * u8);
  EXPECT_EQ(f(rint[2]), -1.0f);
  const auto fl = cast_all<bfloat16_t>(in, RoundMode::CAST_FLOOR);
  EXPECT_EQ(f(fl[0]), 1.0f);
  EXPECT_EQ(f(fl[2]), -1 - 2 * u8);
  const auto ce = cast_all<bfloat16_t>(in, RoundMode::CAST_CEIL);
  EXPECT_EQ(f(ce[0]), 1 + 2 * u8);
  const auto ro = cast_all<bfloat16_t>(in, RoundMode::CAST_ROUND);
  EXPECT_EQ(f(ro[0]), 1 + 2 * u8);
  const auto tr = cast_all<bfloat16_t>(in, RoundMode::CAST_TRUNC);
  EXPECT_EQ(f(tr[2]), -1.0f);
  const auto back = cast_all<float>(rint, RoundMode::CAST_NONE);
  EXPECT_EQ(back[1], 1 + 4 * u8);
}

TEST(Cast, WideningIsExactAndIntToFloatRounds) {
  const std::vector<half> h = {static_cast<half>(0.1f), static_cast<half>(-65504.0f)};
  const auto hf = cast_all<float>(h, RoundMode::CAST_NONE);
  EXPECT_EQ(hf[0], f(h[0]));
  EXPECT_EQ(hf[1], -65504.0f);
  const std::vector<int32_t> i = {16777217, -16777219};
  const auto rint = cast_all<float>(i, RoundMode::CAST_RINT);
  EXPECT_EQ(rint[0], 16777216.0f);
  EXPECT_EQ(rint[1], -16777220.0f);
  const auto ceil = cast_all<float>(i, RoundMode::CAST_CEIL);
  EXPECT_EQ(ceil[0], 16777218.0f);
  const std::vector<uint8_t> u = {255, 0, 17};
  const auto uh = cast_all<half>(u, RoundMode::CAST_NONE);
  EXPECT_EQ(f(uh[0]), 255.0f);
  EXPECT_EQ(f(uh[2]), 17.0f);
  const std::vector<int32_t> big = {100000, 2049};
  const auto ih = cast_all<half>(big, RoundMode::CAST_RINT);
  EXPECT_TRUE(std::isinf(f(ih[0])));
  EXPECT_EQ(f(ih[1]), 2048.0f);  // halfway between 2048 and 2050: even
}

TEST(Cast, OverflowAndFloatRounding) {
  const std::vector<float> in = {70000.0f, -70000.0f, 2.7f, -2.5f};
  const auto rint = cast_all<half>(in, RoundMode::CAST_RINT);
  EXPECT_TRUE(std::isinf(f(rint[0])));
  const auto tr = cast_all<half>(in, RoundMode::CAST_TRUNC);
  EXPECT_EQ(f(tr[0]), 65504.0f);
  EXPECT_EQ(f(tr[1]), -65504.0f);
  const auto fl = cast_all<float>(in, RoundMode::CAST_FLOOR);
  EXPECT_EQ(fl[2], 2.0f);
  const auto rr = cast_all<float>(in, RoundMode::CAST_RINT);
  EXPECT_EQ(rr[3], -2.0f);
  const auto ro = cast_all<float>(in, RoundMode::CAST_ROUND);
  EXPECT_EQ(ro[3], -3.0f);
}

TEST(Cast, MaskFormHalfToFloat) {
  // 64 lanes per repeat (the wider type); src repeats 4 blocks apart (128 B of half).
  std::vector<float> out;
  vt::run_ok([&] {
    auto s = vt::ub<half>(0, 128);
    auto d = vt::ub<float>(1024, 128);
    std::vector<half> v(128);
    for (int i = 0; i < 128; ++i) v[i] = static_cast<half>(static_cast<float>(i));
    vt::fill(s, v);
    Duplicate(d, -1.0f, 128);
    Cast(d, s, RoundMode::CAST_NONE, 32, 2, {1, 1, 8, 4});
    out = vt::get(d, 128);
  });
  for (int r = 0; r < 2; ++r) {
    for (int i = 0; i < 64; ++i) EXPECT_EQ(out[r * 64 + i], i < 32 ? static_cast<float>(r * 64 + i) : -1.0f);
  }
}
