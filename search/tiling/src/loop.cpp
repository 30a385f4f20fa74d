#include "aopt/stage1/loop.h"

#include <algorithm>
#include <map>

#include "aopt/common/error.h"

namespace aopt::stage1 {

void stage1_config::validate() const {
  if (proposals_per_step == 0) {
    throw aopt::error(ec::invalid_argument, "stage1_config: proposals_per_step must be at least 1");
  }
}

stage1_result run_stage1(const tiling_template& tmpl, search::engine& engine, const evaluator& evaluate,
                         const stage1_config& cfg, stage1_history& history) {
  auto propose = [&engine](const tiling_template& t, const stage1_history& h, std::size_t n) {
    return engine.propose_tiling_variants(t, h, n);
  };
  auto batch = [&evaluate](const std::vector<tiling_proposal>& ps) {
    std::vector<eval_outcome> out;
    out.reserve(ps.size());
    for (const auto& p : ps) out.push_back(evaluate(p));
    return out;
  };
  return run_stage1(tmpl, propose, batch, cfg, history);
}

namespace {

// One run of the Stage I loop: its template, rules and history, and what it found so far.
class stage1_run {
 public:
  stage1_run(const tiling_template& tmpl, const batch_evaluator& evaluate, const stage1_config& cfg,
             stage1_history& history, const screener& screen)
      : tmpl_(tmpl), evaluate_(evaluate), cfg_(cfg), history_(history), screen_(screen), base_(tmpl.base()) {}

  stage1_result& result() { return res_; }

  // Start from what the history knows: its best passing variant and the base.
  void start_from_history() {
    if (const auto* b = history_.lookup(base_); b != nullptr && b->outcome.ok) res_.base_latency_us = b->outcome.latency_us;
    for (const auto* e : history_.best(history_.size())) {
      if (e->values.empty()) continue;  // a free-form rewrite of an earlier round: its files are gone
      res_.best = e->values;
      res_.best_latency_us = e->outcome.latency_us;
      res_.best_description = tmpl_.describe_change(e->values);
      break;
    }
  }

  // Probes the tunables one at a time (no budget): the screen says which values of each keep the
  // tiling within what the kernel relies on.
  void probe() {
    const auto* base_entry = history_.lookup(base_);
    if (!screen_ || cfg_.probes_per_tunable == 0 || history_.probed() || base_entry == nullptr || !base_entry->outcome.ok) {
      return;
    }
    const auto ps = probe_proposals();
    if (ps.empty()) return;
    const auto verdicts = screen_(ps);
    if (verdicts.size() != ps.size()) {
      throw aopt::error(ec::internal, "run_stage1: the screener returned " + std::to_string(verdicts.size()) +
                                          " verdicts for " + std::to_string(ps.size()) + " probes");
    }
    probe_map by_tunable;  // kept, tried
    for (std::size_t j = 0; j < ps.size(); ++j) {
      const std::size_t i = ps[j].changed.front();
      const bool passed = !verdicts[j].why;
      history_.record_probe(i, base_[i], ps[j].values[i], passed,
                            passed && verdicts[j].same_tiling && !tmpl_.tunables[i].kernel_linked);
      auto& [kept, tried] = by_tunable[i];
      ++tried;
      if (passed) kept.push_back(ps[j].values[i]);
      if (!passed) ++res_.screened;
    }
    res_.probed += ps.size();
    if (cfg_.note) note_probes(by_tunable);
  }

  void evaluate_base() {
    if (!cfg_.evaluate_base || history_.evaluated(base_) || res_.evaluations >= cfg_.budget) return;
    tiling_proposal p;
    p.values = base_;
    p.op = "base";
    p.description = "base";
    run_step({std::move(p)}, 0);
    if (!res_.trials.empty() && res_.trials.back().outcome.ok) res_.base_latency_us = res_.trials.back().outcome.latency_us;
  }

