// The Stage I loop with a dummy evaluator (a synthetic latency landscape) and the offline
// engine: exact budget accounting, cache hits, determinism, zero tolerance.
#include <gtest/gtest.h>

#include <cmath>
#include <iostream>

#include "aopt/stage1/loop.h"
#include "aopt/optimize/offline_engine.h"

namespace aopt::stage1 {
namespace {

using aopt::optimize::offline_engine;
using aopt::optimize::offline_engine_config;

const char* kSource = R"(namespace optiling {
constexpr uint32_t TILE_LENGTH = 4096;
constexpr uint32_t BUFFER_NUM = 2;
constexpr uint32_t QUEUE_NUM = 3;
static ge::graphStatus TilingFunc(gert::TilingContext* context)
{
    auto platform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
    uint32_t coreNum = platform.GetCoreNumAiv();
    tiling.set_tileLength(TILE_LENGTH / (BUFFER_NUM * QUEUE_NUM));
    context->SetBlockDim(coreNum);
    return ge::GRAPH_SUCCESS;
}
}
)";

tiling_template make_template(const char* src = kSource) {
  synthesis_input in;
  in.host_files.push_back({"op_host/t.cpp", src});
  auto r = synthesize(in);
  if (!r.tmpl) throw std::runtime_error(r.error->reason);
  return *r.tmpl;
}

// Latency: best at TILE_LENGTH 16384, QUEUE_NUM 3, all cores; BUFFER_NUM = 1 would be fastest
// but always fails (UB overflow), as does TILE_LENGTH above 32768. Counts calls.
struct dummy_evaluator {
  const tiling_template* t = nullptr;
  int calls = 0;
  eval_outcome operator()(const tiling_proposal& p) {
    ++calls;
    EXPECT_FALSE(p.files.empty());
    const auto tile = p.values[*t->find("TILE_LENGTH")];
    const auto bufs = p.values[*t->find("BUFFER_NUM")];
    const auto queues = p.values[*t->find("QUEUE_NUM")];
    const auto cores = p.values[*t->find("core_count")];
    if (bufs == 1 || tile > 32768) return {false, 0, "resource_error", "UB overflow"};
    const double used = cores == 0 ? 40.0 : static_cast<double>(cores);
    const double lat = 10.0 + std::abs(std::log2(static_cast<double>(tile) / 16384.0)) * 3.0 +
                       static_cast<double>(queues - 3) * 0.5 + 400.0 / used;
    return {true, lat, "ok", ""};
  }
};

offline_engine make_engine(std::uint64_t seed) {
  offline_engine_config cfg;
  cfg.seed = seed;
  return offline_engine(cfg);
}

TEST(Stage1Loop, ExactBudgetAndCandidateCounts) {
  const auto t = make_template();
  auto engine = make_engine(17);
  dummy_evaluator ev{&t};
  stage1_history h;
  stage1_config cfg;
  cfg.steps = 10;
  cfg.proposals_per_step = 2;
  cfg.budget = 7;
  const auto res = run_stage1(t, engine, std::ref(ev), cfg, h);
  EXPECT_EQ(res.evaluations, 7u);      // base + 2 + 2 + 2
  EXPECT_EQ(ev.calls, 7);
  EXPECT_EQ(res.steps_run, 3u);
  EXPECT_EQ(res.cache_hits, 0u);
  EXPECT_EQ(res.trials.size(), 7u);
  EXPECT_EQ(h.size(), 7u);
  EXPECT_EQ(res.stop_reason, "budget exhausted");
  EXPECT_EQ(res.trials[0].op, "base");
  ASSERT_TRUE(res.base_latency_us);
  EXPECT_DOUBLE_EQ(*res.base_latency_us, 10.0 + 2 * 3.0 + 10.0);
  EXPECT_EQ(res.failures, h.failures().size());
}

TEST(Stage1Loop, DeterministicForASeed) {
  const auto t = make_template();
  auto run = [&](std::uint64_t seed) {
    auto engine = make_engine(seed);
    dummy_evaluator ev{&t};
    stage1_history h;
    stage1_config cfg;
    cfg.steps = 6;
    cfg.proposals_per_step = 4;
    cfg.budget = 20;
    const auto res = run_stage1(t, engine, std::ref(ev), cfg, h);
    std::vector<std::string> trail;
    for (const auto& tr : res.trials) trail.push_back(tr.op + " " + tr.description + " " + tr.outcome.status);
    return std::make_pair(trail, res.best_latency_us);
  };
  const auto a = run(123), b = run(123), c = run(124);
  EXPECT_EQ(a, b);
  EXPECT_NE(a.first, c.first);
}

