#include "aopt/optimize/search_job.h"

#include <cstdio>

#include <algorithm>
#include <set>
#include <utility>

#include "aopt/common/error.h"
#include "aopt/common/stats.h"
#include "aopt/motifs/edit.h"

namespace aopt::optimize {

file_map merged(const file_map& base, const std::map<std::string, std::string>& changed) {
  file_map out = base;
  for (const auto& [path, content] : changed) out[path] = content;
  return out;
}

bool changes_kernel(const file_map& before, const file_map& after) {
  for (const auto& [path, content] : after) {
    if (!is_kernel_file(path)) continue;
    auto it = before.find(path);
    if (it == before.end() || it->second != content) return true;
  }
  for (const auto& [path, content] : before) {
    if (is_kernel_file(path) && !after.count(path)) return true;
  }
  return false;
}

search_job::search_job(const services& svc, job_rules rules, progress_fn progress)
    : svc_(svc), rules_(rules), progress_(std::move(progress)) {
  batch_ = std::max<std::size_t>(1, svc_.runner.parallelism());
  res_.engine = svc_.engine.name();
}

void search_job::say(const std::string& kind, const std::string& message, const trajectory_point* p) const {
  if (progress_) progress_({kind, message, p ? std::optional<trajectory_point>(*p) : std::nullopt});
}

bool search_job::tried(const file_map& files) const { return by_key_.count(files_key(files)) != 0; }

void search_job::mark_suspect(eval_report& r) const {
  // The evaluator marks suspects itself; a latency under the roofline bound is one too,
  // whatever the evaluator said.
  if (r.ok && r.bound_us && r.latency_us < *r.bound_us * (1.0 - 1e-9)) r.suspect = true;
}

void search_job::limit_ub(eval_report& r) const {
  if (!r.ok || accepted_.empty()) return;  // the base itself is what it is
  for (const auto& c : r.cases) {
    if (!c.ub_reserved || !c.ub_usable) continue;
    const std::uint64_t base_used = res_.base.ub_reserved(c.name);
    const std::uint64_t n = *c.ub_reserved, usable = *c.ub_usable, limit = std::max(usable, base_used);
    if (n <= limit) continue;
    r.ok = false;
    r.status = eval_status::runtime_error;
    r.diagnostic = "ub_overflow: case '" + c.name + "' reserves " + std::to_string(n) +
                   " bytes of UB (its InitBuffer calls), over the " + std::to_string(usable) +
                   " a kernel may use (GetCoreMemSize(UB); the rest of the UB is the core's own)" +
                   (base_used > usable ? " and the base's " + std::to_string(base_used) : std::string()) +
                   ": the chip would overwrite its reserved UB; give the kernel smaller tiles";
    return;
  }
}

void search_job::limit_gm_reads(eval_report& r) const {
  if (!r.ok || accepted_.empty()) return;  // the base itself is what it is
  for (const auto& site : r.over_read_sites()) {
    if (base_over_reads_.count(site)) continue;
    r.ok = false;
    r.status = eval_status::runtime_error;
    r.diagnostic = "gm_over_read: at " + site + " the kernel reads GM past an allocation and its padding, which the "
                   "operator as given does not: the chip reads whatever lies there without a fault up to a page "
                   "boundary, so a drop-in replacement must not add such a read; keep copies within the tensors";
    return;
  }
}

bool search_job::start(const file_map& base) {
  res_.base_files = base;
  res_.best_files = base;
  say("stage", "evaluating the base");
  const auto got = evaluate({{base, eval_stage::base, 0, "base", std::nullopt, {}, {}}});
  if (!got.at(0)) throw aopt::error(ec::invalid_argument, "search job: a budget of 0 cannot evaluate the base");
  const entry& b = entries_.at(got[0]->entry);
  res_.base = b.report;
  base_over_reads_ = b.report.over_read_sites();
  if (!b.report.ok) {
    res_.stop_reason = "base failed: " + std::string(to_string(b.report.status)) + (b.report.diagnostic.empty() ? "" : ": " + b.report.diagnostic);
    res_.best.reset();
    return false;
  }
  // The base is the reference: kept even when suspect (there is nothing to fall back on); the
  // suspect count shows the evaluator doubts its own numbers.
  res_.base_us = b.report.latency_us;
  res_.best = b.report;
  res_.best_us = b.report.latency_us;
  accepted_ = {got[0]->entry};
  res_.trajectory.back().best_us = res_.base_us;
  if (res_.base_us < small_case_us) {
    char us[32];
    std::snprintf(us, sizeof us, "%.2f", res_.base_us);
    const std::string w = std::string("the timed case runs ") + us + " us, under " + std::to_string(static_cast<int>(small_case_us)) +
                          " us: mostly the kernel's launch and head cost, so a change of the kernel's body can hardly "
                          "show; give the operator a larger timed case before spending the budget: --timed-shape 64x32768 "
                          "(or aopt.json \"timed_shape\"), or a case of aopt.json with \"timed\": true "
                          "(docs/evaluation.md)";
    res_.warnings.push_back(w);
    say("warning", w);
  }
  return true;
}

void search_job::point(const entry& e, const eval_request& req, bool memo) {
  trajectory_point p;
  p.index = res_.trajectory.size();
  p.evaluations = res_.evaluations;
  p.round = static_cast<std::size_t>(std::max(0, req.round));
  p.stage = to_string(req.stage);
  p.proposal = req.proposal;
  p.status = to_string(e.report.status);
  if (e.report.ok) p.latency_us = e.report.latency_us;
  // Before the base is in (accepted_ empty), the base itself is the best once it passes.
  p.best_us = accepted_.empty() && e.report.ok ? e.report.latency_us : res_.best_us;
  p.memo = memo;
  p.cached = !memo && e.report.cached;
  p.suspect = e.report.suspect;
  if (!e.report.ok) {
    p.diagnostic = e.report.diagnostic.substr(0, e.report.diagnostic.find('\n'));
    if (p.diagnostic.size() > 300) p.diagnostic = p.diagnostic.substr(0, 300) + "...";
  }
  res_.trajectory.push_back(std::move(p));
}

std::vector<std::optional<search_job::answer>> search_job::evaluate(const std::vector<eval_request>& requests) {
  std::vector<std::optional<answer>> out(requests.size());
  std::vector<std::string> keys(requests.size());
  std::vector<std::size_t> fresh;                // indexes of requests to evaluate
  std::map<std::string, std::size_t> in_batch;   // key -> first request with it
  for (std::size_t i = 0; i < requests.size(); ++i) {
    keys[i] = files_key(requests[i].files);
    if (by_key_.count(keys[i]) != 0 || in_batch.count(keys[i]) != 0) continue;
    if (fresh.size() >= remaining()) continue;  // dropped: over budget
    in_batch[keys[i]] = i;
    fresh.push_back(i);
  }
  // One evaluate call per batch_size() requests: a call never holds more than the evaluator
  // runs at once.
  std::vector<eval_report> reports;
  for (std::size_t b = 0; b < fresh.size(); b += batch_) {
    std::vector<eval_request> chunk;
    for (std::size_t k = b; k < std::min(fresh.size(), b + batch_); ++k) chunk.push_back(requests[fresh[k]]);
    auto got = svc_.runner.evaluate(chunk);
    if (got.size() != chunk.size()) {
      throw aopt::error(ec::internal, "services::evaluate returned " + std::to_string(got.size()) + " reports for " +
                                          std::to_string(chunk.size()) + " requests (the services implementation is broken)");
    }
    for (auto& r : got) reports.push_back(std::move(r));
  }
  std::map<std::size_t, std::size_t> fresh_at;  // request index -> report index
  for (std::size_t k = 0; k < fresh.size(); ++k) fresh_at[fresh[k]] = k;
  const std::size_t first_point = res_.trajectory.size();
  for (std::size_t i = 0; i < requests.size(); ++i) {
    if (auto f = fresh_at.find(i); f != fresh_at.end()) {
      entry e;
      e.key = keys[i];
      e.files = requests[i].files;
      e.report = std::move(reports[f->second]);
      e.stage = to_string(requests[i].stage);
      e.round = static_cast<std::size_t>(std::max(0, requests[i].round));
      e.proposal = requests[i].proposal;
      mark_suspect(e.report);
      limit_ub(e.report);
      limit_gm_reads(e.report);
      ++res_.evaluations;
      if (!e.report.ok) ++res_.failures;
      if (e.report.suspect) ++res_.suspects;
      by_key_[keys[i]] = entries_.size();
      entries_.push_back(std::move(e));
      out[i] = answer{entries_.size() - 1, false, res_.trajectory.size()};
      point(entries_.back(), requests[i], false);
    } else if (auto it = by_key_.find(keys[i]); it != by_key_.end()) {
      ++res_.memo_hits;
      out[i] = answer{it->second, true, res_.trajectory.size()};
      point(entries_[it->second], requests[i], true);
    }
  }
  for (std::size_t p = first_point; p < res_.trajectory.size(); ++p) say("point", res_.trajectory[p].proposal, &res_.trajectory[p]);
  return out;
}

bool search_job::offer(const answer& a, const std::string& title, const std::string& rationale,
                       const std::vector<std::string>& experience_ids) {
  const entry& e = entries_.at(a.entry);
  if (!e.passing() || accepted_.empty()) return false;  // zero tolerance; a suspect is never trusted
  const entry& cur = best();
  // Beyond the noise: on one deterministic sample each (sim) this is latency < best * (1 -
  // min_gain); with repeated timings the 99% intervals of the medians must not overlap.
  std::vector<double> champion = cur.report.samples(), challenger = e.report.samples();
  auto beats = [&] {
    return common::faster_beyond_noise(common::summarize(challenger, common::acceptance_confidence),
                                       common::summarize(champion, common::acceptance_confidence), rules_.min_gain);
  };
  if (!beats()) return false;
  if (champion.size() > 1 || challenger.size() > 1) {
    // Confirmed before it is believed: the champion measured again, then the challenger, both
    // on the device that measured the challenger (devices of one class still differ), each new
    // set pooled with the old. Outside the budget.
    for (const auto* who : {&cur, &e}) {
      auto got = svc_.runner.evaluate({eval_request{who->files, eval_stage::remeasure, static_cast<int>(who->round),
                                             "measured again to confirm an acceptance: " + who->proposal, std::nullopt, {},
                                             e.report.device}});
      if (got.size() != 1 || !got.front().ok) {
        say("stage", "not accepted (" + e.stage + "): a confirming measurement failed");
        return false;
      }
      auto& pool = who == &cur ? champion : challenger;
      const auto more = got.front().samples();
      pool.insert(pool.end(), more.begin(), more.end());
    }
    if (!beats()) {
      say("stage", "not accepted (" + e.stage + "): the gain did not hold when both were measured again: " + title);
      return false;
    }
  }
  accepted_change c;
  c.round = e.round;
  c.stage = e.stage;
  c.title = title;
  c.rationale = rationale;
  c.experience_ids = experience_ids;
  c.diff = motifs::unified_diff(cur.files, e.files);
  c.before_us = cur.report.latency_us;
  c.after_us = e.report.latency_us;
  c.profile_before = cur.report.profile;
  c.profile_after = e.report.profile;
  res_.changes.push_back(std::move(c));
  accepted_.push_back(a.entry);
  res_.best_files = e.files;
  res_.best = e.report;
  res_.best_us = e.report.latency_us;
  // The point that produced the new best is marked; it and later points carry the new best. The
  // progress event of kind "accepted" carries that point (docs/api.md, the events).
  if (a.point < res_.trajectory.size()) res_.trajectory[a.point].accepted = true;
  for (std::size_t i = a.point; i < res_.trajectory.size(); ++i) res_.trajectory[i].best_us = res_.best_us;
  say("accepted", "accepted (" + e.stage + "): " + title,
      a.point < res_.trajectory.size() ? &res_.trajectory[a.point] : nullptr);
  return true;
}

void search_job::verify() {
  // Newest accepted state first; each one failing on fresh inputs is dropped with its change.
  // The base needs no check. Verification is outside the budget.
  while (accepted_.size() > 1) {
    const entry& e = entries_[accepted_.back()];
    const eval_request req{e.files, eval_stage::verify, static_cast<int>(e.round), "verification on fresh inputs: " + e.proposal,
                           rules_.verify_seed, {}, {}};
    auto got = svc_.runner.evaluate({req});
    if (got.size() != 1) {
      throw aopt::error(ec::internal, "services::evaluate returned " + std::to_string(got.size()) +
                                          " reports for 1 verification request");
    }
    eval_report rep = std::move(got.front());
    mark_suspect(rep);
    limit_ub(rep);
    limit_gm_reads(rep);
    const bool passed = rep.ok && !rep.suspect;
    res_.verification = rep;
    if (!passed) {
      accepted_.pop_back();
      res_.changes.pop_back();
    }
    const entry& now = best();
    res_.best_files = now.files;
    res_.best = now.report;
    res_.best_us = now.report.latency_us;
    entry shown = e;
    shown.report = std::move(rep);
    point(shown, req, false);
    say("stage", std::string("verification on fresh inputs: ") + (passed ? "passed" : "FAILED: " + std::string(to_string(shown.report.status))));
    say("point", req.proposal, &res_.trajectory.back());
    if (passed) break;
  }
}

optimize_result search_job::finish(const std::string& stop_reason) {
  if (!accepted_.empty()) {
    if (rules_.verify) verify();
    res_.speedup = res_.best_us > 0 ? res_.base_us / res_.best_us : 1.0;
  } else {
    res_.base_us = 0;
    res_.best_us = 0;
    res_.speedup = 1.0;
  }
  if (res_.stop_reason.empty()) res_.stop_reason = stop_reason;
  say("done", res_.stop_reason);
  return std::move(res_);
}

}  // namespace aopt::optimize
