// The offline engine's motif-based steps: kernel rewrites from tuples (by motif id, by diff
// resemblance for imported tuples), unguided rewrites, de-optimization and distillation.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "aopt/optimize/offline_engine.h"

namespace aopt::optimize {
namespace {

search::file_map kernel() {
  std::ifstream in(std::string(AOPT_MOTIFS_TEST_DATA) + "/slow_kernel.cpp");
  std::stringstream ss;
  ss << in.rdbuf();
  return {{"op_kernel/k.cpp", ss.str()}};
}

search::experience imported(std::string title, std::string diff) {
  search::experience e;
  e.title = std::move(title);
  e.description = "imported";
  e.bottleneck = "Pipeline serialization";
  e.code_diff = std::move(diff);
  return search::finalize(e);
}

TEST(MotifFor, ByIdThenByDiffResemblance) {
  auto e = imported("a", "-  AscendC::PipeBarrier<PIPE_ALL>();\n");
  EXPECT_EQ(motif_for(e)->id(), "pipe_all_barrier");
  e.code_diff = "-  pipe.InitBuffer(inQueueX, 1, n);\n+  pipe.InitBuffer(inQueueX, BUFFER_NUM, n);\n TQue<QuePosition::VECIN, BUFFER_NUM> q;\n";
  EXPECT_EQ(motif_for(e)->id(), "double_buffer");
  e.code_diff = "-  x = 1;\n+  x = 2;\n";
  EXPECT_EQ(motif_for(e), nullptr);
  e.motif = "tail_balance";
  EXPECT_EQ(motif_for(e)->id(), "tail_balance");
}

TEST(OfflineEngine, RewritesFromATupleApplyItsForwardMotif) {
  offline_engine eng({});
  auto t = imported("Drop full barriers", "-  AscendC::PipeBarrier<PIPE_ALL>();\n");
  const auto rw = eng.rewrite_kernel(kernel(), {t});
  ASSERT_TRUE(rw.ok()) << rw.reason();
  // The motif's site is the loop: one rewrite removes both barriers of its body.
  ASSERT_EQ(rw.value().size(), 1u);
  const std::string& all = rw.value()[0].files.at("op_kernel/k.cpp");
  EXPECT_EQ(all.find("PIPE_ALL"), std::string::npos);
  for (const auto& r : rw.value()) EXPECT_EQ(r.experience_ids, std::vector<std::string>{t.id});
}

TEST(OfflineEngine, UnguidedRewritesCoverEveryForwardMotif) {
  offline_engine eng({});
  const auto rw = eng.rewrite_kernel(kernel(), {});
  ASSERT_TRUE(rw.ok()) << rw.reason();
  std::set<std::string> seen;
  for (const auto& r : rw.value()) seen.insert(r.title);
  EXPECT_GE(rw.value().size(), 5u);
  EXPECT_EQ(seen.size(), rw.value().size());  // no repeats
}

TEST(OfflineEngine, NoSiteIsAFailureWithAReason) {
  offline_engine eng({});
  auto t = imported("x", "-  AscendC::PipeBarrier<PIPE_ALL>();\n");
  const auto rw = eng.rewrite_kernel({{"op_kernel/k.cpp", "#include \"kernel_operator.h\"\nvoid f() {}\n"}}, {t});
  ASSERT_FALSE(rw.ok());
  EXPECT_NE(rw.reason().find("forward motif site"), std::string::npos);
}

TEST(OfflineEngine, DeoptimizeAndDistill) {
  offline_engine eng({});
  const auto fast = eng.rewrite_kernel(kernel(), {}).value().front().files;
  auto steps = eng.deoptimize(fast);
  ASSERT_TRUE(steps.ok()) << steps.reason();
  ASSERT_FALSE(steps.value().empty());
  auto st = steps.value().front();
  EXPECT_FALSE(eng.distill(st).ok());  // not measured yet
  st.fast_us = 10;
  st.slow_us = 15;
  const auto e = eng.distill(st);
  ASSERT_TRUE(e.ok()) << e.reason();
  EXPECT_EQ(e.value().motif, st.motif);
  EXPECT_EQ(e.value().origin, search::provenance::rewind);
  EXPECT_FALSE(e.value().code_diff.empty());
  EXPECT_TRUE(search::validate(e.value()).empty());
}

}  // namespace
}  // namespace aopt::optimize
