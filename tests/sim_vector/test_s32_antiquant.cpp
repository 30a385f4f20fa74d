// Session 32 (issue 38, weight_quant_batch_matmul_v2): AscendAntiQuant (高阶API/量化操作/
// AscendAntiQuant.md) PER_CHANNEL with groups, transposed, without offset, PER_TENSOR, int4b_t
// sources, bfloat16 output through float, its documented errors; MulAddDst's documented mixed form
// (float dst, half sources) and mask forms (基础API/.../复合计算/MulAddDst.md); ReduceLastND, named but
// undocumented, fails when called; RESERVED_WORKSPACE is sim's system reservation.
#include <cstdint>
#include <random>
#include <vector>

#include "vec_test_util.h"

using namespace AscendC;
using aopt::sim::hw_error_kind;

namespace {

std::vector<std::int8_t> random_int8(std::size_t n, std::uint32_t salt) {
  std::mt19937 g(vt::seed() + salt);
  std::uniform_int_distribution<int> d(-128, 127);
  std::vector<std::int8_t> v(n);
  for (auto& x : v) x = static_cast<std::int8_t>(d(g));
  return v;
}

std::vector<half> random_half(std::size_t n, std::uint32_t salt, float lo, float hi) {
  std::mt19937 g(vt::seed() + salt);
  std::uniform_real_distribution<float> d(lo, hi);
  std::vector<half> v(n);
  for (auto& x : v) x = static_cast<half>(d(g));
  return v;
}

// The documented half steps: src to half, + offset rounded to half, * scale rounded to half.
half want_half(std::int8_t s, half off, half sc) {
  const half y = static_cast<half>(static_cast<float>(static_cast<half>(static_cast<float>(s))) + static_cast<float>(off));
  return static_cast<half>(static_cast<float>(y) * static_cast<float>(sc));
}

}  // namespace

// src [K = 4, N = 32], offset and scale [2, 32]: rows 0-1 take parameter row 0, rows 2-3 row 1.
TEST(AscendAntiQuant, PerChannelGroupsRowsByKOverTheParametersHeight) {
  constexpr std::uint32_t K = 4, N = 32, G = 2;
  const auto src = random_int8(K * N, 1);
  const auto off = random_half(G * N, 2, -4, 4);
  const auto sc = random_half(G * N, 3, 0.01f, 0.5f);
  std::vector<half> out;
  auto r = vt::run_ok([&] {
    auto s = vt::ub<std::int8_t>(0, K * N);
    auto o = vt::ub<half>(1024, G * N);
    auto c = vt::ub<half>(2048, G * N);
    auto d = vt::ub<half>(4096, K * N);
    auto tmp = vt::ub<std::uint8_t>(8192, 1024);
    vt::fill(s, src);
    vt::fill(o, off);
    vt::fill(c, sc);
    AscendAntiQuant<std::int8_t, half, false>(d, s, o, c, tmp, K, AntiQuantShapeInfo{G, N, G, N});
    out = vt::get(d, K * N);
  });
  for (std::uint32_t i = 0; i < K; ++i)
    for (std::uint32_t j = 0; j < N; ++j)
      EXPECT_EQ(vt::f(out[i * N + j]), vt::f(want_half(src[i * N + j], off[(i / 2) * N + j], sc[(i / 2) * N + j])))
          << i << "," << j;
  EXPECT_EQ(vt::vector_recs(r).size(), 3u) << "cast, Add, Mul";
}

// Transposed: src [N = 2, K = 64], parameters [2, K / 32 = 2]: element (i, j) takes (i, j / 32).
TEST(AscendAntiQuant, TransposedGroupsAlongTheRowAndWithoutOffsetAddsNothing) {
  constexpr std::uint32_t N = 2, K = 64;
  const auto src = random_int8(N * K, 4);
  const auto sc = random_half(N * 2, 5, 0.01f, 0.5f);
  std::vector<half> out;
  vt::run_ok([&] {
    auto s = vt::ub<std::int8_t>(0, N * K);
    auto c = vt::ub<half>(1024, N * 2);
    auto d = vt::ub<half>(2048, N * K);
    auto tmp = vt::ub<std::uint8_t>(8192, 1024);
    vt::fill(s, src);
    vt::fill(c, sc);
    AscendAntiQuant<std::int8_t, half, true>(d, s, c, tmp, K, AntiQuantShapeInfo{0, 0, N, 2});
    out = vt::get(d, N * K);
  });
  for (std::uint32_t i = 0; i < N; ++i)
    for (std::uint32_t j = 0; j < K; ++j)
      EXPECT_EQ(vt::f(out[i * K + j]), vt::f(want_half(src[i * K + j], static_cast<half>(0.0f), sc[i * 2 + j / 32]))) << i << "," << j;
}

