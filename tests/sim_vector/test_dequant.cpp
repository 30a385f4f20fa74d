// AscendDequant (高阶API/量化操作/AscendDequant.md; issue 38, quant_batch_matmul_v3): int32 rows
// times a per-column scale vector or a scalar, to float / bfloat16 / half; the
// DEQUANT_WITH_SINGLE_ROW reading of {1, n, calCount}; a uint64_t scale's low 32 bits; the
// documented errors; the trace of the documented algorithm (cast, Mul per row, cast).
#include <cstdint>
#include <cstring>
#include <vector>

#include "vec_test_util.h"

using namespace AscendC;
using aopt::sim::hw_error_kind;

namespace {

std::vector<std::int32_t> random_ints(std::size_t n, std::uint32_t salt) {
  std::mt19937 g(vt::seed() + salt);
  std::uniform_int_distribution<std::int32_t> d(-100000, 100000);
  std::vector<std::int32_t> v(n);
  for (auto& x : v) x = d(g);
  return v;
}

// Two rows of 8 int32, the first 4 of each dequantized with scale[0..3] into float rows of 8.
TEST(AscendDequant, ScalesTheFirstCalCountOfEachRowAndLeavesTheRest) {
  const auto src = random_ints(16, 1);
  const std::vector<float> scale = {0.5f, -2.0f, 0.001f, 3.0f, 9.f, 9.f, 9.f, 9.f};
  std::vector<float> out;
  auto r = vt::run_ok([&] {
    auto s = vt::ub<std::int32_t>(0, 16);
    auto sc = vt::ub<float>(1024, 8);
    auto d = vt::ub<float>(2048, 16);
    vt::fill(s, src);
    vt::fill(sc, scale);
    for (int i = 0; i < 16; ++i) d.aopt_ptr()[i] = -7.0f;
    AscendDequant<float, float, DeQuantMode::DEQUANT_WITH_MULTI_ROW>(d, s, sc, DequantParams{2, 8, 4});
    out = vt::get(d, 16);
  });
  for (int row = 0; row < 2; ++row) {
    for (int i = 0; i < 8; ++i) {
      const float want = i < 4 ? static_cast<float>(src[row * 8 + i]) * scale[i] : -7.0f;
      EXPECT_FLOAT_EQ(out[row * 8 + i], want) << "row " << row << " col " << i;
    }
  }
  const auto recs = vt::vector_recs(r);
  ASSERT_EQ(recs.size(), 2u) << "float out: the cast of src and the Mul, no final cast";
  EXPECT_EQ(recs[0].vclass, aopt::sim::vec_class::cast);
  EXPECT_EQ(recs[1].vclass, aopt::sim::vec_class::binary);
}

// dst rows are n rounded up to 32 bytes of dstT: 8 int32 -> 16 bfloat16 per row.
TEST(AscendDequant, Bfloat16RowsArePaddedTo32BytesAndRoundedOnce) {
  const auto src = random_ints(24, 2);
  const float scale = 0.0123f;
  std::vector<bfloat16_t> out;
  auto r = vt::run_ok([&] {
    auto s = vt::ub<std::int32_t>(0, 24);
    auto d = vt::ub<bfloat16_t>(1024, 48);
    vt::fill(s, src);
    AscendDequant<bfloat16_t, float>(d, s, scale, DequantParams{3, 8, 8});
    out = vt::get(d, 48);
  });
  for (int row = 0; row < 3; ++row)
    for (int i = 0; i < 8; ++i)
      EXPECT_EQ(vt::f(out[row * 16 + i]), vt::f(static_cast<bfloat16_t>(static_cast<float>(src[row * 8 + i]) * scale)))
          << "row " << row << " col " << i;
  EXPECT_EQ(vt::vector_recs(r).size(), 3u) << "cast, Mul, cast to bfloat16";
}

// {1, 32, 16} with float out (16 is a multiple of 32 / 4): two rows of 16, each times scale[0..15];
// DEQUANT_WITH_MULTI_ROW keeps one row whose second half is left alone.
TEST(AscendDequant, SingleRowModeReadsOneLongRowAsRowsOfCalCount) {
  const auto src = random_ints(32, 3);
  std::vector<float> scale(16);
  for (int i = 0; i < 16; ++i) scale[i] = 0.25f * static_cast<float>(i + 1);
  std::vector<float> single, multi;
  vt::run_ok([&] {
    auto s = vt::ub<std::int32_t>(0, 32);
    auto sc = vt::ub<float>(1024, 16);
    auto d1 = vt::ub<float>(2048, 32);
    auto d2 = vt::ub<float>(4096, 32);
    vt::fill(s, src);
    vt::fill(sc, scale);
    for (int i = 0; i < 32; ++i) d1.aopt_ptr()[i] = d2.aopt_ptr()[i] = 0.0f;
    AscendDequant<float, float>(d1, s, sc, DequantParams{1, 32, 16});
    AscendDequant<float, float, DeQuantMode::DEQUANT_WITH_MULTI_ROW>(d2, s, sc, DequantParams{1, 32, 16});
    single = vt::get(d1, 32);
    multi = vt::get(d2, 32);
  });
  for (int i = 0; i < 32; ++i) {
    EXPECT_FLOAT_EQ(single[i], static_cast<float>(src[i]) * scale[i % 16]) << i;
    EXPECT_FLOAT_EQ(multi[i], i < 16 ? static_cast<float>(src[i]) * scale[i] : 0.0f) << i;
  }
}

// A uint64_t scale vector carries the float in its low 32 bits; half out.
TEST(AscendDequant, AUint64ScaleIsTheFloatInItsLow32Bits) {
  const auto src = random_ints(16, 4);
  std::vector<std::uint64_t> scale(16);
  std::vector<float> fs(16);
  for (int i = 0; i < 16; ++i) {
    fs[i] = 1.0f / static_cast<float>(1000 + 37 * i);
    std::uint32_t bits;
    std::memcpy(&bits, &fs[i], 4);
    scale[i] = (static_cast<std::uint64_t>(0xabcdu) << 32) | bits;  // control bits above
  }
  std::vector<half> out;
  vt::run_ok([&] {
    auto s = vt::ub<std::int32_t>(0, 16);
    auto sc = vt::ub<std::uint64_t>(1024, 16);
    auto d = vt::ub<half>(2048, 16);
    auto tmp = vt::ub<std::uint8_t>(4096, 256);
    vt::fill(s, src);
    vt::fill(sc, scale);
    AscendDequant<half, std::uint64_t>(d, s, sc, tmp, DequantParams{1, 16, 16});
    out = vt::get(d, 16);
  });
  for (int i = 0; i < 16; ++i)
    EXPECT_EQ(vt::f(out[i]), vt::f(static_cast<half>(static_cast<float>(src[i]) * fs[i]))) << i;
}

TEST(AscendDequant, ACalCountPastTheRowOrTheScaleIsAClearError) {
  auto r = vt::run([] {
    auto s = vt::ub<std::int32_t>(0, 16);
    auto d = vt::ub<float>(1024, 16);
    AscendDequant<float, float>(d, s, 1.0f, DequantParams{2, 8, 9});
  });
  ASSERT_TRUE(r.error);
  EXPECT_EQ(r.error->kind, hw_error_kind::param_out_of_range);
  EXPECT_NE(r.error->message.find("calCount"), std::string::npos) << r.error->message;
  auto r2 = vt::run([] {
    auto s = vt::ub<std::int32_t>(0, 16);
    auto sc = vt::ub<float>(1024, 4);
    auto d = vt::ub<float>(2048, 16);
    AscendDequant<float, float, DeQuantMode::DEQUANT_WITH_MULTI_ROW>(d, s, sc, DequantParams{2, 8, 8});
  });
  ASSERT_TRUE(r2.error);
  EXPECT_NE(r2.error->message.find("deqScale has 4 elements"), std::string::npos) << r2.error->message;
}

}  // namespace
