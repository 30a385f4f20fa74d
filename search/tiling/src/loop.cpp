#include "aopt/stage1/loop.h"

#include <algorithm>

#include "aopt/common/error.h"

namespace aopt::stage1 {

void stage1_config::validate() const {
  if (proposals_per_step == 0) {
    throw aopt::error(ec::invalid_argument, "stage1_config: proposals_per_step must be at least 1");
  }
}

stage1_result run_stage1(const tiling_template& tmpl, search::engine& engine, const evaluator& evaluate,
                         const stage1_config& cfg, stage1_history& history) {
  cfg.validate();
  stage1_result res;
  auto consider = [&](const stage1_trial& t) {
    if (!t.outcome.ok) return;
    if (!res.best || t.outcome.latency_us < res.best_latency_us) {
      res.best = t.values;
      res.best_latency_us = t.outcome.latency_us;
      res.best_description = t.description;
    }
  };
  // Start from what the history knows: its best passing variant and the base.
  const assignment base = tmpl.base();
  if (const auto* b = history.lookup(base); b != nullptr && b->outcome.ok) res.base_latency_us = b->outcome.latency_us;
  for (const auto* e : history.best(1)) {
    res.best = e->values;
    res.best_latency_us = e->outcome.latency_us;
    res.best_description = tmpl.describe_change(e->values);
  }
  auto run_one = [&](tiling_proposal p, std::size_t step) {
    stage1_trial t{step, p.values, p.op, p.description, {}, false};
    if (const auto* hit = p.values.empty() ? nullptr : history.lookup(p.values)) {
      t.outcome = hit->outcome;
      t.cached = true;
      ++res.cache_hits;
    } else {
      if (p.files.empty()) p.files = tmpl.instantiate(p.values);
      t.outcome = evaluate(p);
      ++res.evaluations;
      if (!t.outcome.ok) ++res.failures;
      history.record(p, t.outcome);
      consider(t);
    }
    res.trials.push_back(std::move(t));
    return res.trials.back().outcome;
  };

  if (cfg.evaluate_base && !history.evaluated(base) && res.evaluations < cfg.budget) {
    tiling_proposal p;
    p.values = base;
    p.op = "base";
    p.description = "base";
    const eval_outcome o = run_one(std::move(p), 0);
    if (o.ok) res.base_latency_us = o.latency_us;
  }
  res.stop_reason = "steps done";
  for (std::size_t step = 0; step < cfg.steps; ++step) {
    if (res.evaluations >= cfg.budget) {
      res.stop_reason = "budget exhausted";
      break;
    }
    const std::size_t n = std::min(cfg.proposals_per_step, cfg.budget - res.evaluations);
    auto proposals = engine.propose_tiling_variants(tmpl, history, n);
    ++res.steps_run;
    if (!proposals.ok()) {
      res.stop_reason = "engine: " + proposals.reason();
      break;
    }
    if (proposals.value().empty()) {
      res.stop_reason = "engine: no new variant left to propose";
      break;
    }
    for (auto& p : proposals.value()) {
      if (res.evaluations >= cfg.budget && !history.evaluated(p.values)) break;
      run_one(std::move(p), step);
    }
  }
  if (res.stop_reason == "steps done" && res.evaluations >= cfg.budget) res.stop_reason = "budget exhausted";
  res.improved = res.best && res.base_latency_us && res.best_latency_us < *res.base_latency_us;
  return res;
}

}  // namespace aopt::stage1
