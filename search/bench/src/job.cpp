#include "job.h"

#include <algorithm>
#include <utility>

#include "aopt/common/error.h"
#include "aopt/motifs/edit.h"

namespace aopt::bench::detail {

using optimize::eval_report;
using optimize::eval_request;
using optimize::files_key;

file_map overlay(const file_map& base, const file_map& changed) {
  file_map out = base;
  for (const auto& [path, content] : changed) out[path] = content;
  return out;
}

job::job(services& svc, const baseline_config& cfg, const progress_fn& progress)
    : svc_(svc), cfg_(cfg), progress_(progress) {
  cfg_.validate();
  batch_ = std::max<std::size_t>(1, svc_.parallelism());
  result_.engine = svc_.engine_name();
}

void job::stage(const std::string& message) {
  if (progress_) progress_({"stage", message, nullptr});
}

bool job::known(const file_map& files) const { return by_key_.count(files_key(files)) > 0; }

bool job::start(const file_map& base) {
  result_.base_files = base;
  result_.best_files = base;
  const eval_request req{base, "base", 0, "base", std::nullopt};
  auto reports = svc_.evaluate({req});
  if (reports.size() != 1) {
    throw aopt::error(ec::internal, "bench: services::evaluate returned " + std::to_string(reports.size()) +
                                        " reports for 1 request (the services implementation is broken)");
  }
  entry e;
  mark_suspect(reports.front());
  e.key = files_key(base);
  e.files = base;
  e.report = std::move(reports.front());
  e.stage = "base";
  e.proposal = "base";
  by_key_[e.key] = 0;
  entries_.push_back(std::move(e));
  result_.evaluations = 1;
  const entry& b = entries_.front();
  result_.base = b.report;
  if (!b.report.ok) {
    ++result_.failures;
    add_point(b, false, false, 0);
    return false;
  }
  // The base is the reference: kept even when suspect (there is nothing else to fall back on),
  // but counted so the report shows the evaluator doubts its own numbers.
  if (b.report.suspect) ++result_.suspects;
  result_.base_us = b.report.latency_us;
  result_.best_us = b.report.latency_us;
  result_.best = b.report;
  best_ = 0;
  add_point(b, false, true, 0);
  return true;
}

std::vector<std::optional<std::size_t>> job::submit(const std::vector<candidate>& batch) {
  enum class kind { fresh, memo_old, memo_new, dropped };
  struct slot {
    kind k = kind::dropped;
    std::size_t ref = 0;  // memo_old: entry index; fresh / memo_new: request index
  };
  std::vector<slot> slots(batch.size());
  std::vector<eval_request> requests;
  std::vector<std::string> keys;
  std::map<std::string, std::size_t> pending;
  for (std::size_t i = 0; i < batch.size(); ++i) {
    std::string key = files_key(batch[i].files);
    if (auto it = by_key_.find(key); it != by_key_.end()) {
      slots[i] = {kind::memo_old, it->second};
    } else if (auto p = pending.find(key); p != pending.end()) {
      slots[i] = {kind::memo_new, p->second};
    } else if (requests.size() < remaining()) {
      pending[key] = requests.size();
      slots[i] = {kind::fresh, requests.size()};
      requests.push_back({batch[i].files, batch[i].stage, static_cast<int>(batch[i].round), batch[i].proposal,
                          std::nullopt});
      keys.push_back(std::move(key));
    }
  }

  // One evaluate call per `parallelism()` requests: the evaluator runs each call's requests at
  // once, so a chunk never exceeds what it can run in parallel.
  std::vector<eval_report> reports;
  for (std::size_t b = 0; b < requests.size(); b += batch_) {
    const std::size_t e = std::min(requests.size(), b + batch_);
    std::vector<eval_request> chunk(requests.begin() + static_cast<std::ptrdiff_t>(b),
                                    requests.begin() + static_cast<std::ptrdiff_t>(e));
    auto got = svc_.evaluate(chunk);
    if (got.size() != chunk.size()) {
      throw aopt::error(ec::internal, "bench: services::evaluate returned " + std::to_string(got.size()) +
                                          " reports for " + std::to_string(chunk.size()) +
                                          " requests (the services implementation is broken)");
    }
    for (auto& r : got) reports.push_back(std::move(r));
  }

  std::vector<std::optional<std::size_t>> out(batch.size());
  std::vector<std::size_t> entry_of_request(requests.size(), 0);
  for (std::size_t i = 0; i < batch.size(); ++i) {
    const candidate& c = batch[i];
    switch (slots[i].k) {
      case kind::dropped:
        break;
      case kind::fresh: {
        entry e;
        e.key = keys[slots[i].ref];
        e.files = c.files;
        e.report = std::move(reports[slots[i].ref]);
        e.stage = c.stage;
        e.round = c.round;
        e.proposal = c.proposal;
        e.rationale = c.rationale;
        const std::size_t index = entries_.size();
        by_key_[e.key] = index;
        entries_.push_back(std::move(e));
        entry_of_request[slots[i].ref] = index;
        ++result_.evaluations;
        mark_suspect(entries_.back().report);
        const entry& added = entries_.back();
        if (!added.report.ok) ++result_.failures;
        if (added.report.suspect) ++result_.suspects;
        const bool accepted = accept(index);
        add_point(entries_[index], false, accepted, c.round);
        out[i] = index;
        break;
      }
      case kind::memo_old:
      case kind::memo_new: {
        const std::size_t index = slots[i].k == kind::memo_old ? slots[i].ref : entry_of_request[slots[i].ref];
        ++result_.memo_hits;
        entry shown = entries_[index];
        shown.stage = c.stage;
        shown.proposal = c.proposal;
        add_point(shown, true, false, c.round);
        out[i] = index;
        break;
      }
    }
  }
  return out;
}

void job::mark_suspect(eval_report& r) {
  // The evaluator marks suspects itself; a latency under the roofline bound is one too, whatever
  // the evaluator said (the same rule as run_optimizer).
  if (r.ok && r.bound_us && r.latency_us < *r.bound_us * (1.0 - 1e-9)) r.suspect = true;
}

bool job::accept(std::size_t index) {
  const entry& e = entries_[index];
  if (!e.passing()) return false;  // zero tolerance; a suspect result is never trusted
  const entry& cur = entries_[best_];
  if (!(e.report.latency_us < cur.report.latency_us * (1.0 - cfg_.min_gain))) return false;
  optimize::accepted_change ch;
  ch.round = e.round;
  ch.stage = e.stage;
  ch.title = e.proposal;
  ch.rationale = e.rationale;
  ch.diff = motifs::unified_diff(cur.files, e.files);
  ch.before_us = cur.report.latency_us;
  ch.after_us = e.report.latency_us;
  ch.profile_before = cur.report.profile;
  ch.profile_after = e.report.profile;
  result_.changes.push_back(std::move(ch));
  accepted_.push_back(index);
  best_ = index;
  result_.best_us = e.report.latency_us;
  return true;
}

void job::add_point(const entry& e, bool memo, bool accepted, std::size_t round) {
  optimize::trajectory_point p;
  p.index = result_.trajectory.size();
  p.evaluations = result_.evaluations;
  p.round = round;
  p.stage = e.stage;
  p.proposal = e.proposal;
  p.status = e.report.status;
  if (e.report.ok) p.latency_us = e.report.latency_us;
  p.best_us = entries_.empty() || !entries_.front().report.ok ? 0.0 : entries_[best_].report.latency_us;
  p.accepted = accepted;
  p.memo = memo;
  p.cached = !memo && e.report.cached;
  p.suspect = e.report.suspect;
  result_.trajectory.push_back(std::move(p));
  if (progress_) progress_({"point", e.stage + ": " + e.proposal + ": " + e.report.status, &result_.trajectory.back()});
}

void job::verify() {
  // As run_optimizer does: walk back through the accepted states (newest first) until one
  // passes on fresh inputs; each failed one is dropped with its change. The base needs no check.
  if (!cfg_.verify) return;
  while (accepted_.size() > 1) {
    const entry& e = entries_[accepted_.back()];
    const eval_request req{e.files, "verify", static_cast<int>(e.round), "verify: " + e.proposal, cfg_.verify_seed};
    auto got = svc_.evaluate({req});
    if (got.size() != 1) {
      throw aopt::error(ec::internal, "bench: services::evaluate returned " + std::to_string(got.size()) +
                                          " reports for 1 verification request");
    }
    eval_report rep = std::move(got.front());
    mark_suspect(rep);
    const bool passed = rep.ok && !rep.suspect;
    entry shown = e;
    shown.stage = "verify";
    shown.proposal = "verify: " + e.proposal;
    shown.report = rep;
    result_.verification = std::move(rep);
    if (!passed) {
      accepted_.pop_back();
      result_.changes.pop_back();
      best_ = accepted_.back();
    }
    add_point(shown, false, false, e.round);  // shows the best after the check
    if (passed) break;
  }
}

optimize_result job::finish(const std::string& stop) {
  verify();
  const entry& b = entries_[best_];
  result_.best_files = b.files;
  result_.best = b.report;
  result_.best_us = b.report.latency_us;
  result_.speedup = result_.best_us > 0 ? result_.base_us / result_.best_us : 1.0;
  result_.stop_reason = exhausted() ? "budget exhausted" : stop;
  if (progress_) progress_({"done", result_.stop_reason, nullptr});
  return std::move(result_);
}

optimize_result job::finish_failed() {
  const entry& b = entries_.front();
  result_.best.reset();
  result_.base_us = 0;
  result_.best_us = 0;
  result_.speedup = 1.0;
  result_.stop_reason = "base failed: " + b.report.status + ": " + b.report.diagnostic;
  if (progress_) progress_({"done", result_.stop_reason, nullptr});
  return std::move(result_);
}

}  // namespace aopt::bench::detail