// PER_TENSOR into bfloat16: through float, one rounding; int4b_t packs two values a byte.
TEST(AscendAntiQuant, PerTensorBfloat16AndInt4Sources) {
  const auto src = random_int8(64, 6);
  std::vector<bfloat16_t> out;
  auto r = vt::run_ok([&] {
    auto s = vt::ub<std::int8_t>(0, 64);
    auto d = vt::ub<bfloat16_t>(1024, 64);
    vt::fill(s, src);
    AscendAntiQuant<std::int8_t, bfloat16_t, false>(d, s, static_cast<bfloat16_t>(1.5f), static_cast<bfloat16_t>(0.25f), 64);
    out = vt::get(d, 64);
  });
  for (int i = 0; i < 64; ++i)
    EXPECT_EQ(vt::f(out[i]), vt::f(static_cast<bfloat16_t>((static_cast<float>(src[i]) + 1.5f) * 0.25f))) << i;
  EXPECT_EQ(vt::vector_recs(r).size(), 4u) << "cast, Adds, Muls, cast to bfloat16";
  std::vector<half> out4;
  vt::run_ok([&] {
    auto s = vt::ub<int4b_t>(0, 32);  // 32 bytes: 64 int4 values
    auto d = vt::ub<half>(1024, 64);
    for (int i = 0; i < 32; ++i) reinterpret_cast<std::uint8_t*>(s.aopt_ptr())[i] = static_cast<std::uint8_t>(0x7f - i);  // low: f-i.., high: 7
    AscendAntiQuant<int4b_t, half, false>(d, s, static_cast<half>(0.0f), static_cast<half>(1.0f), 64);
    out4 = vt::get(d, 64);
  });
  for (int i = 0; i < 32; ++i) {
    const int b = 0x7f - i, lo = b & 0xf, hi = b >> 4;
    EXPECT_EQ(vt::f(out4[2 * i]), static_cast<float>(lo >= 8 ? lo - 16 : lo)) << "low nibble first, byte " << i;
    EXPECT_EQ(vt::f(out4[2 * i + 1]), static_cast<float>(hi >= 8 ? hi - 16 : hi)) << "byte " << i;
  }
}

// A zero shapeInfo reads the parameter tensors' own ShapeInfo.
TEST(AscendAntiQuant, AZeroShapeInfoReadsTheTensorsShapeInfo) {
  const auto src = random_int8(64, 9);
  const auto sc = random_half(32, 10, 0.01f, 0.5f);
  std::vector<half> out;
  vt::run_ok([&] {
    auto s = vt::ub<std::int8_t>(0, 64);
    auto c = vt::ub<half>(1024, 32);
    auto d = vt::ub<half>(2048, 64);
    auto tmp = vt::ub<std::uint8_t>(4096, 256);
    vt::fill(s, src);
    vt::fill(c, sc);
    const std::uint32_t dims[2] = {1, 32};
    c.SetShapeInfo(ShapeInfo(2, dims));
    AscendAntiQuant<std::int8_t, half, false>(d, s, c, tmp, 2);
    out = vt::get(d, 64);
  });
  for (int i = 0; i < 64; ++i) EXPECT_EQ(vt::f(out[i]), vt::f(want_half(src[i], static_cast<half>(0.0f), sc[i % 32]))) << i;
}