  // The proposal rounds, until the steps, the budget or the engine's ideas run out.
  void steps(const proposer& propose) {
    res_.stop_reason = "steps done";
    for (std::size_t step = 0; step < cfg_.steps; ++step) {
      if (res_.evaluations >= cfg_.budget) {
        res_.stop_reason = "budget exhausted";
        break;
      }
      std::size_t n = std::min(cfg_.proposals_per_step, cfg_.budget - res_.evaluations);
      ++res_.steps_run;
      bool stop = false;
      // A step asks again for as many proposals as the screener rejected, up to screen_refills times.
      for (std::size_t ask = 0; n > 0 && ask <= (screen_ ? cfg_.screen_refills : 0); ++ask) {
        auto proposals = propose(tmpl_, history_, n);
        if (!proposals.ok()) {
          res_.stop_reason = "engine: " + proposals.reason();
          stop = ask == 0;
          break;
        }
        if (proposals.value().empty()) {
          res_.stop_reason = "engine: no new variant left to propose";
          stop = ask == 0;
          break;
        }
        n = std::min(run_step(std::move(proposals.value()), step), cfg_.budget - res_.evaluations);
      }
      if (stop) break;
      if (res_.stop_reason != "steps done" && !stop) res_.stop_reason = "steps done";
    }
    if (res_.stop_reason == "steps done" && res_.evaluations >= cfg_.budget) res_.stop_reason = "budget exhausted";
    res_.improved = res_.best && res_.base_latency_us && res_.best_latency_us < *res_.base_latency_us;
  }

 private:
  using probe_map = std::map<std::size_t, std::pair<std::vector<std::int64_t>, std::size_t>>;
  // One step's proposals on their way: which the history or the step itself answers, which are
  // fresh (to screen and evaluate), each fresh one's screened tiling.
  struct batch {
    std::vector<tiling_proposal> ps;
    std::vector<stage1_trial> trials;
    std::vector<bool> used;
    std::vector<tiling_proposal> fresh;
    std::vector<std::size_t> fresh_at;                         // index in ps
    std::vector<std::pair<std::size_t, std::size_t>> repeats;  // (index in ps, index in fresh)
    std::vector<std::string> tilings;                          // each fresh proposal's screened tiling
  };

  void consider(const stage1_trial& t) {
    if (!t.outcome.ok) return;
    if (!res_.best || t.outcome.latency_us < res_.best_latency_us) {
      res_.best = t.values;
      res_.best_files = t.files;
      res_.best_latency_us = t.outcome.latency_us;
      res_.best_description = t.description;
    }
  }

  // Whether `a` and `b` differ in a tunable the kernel reads (an empty `a`, a free-form rewrite,
  // differs from everything): then the same tiling is not the same program.
  bool kernel_differs(const assignment& a, const assignment& b) const {
    if (a.size() != b.size()) return true;
    for (std::size_t i = 0; i < a.size(); ++i) {
      if (a[i] != b[i] && tmpl_.tunables[i].kernel_linked) return true;
    }
    return false;
  }

  // The history and the step itself answer what they know; the rest, within the budget, is fresh.
  batch triage(std::vector<tiling_proposal> ps, std::size_t step) {
    batch b;
    b.trials.resize(ps.size());
    b.used.assign(ps.size(), false);
    for (std::size_t i = 0; i < ps.size(); ++i) {
      auto& p = ps[i];
      b.trials[i] = stage1_trial{step, p.values, p.op, p.description, {}, false, p.files};
      if (const auto* hit = p.values.empty() ? nullptr : history_.lookup(p.values)) {
        b.trials[i].outcome = hit->outcome;
        b.trials[i].cached = true;
        b.used[i] = true;
        ++res_.cache_hits;
        continue;
      }
      if (!p.values.empty()) {
        const auto same = std::find_if(b.fresh.begin(), b.fresh.end(), [&](const tiling_proposal& f) { return f.values == p.values; });
        if (same != b.fresh.end()) {  // proposed twice in one step: answered by the first
          b.repeats.emplace_back(i, static_cast<std::size_t>(same - b.fresh.begin()));
          b.used[i] = true;
          continue;
        }
      }
      if (res_.evaluations + b.fresh.size() >= cfg_.budget) break;
      if (p.files.empty()) p.files = tmpl_.instantiate(p.values);
      b.fresh.push_back(p);
      b.fresh_at.push_back(i);
      b.used[i] = true;
    }
    b.tilings.resize(b.fresh.size());
    b.ps = std::move(ps);
    return b;
  }

