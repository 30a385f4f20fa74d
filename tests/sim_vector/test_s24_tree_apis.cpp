// Issue 34 (session 24, tree): kernel APIs of the cann-ops tree that sim lacked, each checked for
// the values its declaration gives. GetScalarBitcodeValue: a scalar's bit pattern, which kernels
// pass as a DataCopyPad padding value or build constants from (-inf, a sign bit). ScalarCast: one
// float converted to int32_t or half as Cast converts an element (the reference's example: 2.5
// with CAST_ROUND gives 3).
#include <cmath>

#include "vec_test_util.h"

using namespace AscendC;

namespace {

TEST(S24TreeApi, GetScalarBitcodeValueGivesTheBitsInTheLowBytes) {
  EXPECT_EQ(GetScalarBitcodeValue(1.0f), 0x3f800000ull);
  EXPECT_EQ(GetScalarBitcodeValue(-2.0f), 0xc0000000ull);  // upper 32 bits zero, not sign-extended
  EXPECT_EQ(GetScalarBitcodeValue(static_cast<half>(1.0f)), 0x3c00ull);
  EXPECT_EQ(GetScalarBitcodeValue(bfloat16_t(1.0f)), 0x3f80ull);
  EXPECT_EQ(GetScalarBitcodeValue(static_cast<std::int8_t>(-1)), 0xffull);
  EXPECT_EQ(GetScalarBitcodeValue(static_cast<std::int16_t>(-1)), 0xffffull);
  EXPECT_EQ(GetScalarBitcodeValue(-1.0), 0xbff0000000000000ull);
  EXPECT_EQ(GetScalarBitcodeValue(static_cast<float>(0)), 0ull);
  // The kernel idiom: a padding value of type T assigned from the bits of T's zero.
  DataCopyPadExtParams<float> pad;
  pad.paddingValue = GetScalarBitcodeValue(static_cast<float>(0));
  EXPECT_EQ(pad.paddingValue, 0.0f);
}

TEST(S24TreeApi, GetScalarBitcodeValueTwoTypesReinterpretsTheBits) {
  const float minus_inf = GetScalarBitcodeValue<std::uint32_t, float>(0xff800000u);
  EXPECT_TRUE(std::isinf(minus_inf) && minus_inf < 0);
  const float minus_zero = GetScalarBitcodeValue<std::uint32_t, float>(0x80000000u);
  EXPECT_EQ(minus_zero, 0.0f);
  EXPECT_TRUE(std::signbit(minus_zero));
  EXPECT_EQ((GetScalarBitcodeValue<float, std::uint32_t>(1.5f)), 0x3fc00000u);
  EXPECT_EQ((GetScalarBitcodeValue<std::uint8_t, std::int8_t>(0x7fu)), 127);
  EXPECT_EQ(static_cast<float>(GetScalarBitcodeValue<std::uint16_t, half>(0x3c00u)), 1.0f);
  // Usable in constant expressions, as the header's constexpr function is.
  constexpr std::uint32_t one_bits = GetScalarBitcodeValue<float, std::uint32_t>(1.0f);
  static_assert(one_bits == 0x3f800000u);
}

TEST(S24TreeApi, ScalarCastRoundsAFloatToInt32ByTheMode) {
  EXPECT_EQ((ScalarCast<float, std::int32_t, RoundMode::CAST_ROUND>(2.5f)), 3);  // the reference's example
  EXPECT_EQ((ScalarCast<float, std::int32_t, RoundMode::CAST_ROUND>(-2.5f)), -3);  // half away from zero
  EXPECT_EQ((ScalarCast<float, std::int32_t, RoundMode::CAST_RINT>(2.5f)), 2);     // half to even
  EXPECT_EQ((ScalarCast<float, std::int32_t, RoundMode::CAST_RINT>(3.5f)), 4);
  EXPECT_EQ((ScalarCast<float, std::int32_t, RoundMode::CAST_FLOOR>(-1.25f)), -2);
  EXPECT_EQ((ScalarCast<float, std::int32_t, RoundMode::CAST_CEIL>(-1.25f)), -1);
  EXPECT_EQ((ScalarCast<float, std::int32_t, RoundMode::CAST_CEIL>(1.25f)), 2);
  // Out of range saturates, as Cast's f322s32 does.
  EXPECT_EQ((ScalarCast<float, std::int32_t, RoundMode::CAST_ROUND>(3e9f)), 2147483647);
}

TEST(S24TreeApi, ScalarCastToHalfRoundsToOdd) {
  // 1 + 2^-11 lies halfway between the halves 1 and 1 + 2^-10: round to odd keeps the odd one.
  const half h = ScalarCast<float, half, RoundMode::CAST_ODD>(1.0f + 0x1p-11f);
  EXPECT_EQ(static_cast<float>(h), 1.0f + 0x1p-10f);
  EXPECT_EQ(static_cast<float>(ScalarCast<float, half, RoundMode::CAST_ODD>(0.5f)), 0.5f);  // exact
}

}  // namespace
