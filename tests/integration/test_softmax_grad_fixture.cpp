// Runs the real `aopt eval` on packages/softmax_grad_rows (issue 38): a vector operator on
// SoftmaxGrad with its host tiling (GetSoftMaxGradMinTmpSize, SoftMaxGradTilingFunc), the idiom
// of math/inplace_fused_matmul_softmax_grad; both forms (the caller's temporary buffer with the
// tiling's shape, the framework's with a SoftMaxShapeInfo for a short last tile), checked against
// an independent reference. Before: the host build failed ("'GetSoftMaxGradMinTmpSize' is not a
// member of 'AscendC'").
#include <gtest/gtest.h>

#include "../support/aopt_process.h"

TEST(SoftmaxGradFixture, RowsAreCorrectWithBothTemporarySpaceForms) {
  aopt::common::process_outcome o;
  const auto j = aopt::testing::eval_package("tests/integration/packages/softmax_grad_rows", o);
  ASSERT_EQ(o.end, aopt::common::process_end::exited) << o.describe() << "\n" << o.err;
  ASSERT_FALSE(j.is_discarded()) << o.out << "\n" << o.err;
  ASSERT_EQ(j.value("status", ""), "ok") << j.dump(2);
  ASSERT_EQ(j["cases"].size(), 2u);
  for (const auto& c : j["cases"]) {
    EXPECT_EQ(c["status"], "ok") << c.dump(2);
    EXPECT_EQ(c["mismatch_ratio"].get<double>(), 0.0) << c.dump(2);
  }
}
