#include "aopt/optimize/optimizer.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <utility>

#include "aopt/common/error.h"
#include "aopt/motifs/edit.h"
#include "aopt/stage1/loop.h"

namespace aopt::optimize {

void optimizer_config::validate() const {
  auto bad = [](const std::string& what) { throw aopt::error(ec::invalid_argument, "optimizer_config: " + what); };
  if (budget == 0) bad("budget must be at least 1 (it counts every evaluation, the base included)");
  if (rounds == 0) bad("rounds must be at least 1");
  if (!stage1 && !stage2) bad("stage1 and stage2 are both off: nothing to search");
  if (top_k == 0) bad("top_k must be at least 1");
  if (!(min_gain >= 0 && min_gain < 1)) bad("min_gain must be in [0, 1)");
}

namespace {

// The job: budget, memory of evaluated candidates, trajectory, best pair, accepted changes.
class job {
 public:
  job(services& svc, const optimizer_config& cfg, const progress_fn& progress)
      : svc_(svc), cfg_(cfg), progress_(progress) {}

  std::size_t remaining() const { return cfg_.budget - std::min(cfg_.budget, res.evaluations); }

  // Evaluates a batch: answers what the job already evaluated from memory, spends one budget
  // unit per other request (dropping requests beyond the budget: their reports are absent).
  struct answer {
    eval_report report;
    bool memo = false;      // from the job's memory: no budget spent
    std::size_t point = 0;  // its trajectory point
  };
  bool tried(const file_map& files) const { return memo_.count(files_key(files)) != 0; }

  std::vector<std::optional<answer>> evaluate(const std::vector<eval_request>& reqs, std::size_t round) {
    std::vector<std::optional<answer>> out(reqs.size());
    std::vector<eval_request> run;
    std::vector<std::size_t> run_at;
    std::map<std::string, std::size_t> in_batch;  // key -> index in run
    std::vector<std::string> keys(reqs.size());
    std::vector<int> source(reqs.size(), -1);     // -1 memo or dropped, else index in run
    for (std::size_t i = 0; i < reqs.size(); ++i) {
      keys[i] = files_key(reqs[i].files);
      if (memo_.count(keys[i]) != 0) continue;
      if (auto it = in_batch.find(keys[i]); it != in_batch.end()) {
        source[i] = static_cast<int>(it->second);
        continue;
      }
      if (run.size() >= remaining()) continue;
      in_batch[keys[i]] = run.size();
      source[i] = static_cast<int>(run.size());
      run.push_back(reqs[i]);
      run_at.push_back(i);
    }
    std::vector<eval_report> reports;
    if (!run.empty()) reports = svc_.evaluate(run);
    if (reports.size() != run.size()) {
      throw aopt::error(ec::internal, "services::evaluate returned " + std::to_string(reports.size()) +
                                          " reports for " + std::to_string(run.size()) + " requests");
    }
    std::set<std::size_t> first_use;
    for (std::size_t j = 0; j < run.size(); ++j) {
      mark_suspect(reports[j]);
      memo_[keys[run_at[j]]] = reports[j];
      first_use.insert(run_at[j]);
    }
    for (std::size_t i = 0; i < reqs.size(); ++i) {
      auto it = memo_.find(keys[i]);
      if (it == memo_.end()) continue;  // dropped: over budget
      const bool fresh = first_use.count(i) != 0;
      out[i] = answer{it->second, !fresh, res.trajectory.size()};
      trajectory_point p;
      p.index = res.trajectory.size();
      p.round = round;
      p.stage = reqs[i].stage;
      p.proposal = reqs[i].proposal;
      p.status = it->second.status;
      if (it->second.ok) p.latency_us = it->second.latency_us;
      p.memo = !fresh;
      p.cached = fresh && it->second.cached;
      p.suspect = it->second.suspect;
      if (fresh) {
        ++res.evaluations;
        if (!it->second.ok) ++res.failures;
        if (it->second.suspect) ++res.suspects;
      } else {
        ++res.memo_hits;
      }
      p.evaluations = res.evaluations;
      p.best_us = res.best_us;
      res.trajectory.push_back(std::move(p));
    }
    return out;
  }

