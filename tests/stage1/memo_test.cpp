// A Stage I proposal whose screened tiling equals one the run already measured (and that
// changes no tunable the kernel reads) runs the same program: it is answered with that
// measurement, no budget spent (issue 39: exp under the core cap was measured twice).
#include <gtest/gtest.h>

#include <iostream>

#include "aopt/stage1/feasibility.h"
#include "aopt/stage1/loop.h"

namespace aopt::stage1 {
namespace {

const char* kHost = R"(namespace optiling {
constexpr uint32_t TILE_LENGTH = 4096;
constexpr uint32_t BUFFER_NUM = 2;
static ge::graphStatus TilingFunc(gert::TilingContext* context)
{
    tiling.set_tileLength(TILE_LENGTH / BUFFER_NUM);
    context->SetBlockDim(8);
    return ge::GRAPH_SUCCESS;
}
}
)";

tiling_template host_template() {
  synthesis_input in;
  in.host_files.push_back({"op_host/t.cpp", kHost});
  auto r = synthesize(in);
  if (!r.tmpl) throw std::runtime_error(r.error->reason);
  return *r.tmpl;
}

TEST(Stage1Memo, AProposalTilingAsOneMeasuredIsAnsweredByIt) {
  const auto t = host_template();
  const auto tile = t.find("TILE_LENGTH");
  const auto bufs = t.find("BUFFER_NUM");
  ASSERT_TRUE(tile && bufs);
  auto with = [&](std::int64_t tl, std::int64_t b) {
    tiling_proposal p;
    p.values = t.base();
    p.values[*tile] = tl;
    p.values[*bufs] = b;
    p.op = "scripted";
    p.description = t.describe_change(p.values);
    return p;
  };
  // Step 1: 8192 / 2; step 2: 16384 / 4, which writes the same tile length (4096) into the
  // tiling data; step 3: 16384 / 2, a new tiling.
  std::vector<std::vector<tiling_proposal>> script = {{with(8192, 2)}, {with(16384, 4)}, {with(16384, 2)}};
  std::size_t step = 0;
  proposer propose = [&](const tiling_template&, const stage1_history&, std::size_t) -> search::outcome<std::vector<tiling_proposal>> {
    if (step >= script.size()) return std::vector<tiling_proposal>{};
    return script[step++];
  };
  int calls = 0;
  batch_evaluator evaluate = [&](const std::vector<tiling_proposal>& ps) {
    std::vector<eval_outcome> out;
    for (const auto& p : ps) {
      ++calls;
      out.push_back({true, 100.0 - static_cast<double>(p.values[*tile] / p.values[*bufs]) / 1024.0, "ok", ""});
    }
    return out;
  };
  // The screen's tiling: the one word the host writes, the tile length.
  screener screen = [&](const std::vector<tiling_proposal>& ps) {
    std::vector<screen_verdict> out;
    for (const auto& p : ps) {
      tiling_facts f;
      f.case_name = "perf";
      f.block_dim = 8;
      f.words = {p.values[*tile] / p.values[*bufs]};
      out.push_back({std::nullopt, p.values == t.base(), tiling_fingerprint({f})});
    }
    return out;
  };
  stage1_history h;
  tiling_proposal base;
  base.values = t.base();
  base.op = "base";
  h.record(base, eval_outcome{true, 99.0, "ok", "", true});
  stage1_config cfg;
  cfg.evaluate_base = false;
  cfg.steps = 3;
  cfg.proposals_per_step = 1;
  cfg.screen_refills = 0;
  cfg.probes_per_tunable = 0;
  cfg.budget = 10;
  const auto res = run_stage1(t, propose, evaluate, cfg, h, screen);
  EXPECT_EQ(calls, 2) << "8192/2 and 16384/2; 16384/4 tiles as 8192/2";
  EXPECT_EQ(res.evaluations, 2u);
  EXPECT_EQ(res.cache_hits, 1u);
  bool memo = false;
  for (const auto& tr : res.trials) {
    if (tr.values != with(16384, 4).values) continue;
    memo = true;
    EXPECT_TRUE(tr.cached);
    EXPECT_TRUE(tr.outcome.ok);
    EXPECT_DOUBLE_EQ(tr.outcome.latency_us, 96.0);
    EXPECT_NE(tr.outcome.message.find("was measured"), std::string::npos) << tr.outcome.message;
  }
  EXPECT_TRUE(memo);
  EXPECT_TRUE(h.evaluated(with(16384, 4).values));
}

}  // namespace
}  // namespace aopt::stage1
