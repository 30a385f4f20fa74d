// Cast half -> int4b_t (session 25, issue 34), by the AscendC Cast reference: the kernel reinterprets
// an int8_t tensor as int4b_t (two elements per byte) and casts half into it with a round mode;
// values saturate to the int4 range. cann-ops' ascend_quant_v2 calls this form in a run-time
// `if (ORIG_DTYPE_Y == DT_INT4)`, so every dtype column of it instantiates it: on main this file
// does not compile (no conversion to int4b_t).
#include <cmath>

#include "vec_test_util.h"

using namespace AscendC;

namespace {

// Sign-extended nibble k of a packed int4 buffer (element 2j low nibble of byte j).
int nibble(const std::vector<int8_t>& bytes, std::size_t k) {
  const auto b = static_cast<std::uint8_t>(bytes[k / 2]);
  const int v = (k % 2 == 0) ? (b & 0xF) : (b >> 4);
  return v >= 8 ? v - 16 : v;
}

std::vector<int8_t> cast_int4(const std::vector<float>& in, RoundMode m, std::size_t out_bytes, int8_t prefill) {
  std::vector<int8_t> out;
  vt::run_ok([&] {
    auto s = vt::ub<half>(0, 256);
    auto d8 = vt::ub<int8_t>(4096, 256);
    std::vector<half> hv;
    for (float x : in) hv.push_back(half(x));
    vt::fill(s, hv);
    vt::fill(d8, std::vector<int8_t>(256, prefill));
    Cast(d8.ReinterpretCast<int4b_t>(), s, m, static_cast<uint32_t>(in.size()));
    out = vt::get(d8, out_bytes);
  });
  return out;
}

}  // namespace

TEST(S25Int4Cast, HalfToInt4PacksTwoPerByteRoundsAndSaturates) {
  const std::vector<float> in = {1.0f, -1.0f, 2.5f, -2.5f, 7.0f, 9.0f, -8.0f, -100.0f, 3.4f, std::nanf("")};
  const auto rint = cast_int4(in, RoundMode::CAST_RINT, 5, 0);
  const std::vector<int> want_rint = {1, -1, 2, -2, 7, 7, -8, -8, 3, 0};
  for (std::size_t k = 0; k < in.size(); ++k) EXPECT_EQ(nibble(rint, k), want_rint[k]) << "element " << k;
  EXPECT_EQ(static_cast<std::uint8_t>(rint[0]), 0xF1);  // 1 low, -1 high

  const auto floor = cast_int4(in, RoundMode::CAST_FLOOR, 5, 0);
  EXPECT_EQ(nibble(floor, 2), 2);
  EXPECT_EQ(nibble(floor, 3), -3);
  EXPECT_EQ(nibble(floor, 8), 3);
  const auto ceil = cast_int4(in, RoundMode::CAST_CEIL, 5, 0);
  EXPECT_EQ(nibble(ceil, 2), 3);
  EXPECT_EQ(nibble(ceil, 8), 4);
  const auto round = cast_int4(in, RoundMode::CAST_ROUND, 5, 0);
  EXPECT_EQ(nibble(round, 2), 3);   // away from zero
  EXPECT_EQ(nibble(round, 3), -3);
}

TEST(S25Int4Cast, OddCountLeavesTheLastHighNibble) {
  // 3 elements: bytes 0 and the low nibble of byte 1 are written; byte 1's high nibble keeps its value.
  const auto out = cast_int4({1.0f, 2.0f, 3.0f}, RoundMode::CAST_RINT, 3, static_cast<int8_t>(0x50));
  EXPECT_EQ(static_cast<std::uint8_t>(out[0]), 0x21);
  EXPECT_EQ(static_cast<std::uint8_t>(out[1]), 0x53);
  EXPECT_EQ(static_cast<std::uint8_t>(out[2]), 0x50);  // untouched
}

TEST(S25Int4Cast, DestinationCountsHalfBytes) {
  // 200 int4 elements cover 100 bytes: past a 64-byte destination buffer (the chip writes on,
  // sim warns as for every operand past its buffer), within a 128-byte one.
  auto small = vt::run([&] {
    auto s = vt::ub<half>(0, 256);
    auto d8 = vt::ub<int8_t>(4096, 64);
    Cast(d8.ReinterpretCast<int4b_t>(), s, RoundMode::CAST_RINT, 200);
  });
  ASSERT_FALSE(small.error.has_value());
  ASSERT_EQ(small.warnings.size(), 1U);
  EXPECT_EQ(small.warnings[0].kind, aopt::sim::hw_error_kind::ub_out_of_bounds);
  auto fits = vt::run_ok([&] {
    auto s = vt::ub<half>(0, 256);
    auto d8 = vt::ub<int8_t>(4096, 128);
    Cast(d8.ReinterpretCast<int4b_t>(), s, RoundMode::CAST_RINT, 200);
  });
  EXPECT_TRUE(fits.warnings.empty());
}