  // Makes `files` the best when its report beats the best by min_gain; returns whether it did.
  bool offer(const file_map& files, const eval_report& r, std::size_t point, std::size_t round, const std::string& stage,
             const std::string& title, const std::string& rationale, const std::vector<std::string>& ids) {
    if (!r.ok || r.suspect) return false;
    if (!(r.latency_us < res.best_us * (1.0 - cfg_.min_gain))) return false;
    accepted_change c;
    c.round = round;
    c.stage = stage;
    c.title = title;
    c.rationale = rationale;
    c.experience_ids = ids;
    c.diff = motifs::unified_diff(res.best_files, files);
    c.before_us = res.best_us;
    c.after_us = r.latency_us;
    c.profile_before = res.best ? res.best->profile : nlohmann::json::object();
    c.profile_after = r.profile;
    res.changes.push_back(std::move(c));
    history_.push_back({files, r});
    res.best_files = files;
    res.best = r;
    res.best_us = r.latency_us;
    // Mark the point that produced the new best; later points carry the new best.
    if (point < res.trajectory.size()) res.trajectory[point].accepted = true;
    for (std::size_t i = point; i < res.trajectory.size(); ++i) res.trajectory[i].best_us = r.latency_us;
    say("stage", "accepted (" + stage + "): " + title);
    return true;
  }

  void say(const std::string& kind, const std::string& msg, const trajectory_point* p = nullptr) {
    if (progress_) progress_({kind, msg, p});
  }
  void report_points(std::size_t from) {
    if (!progress_) return;
    for (std::size_t i = from; i < res.trajectory.size(); ++i) say("point", res.trajectory[i].proposal, &res.trajectory[i]);
  }

  // The accepted states, oldest first (the base, then each accepted change).
  std::vector<std::pair<file_map, eval_report>> history_;
  // Stage I's history of the last round, with the key of the best files its template was
  // synthesized from: reused when the next round starts from the same files, so the mutator
  // does not propose again what it already tried.
  std::optional<std::pair<std::string, stage1::stage1_history>> stage1_memory_;
  optimize_result res;

 private:
  void mark_suspect(eval_report& r) const {
    if (r.ok && r.bound_us && r.latency_us < *r.bound_us * (1.0 - 1e-9)) r.suspect = true;
  }