TEST(AscendAntiQuant, TheDocumentedConstraintsAreErrors) {
  // A zero shapeInfo and no ShapeInfo on the tensors: said so.
  auto r = vt::run([] {
    auto s = vt::ub<std::int8_t>(0, 64);
    auto c = vt::ub<half>(1024, 32);
    auto d = vt::ub<half>(2048, 64);
    auto tmp = vt::ub<std::uint8_t>(4096, 256);
    AscendAntiQuant<std::int8_t, half, false>(d, s, c, tmp, 2);
  });
  ASSERT_TRUE(r.error);
  EXPECT_NE(r.error->message.find("SetShapeInfo"), std::string::npos) << r.error->message;
  // k not a multiple of the parameters' height.
  auto r2 = vt::run([] {
    auto s = vt::ub<std::int8_t>(0, 96);
    auto c = vt::ub<half>(1024, 64);
    auto d = vt::ub<half>(2048, 96);
    auto tmp = vt::ub<std::uint8_t>(4096, 256);
    AscendAntiQuant<std::int8_t, half, false>(d, s, c, tmp, 3, AntiQuantShapeInfo{0, 0, 2, 32});
  });
  ASSERT_TRUE(r2.error);
  EXPECT_EQ(r2.error->kind, hw_error_kind::param_out_of_range) << r2.error->message;
  // Transposed with k not 32-byte aligned.
  auto r3 = vt::run([] {
    auto s = vt::ub<std::int8_t>(0, 64);
    auto c = vt::ub<half>(1024, 32);
    auto d = vt::ub<half>(2048, 64);
    auto tmp = vt::ub<std::uint8_t>(4096, 256);
    AscendAntiQuant<std::int8_t, half, true>(d, s, c, tmp, 8, AntiQuantShapeInfo{0, 0, 8, 1});
  });
  ASSERT_TRUE(r3.error);
  EXPECT_NE(r3.error->message.find("32-byte"), std::string::npos) << r3.error->message;
}

// float dst, half sources: 64 lanes a repeat (PAR 64), the sources 4 blocks a repeat when dense.
TEST(MulAddDst, FloatDestinationWithHalfSourcesAndTheMaskForm) {
  const auto a = random_half(128, 7, -2, 2);
  const auto b = random_half(128, 8, -2, 2);
  std::vector<float> out, out2;
  auto r = vt::run_ok([&] {
    auto x = vt::ub<half>(0, 128);
    auto y = vt::ub<half>(1024, 128);
    auto d = vt::ub<float>(2048, 128);
    vt::fill(x, a);
    vt::fill(y, b);
    for (int i = 0; i < 128; ++i) d.aopt_ptr()[i] = 0.5f;
    MulAddDst(d, x, y, 128);
    out = vt::get(d, 128);
  });
  for (int i = 0; i < 128; ++i)
    EXPECT_FLOAT_EQ(out[i], static_cast<float>(static_cast<half>(static_cast<float>(a[i]) * static_cast<float>(b[i]))) + 0.5f) << i;
  EXPECT_EQ(vt::vector_recs(r).size(), 1u);
  // Mask form, src0 broadcast (src0RepStride 0): dst row r += a[0..63] * b[row r].
  vt::run_ok([&] {
    auto x = vt::ub<float>(0, 64);
    auto y = vt::ub<float>(1024, 128);
    auto d = vt::ub<float>(2048, 128);
    for (int i = 0; i < 64; ++i) x.aopt_ptr()[i] = static_cast<float>(i);
    for (int i = 0; i < 128; ++i) {
      y.aopt_ptr()[i] = 2.0f;
      d.aopt_ptr()[i] = 1.0f;
    }
    BinaryRepeatParams p;
    p.src0RepStride = 0;
    MulAddDst<float, float, true>(d, x, y, 64, 2, p);
    out2 = vt::get(d, 128);
  });
  for (int i = 0; i < 128; ++i) EXPECT_FLOAT_EQ(out2[i], static_cast<float>(i % 64) * 2.0f + 1.0f) << i;
}

TEST(S32Names, ReduceLastNdFailsWhenCalledAndReservedWorkspaceIsTheSystemReservation) {
  auto r = vt::run([] {
    auto s = vt::ub<float>(0, 64);
    ReduceLastND(s, s);
  });
  ASSERT_TRUE(r.error);
  EXPECT_NE(r.error->message.find("ReduceLastND is not emulated"), std::string::npos) << r.error->message;
  EXPECT_EQ(RESERVED_WORKSPACE, aopt::sim::sys_workspace_bytes);
}

// FusedMulAdd's mask form (the same three-operand path): dst = src0 * dst + src1 over 2 repeats.
TEST(FusedMulAdd, TheMaskFormReadsDst) {
  std::vector<float> out;
  vt::run_ok([&] {
    auto x = vt::ub<float>(0, 128);
    auto y = vt::ub<float>(1024, 128);
    auto d = vt::ub<float>(2048, 128);
    for (int i = 0; i < 128; ++i) {
      x.aopt_ptr()[i] = static_cast<float>(i);
      y.aopt_ptr()[i] = 3.0f;
      d.aopt_ptr()[i] = 2.0f;
    }
    BinaryRepeatParams p;
    FusedMulAdd(d, x, y, 64, 2, p);
    out = vt::get(d, 128);
  });
  for (int i = 0; i < 128; ++i) EXPECT_FLOAT_EQ(out[i], static_cast<float>(i) * 2.0f + 3.0f) << i;
}
