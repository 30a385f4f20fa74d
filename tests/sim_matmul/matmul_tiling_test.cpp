// The host Matmul tiling API (matmul_tiling::MatmulApiTiling / MultiCoreMatmulTiling, TCubeTiling):
// the documented capacity constraints hold for every tiling it returns, infeasible requests
// return -1, SetFixSplit / SetDim / SetSingleShape / SetBufferSpace are obeyed, and TCubeTiling
// travels inside an operator's tiling data.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <random>
#include <type_traits>
#include <vector>

#include "graph/types.h"
#include "register/tilingdata_base.h"
#include "tiling/tiling_api.h"

namespace {

using matmul_tiling::CubeFormat;
using matmul_tiling::DataType;
using matmul_tiling::TPosition;

struct caps {
  std::int64_t l1, l0a, l0b, l0c;
  std::uint32_t aic;
};
caps platform_caps() {
  platform_ascendc::PlatformAscendC p;
  caps c{};
  std::uint64_t v = 0;
  p.GetCoreMemSize(platform_ascendc::CoreMemType::L1, v);
  c.l1 = static_cast<std::int64_t>(v);
  p.GetCoreMemSize(platform_ascendc::CoreMemType::L0_A, v);
  c.l0a = static_cast<std::int64_t>(v);
  p.GetCoreMemSize(platform_ascendc::CoreMemType::L0_B, v);
  c.l0b = static_cast<std::int64_t>(v);
  p.GetCoreMemSize(platform_ascendc::CoreMemType::L0_C, v);
  c.l0c = static_cast<std::int64_t>(v);
  c.aic = p.GetCoreNumAic();
  return c;
}

void set_types(matmul_tiling::MatmulApiTilingBase& t, DataType in, DataType out, bool trans_a = false, bool trans_b = false) {
  t.SetAType(TPosition::GM, CubeFormat::ND, in, trans_a);
  t.SetBType(TPosition::GM, CubeFormat::ND, in, trans_b);
  t.SetCType(TPosition::GM, CubeFormat::ND, out);
  t.SetBiasType(TPosition::GM, CubeFormat::ND, out);
}

// The documented constraints of a tiling (TCubeTiling table) plus our L1 plan.
void expect_valid(const optiling::TCubeTiling& t, std::int64_t in_bytes, const caps& c, const char* what) {
  SCOPED_TRACE(what);
  const std::int64_t c0 = 32 / in_bytes;
  EXPECT_GT(t.baseM, 0);
  EXPECT_EQ(t.baseM % 16, 0);
  EXPECT_EQ(t.baseN % 16, 0);
  EXPECT_EQ(t.baseK % c0, 0);
  EXPECT_LE(std::int64_t{t.baseM} * t.baseK * in_bytes * t.dbL0A, c.l0a);
  EXPECT_LE(std::int64_t{t.baseN} * t.baseK * in_bytes * t.dbL0B, c.l0b);
  EXPECT_LE(std::int64_t{t.baseM} * t.baseN * 4 * t.dbL0C, c.l0c);
  const std::int64_t l1 = std::int64_t{t.depthA1} * t.baseM * t.baseK * in_bytes +
                          std::int64_t{t.depthB1} * t.baseN * t.baseK * in_bytes + (t.isBias ? t.baseN * 4 : 0);
  EXPECT_LE(l1, c.l1);
  EXPECT_EQ(l1, t.shareL1Size);
  EXPECT_GE(t.depthA1, t.stepM * t.stepKa);
  EXPECT_GE(t.depthB1, t.stepN * t.stepKb);
  EXPECT_GE(t.stepKa, 1);
  EXPECT_LE(t.singleCoreM, t.M);
  EXPECT_LE(t.singleCoreN, t.N);
  const std::int64_t mdim = (t.M + t.singleCoreM - 1) / t.singleCoreM, ndim = (t.N + t.singleCoreN - 1) / t.singleCoreN;
  EXPECT_EQ(t.usedCoreNum, mdim * ndim);
}

TEST(MatmulTiling, SquareFp16OnOneCoreFillsL0WithinCapacity) {
  const caps c = platform_caps();
  matmul_tiling::MatmulApiTiling mm;
  set_types(mm, DataType::DT_FLOAT16, DataType::DT_FLOAT);
  mm.SetShape(1024, 1024, 1024);
  mm.SetOrgShape(1024, 1024, 1024);
  mm.SetBias(false);
  mm.SetBufferSpace(-1, -1, -1);
  optiling::TCubeTiling t;
  ASSERT_EQ(mm.GetTiling(t), 0);
  expect_valid(t, 2, c, "1024^3 fp16");
  EXPECT_EQ(t.usedCoreNum, 1);
  EXPECT_EQ(t.singleCoreM, 1024);
  EXPECT_EQ(t.singleCoreK, 1024);
  // 910B-class L0C 128 KiB: 128 x 128 float twice; L0A 64 KiB: 128 x 128 half twice.
  EXPECT_EQ(t.baseM, 128);
  EXPECT_EQ(t.baseN, 128);
  EXPECT_EQ(t.baseK, 128);
  EXPECT_EQ(t.dbL0A, 2);
  EXPECT_EQ(t.dbL0B, 2);
  EXPECT_EQ(mm.GetBaseM(), 128);
}

// SetShape.md documents no bound by the original shape (SetOrgShape only serves the offsets), and
// CANN's upsample_bilinear2d_aa sets a per-core N (its slide) larger than the original N: tiled as
// given, not refused (sim refused it before and the kernel then divided by zero).
TEST(MatmulTiling, AShapeLargerThanTheOriginalIsTiledAsGiven) {
  matmul_tiling::MatmulApiTiling mm;
  set_types(mm, DataType::DT_FLOAT, DataType::DT_FLOAT);
  mm.SetOrgShape(2048, 32, 64);
  mm.SetShape(2048, 64, 33);
  mm.SetBias(false);
  mm.SetBufferSpace(-1, -1, -1);
  optiling::TCubeTiling t;
  ASSERT_EQ(mm.GetTiling(t), 0);
  EXPECT_EQ(t.singleCoreN, 64);
  EXPECT_EQ(t.singleCoreK, 33);
  EXPECT_EQ(t.N, 32);  // the original shape as set
  EXPECT_GT(t.baseN, 0);
  EXPECT_GE(t.baseN, 16);
}

TEST(MatmulTiling, Int8UsesThirtyTwoElementC0AndInt32Accumulation) {
  const caps c = platform_caps();
  matmul_tiling::MatmulApiTiling mm;
  set_types(mm, DataType::DT_INT8, DataType::DT_INT32);
  mm.SetShape(64, 96, 200);
  optiling::TCubeTiling t;
  ASSERT_EQ(mm.GetTiling(t), 0);
  expect_valid(t, 1, c, "int8");
  EXPECT_EQ(t.baseK % 32, 0);
  EXPECT_EQ(t.baseM, 64);
  EXPECT_EQ(t.baseN, 64);  // the sides are powers of two not above N rounded to 16 (96)
  EXPECT_LE(t.baseK, 224);
}

TEST(MatmulTiling, FixSplitIsObeyedAndCheckedAgainstL0) {
  const caps c = platform_caps();
  {
    matmul_tiling::MatmulApiTiling mm;
    set_types(mm, DataType::DT_FLOAT16, DataType::DT_FLOAT);
    mm.SetShape(512, 512, 512);
    mm.SetFixSplit(64, 64, 64);
    optiling::TCubeTiling t;
    ASSERT_EQ(mm.GetTiling(t), 0);
    expect_valid(t, 2, c, "fix 64");
    EXPECT_EQ(t.baseM, 64);
    EXPECT_EQ(t.baseN, 64);
    EXPECT_EQ(t.baseK, 64);
  }
  {
    // 256 x 256 float = 256 KiB > L0C 128 KiB.
    matmul_tiling::MatmulApiTiling mm;
    set_types(mm, DataType::DT_FLOAT16, DataType::DT_FLOAT);
    mm.SetShape(512, 512, 512);
    mm.SetFixSplit(256, 256, 64);
    optiling::TCubeTiling t;
    EXPECT_EQ(mm.GetTiling(t), -1);
  }
  {
    // 256 x 256 half = 128 KiB > L0A 64 KiB.
    matmul_tiling::MatmulApiTiling mm;
    set_types(mm, DataType::DT_FLOAT16, DataType::DT_FLOAT);
    mm.SetShape(512, 512, 512);
    mm.SetFixSplit(256, 16, 256);
    optiling::TCubeTiling t;
    EXPECT_EQ(mm.GetTiling(t), -1);
  }
  {
    // baseM not a multiple of the fractal's 16, baseK not a multiple of C0.
    matmul_tiling::MatmulApiTiling mm;
    set_types(mm, DataType::DT_FLOAT16, DataType::DT_FLOAT);
    mm.SetShape(512, 512, 512);
    mm.SetFixSplit(24, 64, 64);
    optiling::TCubeTiling t;
    EXPECT_EQ(mm.GetTiling(t), -1);
    mm.SetFixSplit(64, 64, 40);
    EXPECT_EQ(mm.GetTiling(t), -1);
  }
}

TEST(MatmulTiling, MissingTypesShapesOrL1SpaceAreInfeasible) {
  optiling::TCubeTiling t;
  {
    matmul_tiling::MatmulApiTiling mm;
    mm.SetShape(64, 64, 64);
    EXPECT_EQ(mm.GetTiling(t), -1);  // no types
  }
  {
    matmul_tiling::MatmulApiTiling mm;
    set_types(mm, DataType::DT_FLOAT16, DataType::DT_FLOAT);
    EXPECT_EQ(mm.GetTiling(t), -1);  // no shape
  }
  {
    matmul_tiling::MatmulApiTiling mm;
    set_types(mm, DataType::DT_FLOAT16, DataType::DT_FLOAT);
    mm.SetShape(256, 256, 256);
    mm.SetBufferSpace(1024);  // 1 KiB of L1 cannot hold one base block of A and one of B
    EXPECT_EQ(mm.GetTiling(t), -1);
  }
}

TEST(MatmulTiling, SmallerL1SpaceShortensTheKSteps) {
  const caps c = platform_caps();
  matmul_tiling::MatmulApiTiling full, small;
  set_types(full, DataType::DT_FLOAT16, DataType::DT_FLOAT);
  set_types(small, DataType::DT_FLOAT16, DataType::DT_FLOAT);
  full.SetShape(256, 256, 4096);
  small.SetShape(256, 256, 4096);
  small.SetBufferSpace(256 * 1024);
  optiling::TCubeTiling tf, ts;
  ASSERT_EQ(full.GetTiling(tf), 0);
  ASSERT_EQ(small.GetTiling(ts), 0);
  expect_valid(tf, 2, c, "full");
  EXPECT_LE(ts.shareL1Size, 256 * 1024);
  EXPECT_LT(ts.stepKa, tf.stepKa);
}

TEST(MatmulTiling, MultiCoreSplitsMAndNOverSetDimCores) {
  const caps c = platform_caps();
  matmul_tiling::MultiCoreMatmulTiling mm;
  set_types(mm, DataType::DT_FLOAT16, DataType::DT_FLOAT);
  mm.SetDim(16);
  mm.SetShape(1024, 1024, 512);
  mm.SetOrgShape(1024, 1024, 512);
  mm.SetBias(true);
  optiling::TCubeTiling t;
  ASSERT_EQ(mm.GetTiling(t), 0);
  expect_valid(t, 2, c, "multi");
  EXPECT_EQ(t.usedCoreNum, 16);
  EXPECT_EQ(t.singleCoreM, 256);
  EXPECT_EQ(t.singleCoreN, 256);
  EXPECT_EQ(t.singleCoreK, 512);
  EXPECT_EQ(t.isBias, 1);
  std::int32_t dim = 0, md = 0, nd = 0, sm = 0, sn = 0, sk = 0;
  mm.GetCoreNum(dim, md, nd);
  mm.GetSingleShape(sm, sn, sk);
  EXPECT_EQ(dim, 16);
  EXPECT_EQ(md, 4);
  EXPECT_EQ(nd, 4);
  EXPECT_EQ(sm, 256);

  matmul_tiling::MultiCoreMatmulTiling fixed;
  set_types(fixed, DataType::DT_FLOAT16, DataType::DT_FLOAT);
  fixed.SetDim(8);
  fixed.SetShape(1024, 1024, 512);
  fixed.SetSingleShape(512, 256, 512);
  ASSERT_EQ(fixed.GetTiling(t), 0);
  EXPECT_EQ(t.usedCoreNum, 8);
  EXPECT_EQ(t.singleCoreM, 512);
}

// MatmulApiTilingBase is the documented base of both tiling classes; tiling code that fills either
// through a base reference (quant_batch_matmul_v3's InitTilingData) gets the object's own GetTiling:
// the multi-core split for a MultiCoreMatmulTiling, one core for a MatmulApiTiling.
std::int64_t tile_through_base(matmul_tiling::MatmulApiTilingBase& mm, optiling::TCubeTiling& t) {
  set_types(mm, DataType::DT_FLOAT16, DataType::DT_FLOAT);
  mm.SetShape(1024, 1024, 512);
  mm.SetOrgShape(1024, 1024, 512);
  return mm.GetTiling(t);
}

TEST(MatmulTiling, GetTilingThroughTheBaseClassIsTheObjectsOwn) {
  matmul_tiling::MultiCoreMatmulTiling multi;
  multi.SetDim(16);
  matmul_tiling::MatmulApiTiling single;
  optiling::TCubeTiling tm, ts;
  ASSERT_EQ(tile_through_base(multi, tm), 0);
  ASSERT_EQ(tile_through_base(single, ts), 0);
  EXPECT_EQ(tm.usedCoreNum, 16);
  EXPECT_EQ(tm.singleCoreM, 256);
  EXPECT_EQ(ts.singleCoreM, 1024) << "one core takes the whole shape";
}

// The AscendC constants host tilings name (weight_quant_batch_matmul_v2: `using AscendC::ONE_BLK_SIZE;`).
TEST(MatmulTiling, HostSeesTheAscendCBlockConstants) {
  EXPECT_EQ(AscendC::ONE_BLK_SIZE, 32u);
  static_assert(std::is_same_v<std::remove_const_t<decltype(AscendC::ONE_BLK_SIZE)>, std::uint32_t>,
                "one type with a uint32_t count in CeilDiv(T, T) / CeilAlign(T, T)");
  EXPECT_EQ(AscendC::BLOCK_CUBE, 16u);
}

// On the host BLOCK_CUBE is unsigned, so a one-type template takes it beside a uint32_t
// (weight_quant_batch_matmul_v2: `ops::CeilAlign(static_cast<uint32_t>(n), BLOCK_CUBE)`), and
// float32_t names float (quant_batch_matmul_v3: `sizeof(float32_t)`). Both failed to build on main
// (BLOCK_CUBE was int32_t on both sides; float32_t only on the kernel side).
template <typename T>
constexpr T ceil_align_one_type(T x, T align) {
  return (x + align - 1) / align * align;
}
TEST(MatmulTiling, HostBlockCubeIsUnsignedAndFloat32TIsFloat) {
  static_assert(std::is_same_v<std::remove_const_t<decltype(AscendC::BLOCK_CUBE)>, std::uint32_t>,
                "host tilings see BLOCK_CUBE as uint32_t");
  EXPECT_EQ(ceil_align_one_type(static_cast<std::uint32_t>(37), AscendC::BLOCK_CUBE), 48u);
  static_assert(std::is_same_v<float32_t, float>, "float32_t is float on the host");
  EXPECT_EQ(sizeof(float32_t), 4u);
}

TEST(MatmulTiling, UndefinedDataTypeIsInfeasible) {
  matmul_tiling::MatmulApiTiling mm;
  set_types(mm, DataType::DT_FLOAT16, DataType::DT_FLOAT);
  mm.SetAType(TPosition::GM, CubeFormat::ND, DataType::DT_UNDEFINED);
  mm.SetShape(64, 64, 64);
  optiling::TCubeTiling t;
  EXPECT_EQ(mm.GetTiling(t), -1);
}

TEST(MatmulTiling, RandomShapesAlwaysGiveValidTilings) {
  const char* e = std::getenv("AOPT_TEST_SEED");
  const std::uint32_t seed = e ? static_cast<std::uint32_t>(std::strtoul(e, nullptr, 10)) : 3838u;
  std::cout << "[sim_matmul] random seed " << seed << " (set AOPT_TEST_SEED to change)\n";
  std::mt19937 g(seed);
  std::uniform_int_distribution<int> side(1, 3000), dim(1, 24), kind(0, 2);
  const caps c = platform_caps();
  for (int i = 0; i < 300; ++i) {
    const int k = kind(g);
    const DataType in = k == 0 ? DataType::DT_FLOAT16 : k == 1 ? DataType::DT_BF16 : DataType::DT_INT8;
    const DataType out = k == 2 ? DataType::DT_INT32 : DataType::DT_FLOAT;
    matmul_tiling::MultiCoreMatmulTiling mm;
    set_types(mm, in, out);
    const int M = side(g), N = side(g), K = side(g), d = dim(g);
    mm.SetDim(d);
    mm.SetShape(M, N, K);
    mm.SetOrgShape(M, N, K);
    mm.SetBias(i % 2 == 0);
    optiling::TCubeTiling t;
    ASSERT_EQ(mm.GetTiling(t), 0) << M << "x" << N << "x" << K << " dim " << d;
    expect_valid(t, k == 2 ? 1 : 2, c, "random");
    EXPECT_LE(t.usedCoreNum, d);
  }
}

BEGIN_TILING_DATA_DEF(MatmulOpTiling)
TILING_DATA_FIELD_DEF(uint32_t, tileNum);
TILING_DATA_FIELD_DEF_STRUCT(TCubeTiling, cubeTilingData);
END_TILING_DATA_DEF;

TEST(MatmulTiling, TCubeTilingTravelsInTheTilingData) {
  matmul_tiling::MatmulApiTiling mm;
  set_types(mm, DataType::DT_FLOAT16, DataType::DT_FLOAT);
  mm.SetShape(128, 64, 32);
  MatmulOpTiling td;
  td.set_tileNum(7);
  ASSERT_EQ(mm.GetTiling(td.cubeTilingData), 0);
  std::vector<std::uint8_t> buf(td.GetDataSize());
  td.SaveToBuffer(buf.data(), buf.size());
  MatmulOpTiling back;
  back.SetDataPtr(buf.data());
  EXPECT_EQ(back.tileNum, 7u);
  EXPECT_EQ(back.cubeTilingData.M, 128);
  EXPECT_EQ(back.cubeTilingData.N, 64);
  EXPECT_EQ(back.cubeTilingData.Ka, 32);
  EXPECT_EQ(back.cubeTilingData.baseN, 64);
  matmul_tiling::SysTilingTempBufSize sz;
  EXPECT_EQ(matmul_tiling::MatmulGetTmpBufSize(back.cubeTilingData, sz), 0);
  EXPECT_EQ(sz.l1Size, back.cubeTilingData.shareL1Size);
  aopt::sim::host::clear_data_ptr_bindings();  // `back` is bound to `buf` (the harness clears per tiling call)
}

// SetDataPtr as quant_batch_matmul_v3's tiling uses it: bind the tiling data to the raw buffer,
// clear the buffer, then only setters and GetTiling; no SaveToBuffer. Every write reaches the
// buffer at the field's offset, nested structs and the TCubeTiling the matmul API fills included.
TEST(MatmulTiling, SetDataPtrWritesEveryLaterWriteIntoTheBuffer) {
  std::vector<std::uint8_t> raw(sizeof(MatmulOpTiling) + 64, 0xee);
  MatmulOpTiling td;
  td.SetDataPtr(raw.data());
  std::memset(raw.data(), 0, raw.size());
  td.set_tileNum(9);
  matmul_tiling::MatmulApiTiling mm;
  set_types(mm, DataType::DT_FLOAT16, DataType::DT_FLOAT);
  mm.SetShape(96, 48, 32);
  ASSERT_EQ(mm.GetTiling(td.cubeTilingData), 0);
  td.cubeTilingData.set_usedCoreNum(5);
  MatmulOpTiling seen;
  std::memcpy(static_cast<void*>(&seen), raw.data(), sizeof(seen));
  EXPECT_EQ(seen.tileNum, 9u);
  EXPECT_EQ(seen.cubeTilingData.M, 96);
  EXPECT_EQ(seen.cubeTilingData.N, 48);
  EXPECT_EQ(seen.cubeTilingData.baseN, td.cubeTilingData.baseN);
  EXPECT_EQ(seen.cubeTilingData.usedCoreNum, 5);
  EXPECT_EQ(raw[sizeof(MatmulOpTiling)], 0) << "nothing written past the object";
  aopt::sim::host::clear_data_ptr_bindings();
  td.set_tileNum(10);  // unbound: the buffer keeps 9
  std::memcpy(static_cast<void*>(&seen), raw.data(), sizeof(seen));
  EXPECT_EQ(seen.tileNum, 9u);
}

// A quantised matmul's tiling data (issue 38, s29): 16 uint32 parameters, the TCubeTiling, 6
// uint32 L2 tile parameters; its tiling refuses a data size that is not a multiple of 8, which
// holds with CANN's 50-field TCubeTiling (200 bytes) and failed with 49 (284 bytes).
BEGIN_TILING_DATA_DEF(S29QuantParams)
TILING_DATA_FIELD_DEF(uint32_t, p0); TILING_DATA_FIELD_DEF(uint32_t, p1); TILING_DATA_FIELD_DEF(uint32_t, p2);
TILING_DATA_FIELD_DEF(uint32_t, p3); TILING_DATA_FIELD_DEF(uint32_t, p4); TILING_DATA_FIELD_DEF(uint32_t, p5);
TILING_DATA_FIELD_DEF(uint32_t, p6); TILING_DATA_FIELD_DEF(uint32_t, p7); TILING_DATA_FIELD_DEF(uint32_t, p8);
TILING_DATA_FIELD_DEF(uint32_t, p9); TILING_DATA_FIELD_DEF(uint32_t, p10); TILING_DATA_FIELD_DEF(uint32_t, p11);
TILING_DATA_FIELD_DEF(uint32_t, p12); TILING_DATA_FIELD_DEF(uint32_t, p13); TILING_DATA_FIELD_DEF(uint32_t, p14);
TILING_DATA_FIELD_DEF(uint32_t, p15);
END_TILING_DATA_DEF;
BEGIN_TILING_DATA_DEF(S29L2Tile)
TILING_DATA_FIELD_DEF(uint32_t, t0); TILING_DATA_FIELD_DEF(uint32_t, t1); TILING_DATA_FIELD_DEF(uint32_t, t2);
TILING_DATA_FIELD_DEF(uint32_t, t3); TILING_DATA_FIELD_DEF(uint32_t, t4); TILING_DATA_FIELD_DEF(uint32_t, t5);
END_TILING_DATA_DEF;
BEGIN_TILING_DATA_DEF(S29QuantMatmulTiling)
TILING_DATA_FIELD_DEF_STRUCT(S29QuantParams, params);
TILING_DATA_FIELD_DEF_STRUCT(TCubeTiling, matmulTiling);
TILING_DATA_FIELD_DEF_STRUCT(S29L2Tile, l2);
END_TILING_DATA_DEF;

TEST(MatmulTiling, TCubeTilingHasEveryDocumentedFieldInCannsLayout) {
  EXPECT_EQ(sizeof(optiling::TCubeTiling), 200u);
  optiling::TCubeTiling t;
  t.set_mxTypePara(0x01010101);
  EXPECT_EQ(t.get_mxTypePara(), 0x01010101);
  // mxTypePara is the last field; the layout infos and BatchNum come before it, stepKa/stepKb
  // after singleBatchN, the dbL0* after the L1 cache depths.
  const auto* base = reinterpret_cast<const char*>(&t);
  EXPECT_EQ(reinterpret_cast<const char*>(&t.mxTypePara) - base, 196);
  EXPECT_EQ(reinterpret_cast<const char*>(&t.BatchNum) - base, 192);
  EXPECT_EQ(reinterpret_cast<const char*>(&t.stepKa) - base, 26 * 4);
  EXPECT_EQ(reinterpret_cast<const char*>(&t.dbL0A) - base, 30 * 4);
  S29QuantMatmulTiling td;
  EXPECT_EQ(td.GetDataSize(), 288u);
  EXPECT_EQ(td.GetDataSize() % 8, 0u);
  td.matmulTiling.set_mxTypePara(3);
  td.l2.set_t5(9);
  std::vector<std::uint8_t> buf(td.GetDataSize());
  td.SaveToBuffer(buf.data(), buf.size());
  S29QuantMatmulTiling back;
  back.SetDataPtr(buf.data());
  EXPECT_EQ(back.matmulTiling.mxTypePara, 3);
  EXPECT_EQ(back.l2.t5, 9u);
}

// The documented ge::DataType values past DT_COMPLEX32: the 8-, 6- and 4-bit float types a
// quantised matmul's host tiling names (ge::DT_FLOAT8_E5M2 ...), each one byte or less.
TEST(GeDataType, HasTheLowPrecisionFloatTypesWithTheirNumbers) {
  EXPECT_EQ(ge::DT_COMPLEX32, 33);
  EXPECT_EQ(ge::DT_HIFLOAT8, 34);
  EXPECT_EQ(ge::DT_FLOAT8_E5M2, 35);
  EXPECT_EQ(ge::DT_FLOAT8_E4M3FN, 36);
  EXPECT_EQ(ge::DT_FLOAT8_E8M0, 37);
  EXPECT_EQ(ge::DT_FLOAT6_E3M2, 38);
  EXPECT_EQ(ge::DT_FLOAT6_E2M3, 39);
  EXPECT_EQ(ge::DT_FLOAT4_E2M1, 40);
  EXPECT_EQ(ge::DT_FLOAT4_E1M2, 41);
  EXPECT_EQ(ge::DT_MAX, 42);
  for (auto dt : {ge::DT_HIFLOAT8, ge::DT_FLOAT8_E5M2, ge::DT_FLOAT8_E4M3FN, ge::DT_FLOAT8_E8M0, ge::DT_FLOAT6_E3M2,
                  ge::DT_FLOAT6_E2M3, ge::DT_FLOAT4_E2M1, ge::DT_FLOAT4_E1M2}) {
    EXPECT_EQ(ge::GetSizeByDataType(dt), 1) << static_cast<int>(dt);
  }
}

// MatMulV3's tiling data (TCubeTiling, then 15 uint32): 260 bytes of fields; its tiling refuses a
// size that is not a multiple of 8, so the data size is padded to 8 (264, padding zero), as CANN's
// TilingDef pads (it works on the chip with CANN's 200-byte TCubeTiling).
BEGIN_TILING_DATA_DEF(S29MatmulV3Like)
TILING_DATA_FIELD_DEF_STRUCT(TCubeTiling, matmulTiling);
TILING_DATA_FIELD_DEF_STRUCT(S29L2Tile, l2);
TILING_DATA_FIELD_DEF_STRUCT(S29L2Tile, more);
TILING_DATA_FIELD_DEF(uint32_t, last0); TILING_DATA_FIELD_DEF(uint32_t, last1); TILING_DATA_FIELD_DEF(uint32_t, last2);
END_TILING_DATA_DEF;

TEST(MatmulTiling, TilingDataSizeIsPaddedToEightBytesWithZeros) {
  S29MatmulV3Like td;
  ASSERT_EQ(sizeof(td), 260u);
  EXPECT_EQ(td.GetDataSize(), 264u);
  td.set_last2(7);
  std::vector<std::uint8_t> buf(300, 0xAB);
  td.SaveToBuffer(buf.data(), buf.size());
  std::uint32_t last2 = 0, pad = 1;
  std::memcpy(&last2, buf.data() + 256, 4);
  std::memcpy(&pad, buf.data() + 260, 4);
  EXPECT_EQ(last2, 7u);
  EXPECT_EQ(pad, 0u);
  EXPECT_EQ(buf[264], 0xAB);  // nothing past the data size
}

}  // namespace
