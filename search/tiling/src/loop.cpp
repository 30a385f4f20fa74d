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

stage1_result run_stage1(const tiling_template& tmpl, const proposer& propose, const batch_evaluator& evaluate,
                         const stage1_config& cfg, stage1_history& history, const screener& screen) {
  cfg.validate();
  stage1_result res;
  auto consider = [&](const stage1_trial& t) {
    if (!t.outcome.ok) return;
    if (!res.best || t.outcome.latency_us < res.best_latency_us) {
      res.best = t.values;
      res.best_files = t.files;
      res.best_latency_us = t.outcome.latency_us;
      res.best_description = t.description;
    }
  };
  // Start from what the history knows: its best passing variant and the base.
  const assignment base = tmpl.base();
  if (const auto* b = history.lookup(base); b != nullptr && b->outcome.ok) res.base_latency_us = b->outcome.latency_us;
  for (const auto* e : history.best(history.size())) {
    if (e->values.empty()) continue;  // a free-form rewrite of an earlier round: its files are gone
    res.best = e->values;
    res.best_latency_us = e->outcome.latency_us;
    res.best_description = tmpl.describe_change(e->values);
    break;
  }
  // Whether `values` (a template assignment; empty for a free-form rewrite) changes a tunable the
  // kernel reads: then the same tiling is not the same program.
  auto reaches_kernel = [&](const assignment& values) {
    if (values.size() != base.size()) return true;
    for (std::size_t i = 0; i < values.size(); ++i) {
      if (values[i] != base[i] && tmpl.tunables[i].kernel_linked) return true;
    }
    return false;
  };
  // Whether `a` and `b` differ in a tunable the kernel reads.
  auto kernel_differs = [&](const assignment& a, const assignment& b) {
    if (a.size() != b.size()) return true;
    for (std::size_t i = 0; i < a.size(); ++i) {
      if (a[i] != b[i] && tmpl.tunables[i].kernel_linked) return true;
    }
    return false;
  };
  // The tilings this run measured (screen_verdict::tiling -> the values and their outcome).
  std::map<std::string, std::vector<std::pair<assignment, eval_outcome>>> measured;
  // Evaluates the proposals the history does not know (as one batch) and records every trial;
  // returns how many the screener rejected.
  auto run_step = [&](std::vector<tiling_proposal> ps, std::size_t step) -> std::size_t {
    std::vector<tiling_proposal> fresh;
    std::vector<std::size_t> fresh_at;  // index in ps
    std::vector<stage1_trial> trials(ps.size());
    std::vector<bool> used(ps.size(), false);
    std::vector<std::pair<std::size_t, std::size_t>> repeats;  // (index in ps, index in fresh)
    for (std::size_t i = 0; i < ps.size(); ++i) {
      auto& p = ps[i];
      trials[i] = stage1_trial{step, p.values, p.op, p.description, {}, false, p.files};
      if (const auto* hit = p.values.empty() ? nullptr : history.lookup(p.values)) {
        trials[i].outcome = hit->outcome;
        trials[i].cached = true;
        used[i] = true;
        ++res.cache_hits;
        continue;
      }
      if (!p.values.empty()) {
        const auto same = std::find_if(fresh.begin(), fresh.end(), [&](const tiling_proposal& f) { return f.values == p.values; });
        if (same != fresh.end()) {  // proposed twice in one step: answered by the first
          repeats.emplace_back(i, static_cast<std::size_t>(same - fresh.begin()));
          used[i] = true;
          continue;
        }
      }
      if (res.evaluations + fresh.size() >= cfg.budget) break;
      if (p.files.empty()) p.files = tmpl.instantiate(p.values);
      fresh.push_back(p);
      fresh_at.push_back(i);
      used[i] = true;
    }
    std::size_t rejected = 0;
    std::vector<std::string> tilings(fresh.size());  // each fresh proposal's screened tiling
    if (screen && !fresh.empty()) {
      const auto verdicts = screen(fresh);
      if (verdicts.size() != fresh.size()) {
        throw aopt::error(ec::internal, "run_stage1: the screener returned " + std::to_string(verdicts.size()) +
                                            " verdicts for " + std::to_string(fresh.size()) + " proposals");
      }
      std::vector<tiling_proposal> kept;
      std::vector<std::size_t> kept_at;
      std::vector<std::string> kept_tilings;
      for (std::size_t j = 0; j < fresh.size(); ++j) {
        const bool same = verdicts[j].same_tiling && !reaches_kernel(fresh[j].values);
        if (!verdicts[j].why && !same && !verdicts[j].tiling.empty()) {
          // The same program as one measured this run: its measurement answers (issue 39).
          const auto it = measured.find(verdicts[j].tiling);
          const std::pair<assignment, eval_outcome>* twin = nullptr;
          if (it != measured.end()) {
            for (const auto& m : it->second) {
              if (!kernel_differs(m.first, fresh[j].values)) twin = &m;
            }
          }
          if (twin != nullptr) {
            auto& t = trials[fresh_at[j]];
            t.outcome = twin->second;
            t.outcome.memo = true;
            t.outcome.message = "tiles every case as " + tmpl.describe_change(twin->first) +
                                " does, which was measured: " + twin->second.message;
            t.cached = true;
            ++res.cache_hits;
            history.record(fresh[j], t.outcome);
            continue;
          }
        }
        if (!verdicts[j].why && !same) {
          kept.push_back(std::move(fresh[j]));
          kept_at.push_back(fresh_at[j]);
          kept_tilings.push_back(verdicts[j].tiling);
          continue;
        }
        auto& t = trials[fresh_at[j]];
        t.outcome = verdicts[j].why ? eval_outcome{false, 0, "screened", *verdicts[j].why, true}
                                    : eval_outcome{false, 0, "same_tiling",
                                                   "every case tiles as the base does and no tunable the kernel reads "
                                                   "changed: the base's program, not measured again",
                                                   true};
        ++res.screened;
        ++rejected;
        history.record(fresh[j], t.outcome);
      }
      fresh = std::move(kept);
      fresh_at = std::move(kept_at);
      tilings = std::move(kept_tilings);
    }
    std::vector<eval_outcome> outcomes;
    if (!fresh.empty()) outcomes = evaluate(fresh);
    if (outcomes.size() != fresh.size()) {
      throw aopt::error(ec::internal, "run_stage1: the batch evaluator returned " + std::to_string(outcomes.size()) +
                                          " outcomes for " + std::to_string(fresh.size()) + " proposals");
    }
    for (std::size_t j = 0; j < fresh.size(); ++j) {
      auto& t = trials[fresh_at[j]];
      t.outcome = outcomes[j];
      if (t.outcome.memo) {
        t.cached = true;
        ++res.cache_hits;
      } else {
        ++res.evaluations;
        if (!t.outcome.ok) ++res.failures;
      }
      history.record(fresh[j], t.outcome);
      consider(t);
      if (!tilings[j].empty() && !t.outcome.memo) measured[tilings[j]].emplace_back(fresh[j].values, t.outcome);
    }
    for (const auto& [i, j] : repeats) {
      trials[i].outcome = outcomes[j];
      trials[i].cached = true;
      ++res.cache_hits;
    }
    for (std::size_t i = 0; i < ps.size(); ++i) {
      if (used[i]) res.trials.push_back(trials[i]);
    }
    return rejected;
  };

  // Probes the tunables one at a time (no budget): the screen says which values of each keep the
  // tiling within what the kernel relies on.
  auto probe = [&]() {
    // Breadth first: every tunable's first ladder value, then every second one, ... so that
    // `max_probes` spreads over all tunables rather than being spent on the first few.
    std::vector<std::vector<std::int64_t>> ladders;
    for (const auto& t : tmpl.tunables) ladders.push_back(probe_ladder(t, cfg.limits, cfg.probes_per_tunable));
    std::vector<tiling_proposal> ps;
    for (std::size_t rank = 0; ps.size() < cfg.max_probes; ++rank) {
      bool more = false;
      for (std::size_t i = 0; i < tmpl.tunables.size() && ps.size() < cfg.max_probes; ++i) {
        if (rank >= ladders[i].size()) continue;
        more = true;
        tiling_proposal p;
        p.values = base;
        p.values[i] = ladders[i][rank];
        if (history.evaluated(p.values) || tmpl.check(p.values, cfg.limits)) continue;
        p.op = "probe";
        p.parent = base;
        p.changed = {i};
        p.description = tmpl.describe_change(p.values);
        p.files = tmpl.instantiate(p.values);
        ps.push_back(std::move(p));
      }
      if (!more) break;
    }
    // In tunable order, as the verdicts are reported.
    std::stable_sort(ps.begin(), ps.end(), [](const tiling_proposal& a, const tiling_proposal& b) { return a.changed.front() < b.changed.front(); });
    if (ps.empty()) return;
    const auto verdicts = screen(ps);
    if (verdicts.size() != ps.size()) {
      throw aopt::error(ec::internal, "run_stage1: the screener returned " + std::to_string(verdicts.size()) +
                                          " verdicts for " + std::to_string(ps.size()) + " probes");
    }
    std::map<std::size_t, std::pair<std::vector<std::int64_t>, std::size_t>> by_tunable;  // kept, tried
    for (std::size_t j = 0; j < ps.size(); ++j) {
      const std::size_t i = ps[j].changed.front();
      const bool passed = !verdicts[j].why;
      history.record_probe(i, base[i], ps[j].values[i], passed, passed && verdicts[j].same_tiling && !tmpl.tunables[i].kernel_linked);
      auto& [kept, tried] = by_tunable[i];
      ++tried;
      if (passed) kept.push_back(ps[j].values[i]);
      if (!passed) ++res.screened;
    }
    res.probed += ps.size();
    if (!cfg.note) return;
    std::vector<std::string> frozen;
    for (const auto& [i, kt] : by_tunable) {
      if (history.frozen(i)) frozen.push_back(tmpl.tunables[i].name);
    }
    if (!frozen.empty()) {
      std::string line = std::to_string(frozen.size()) + " tunable(s) frozen: every probed value tiles every case as the written one does (";
      for (std::size_t k = 0; k < frozen.size(); ++k) line += (k ? ", " : "") + frozen[k];
      cfg.note(line + "; a branch no case takes, e.g. another dtype's)");
    }
    for (const auto& [i, kt] : by_tunable) {
      const auto& [kept, tried] = kt;
      if (history.frozen(i)) continue;
      std::string line = tmpl.tunables[i].name + ": " + std::to_string(kept.size()) + " of " + std::to_string(tried) +
                         " probed values keep the tiling feasible";
      if (!kept.empty()) {
        line += " (";
        for (std::size_t k = 0; k < kept.size(); ++k) line += (k ? ", " : "") + std::to_string(kept[k]);
        line += ")";
      }
      if (kept.size() < tried) line += "; it moves only among those and its written " + std::to_string(base[i]);
      cfg.note(line);
    }
  };
  const auto* base_entry = history.lookup(base);
  if (screen && cfg.probes_per_tunable > 0 && !history.probed() && base_entry != nullptr && base_entry->outcome.ok) probe();

  if (cfg.evaluate_base && !history.evaluated(base) && res.evaluations < cfg.budget) {
    tiling_proposal p;
    p.values = base;
    p.op = "base";
    p.description = "base";
    run_step({std::move(p)}, 0);
    if (!res.trials.empty() && res.trials.back().outcome.ok) res.base_latency_us = res.trials.back().outcome.latency_us;
  }
  res.stop_reason = "steps done";
  for (std::size_t step = 0; step < cfg.steps; ++step) {
    if (res.evaluations >= cfg.budget) {
      res.stop_reason = "budget exhausted";
      break;
    }
    std::size_t n = std::min(cfg.proposals_per_step, cfg.budget - res.evaluations);
    ++res.steps_run;
    bool stop = false;
    // A step asks again for as many proposals as the screener rejected, up to screen_refills times.
    for (std::size_t ask = 0; n > 0 && ask <= (screen ? cfg.screen_refills : 0); ++ask) {
      auto proposals = propose(tmpl, history, n);
      if (!proposals.ok()) {
        res.stop_reason = "engine: " + proposals.reason();
        stop = ask == 0;
        break;
      }
      if (proposals.value().empty()) {
        res.stop_reason = "engine: no new variant left to propose";
        stop = ask == 0;
        break;
      }
      n = std::min(run_step(std::move(proposals.value()), step), cfg.budget - res.evaluations);
    }
    if (stop) break;
    if (res.stop_reason != "steps done" && !stop) res.stop_reason = "steps done";
  }
  if (res.stop_reason == "steps done" && res.evaluations >= cfg.budget) res.stop_reason = "budget exhausted";
  res.improved = res.best && res.base_latency_us && res.best_latency_us < *res.base_latency_us;
  return res;
}

}  // namespace aopt::stage1
