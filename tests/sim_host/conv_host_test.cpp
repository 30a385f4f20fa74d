// Issue 38 (s25-conv): host API the conv/ operators' tilings call.
#include <gtest/gtest.h>

#include <cstdint>

#include "aopt_sim/host/host.h"
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

}  // namespace
