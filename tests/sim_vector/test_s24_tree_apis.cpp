// Issue 34 (session 24, tree): kernel APIs of the cann-ops tree that sim lacked, each checked for
// the values its declaration gives. GetScalarBitcodeValue: a scalar's bit pattern, which kernels
// pass as a DataCopyPad padding value or build constants from (-inf, a sign bit).
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

}  // namespace