  // The proposal's twin: a measured variant of the same screened tiling the kernel cannot tell
  // apart from it, or null.
  const std::pair<assignment, eval_outcome>* twin_of(const screen_verdict& v, const assignment& values) const {
    const auto it = measured_.find(v.tiling);
    const std::pair<assignment, eval_outcome>* twin = nullptr;
    if (it != measured_.end()) {
      for (const auto& m : it->second) {
        if (!kernel_differs(m.first, values)) twin = &m;
      }
    }
    return twin;
  }

  // Screens the fresh proposals: rejected ones and the base's program again are recorded
  // unmeasured, one with a measured twin takes its measurement (issue 39); returns how many the
  // screener rejected.
  std::size_t screen_batch(batch& b) {
    if (!screen_ || b.fresh.empty()) return 0;
    const auto verdicts = screen_(b.fresh);
    if (verdicts.size() != b.fresh.size()) {
      throw aopt::error(ec::internal, "run_stage1: the screener returned " + std::to_string(verdicts.size()) +
                                          " verdicts for " + std::to_string(b.fresh.size()) + " proposals");
    }
    std::size_t rejected = 0;
    std::vector<tiling_proposal> kept;
    std::vector<std::size_t> kept_at;
    std::vector<std::string> kept_tilings;
    for (std::size_t j = 0; j < b.fresh.size(); ++j) {
      auto& t = b.trials[b.fresh_at[j]];
      const bool same = verdicts[j].same_tiling && !kernel_differs(b.fresh[j].values, base_);
      const auto* twin = !verdicts[j].why && !same && !verdicts[j].tiling.empty() ? twin_of(verdicts[j], b.fresh[j].values) : nullptr;
      if (twin != nullptr) {
        t.outcome = twin->second;
        t.outcome.memo = true;
        t.outcome.message = "tiles every case as " + tmpl_.describe_change(twin->first) +
                            " does, which was measured: " + twin->second.message;
        t.cached = true;
        ++res_.cache_hits;
        history_.record(b.fresh[j], t.outcome);
        continue;
      }
      if (!verdicts[j].why && !same) {
        kept.push_back(std::move(b.fresh[j]));
        kept_at.push_back(b.fresh_at[j]);
        kept_tilings.push_back(verdicts[j].tiling);
        continue;
      }
      t.outcome = verdicts[j].why ? eval_outcome{false, 0, "screened", *verdicts[j].why, true}
                                  : eval_outcome{false, 0, "same_tiling",
                                                 "every case tiles as the base does and no tunable the kernel reads "
                                                 "changed: the base's program, not measured again",
                                                 true};
      ++res_.screened;
      ++rejected;
      history_.record(b.fresh[j], t.outcome);
    }
    b.fresh = std::move(kept);
    b.fresh_at = std::move(kept_at);
    b.tilings = std::move(kept_tilings);
    return rejected;
  }

  // Evaluates the fresh proposals as one batch and records every trial of the step.
  void evaluate_batch(batch& b) {
    std::vector<eval_outcome> outcomes;
    if (!b.fresh.empty()) outcomes = evaluate_(b.fresh);
    if (outcomes.size() != b.fresh.size()) {
      throw aopt::error(ec::internal, "run_stage1: the batch evaluator returned " + std::to_string(outcomes.size()) +
                                          " outcomes for " + std::to_string(b.fresh.size()) + " proposals");
    }
    for (std::size_t j = 0; j < b.fresh.size(); ++j) {
      auto& t = b.trials[b.fresh_at[j]];
      t.outcome = outcomes[j];
      if (t.outcome.memo) {
        t.cached = true;
        ++res_.cache_hits;
      } else {
        ++res_.evaluations;
        if (!t.outcome.ok) ++res_.failures;
      }
      history_.record(b.fresh[j], t.outcome);
      consider(t);
      if (!b.tilings[j].empty() && !t.outcome.memo) measured_[b.tilings[j]].emplace_back(b.fresh[j].values, t.outcome);
    }
    for (const auto& [i, j] : b.repeats) {
      b.trials[i].outcome = outcomes[j];
      b.trials[i].cached = true;
      ++res_.cache_hits;
    }
    for (std::size_t i = 0; i < b.ps.size(); ++i) {
      if (b.used[i]) res_.trials.push_back(b.trials[i]);
    }
  }

