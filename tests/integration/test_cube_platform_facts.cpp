// Runs the real `aopt eval` on packages/cube_platform_facts (issue 38, s25-conv): AddCustom whose
// tiling asks the platform facts cann-ops' cube tilings ask (AICoreintrinsicDtypeMap's
// Intrinsic_fix_pipe_l0c2out, GetCoreNumByType, op::GetCurrentPlatformInfo, BLOCK_CUBE,
// GetCoreMemBw) and refuses without them, as dynamic_rnn's does. Before: the host build failed
// (GetCoreMemBw, opdev/platform.h missing) and the intrinsic was absent.
#include <gtest/gtest.h>

#include "../support/aopt_process.h"

TEST(CubePlatformFactsFixture, TilingSeesA910BClassChip) {
  aopt::common::process_outcome o;
  const auto j = aopt::testing::eval_package("tests/integration/packages/cube_platform_facts", o);
  ASSERT_EQ(o.end, aopt::common::process_end::exited) << o.describe() << "\n" << o.err;
  ASSERT_FALSE(j.is_discarded()) << o.out << "\n" << o.err;
  ASSERT_EQ(j.value("status", ""), "ok") << j.dump(2);
}