  services& svc_;
  const optimizer_config& cfg_;
  const progress_fn& progress_;
  std::map<std::string, eval_report> memo_;
};

file_map merged(const file_map& base, const std::map<std::string, std::string>& changed) {
  file_map out = base;
  for (const auto& [p, c] : changed) out[p] = c;
  return out;
}

std::string one_line(const std::string& s) {
  std::string out;
  for (char c : s) out.push_back(c == '\n' ? ' ' : c);
  return out;
}

void stage1_round(job& j, services& svc, const optimizer_config& cfg, std::size_t n, std::size_t round,
                  round_summary& sum) {
  auto tmpl = svc.synthesize_template(synthesis_input_of(j.res.best_files));
  if (!tmpl.ok()) {
    sum.stage1_stop = "engine: " + tmpl.reason();
    return;
  }
  const stage1::tiling_template& t = tmpl.value();
  const std::string start_key = files_key(j.res.best_files);
  stage1::stage1_history history;
  if (j.stage1_memory_ && j.stage1_memory_->first == start_key) history = std::move(j.stage1_memory_->second);
  j.stage1_memory_.reset();
  // The template's base values are the current best: seed the history with its evaluation.
  if (!history.evaluated(t.base())) {
    stage1::tiling_proposal p;
    p.values = t.base();
    p.op = "base";
    p.description = "current best";
    const auto& b = *j.res.best;
    history.record(p, stage1::eval_outcome{b.ok, b.latency_us, b.status, b.diagnostic, true});
  }
  std::map<std::string, std::pair<eval_report, std::size_t>> reports;  // files key -> report, point
  auto propose = [&svc](const stage1::tiling_template& tt, const stage1::stage1_history& h, std::size_t k) {
    return svc.propose_tiling(tt, h, k);
  };
  auto batch = [&](const std::vector<stage1::tiling_proposal>& ps) {
    std::vector<eval_request> reqs;
    for (const auto& p : ps) {
      reqs.push_back({merged(j.res.best_files, p.files), "tiling", static_cast<int>(round),
                      p.description.empty() ? p.op : p.description, std::nullopt});
    }
    const std::size_t from = j.res.trajectory.size();
    const auto got = j.evaluate(reqs, round);
    j.report_points(from);
    std::vector<stage1::eval_outcome> out;
    for (std::size_t i = 0; i < ps.size(); ++i) {
      if (!got[i]) {
        out.push_back({false, 0, "skipped", "over budget", true});
        continue;
      }
      const auto& r = got[i]->report;
      const bool was_memo = got[i]->memo;
      reports[files_key(reqs[i].files)] = {r, got[i]->point};
      // A suspect result is not a passing variant: it must not become Stage I's best.
      out.push_back({r.ok && !r.suspect, r.latency_us, r.suspect ? "suspect" : r.status, r.diagnostic, was_memo});
    }
    return out;
  };
  stage1::stage1_config sc;
  sc.steps = cfg.stage1_steps;
  sc.proposals_per_step = n;
  sc.budget = j.remaining();
  sc.evaluate_base = false;
  j.say("stage", "round " + std::to_string(round + 1) + ": Stage I (tiling, " + std::to_string(t.tunables.size()) +
                     " tunables in " + t.function_name + ")");
  const auto sr = stage1::run_stage1(t, propose, batch, sc, history);
  sum.stage1_stop = sr.stop_reason;
  j.stage1_memory_.emplace(start_key, std::move(history));
  if (sr.best && sr.best != t.base()) {
    // A free-form rewrite (an LLM engine's tiling logic change) has no values: use its files.
    const bool free_form = sr.best->empty();
    const file_map files = merged(j.res.best_files, free_form ? file_map(sr.best_files.begin(), sr.best_files.end())
                                                              : t.instantiate(*sr.best));
    auto it = reports.find(files_key(files));
    if (it != reports.end()) {
      j.offer(files, it->second.first, it->second.second, round, "tiling",
              free_form ? sr.best_description : t.describe_change(*sr.best),
              "Stage I: best of " + std::to_string(sr.evaluations) + " tiling variant(s) this round", {});
    }
  }
}

search::experience distill_change(const accepted_change& c, const search::diagnosis& d, const std::string& op,
                                  const eval_report& r, const std::string& motif) {
  search::experience e;
  e.title = c.title;
  e.description = c.rationale;
  e.bottleneck = d.primary() != nullptr ? search::to_string(d.primary()->kind) : "unclassified";
  e.code_diff = c.diff;
  e.evidence = search::experience_evidence{op, c.before_us, c.after_us, r.backend, r.profile_name};
  e.motif = motif;
  e.origin = search::provenance::refinement;
  search::finalize(e);
  return e;
}

void stage2_round(job& j, services& svc, const optimizer_config& cfg, std::size_t n, std::size_t round,
                  round_summary& sum) {
  j.say("stage", "round " + std::to_string(round + 1) + ": Stage II (kernel)");
  sum.stage2_stop = "steps done";
  for (std::size_t step = 0; step < cfg.stage2_steps; ++step) {
    if (j.remaining() == 0) {
      sum.stage2_stop = "budget exhausted";
      return;
    }
    auto d = svc.diagnose(j.res.best->profile, j.res.best_files);
    if (!d.ok()) {
      sum.stage2_stop = "engine: " + d.reason();
      return;
    }
    const search::diagnosis& diag = d.value();
    sum.diagnoses.push_back(diag.primary() != nullptr
                                ? std::string(search::to_string(diag.primary()->kind)) + ": " + diag.primary()->evidence
                                : "no bottleneck found: " + diag.summary);
    // Retrieve; widen k while every rewrite it gives was already evaluated.
    std::vector<search::kernel_rewrite> fresh;
    std::string why_none;
    for (std::size_t k = cfg.top_k; fresh.empty(); k *= 2) {
      const auto tuples = svc.retrieve(diag, k);
      if (tuples.empty()) {
        why_none = "the experience bank has nothing for this diagnosis";
        break;
      }
      auto rw = svc.refine(j.res.best_files, tuples);
      if (rw.ok()) {
        for (auto& r : rw.value()) {
          // the job memory answers repeats: keep only rewrites not tried yet
          if (!j.tried(merged(j.res.best_files, r.files))) fresh.push_back(std::move(r));
        }
      } else {
        why_none = rw.reason();
      }
      if (tuples.size() < k || k >= 256) {
        if (fresh.empty() && why_none.empty()) why_none = "every rewrite of the retrieved experience was already tried";
        break;
      }
    }
    if (fresh.empty() && cfg.unguided_fallback) {
      // Nothing the bank knows applies any more: the engine's own rewrites, unguided.
      auto rw = svc.refine(j.res.best_files, {});
      if (rw.ok()) {
        for (auto& r : rw.value()) {
          if (j.tried(merged(j.res.best_files, r.files))) continue;
          r.rationale = "unguided (no experience of the bank applies): " + r.rationale;
          fresh.push_back(std::move(r));
        }
      }
    }
    if (fresh.empty()) {
      sum.stage2_stop = "no new rewrite: " + why_none;
      return;
    }
    if (fresh.size() > n) fresh.resize(n);
    std::vector<eval_request> reqs;
    for (const auto& r : fresh) {
      reqs.push_back({merged(j.res.best_files, r.files), "kernel", static_cast<int>(round), r.title, std::nullopt});
    }
    const std::size_t from = j.res.trajectory.size();
    const auto got = j.evaluate(reqs, round);
    j.report_points(from);
    // The best improvement of the batch is kept.
    std::optional<std::size_t> best;
    for (std::size_t i = 0; i < got.size(); ++i) {
      if (!got[i] || !got[i]->report.ok || got[i]->report.suspect) continue;
      if (!best || got[i]->report.latency_us < got[*best]->report.latency_us) best = i;
    }
    if (best) {
      const auto& rw = fresh[*best];
      const eval_report before = *j.res.best;
      if (j.offer(reqs[*best].files, got[*best]->report, got[*best]->point, round, "kernel", rw.title,
                  one_line(sum.diagnoses.back()) + " | " + rw.rationale, rw.experience_ids)) {
        std::string motif;
        const std::string marker = "motif ";
        if (auto p = rw.rationale.rfind(marker); p != std::string::npos) motif = rw.rationale.substr(p + marker.size());
        svc.learn(distill_change(j.res.changes.back(), diag, before.result.value("kernel", std::string()), got[*best]->report,
                                 motif));
      }
    }
  }
}

}  // namespace

optimize_result run_optimizer(const file_map& base_files, services& svc, const optimizer_config& cfg,
                              const progress_fn& progress) {
  cfg.validate();
  job j(svc, cfg, progress);
  j.res.engine = svc.engine_name();
  j.res.base_files = base_files;
  j.res.best_files = base_files;
  const std::size_t n = cfg.proposals_per_step != 0 ? cfg.proposals_per_step : std::max<std::size_t>(2, svc.parallelism());

  j.say("stage", "evaluating the base");
  const auto base = j.evaluate({{base_files, "base", 0, "base", std::nullopt}}, 0);
  j.report_points(0);
  j.res.base = base[0].value().report;
  if (!j.res.base.ok) {
    j.res.stop_reason = "base failed: " + j.res.base.status + (j.res.base.diagnostic.empty() ? "" : ": " + j.res.base.diagnostic);
    j.say("done", j.res.stop_reason);
    return std::move(j.res);
  }
  j.res.base_us = j.res.base.latency_us;
  j.res.best = j.res.base;
  j.res.best_us = j.res.base_us;
  j.history_.push_back({base_files, j.res.base});
  if (!j.res.trajectory.empty()) j.res.trajectory.back().best_us = j.res.base_us;

  // Algorithm 1: R rounds; then up to extra_rounds more while budget remains and a round still
  // evaluates something new (the budget is the user's: leaving it unspent helps nobody).
  // A round that evaluates nothing new ends the job once the R rounds are done, or when the
  // round before it was empty too: an engine whose proposals failed once (a model's malformed
  // answer, a timeout) gets another chance within the R rounds.
  std::size_t round = 0;
  bool last_empty = false;
  for (;; ++round) {
    if (j.remaining() == 0) {
      j.res.stop_reason = "budget exhausted";
      break;
    }
    if (round >= cfg.rounds + cfg.extra_rounds) {
      j.res.stop_reason = "rounds done";
      break;
    }
    round_summary sum;
    sum.round = round;
    const std::size_t before = j.res.evaluations;
    if (cfg.stage1) stage1_round(j, svc, cfg, n, round, sum);
    if (cfg.stage2 && j.remaining() > 0) stage2_round(j, svc, cfg, n, round, sum);
    sum.best_us_after = j.res.best_us;
    j.res.rounds.push_back(sum);
    const bool empty = j.res.evaluations == before;
    if (empty && (last_empty || round + 1 >= cfg.rounds)) {
      j.res.stop_reason = "no new candidate: " + (cfg.stage1 ? sum.stage1_stop : std::string()) +
                          (cfg.stage1 && cfg.stage2 ? "; " : "") + (cfg.stage2 ? sum.stage2_stop : std::string());
      break;
    }
    last_empty = empty;
  }

  // Verification on fresh inputs: walk back through the accepted states until one passes.
  if (cfg.verify && j.history_.size() > 1) {
    while (j.history_.size() > 1) {
      const auto& [files, rep] = j.history_.back();
      const auto v = svc.evaluate({{files, "verify", 0, "verification on fresh inputs", cfg.verify_seed}});
      j.res.verification = v.at(0);
      j.say("stage", std::string("verification on fresh inputs: ") + (v.at(0).ok ? "passed" : "FAILED: " + v.at(0).status));
      if (v.at(0).ok) break;
      j.history_.pop_back();
      j.res.changes.pop_back();
      j.res.best_files = j.history_.back().first;
      j.res.best = j.history_.back().second;
      j.res.best_us = j.res.best->latency_us;
    }
  }
  j.res.speedup = j.res.best_us > 0 ? j.res.base_us / j.res.best_us : 1.0;
  j.say("done", j.res.stop_reason);
  return std::move(j.res);
}

}  // namespace aopt::optimize
