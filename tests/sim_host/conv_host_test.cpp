// Issue 38 (s25-conv): host API the conv/ operators' tilings call.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <type_traits>

// The aclnn-layer and short-path CANN names conv/'s host sources include (cann-ops'
// conv/aclnn/cube_util.h, conv3d_transpose_v2/op_host/cube_util.h): each must resolve on sim.
#include "aclnn/aclnn_base.h"
#include "opdev/common_types.h"
#include "opdev/platform.h"
#include "runtime/infer_shape_context.h"
#include "runtime/storage_shape.h"
#include "runtime/tiling_context.h"
#include "types.h"

#include "aopt_sim/host/host.h"
#include "tiling/tiling_api.h"
#include "aopt_sim/profile.h"
#include "tiling/platform/platform_ascendc.h"

namespace {

// PlatformAscendC::GetCoreMemBw (conv3dv2's tiling asks for the L2 rate): L2 and HBM in bytes per
// clock cycle, from the profile's chip bandwidths over its clock; the reserved types answer 0.
TEST(PlatformAscendC, GetCoreMemBwAnswersL2AndHbmPerCycleFromTheProfile) {
  for (const char* name : {"910b4", "a2"}) {
    SCOPED_TRACE(name);
    const aopt::sim::device_profile prof = aopt::sim::load_profile(name);
    const auto& chip = prof.raw.at("timing").at("chip");
    const double hbm_gbs = chip.at("hbm_bandwidth_gbs").at("value").get<double>();
    const double l2_gbs = chip.at("l2_bandwidth_gbs").at("value").get<double>();
    fe::PlatFormInfos info = aopt::sim::host::platform_from_profile(prof);
    platform_ascendc::PlatformAscendC p(&info);
    uint64_t hbm = 1, l2 = 1, ub = 1;
    p.GetCoreMemBw(platform_ascendc::CoreMemType::HBM, hbm);
    p.GetCoreMemBw(platform_ascendc::CoreMemType::L2, l2);
    p.GetCoreMemBw(platform_ascendc::CoreMemType::UB, ub);
    EXPECT_EQ(hbm, static_cast<uint64_t>(hbm_gbs / prof.clock_ghz));
    EXPECT_EQ(l2, static_cast<uint64_t>(l2_gbs / prof.clock_ghz));
    EXPECT_GT(l2, hbm);
    EXPECT_GT(hbm, 0u);
    EXPECT_EQ(ub, 0u);
  }
}

// op::GetCurrentPlatformInfo() answers from the platform the harness loaded, as PlatformAscendC
// does; op::DataType is ge's; the short "runtime/..." names are exe_graph's.
TEST(OpApiPlatform, CurrentPlatformInfoFollowsTheLoadedProfile) {
  static_assert(std::is_same_v<op::DataType, ge::DataType>);
  static_assert(std::is_same_v<op::Format, ge::Format>);
  static_assert(std::is_same_v<aclnnStatus, int32_t>);
  const fe::PlatFormInfos saved = *aopt::sim::host::default_platform();
  fe::PlatFormInfos info = aopt::sim::host::platform_from_profile(aopt::sim::load_profile("910b4"));
  aopt::sim::host::set_default_platform(info);
  EXPECT_EQ(op::GetCurrentPlatformInfo().GetSocVersion(), op::SocVersion::ASCEND910B);
  EXPECT_EQ(op::GetCurrentPlatformInfo().GetCubeCoreNum(), info.aic_cores);
  EXPECT_EQ(op::GetCurrentPlatformInfo().GetVectorCoreNum(), info.aiv_cores);
  info.soc_version = "Ascend910_9391";
  aopt::sim::host::set_default_platform(info);
  EXPECT_EQ(op::GetCurrentPlatformInfo().GetSocVersion(), op::SocVersion::ASCEND910_93);
  info.soc_version = "Ascend310P3";
  aopt::sim::host::set_default_platform(info);
  EXPECT_EQ(op::GetCurrentPlatformInfo().GetSocVersion(), op::SocVersion::ASCEND310P);
  aopt::sim::host::set_default_platform(saved);
  gert::InferShapeContext* isc = nullptr;
  gert::TilingContext* tc = nullptr;
  EXPECT_EQ(isc, nullptr);
  EXPECT_EQ(tc, nullptr);
}

// PlatFormInfos::GetPlatformRes("AICoreintrinsicDtypeMap", ...): dynamic_rnn's tiling (and
// cann-ops' cube_tiling_runtime.cc, gemm_v2) take the tiling path of a 910B-class chip only when
// Intrinsic_fix_pipe_l0c2out is present; the 310P-only paths stay absent; other chips get none.
TEST(PlatFormInfos, AnswersTheCubeIntrinsicsOfA910BClassChip) {
  for (const char* name : {"910b4", "a2"}) {
    SCOPED_TRACE(name);
    fe::PlatFormInfos info = aopt::sim::host::platform_from_profile(aopt::sim::load_profile(name));
    std::string val;
    EXPECT_TRUE(info.GetPlatformRes("AICoreintrinsicDtypeMap", "Intrinsic_fix_pipe_l0c2out", val));
    EXPECT_FALSE(val.empty());
    EXPECT_TRUE(info.GetPlatformRes("AICoreintrinsicDtypeMap", "Intrinsic_data_move_l12bt", val));
    EXPECT_NE(val.find("bf16"), std::string::npos);
    EXPECT_TRUE(info.GetPlatformRes("AICoreintrinsicDtypeMap", "Intrinsic_data_move_out2l1_nd2nz", val));
    for (const char* absent : {"Intrinsic_data_move_l0c2ub", "Intrinsic_data_move_l12ub", "Intrinsic_fix_pipe_l0c2ub",
                               "Intrinsic_matmul_ub_to_ub", "Intrinsic_conv_ub_to_ub"}) {
      val.clear();
      EXPECT_FALSE(info.GetPlatformRes("AICoreintrinsicDtypeMap", absent, val)) << absent;
      EXPECT_TRUE(val.empty()) << absent;
    }
    EXPECT_TRUE(info.GetPlatformRes("AICoreSpec", "cube_freq", val));
    EXPECT_EQ(val, std::to_string(static_cast<uint64_t>(info.clock_ghz * 1000.0 + 0.5)));
  }
  fe::PlatFormInfos info = aopt::sim::host::platform_from_profile(aopt::sim::load_profile("910b4"));
  std::string cnt;
  ASSERT_TRUE(info.GetPlatformRes("SoCInfo", "ai_core_cnt", cnt));
  EXPECT_EQ(info.GetCoreNumByType("AiCore"), std::stoul(cnt));  // conv3dv2's tiling asks this
  ASSERT_TRUE(info.GetPlatformRes("SoCInfo", "vector_core_cnt", cnt));
  EXPECT_EQ(info.GetCoreNumByType("VectorCore"), std::stoul(cnt));
  EXPECT_EQ(info.GetCoreNumByType("Cube"), 0u);
  fe::PlatFormInfos other;
  other.soc_version = "Ascend310P3";
  other.short_soc_version = "Ascend310P";
  std::string val;
  EXPECT_FALSE(other.GetPlatformRes("AICoreintrinsicDtypeMap", "Intrinsic_fix_pipe_l0c2out", val));
}

// AscendC::BLOCK_CUBE in host code (conv3d_backprop_filter_v2's tiling:
// static_cast<int32_t>(AscendC::BLOCK_CUBE)) through the tiling API header, as in CANN.
TEST(CubeConstants, BlockCubeIsVisibleToHostTilings) {
  constexpr int32_t block = static_cast<int32_t>(AscendC::BLOCK_CUBE);
  static_assert(block == 16);
  EXPECT_EQ(block, 16);
}

}  // namespace