TEST(Stage1Loop, FailuresNeverBecomeBestAndTheBestImproves) {
  const auto t = make_template();
  const std::uint64_t seed = 2024;
  std::cout << "seed " << seed << "\n";
  auto engine = make_engine(seed);
  dummy_evaluator ev{&t};
  stage1_history h;
  stage1_config cfg;
  cfg.steps = 20;
  cfg.proposals_per_step = 4;
  cfg.budget = 40;
  const auto res = run_stage1(t, engine, std::ref(ev), cfg, h);
  EXPECT_EQ(res.evaluations, 40u);
  EXPECT_GT(res.failures, 0u);
  ASSERT_TRUE(res.best);
  EXPECT_EQ((*res.best)[*t.find("BUFFER_NUM")], 2);
  EXPECT_LE((*res.best)[*t.find("TILE_LENGTH")], 32768);
  EXPECT_TRUE(res.improved);
  EXPECT_LT(res.best_latency_us, *res.base_latency_us);
  double best_ok = 1e300;
  for (const auto& tr : res.trials) {
    if (tr.outcome.ok) best_ok = std::min(best_ok, tr.outcome.latency_us);
  }
  EXPECT_DOUBLE_EQ(res.best_latency_us, best_ok);
  // A second round on the same history continues, spending only new evaluations.
  const auto res2 = run_stage1(t, engine, std::ref(ev), cfg, h);
  EXPECT_EQ(res2.evaluations, 40u);
  EXPECT_EQ(h.size(), 80u);
  EXPECT_LE(res2.best_latency_us, res.best_latency_us);
  EXPECT_EQ(ev.calls, 80);
}

// An engine that repeats itself: repeated proposals are cache hits and cost no budget.
class repeating_engine final : public search::engine {
 public:
  explicit repeating_engine(const tiling_template& t) : t_(t) {}
  std::string name() const override { return "repeating"; }
  search::outcome<tiling_template> synthesize_template(const synthesis_input&) override {
    return search::engine_failure{"not used"};
  }
  search::outcome<std::vector<tiling_proposal>> propose_tiling_variants(const tiling_template&, const stage1_history&,
                                                                        std::size_t n) override {
    std::vector<tiling_proposal> out;
    for (std::size_t i = 0; i < n; ++i) {
      tiling_proposal p;
      p.values = t_.base();
      p.values[0] = (i % 2 == 0) ? 8192 : 2048;  // two distinct variants, proposed again and again
      p.op = "repeat";
      out.push_back(p);
    }
    return out;
  }
  search::outcome<std::vector<search::deopt_step>> deoptimize(const search::file_map&) override {
    return search::engine_failure{"not used"};
  }
  search::outcome<search::experience> distill(const search::deopt_step&) override {
    return search::engine_failure{"not used"};
  }
  search::outcome<search::diagnosis> diagnose(const nlohmann::json&, const search::file_map&) override {
    return search::engine_failure{"not used"};
  }
  search::outcome<std::vector<search::kernel_rewrite>> rewrite_kernel(const search::file_map&,
                                                                      const std::vector<search::experience>&) override {
    return search::engine_failure{"not used"};
  }

 private:
  const tiling_template& t_;
};

TEST(Stage1Loop, CacheHitsDoNotSpendBudget) {
  const auto t = make_template();
  repeating_engine engine(t);
  dummy_evaluator ev{&t};
  stage1_history h;
  stage1_config cfg;
  cfg.steps = 5;
  cfg.proposals_per_step = 4;
  cfg.budget = 10;
  const auto res = run_stage1(t, engine, std::ref(ev), cfg, h);
  EXPECT_EQ(res.evaluations, 3u);  // base, 8192, 2048
  EXPECT_EQ(ev.calls, 3);
  EXPECT_EQ(res.cache_hits, 5u * 4u - 2u);
  EXPECT_EQ(res.trials.size(), 1u + 20u);
  EXPECT_EQ(res.stop_reason, "steps done");
}

TEST(Stage1Loop, EngineWithNothingToMutateStopsWithItsReason) {
  const char* src = R"(namespace optiling {
static ge::graphStatus TilingFunc(gert::TilingContext* context)
{
    context->SetTilingKey(1);
    return ge::GRAPH_SUCCESS;
}
}
)";
  const auto t = make_template(src);
  auto engine = make_engine(1);
  int calls = 0;
  stage1_history h;
  const auto res = run_stage1(
      t, engine, [&](const tiling_proposal&) { ++calls; return eval_outcome{true, 5, "ok", ""}; }, stage1_config{}, h);
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(res.evaluations, 1u);
  EXPECT_NE(res.stop_reason.find("engine: the template of TilingFunc has no tunable"), std::string::npos);
  EXPECT_FALSE(res.improved);
}

