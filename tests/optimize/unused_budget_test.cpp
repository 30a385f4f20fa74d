// A search that stops with budget left says how much and why, in its result, report.json and
// report.md (issue 39: "a report says why any budget went unused"). The real offline engine on
// an operator with one tiling choice (the buffer count) and a fake evaluator: Stage I alone
// runs out of variants long before a budget of 40.
#include <gtest/gtest.h>

#include <iostream>
#include <string>

#include "aopt/optimize/offline_engine.h"
#include "aopt/optimize/optimizer.h"
#include "aopt/optimize/report.h"

namespace aopt::optimize {
namespace {

const char* kHost = R"(#include "register/op_def_registry.h"
namespace optiling {
constexpr uint32_t BUFFER_NUM = 2;
static ge::graphStatus TilingFunc(gert::TilingContext* context)
{
    tiling.set_bufferNum(BUFFER_NUM);
    context->SetBlockDim(context->GetInputShape(0)->GetStorageShape().GetDim(0));
    return ge::GRAPH_SUCCESS;
}
}
)";

const char* kKernel = R"(#include "kernel_operator.h"
extern "C" __global__ __aicore__ void k(GM_ADDR x, GM_ADDR y, GM_ADDR tiling) {}
)";

// 30 us with two buffers, 31 with any other count; `fail` makes every evaluation fail.
eval_report fake(const eval_request& r, bool fail) {
  eval_report out;
  out.backend = "sim";
  out.profile_name = "fake";
  if (fail) {
    out.status = aopt::vocab::eval_status::compile_error;
    out.diagnostic = "k.cpp:2: broken";
    return out;
  }
  const bool two = r.files.at("op_host/t.cpp").find("BUFFER_NUM = 2;") != std::string::npos;
  out.ok = true;
  out.status = aopt::vocab::eval_status::ok;
  out.latency_us = two ? 30.0 : 31.0;
  out.bound_us = 1.0;
  return out;
}

optimize_result run(std::size_t budget, bool fail, optimizer_config& cfg) {
  const std::uint64_t seed = 3;
  std::cout << "seed " << seed << "\n";
  offline_engine_config ec;
  ec.seed = seed;
  offline_engine eng(ec);
  std::vector<evaluate_fn> slots = {[fail](const eval_request& r) { return fake(r, fail); }};
  local_services svc(eng, {}, slots, [](const search::experience&) {});
  cfg.budget = budget;
  cfg.stage2 = false;
  return run_optimizer({{"op_host/t.cpp", kHost}, {"op_kernel/k.cpp", kKernel}}, svc, cfg);
}

report_context context(const optimizer_config& cfg) {
  report_context ctx;
  ctx.op_dir = "ops/x";
  ctx.backend = "sim";
  ctx.profile = "fake";
  ctx.config = cfg;
  return ctx;
}

TEST(UnusedBudget, ASearchOutOfIdeasSaysHowMuchBudgetItLeftAndWhy) {
  optimizer_config cfg;
  const auto r = run(40, false, cfg);
  ASSERT_LT(r.evaluations, 40u) << r.stop_reason;
  EXPECT_EQ(r.budget_unused, 40u - r.evaluations);
  EXPECT_NE(r.budget_unused_why.find("no new candidate was left to propose"), std::string::npos) << r.budget_unused_why;
  EXPECT_NE(r.budget_unused_why.find("Stage II is off"), std::string::npos) << r.budget_unused_why;
  const auto j = report_json(r, context(cfg));
  EXPECT_EQ(j["result"]["budget_unused"]["evaluations"], r.budget_unused);
  EXPECT_EQ(j["result"]["budget_unused"]["why"], r.budget_unused_why);
  const std::string md = report_markdown(r, context(cfg));
  EXPECT_NE(md.find("| unused budget | " + std::to_string(r.budget_unused) + " of 40: no new candidate"), std::string::npos)
      << md;
}

TEST(UnusedBudget, ASpentBudgetHasNoUnusedRow) {
  optimizer_config cfg;
  const auto r = run(2, false, cfg);
  ASSERT_EQ(r.evaluations, 2u) << r.stop_reason;
  EXPECT_EQ(r.budget_unused, 0u);
  EXPECT_TRUE(r.budget_unused_why.empty());
  EXPECT_EQ(report_markdown(r, context(cfg)).find("unused budget"), std::string::npos);
  EXPECT_EQ(report_json(r, context(cfg))["result"]["budget_unused"]["evaluations"], 0);
}

TEST(UnusedBudget, AFailedBaseLeavesTheRestOfTheBudgetAndSaysSo) {
  optimizer_config cfg;
  const auto r = run(40, true, cfg);
  EXPECT_EQ(r.evaluations, 1u);
  EXPECT_EQ(r.budget_unused, 39u);
  EXPECT_EQ(r.budget_unused_why.rfind("the base failed", 0), 0u) << r.budget_unused_why;
  EXPECT_NE(r.budget_unused_why.find("compile_error"), std::string::npos) << r.budget_unused_why;
}

TEST(UnusedBudget, TheRoundLimitIsNamedWithTheKeyToRaise) {
  optimizer_config cfg;
  cfg.rounds = 1;
  cfg.extra_rounds = 0;
  cfg.stage1_steps = 1;
  cfg.proposals_per_step = 1;
  const auto r = run(40, false, cfg);
  ASSERT_EQ(r.stop_reason, "rounds done");
  EXPECT_EQ(r.budget_unused, 40u - r.evaluations);
  EXPECT_NE(r.budget_unused_why.find("raise extra_rounds"), std::string::npos) << r.budget_unused_why;
}

}  // namespace
}  // namespace aopt::optimize
