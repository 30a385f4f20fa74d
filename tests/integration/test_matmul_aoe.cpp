// Runs the real `aopt eval` on packages/matmul_aoe (issue 38): a Matmul-API operator whose tiling
// goes through the AOE tuning-tiling registry as cann-ops' cube tilings do (mat_mul_v3, gemm_v2,
// batch_mat_mul_v3, quant_batch_matmul_v3, conv2d_backprop_filter_v2/v3 include
// register/tuning_tiling_registry.h and register/tuning_bank_key_registry.h): its bank key is
// registered and parsed to JSON, its tuning tiling created by the factory for its operator type,
// written to JSON and read back, and the base block read back is the one the Matmul tiling uses.
// Before: the host build failed ("register/tuning_tiling_registry.h: No such file or directory").
#include <gtest/gtest.h>

#include "../support/aopt_process.h"

TEST(MatmulAoe, AnOperatorOnTheTuningTilingRegistryBuildsAndIsCorrect) {
  aopt::common::process_outcome o;
  const auto j = aopt::testing::eval_package("tests/integration/packages/matmul_aoe", o);
  ASSERT_EQ(o.end, aopt::common::process_end::exited) << o.describe() << "\n" << o.err;
  ASSERT_FALSE(j.is_discarded()) << o.out << "\n" << o.err;
  ASSERT_EQ(j.value("status", ""), "ok") << j.dump(2);
  ASSERT_EQ(j["cases"].size(), 2u);
  for (const auto& c : j["cases"]) {
    EXPECT_EQ(c["status"], "ok") << c.dump(2);
    EXPECT_EQ(c["mismatch_ratio"].get<double>(), 0.0) << c.dump(2);
  }
}