  // Evaluates the proposals the history does not know (as one batch) and records every trial;
  // returns how many the screener rejected.
  std::size_t run_step(std::vector<tiling_proposal> ps, std::size_t step) {
    batch b = triage(std::move(ps), step);
    const std::size_t rejected = screen_batch(b);
    evaluate_batch(b);
    return rejected;
  }

  // Breadth first: every tunable's first ladder value, then every second one, ... so that
  // `max_probes` spreads over all tunables rather than being spent on the first few. In tunable
  // order, as the verdicts are reported.
  std::vector<tiling_proposal> probe_proposals() const {
    std::vector<std::vector<std::int64_t>> ladders;
    for (const auto& t : tmpl_.tunables) ladders.push_back(probe_ladder(t, cfg_.limits, cfg_.probes_per_tunable));
    std::vector<tiling_proposal> ps;
    for (std::size_t rank = 0; ps.size() < cfg_.max_probes; ++rank) {
      bool more = false;
      for (std::size_t i = 0; i < tmpl_.tunables.size() && ps.size() < cfg_.max_probes; ++i) {
        if (rank >= ladders[i].size()) continue;
        more = true;
        tiling_proposal p;
        p.values = base_;
        p.values[i] = ladders[i][rank];
        if (history_.evaluated(p.values) || tmpl_.check(p.values, cfg_.limits)) continue;
        p.op = "probe";
        p.parent = base_;
        p.changed = {i};
        p.description = tmpl_.describe_change(p.values);
        p.files = tmpl_.instantiate(p.values);
        ps.push_back(std::move(p));
      }
      if (!more) break;
    }
    std::stable_sort(ps.begin(), ps.end(), [](const tiling_proposal& a, const tiling_proposal& b) { return a.changed.front() < b.changed.front(); });
    return ps;
  }

  // The probes' notes: the frozen tunables in one line, then each other tunable's feasible values.
  void note_probes(const probe_map& by_tunable) const {
    std::vector<std::string> frozen;
    for (const auto& [i, kt] : by_tunable) {
      if (history_.frozen(i)) frozen.push_back(tmpl_.tunables[i].name);
    }
    if (!frozen.empty()) {
      std::string line = std::to_string(frozen.size()) + " tunable(s) frozen: every probed value tiles every case as the written one does (";
      for (std::size_t k = 0; k < frozen.size(); ++k) line += (k ? ", " : "") + frozen[k];
      cfg_.note(line + "; a branch no case takes, e.g. another dtype's)");
    }
    for (const auto& [i, kt] : by_tunable) {
      const auto& [kept, tried] = kt;
      if (history_.frozen(i)) continue;
      std::string line = tmpl_.tunables[i].name + ": " + std::to_string(kept.size()) + " of " + std::to_string(tried) +
                         " probed values keep the tiling feasible";
      if (!kept.empty()) {
        line += " (";
        for (std::size_t k = 0; k < kept.size(); ++k) line += (k ? ", " : "") + std::to_string(kept[k]);
        line += ")";
      }
      if (kept.size() < tried) line += "; it moves only among those and its written " + std::to_string(base_[i]);
      cfg_.note(line);
    }
  }

  const tiling_template& tmpl_;
  const batch_evaluator& evaluate_;
  const stage1_config& cfg_;
  stage1_history& history_;
  const screener& screen_;
  const assignment base_;
  stage1_result res_;
  // The tilings this run measured (screen_verdict::tiling -> the values and their outcome).
  std::map<std::string, std::vector<std::pair<assignment, eval_outcome>>> measured_;
};

}  // namespace

stage1_result run_stage1(const tiling_template& tmpl, const proposer& propose, const batch_evaluator& evaluate,
                         const stage1_config& cfg, stage1_history& history, const screener& screen) {
  cfg.validate();
  stage1_run run(tmpl, evaluate, cfg, history, screen);
  run.start_from_history();
  run.probe();
  run.evaluate_base();
  run.steps(propose);
  return std::move(run.result());
}

}  // namespace aopt::stage1
