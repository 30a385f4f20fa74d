// The shared bookkeeping of the baselines (search/bench/src/job.h, internal): budget truncation
// inside a batch, memory across and within batches, chunks of parallelism(), verification.
#include <gtest/gtest.h>

#include "fake_services.h"
#include "job.h"

namespace aopt::bench::detail {
namespace {

using test::base_files;
using test::fake_options;
using test::fake_services;
using test::kernel_path;

candidate with_kernel(const std::string& motif) {
  candidate c;
  c.files = base_files();
  c.files[kernel_path] += "// " + motif + "\n";
  c.stage = aopt::vocab::eval_stage::kernel;
  c.proposal = motif;
  return c;
}

TEST(Job, DropsWhatTheBudgetCannotPayAndChunksByParallelism) {
  fake_options o;
  o.parallelism = 2;
  fake_services f(o);
  baseline_config cfg;
  cfg.budget = 4;
  const progress_fn none;
  job j(f, cfg, none);
  ASSERT_TRUE(j.start(base_files()));
  const auto got = j.submit({with_kernel("PIPE"), with_kernel("VEC"), with_kernel("PIPE"), with_kernel("BROKEN"),
                             with_kernel("MAGIC")});
  ASSERT_EQ(got.size(), 5u);
  EXPECT_TRUE(got[0] && got[1] && got[2] && got[3]);
  EXPECT_EQ(*got[2], *got[0]) << "a repeat inside the batch is answered from memory";
  EXPECT_FALSE(got[4].has_value()) << "over budget: dropped, not evaluated";
  EXPECT_TRUE(j.exhausted());
  EXPECT_EQ(f.batch_sizes, (std::vector<std::size_t>{1, 2, 1}));
  // Later repeats are free and the exhausted budget stays exhausted.
  const auto again = j.submit({with_kernel("VEC"), with_kernel("FLAKY")});
  EXPECT_TRUE(again[0].has_value());
  EXPECT_FALSE(again[1].has_value());
  EXPECT_EQ(f.evaluations(), 4u);
  const auto r = j.finish("unused");
  EXPECT_EQ(r.evaluations, 4u);
  EXPECT_EQ(r.memo_hits, 2u);
  EXPECT_EQ(r.failures, 1u);
  EXPECT_EQ(r.stop_reason, "budget exhausted");
  EXPECT_TRUE(fake_services::has(r.best_files.at(kernel_path), "VEC"));
  ASSERT_EQ(r.changes.size(), 2u);  // PIPE, then VEC
  EXPECT_NE(r.changes[1].diff.find("+// VEC"), std::string::npos) << r.changes[1].diff;
  ASSERT_TRUE(r.verification.has_value());
  EXPECT_EQ(f.verifications(), 1u);
}

TEST(Job, VerificationWalksBackThroughAcceptedStates) {
  fake_services f;
  baseline_config cfg;
  cfg.budget = 10;
  const progress_fn none;
  job j(f, cfg, none);
  ASSERT_TRUE(j.start(base_files()));
  j.submit({with_kernel("PIPE")});
  j.submit({with_kernel("FLAKY")});
  const auto r = j.finish("done");
  EXPECT_EQ(r.stop_reason, "done");
  EXPECT_EQ(f.verifications(), 2u);  // FLAKY fails on fresh inputs, PIPE passes
  EXPECT_TRUE(fake_services::has(r.best_files.at(kernel_path), "PIPE"));
  ASSERT_EQ(r.changes.size(), 1u);
  EXPECT_DOUBLE_EQ(r.best_us, r.changes[0].after_us);
  std::size_t verify_points = 0;
  for (const auto& p : r.trajectory) {
    if (p.stage != "verify") continue;
    ++verify_points;
    EXPECT_EQ(p.evaluations, 3u) << "verification is outside the budget";
  }
  EXPECT_EQ(verify_points, 2u);
  EXPECT_DOUBLE_EQ(r.trajectory.back().best_us, r.best_us);
}

}  // namespace
}  // namespace aopt::bench::detail
