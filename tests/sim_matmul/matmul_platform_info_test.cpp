// matmul_tiling::PlatformInfo (issue 38, corpus rerun: upsample_bicubic2d_grad's tiling builds one
// and passes it to MatmulApiTiling): the tiling objects take their buffer sizes from it.
#include <gtest/gtest.h>

#include <cstdint>

#include "tiling/tiling_api.h"

namespace {

using matmul_tiling::CubeFormat;
using matmul_tiling::DataType;
using matmul_tiling::TPosition;

// PlatformInfo as real tiling code fills it: GetSocVersion and GetCoreMemSize of the platform.
matmul_tiling::PlatformInfo info_of(const platform_ascendc::PlatformAscendC& p) {
  matmul_tiling::PlatformInfo info;
  info.socVersion = p.GetSocVersion();
  p.GetCoreMemSize(platform_ascendc::CoreMemType::UB, info.ubSize);
  p.GetCoreMemSize(platform_ascendc::CoreMemType::L1, info.l1Size);
  p.GetCoreMemSize(platform_ascendc::CoreMemType::L0_A, info.l0ASize);
  p.GetCoreMemSize(platform_ascendc::CoreMemType::L0_B, info.l0BSize);
  p.GetCoreMemSize(platform_ascendc::CoreMemType::L0_C, info.l0CSize);
  return info;
}

optiling::TCubeTiling tile(matmul_tiling::MatmulApiTilingBase& t, std::int32_t m, std::int32_t n, std::int32_t k) {
  t.SetAType(TPosition::GM, CubeFormat::ND, DataType::DT_FLOAT16);
  t.SetBType(TPosition::GM, CubeFormat::ND, DataType::DT_FLOAT16);
  t.SetCType(TPosition::GM, CubeFormat::ND, DataType::DT_FLOAT);
  t.SetShape(m, n, k);
  t.SetOrgShape(m, n, k);
  t.SetBufferSpace(-1, -1, -1);
  optiling::TCubeTiling out;
  EXPECT_EQ(t.GetTiling(out), 0);
  return out;
}

TEST(MatmulPlatformInfo, TheSizesOfThePlatformGiveTheSameTilingAsThePlatform) {
  platform_ascendc::PlatformAscendC p;
  matmul_tiling::MatmulApiTiling from_platform(p);
  matmul_tiling::MatmulApiTiling from_info(info_of(p));
  const auto a = tile(from_platform, 512, 384, 1024);
  const auto b = tile(from_info, 512, 384, 1024);
  EXPECT_EQ(a.baseM, b.baseM);
  EXPECT_EQ(a.baseN, b.baseN);
  EXPECT_EQ(a.baseK, b.baseK);
  EXPECT_EQ(a.stepKa, b.stepKa);
  EXPECT_EQ(a.depthA1, b.depthA1);
  EXPECT_EQ(a.shareL1Size, b.shareL1Size);
}

TEST(MatmulPlatformInfo, SmallerBuffersInTheInfoBoundTheTiling) {
  platform_ascendc::PlatformAscendC p;
  auto info = info_of(p);
  info.l1Size = 64 * 1024;
  info.l0CSize = 32 * 1024;
  matmul_tiling::MultiCoreMatmulTiling t(info);
  t.SetDim(1);
  const auto out = tile(t, 1024, 1024, 4096);
  EXPECT_LE(out.shareL1Size, 64 * 1024);
  EXPECT_LE(std::int64_t{out.baseM} * out.baseN * 4 * out.dbL0C, 32 * 1024);
  // With only 32 KiB of L0C, two 128 x 128 float blocks (128 KiB) no longer fit: the base shrinks.
  EXPECT_LE(std::int64_t{out.baseM} * out.baseN, 64 * 64);
}

}  // namespace