TEST(Stage1Loop, ZeroBudgetEvaluatesNothing) {
  const auto t = make_template();
  auto engine = make_engine(1);
  dummy_evaluator ev{&t};
  stage1_history h;
  stage1_config cfg;
  cfg.budget = 0;
  const auto res = run_stage1(t, engine, std::ref(ev), cfg, h);
  EXPECT_EQ(res.evaluations, 0u);
  EXPECT_EQ(ev.calls, 0);
  EXPECT_FALSE(res.best);
}

// A free-form rewrite (an LLM engine's logic change: files, no values) can win Stage I; the
// result then carries its files, since there are no values to instantiate.
TEST(Stage1Loop, FreeFormRewriteCarriesItsFiles) {
  const auto t = make_template();
  stage1_history h;
  int asked = 0;
  const proposer propose = [&](const tiling_template&, const stage1_history&, std::size_t) {
    ++asked;
    tiling_proposal p;
    p.op = "llm-rewrite";
    p.description = "split by rows instead of elements";
    p.files = {{"op_host/t.cpp", std::string(kSource) + "// rewritten\n"}};
    return search::outcome<std::vector<tiling_proposal>>(std::vector<tiling_proposal>{p});
  };
  const batch_evaluator batch = [&](const std::vector<tiling_proposal>& ps) {
    std::vector<eval_outcome> out;
    for (const auto& p : ps) out.push_back(p.values.empty() ? eval_outcome{true, 4, "ok", ""} : eval_outcome{true, 9, "ok", ""});
    return out;
  };
  stage1_config cfg;
  cfg.steps = 1;
  const auto res = run_stage1(t, propose, batch, cfg, h);
  EXPECT_EQ(asked, 1);
  ASSERT_TRUE(res.best);
  EXPECT_TRUE(res.best->empty());
  EXPECT_TRUE(res.improved);
  EXPECT_EQ(res.best_description, "split by rows instead of elements");
  ASSERT_EQ(res.best_files.count("op_host/t.cpp"), 1u);
  EXPECT_NE(res.best_files.at("op_host/t.cpp").find("// rewritten"), std::string::npos);
  // A later round starting from this history never picks the rewrite (its files are not kept
  // by the history) but the best variant with values.
  stage1_config none;
  none.steps = 0;
  const auto again = run_stage1(t, propose, batch, none, h);
  ASSERT_TRUE(again.best);
  EXPECT_FALSE(again.best->empty());
}

TEST(Stage1Engine, OfflineEngineSteps) {
  auto engine = make_engine(5);
  EXPECT_EQ(engine.name(), "offline");
  synthesis_input in;
  in.host_files.push_back({"op_host/t.cpp", kSource});
  const auto t = engine.synthesize_template(in);
  ASSERT_TRUE(t.ok()) << t.reason();
  EXPECT_EQ(t.value().tunables.size(), 4u);
  stage1_history h;
  const auto props = engine.propose_tiling_variants(t.value(), h, 3);
  ASSERT_TRUE(props.ok());
  ASSERT_EQ(props.value().size(), 3u);
  for (const auto& p : props.value()) EXPECT_EQ(p.files, t.value().instantiate(p.values));
  synthesis_input none;
  none.host_files.push_back({"op_host/x.cpp", "int x;"});
  const auto bad = engine.synthesize_template(none);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.reason().find("TilingFunc"), std::string::npos);
  EXPECT_FALSE(engine.deoptimize({}).ok());
  EXPECT_FALSE(engine.rewrite_kernel({}, {}).ok());  // no kernel, no motif site
  const auto d = engine.diagnose(nlohmann::json{{"Task Duration(us)", 100.0}, {"aiv_time(us)", 95.0},
                                                {"aiv_mte2_ratio", 0.9}, {"aiv_vec_ratio", 0.1}},
                                 {});
  ASSERT_TRUE(d.ok()) << d.reason();
  ASSERT_NE(d.value().primary(), nullptr);
  EXPECT_EQ(d.value().primary()->kind, search::bottleneck_class::mte2_bound);
  const auto dbad = engine.diagnose(nlohmann::json{{"aiv_mte2_ratio", "x"}}, {});
  EXPECT_FALSE(dbad.ok());
}

}  // namespace
}  // namespace aopt::stage1
