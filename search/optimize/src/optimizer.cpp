#include "aopt/optimize/optimizer.h"
#include "aopt/optimize/search_job.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <set>
#include <utility>

#include "aopt/common/error.h"
#include "aopt/motifs/edit.h"
#include "aopt/stage1/feasibility.h"
#include "aopt/stage1/loop.h"
#include "aopt/stage1/search_form.h"

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

// The job: the shared rules (search_job.h) plus Stage I's memory across rounds.
struct job : search_job {
  job(const services& svc, const optimizer_config& cfg, const progress_fn& progress)
      : search_job(svc, job_rules{cfg.budget, cfg.min_gain, cfg.verify, cfg.verify_seed}, progress), res(result()) {}
  optimize_result& res;
  // Stage I's history of the last round, with the key of the best files its template was
  // synthesized from: reused when the next round starts from the same files, so the mutator
  // does not propose again what it already tried.
  std::optional<std::pair<std::string, stage1::stage1_history>> stage1_memory_;
  std::vector<std::string> stage1_memory_names_;  // its template's tunables, in order
  // The operator's own tiling (tunable name -> value, from the first template) and whether a
  // kernel change was accepted since the last Stage I round: the tiling tuned for the old kernel
  // need not suit the new one, so the next round also measures the original values.
  std::map<std::string, std::int64_t> original_tiling_;
  bool kernel_changed_ = false;
  // A kernel rewrite that failed only for lack of UB on the current best (e.g. a second queue
  // slot on tiles sized for one): the next Stage I round tunes the tiling of the rewritten
  // operator instead of the best's, so the two can be accepted together. At most one at a
  // time; each rewrite is co-tuned once.
  struct pending_rewrite {
    std::string best_key;  // files_key of the best it rewrote
    search::kernel_rewrite rewrite;
    eval_report failure;
    search::diagnosis diag;
  };
  // Also a rewrite that passed but was no faster on the current best's tiling (neutral: the
  // tiling Stage I tuned for the old kernel need not suit it; swish's barrier removal needs the
  // two buffers Stage I gave up): `failure` is then its passing report.
  std::optional<pending_rewrite> pending_;
  std::set<std::string> cotuned_;  // files keys of rewrites already co-tuned
};

// The current template's values with every tunable the operator had from the start set back to
// its original value; nullopt when that is the current tiling.
std::optional<stage1::assignment> original_tiling(const stage1::tiling_template& t,
                                                  const std::map<std::string, std::int64_t>& original) {
  stage1::assignment a = t.base();
  for (std::size_t i = 0; i < t.tunables.size(); ++i) {
    // A key among spellings is an index into the spellings its template found, and those change
    // when an accepted change leaves one unused (abs: its float16 site took another path): the
    // original's index may name another key, or none. The revisit is about sizes: keys stay.
    if (!t.tunables[i].spellings.empty()) continue;
    auto it = original.find(t.tunables[i].name);
    if (it != original.end()) a[i] = it->second;
  }
  if (a == t.base()) return std::nullopt;
  return a;
}

std::string one_line(const std::string& s) {
  std::string out;
  for (char c : s) out.push_back(c == '\n' ? ' ' : c);
  return out;
}

// One line for a Stage-II step's diagnosis (round summaries, rationales).
std::string diagnosis_line(const search::diagnosis& d) {
  return d.primary() != nullptr ? std::string(search::to_string(d.primary()->kind)) + ": " + d.primary()->evidence
                                : "no bottleneck found: " + d.summary;
}

// What a Stage I run's best changed: the template's description, or a free-form rewrite's own.
std::string change_of_best(const stage1::stage1_result& sr, const stage1::tiling_template& t) {
  return sr.best->empty() ? sr.best_description : t.describe_change(*sr.best);
}

// The motif a rewrite's rationale names ("... motif double_buffer"), or "".
std::string motif_of(const search::kernel_rewrite& rw) {
  const std::string marker = "motif ";
  const auto p = rw.rationale.rfind(marker);
  return p == std::string::npos ? std::string() : rw.rationale.substr(p + marker.size());
}

search::experience distill_change(const accepted_change& c, const search::diagnosis& d, const std::string& op,
                                  const eval_report& r, const std::string& motif);

// A screen's report (a request of stage "screen") as Stage I's feasibility check reads it.
stage1::screen_outcome screen_of(const eval_report& r) {
  stage1::screen_outcome s;
  s.status = to_string(r.status);
  s.diagnostic = r.diagnostic;
  s.ok = r.ok;
  for (const auto& c : r.cases) {
    stage1::tiling_facts f;
    f.case_name = c.name;
    f.block_dim = c.block_dim.value_or(0);
    f.tiling_key = c.tiling_key.value_or(0);
    f.words = c.words;
    f.elements = static_cast<std::int64_t>(c.elements);
    f.elem_bytes = static_cast<std::int64_t>(c.elem_bytes);
    s.cases.push_back(std::move(f));
  }
  return s;
}

// A request of stage "screen" (the host tiling of every case; no budget).
eval_request screen_request(file_map files, int round) {
  return eval_request{std::move(files), eval_stage::screen, round, "screen", std::nullopt, {}, {}};
}

// How a Stage I run evaluates its template's variants: in the search form at `level` (the
// variants share one host build), or each built (nullopt).
struct variant_form {
  const stage1::tiling_template* t = nullptr;
  std::optional<stage1::form_level> level;
  std::string why_none;  // without a level: why ("search form off", "no search form (...)")

  // The request for a variant of `start`: the instantiated files are the candidate; with a
  // level, a variant with values is evaluated in its search form. Counts the variant, and why
  // it is built when it is.
  eval_request request(job& j, const file_map& start, const stage1::tiling_proposal& p, eval_request r) const {
    r.files = merged(start, p.files);
    if (!level || p.values.empty()) {
      ++j.res.built_variants;
      ++j.res.built_why[!level ? why_none : std::string("no tunable values (a rewrite)")];
      return r;
    }
    auto form = stage1::make_search_form(*t, p.values, *level);
    // A screen builds only the host (evaluator::screen): a changed kernel constant costs it nothing.
    if (form.literal.empty() || (r.stage == eval_stage::screen && !form.host_literal)) {
      ++j.res.unbuilt_variants;
    } else {
      ++j.res.built_variants;
      ++j.res.built_why[form.literal.front() + ": " + form.literal_why.front()];
    }
    r.search_form = std::move(form.files);
    return r;
  }
};

// Whether every case of a screen read the `given` run-time tunables of its request.
bool read_every_tunable(const eval_report& screen, std::size_t given) {
  if (screen.cases.empty()) return false;
  for (const auto& c : screen.cases) {
    if (c.tunables_given.value_or(0) != given) return false;
  }
  return true;
}

// Stage I without a compile: the boldest level at which `t`'s search form builds, reads every
// tunable its request gives, and tiles every case exactly as `start` (`start_screen`, which
// passed) does; nullopt when none does or the runner's screens do not read run-time tunables
// (another backend); `why` then says why. Costs at most two screens (no budget), each a host build.
std::optional<stage1::form_level> search_form_level(job& j, const services& svc, const file_map& start,
                                                    const eval_report& start_screen, const stage1::tiling_template& t,
                                                    int round, std::string& why) {
  for (const auto level : {stage1::form_level::bold, stage1::form_level::careful}) {
    const auto form = stage1::make_search_form(t, t.base(), level);
    if (form.slots == 0) {
      why = "no tunable of " + t.function_name + " can be read at run time";
      break;
    }
    auto req = screen_request(start, round);
    req.search_form = form.files;
    const auto got = svc.runner.evaluate({req});
    if (got.size() != 1 || !got.front().ok) {
      why = std::string(stage1::to_string(level)) + " form: " +
            (got.empty() ? std::string("no report") : std::string(to_string(got.front().status)) + ": " + one_line(got.front().diagnostic));
      continue;
    }
    if (!read_every_tunable(got.front(), form.given)) {
      why = "the evaluator does not read run-time tunables";
      break;
    }
    if (!stage1::same_tiling(screen_of(got.front()).cases, screen_of(start_screen).cases)) {
      why = std::string(stage1::to_string(level)) + " form: its base tiles differently from the operator";
      continue;
    }
    j.say("stage", "Stage I: variants run on one build (search form, " + std::string(stage1::to_string(level)) + ", " +
                       std::to_string(form.slots) + " values read at run time" + (why.empty() ? "" : "; " + why) + ")");
    return level;
  }
  j.say("stage", "Stage I: every variant is built (" + why + ")");
  return std::nullopt;
}

// Feasible Stage I: the screener of the variants of `start` (the variants' base, which passed
// its screen `base`); empty when the base's screen failed; `limits` gets the device's core
// count the base's screen reports. Screens go to the runner directly: they spend no budget. The
// UB each case's kernel used comes from `ub_source` (a kernel rewrite that ran out of UB on
// `start`'s tiling, being co-tuned), else from the job's best when `start` is it.
stage1::screener make_screener(job& j, const services& svc, const file_map& start, const eval_report& base,
                               variant_form form, int round, stage1::device_limits& limits,
                               const eval_report* ub_source = nullptr) {
  if (!base.ok) {
    if (base.status != eval_status::unsupported) {
      j.say("stage", "Stage I: no feasibility screen (the base's tiling screen failed: " + std::string(to_string(base.status)) + ")");
    }
    return {};
  }
  auto facts = screen_of(base);
  // The UB each case's kernel used, from an evaluation of `start`, by case name.
  if (ub_source == nullptr && j.best_files() == start) ub_source = &j.best().report;
  if (ub_source != nullptr) {
    for (auto& f : facts.cases) {
      if (const auto used = ub_source->ub_reserved(f.case_name); used > 0) f.ub_bytes = static_cast<std::int64_t>(used);
    }
  }
  std::int64_t cores = 0, ub = 0, usable = 0, used = 0;
  for (const auto& c : base.cases) {
    cores = std::max<std::int64_t>(cores, c.core_count.value_or(0));
    used = std::max<std::int64_t>(used, c.block_dim.value_or(0));
    ub = std::max<std::int64_t>(ub, static_cast<std::int64_t>(c.ub_capacity.value_or(0)));
    usable = std::max<std::int64_t>(usable, static_cast<std::int64_t>(c.ub_usable.value_or(0)));
  }
  // What a candidate may reserve (search_job::limit_ub): the UB a kernel may use by default, or
  // what the job's base (the operator as given) already reserves where that is more.
  if (usable > 0) ub = std::max<std::int64_t>(usable, static_cast<std::int64_t>(j.res.base.ub_reserved()));
  if (cores > 0) limits.core_count = cores;
  limits.core_cap = used > 0 && used < limits.core_count ? used : 0;
  if (ub > 0) limits.ub_bytes = ub;
  auto check = std::make_shared<stage1::feasibility_screen>(facts.cases, limits);
  return [&j, &svc, start, form, round, check](const std::vector<stage1::tiling_proposal>& ps) {
    std::vector<eval_request> reqs;
    for (const auto& p : ps) reqs.push_back(form.request(j, start, p, screen_request({}, round)));
    const auto got = svc.runner.evaluate(reqs);
    std::vector<stage1::screen_verdict> out;
    for (std::size_t i = 0; i < ps.size(); ++i) {
      stage1::screen_verdict v;
      if (i < got.size()) {
        const auto s = screen_of(got[i]);
        v.why = check->check(s);
        v.same_tiling = !v.why && check->same_as_base(s);
        if (!v.why) v.tiling = stage1::tiling_fingerprint(s.cases);
      } else {
        v.why = "no screen report";
      }
      if (v.why) {
        ++j.res.screened;
        j.say("stage", "screened out (no budget): " + (ps[i].description.empty() ? ps[i].op : ps[i].description) + ": " +
                           *v.why);
      }
      out.push_back(std::move(v));
    }
    return out;
  };
}

// One Stage I run of the job: tiling variants of `start` (the files the template was synthesized
// from), evaluated as candidates of `stage`, each described as `label` + its change. `history`
// must already hold the template's base. Returns the run and the answers by files key.
std::pair<stage1::stage1_result, std::map<std::string, search_job::answer>> tiling_search(
    job& j, const services& svc, const optimizer_config& cfg, std::size_t n, std::size_t round, const file_map& start,
    const stage1::tiling_template& t, stage1::stage1_history& history, std::optional<stage1::tiling_proposal> first,
    eval_stage stage, const std::string& label, bool screen, const eval_report* ub_source = nullptr,
    std::size_t give_up_after = 0) {
  std::map<std::string, search_job::answer> answers;  // files key -> its answer
  // give_up_after > 0: once that many evaluations failed and none passed, the run spends no more
  // (its remaining proposals are skipped).
  std::size_t failed = 0;
  bool passed = false;
  auto propose = [&svc, &first](const stage1::tiling_template& tt, const stage1::stage1_history& h,
                                std::size_t k) -> search::outcome<std::vector<stage1::tiling_proposal>> {
    if (!first || k == 0) return svc.engine.propose_tiling_variants(tt, h, k);
    std::vector<stage1::tiling_proposal> out = {std::move(*first)};
    first.reset();
    if (k > 1) {
      auto more = svc.engine.propose_tiling_variants(tt, h, k - 1);
      if (more.ok()) {
        for (auto& p : more.value()) out.push_back(std::move(p));
      }
    }
    return out;
  };
  // The base's screen: the feasibility screen's invariants and the search form's check.
  std::optional<eval_report> start_screen;
  if (screen || cfg.search_form) {
    auto got = svc.runner.evaluate({screen_request(start, static_cast<int>(round))});
    if (got.size() == 1) start_screen = std::move(got.front());
  }
  variant_form form{&t, std::nullopt, "search form off"};
  if (cfg.search_form && start_screen && start_screen->ok) {
    std::string why;
    form.level = search_form_level(j, svc, start, *start_screen, t, static_cast<int>(round), why);
    form.why_none = "no search form (" + why + ")";
  } else if (cfg.search_form) {
    form.why_none = "no search form (the base's screen failed)";
  }
  auto batch = [&](const std::vector<stage1::tiling_proposal>& ps) {
    std::vector<stage1::eval_outcome> out;
    if (give_up_after > 0 && !passed && failed >= give_up_after) {
      for (std::size_t i = 0; i < ps.size(); ++i) {
        out.push_back({false, 0, "skipped", "given up: the first " + std::to_string(failed) + " evaluation(s) all failed", true});
      }
      return out;
    }
    std::vector<eval_request> reqs;
    for (const auto& p : ps) {
      reqs.push_back(form.request(j, start, p,
                                  {{}, stage, static_cast<int>(round), label + (p.description.empty() ? p.op : p.description),
                                   std::nullopt, {}, {}}));
    }
    const auto got = j.evaluate(reqs);
    for (std::size_t i = 0; i < ps.size(); ++i) {
      if (!got[i]) {
        out.push_back({false, 0, "skipped", "over budget", true});
        continue;
      }
      const auto& r = j.at(got[i]->entry).report;
      const bool was_memo = got[i]->memo;
      // A suspect result is not a passing variant: it must not become Stage I's best.
      const bool ok = r.ok && !r.suspect;
      if (!was_memo && ok) passed = true;
      if (!was_memo && !ok) ++failed;
      answers[files_key(reqs[i].files)] = *got[i];
      out.push_back({ok, r.latency_us, r.suspect ? std::string("suspect") : std::string(to_string(r.status)), r.diagnostic, was_memo});
    }
    return out;
  };
  stage1::stage1_config sc;
  sc.steps = cfg.stage1_steps;
  sc.proposals_per_step = n;
  sc.budget = j.remaining();
  sc.evaluate_base = false;
  sc.note = [&j](const std::string& line) { j.say("stage", "Stage I probe: " + line); };
  const stage1::screener screener = screen && start_screen ? make_screener(j, svc, start, *start_screen, form,
                                                                           static_cast<int>(round), sc.limits, ub_source)
                                                           : stage1::screener{};
  auto sr = stage1::run_stage1(t, propose, batch, sc, history, screener);
  return {std::move(sr), std::move(answers)};
}

// The files of a Stage I run's best: the instantiated template, or a free-form rewrite's files
// (an LLM engine's tiling logic change has no values).
file_map files_of_best(const stage1::stage1_result& sr, const stage1::tiling_template& t, const file_map& start) {
  const bool free_form = sr.best->empty();
  return merged(start, free_form ? file_map(sr.best_files.begin(), sr.best_files.end()) : t.instantiate(*sr.best));
}

// Stage I on the best with a pending kernel rewrite applied (its base fails for lack of UB):
// the mutator repairs the tiling from the failing base; a passing variant faster than the best
// is accepted as one change, the rewrite and the tiling together.
// Returns whether it spent any budget.
bool cotune_round(job& j, const services& svc, const optimizer_config& cfg, std::size_t n, std::size_t round,
                  round_summary& sum, const job::pending_rewrite& p) {
  const file_map start = merged(j.res.best_files, p.rewrite.files);
  j.cotuned_.insert(files_key(start));
  auto tmpl = svc.engine.synthesize_template(synthesis_input_of(start));
  if (!tmpl.ok()) {
    sum.stage1_stop = "co-tuning '" + p.rewrite.title + "': engine: " + tmpl.reason();
    return false;
  }
  const stage1::tiling_template& t = tmpl.value();
  stage1::stage1_history history;
  stage1::tiling_proposal base;
  base.values = t.base();
  base.op = "base";
  base.description = "the rewrite on the current tiling";
  const bool neutral = p.failure.ok;  // it passed on the best's tiling without beating it
  history.record(base, stage1::eval_outcome{neutral && !p.failure.suspect, neutral ? p.failure.latency_us : 0,
                                            std::string(to_string(p.failure.status)), p.failure.diagnostic, true});
  j.say("stage", "round " + std::to_string(round + 1) + ": Stage I co-tunes the tiling of a kernel rewrite that " +
                     (neutral ? "was no faster on the best's tiling (" : "ran out of UB (") + p.rewrite.title + ")");
  const std::string label = (neutral ? "re-tiling for '" : "co-tuning '") + p.rewrite.title + "': ";
  // Screened with the UB the rewrite needed at this tiling: the variants whose tiles cannot bring
  // it within the UB a kernel may use cost no budget.
  // A rewrite no tiling brings within the UB (cast sizes its tiles by the UB itself) is given up
  // after two batches of failures, not co-tuned to the end of the steps.
  const auto [sr, answers] =
      tiling_search(j, svc, cfg, n, round, start, t, history, std::nullopt, eval_stage::kernel, label, cfg.screen, &p.failure, 2 * n);
  sum.stage1_stop = "co-tuning a rewrite: " + sr.stop_reason;
  const bool spent = sr.evaluations > 0;
  if (!sr.best || *sr.best == t.base()) return spent;
  auto it = answers.find(files_key(files_of_best(sr, t, start)));
  if (it == answers.end()) return spent;
  const eval_report before = *j.res.best;
  const std::string tiling = change_of_best(sr, t);
  if (j.offer(it->second, p.rewrite.title + ", with the tiling " + tiling,
              one_line(diagnosis_line(p.diag)) + " | " + p.rewrite.rationale + " | alone it " +
                  (neutral ? std::string("was no faster on the best's tiling") : "failed (" + std::string(to_string(p.failure.status)) + ": out of UB)") +
                  "; Stage I tuned the tiling for it: " + tiling,
              p.rewrite.experience_ids)) {
    svc.database.learn(distill_change(j.res.changes.back(), p.diag, before.kernel,
                             j.at(it->second.entry).report, motif_of(p.rewrite)));
  }
  return spent;
}

void stage1_round(job& j, const services& svc, const optimizer_config& cfg, std::size_t n, std::size_t round,
                  round_summary& sum) {
  if (j.pending_) {
    auto p = std::move(*j.pending_);
    j.pending_.reset();
    // A co-tuning that found every variant screened out spent nothing: the round goes on with
    // Stage I on the best (which may still have variants left), not with an empty round that
    // would end the job with budget unspent (cast: 9 of 40 evaluations).
    if (p.best_key == files_key(j.res.best_files) && cotune_round(j, svc, cfg, n, round, sum, p)) return;
    if (j.remaining() == 0) return;
  }
  auto tmpl = svc.engine.synthesize_template(synthesis_input_of(j.res.best_files));
  if (!tmpl.ok()) {
    sum.stage1_stop = "engine: " + tmpl.reason();
    return;
  }
  const stage1::tiling_template& t = tmpl.value();
  if (j.original_tiling_.empty()) {
    for (const auto& tu : t.tunables) j.original_tiling_[tu.name] = tu.value;
  }
  const std::string start_key = files_key(j.res.best_files);
  stage1::stage1_history history;
  if (j.stage1_memory_ && j.stage1_memory_->first == start_key) {
    history = std::move(j.stage1_memory_->second);
  } else if (j.stage1_memory_) {
    // A tiling change was accepted: the new start keeps what broke variants of the old one (the
    // same kernel; a value that failed there by its name fails here as well, most likely). After
    // a kernel change, all but the failures of capacity (out of UB, timeouts), which the new
    // kernel may not have (addcdiv's BLOCK_SIZE of 128 and up reads past its inputs whatever the
    // compute does).
    std::vector<std::optional<std::size_t>> index;
    for (const auto& name : j.stage1_memory_names_) index.push_back(t.find(name));
    history.inherit_tabu(j.stage1_memory_->second, index, t.base(), j.kernel_changed_);
  }
  j.stage1_memory_.reset();
  // The template's base values are the current best: seed the history with its evaluation.
  if (!history.evaluated(t.base())) {
    stage1::tiling_proposal p;
    p.values = t.base();
    p.op = "base";
    p.description = "current best";
    const auto& b = *j.res.best;
    history.record(p, stage1::eval_outcome{b.ok, b.latency_us, std::string(to_string(b.status)), b.diagnostic, true});
  }
  std::optional<stage1::tiling_proposal> revisit;
  if (j.kernel_changed_) {
    j.kernel_changed_ = false;
    if (auto a = original_tiling(t, j.original_tiling_); a && !history.evaluated(*a)) {
      revisit.emplace();
      revisit->values = *a;
      revisit->files = t.instantiate(*a);
      revisit->op = "revisit";
      revisit->description = "original tiling after a kernel change: " + t.describe_change(*a);
      revisit->parent = t.base();
    }
  }
  j.say("stage", "round " + std::to_string(round + 1) + ": Stage I (tiling, " + std::to_string(t.tunables.size()) +
                     " tunables in " + t.function_name + ")");
  const file_map start = j.res.best_files;
  const auto [sr, answers] = tiling_search(j, svc, cfg, n, round, start, t, history, std::move(revisit), eval_stage::tiling, "", cfg.screen);
  sum.stage1_stop = sr.stop_reason;
  j.stage1_memory_.emplace(start_key, std::move(history));
  j.stage1_memory_names_.clear();
  for (const auto& tu : t.tunables) j.stage1_memory_names_.push_back(tu.name);
  if (sr.best && sr.best != t.base()) {
    auto it = answers.find(files_key(files_of_best(sr, t, start)));
    if (it != answers.end()) {
      j.offer(it->second, change_of_best(sr, t),
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

// How much slower than the best a passing rewrite may be and still count as neutral (co-tuned
// with the tilings it may need rather than dropped): within measurement noise and the cost of a
// tiling tuned for the kernel it replaced.
constexpr double neutral_margin = 0.05;

// A kernel rewrite that passed on the best's tiling without beating it, measured once more with
// the tiling the operator was written with (every tunable Stage I moved set back): the tiling
// Stage I tuned for the old kernel need not suit the new one (swish: BUFFER_NUM=1 was a little
// faster with a barrier closing every tile; without the barrier the two buffers it gave up are
// what overlaps copy and compute). One evaluation; nothing when the best's tiling is the
// original or the pair was measured. Accepted as one change when it beats the best.
bool cotune_with_original_tiling(job& j, const services& svc, std::size_t round, const search::kernel_rewrite& rw,
                                 const search::diagnosis& diag, const std::string& diag_line) {
  if (j.original_tiling_.empty() || j.remaining() == 0) return false;
  const file_map start = merged(j.res.best_files, rw.files);
  auto tmpl = svc.engine.synthesize_template(synthesis_input_of(start));
  if (!tmpl.ok()) return false;
  const stage1::tiling_template& t = tmpl.value();
  const auto a = original_tiling(t, j.original_tiling_);
  if (!a) return false;
  const file_map files = merged(start, t.instantiate(*a));
  if (j.tried(files)) return false;
  const std::string tiling = t.describe_change(*a);
  const auto got = j.evaluate({{files, eval_stage::kernel, static_cast<int>(round),
                                "re-tiling for '" + rw.title + "': the operator's original tiling (" + tiling + ")",
                                std::nullopt, {}, {}}});
  if (got.empty() || !got.front()) return false;
  const eval_report before = *j.res.best;
  if (!j.offer(*got.front(), rw.title + ", with the tiling " + tiling,
               one_line(diag_line) + " | " + rw.rationale +
                   " | alone it was no faster on the best's tiling; with the operator's original tiling (" + tiling + ") it is",
               rw.experience_ids)) {
    return false;
  }
  j.kernel_changed_ = true;
  svc.database.learn(distill_change(j.res.changes.back(), diag, before.kernel,
                                    j.at(got.front()->entry).report, motif_of(rw)));
  return true;
}

// Titles of the kernel rewrites that failed to compile on some candidate: a rewrite is a fixed
// edit of one site (its title names the motif and the site), and an edit that did not compile on
// one candidate does not compile on another whose only difference is elsewhere (a tiling, another
// site), so neither Stage II on a later best nor widening spends budget on it again
// (adaptive_avg_pool3d: 16 of 40 evaluations were one motif's compile error repeated on each elite).
std::set<std::string> unbuildable_rewrites(const job& j) {
  std::set<std::string> out;
  const std::string prefix = "widening: ";
  for (std::size_t i = 0; i < j.entry_count(); ++i) {
    const auto& e = j.at(i);
    if (e.report.status != vocab::eval_status::compile_error) continue;
    std::string t = e.proposal;
    if (t.rfind(prefix, 0) == 0) {
      t = t.substr(prefix.size());
      if (const auto on = t.find(" on '"); on != std::string::npos) t.resize(on);  // the first: parents nest
    }
    out.insert(t);
  }
  return out;
}

void stage2_round(job& j, const services& svc, const optimizer_config& cfg, std::size_t n, std::size_t round,
                  round_summary& sum) {
  j.say("stage", "round " + std::to_string(round + 1) + ": Stage II (kernel)");
  const bool cotune = cfg.stage1 && cfg.cotune;
  sum.stage2_stop = "steps done";
  for (std::size_t step = 0; step < cfg.stage2_steps; ++step) {
    if (j.remaining() == 0) {
      sum.stage2_stop = "budget exhausted";
      return;
    }
    auto d = svc.engine.diagnose(j.res.best->profile, j.res.best_files);
    if (!d.ok()) {
      sum.stage2_stop = "engine: " + d.reason();
      return;
    }
    const search::diagnosis& diag = d.value();
    sum.diagnoses.push_back(diagnosis_line(diag));
    // Retrieve; widen k while every rewrite it gives was already evaluated.
    std::vector<search::kernel_rewrite> fresh;
    std::string why_none;
    // Not again: what was evaluated, and a site edit that failed to compile on an earlier best.
    const std::set<std::string> unbuildable = unbuildable_rewrites(j);
    auto is_new = [&](const search::kernel_rewrite& r) {
      return !unbuildable.count(r.title) && !j.tried(merged(j.res.best_files, r.files));
    };
    for (std::size_t k = cfg.top_k; fresh.empty(); k *= 2) {
      const auto tuples = svc.database.retrieve(diag, k);
      if (tuples.empty()) {
        why_none = "the experience bank has nothing for this diagnosis";
        break;
      }
      auto rw = svc.engine.rewrite_kernel(j.res.best_files, tuples);
      if (rw.ok()) {
        for (auto& r : rw.value()) {
          // the job memory answers repeats: keep only rewrites not tried yet
          if (is_new(r)) fresh.push_back(std::move(r));
        }
      } else {
        why_none = rw.reason();
      }
      if (tuples.size() < k || k >= 256) {
        if (fresh.empty() && why_none.empty()) {
          why_none = "every rewrite of the retrieved experience was already tried (or failed to compile before)";
        }
        break;
      }
    }
    if (fresh.empty() && cfg.unguided_fallback) {
      // Nothing the bank knows applies any more: the engine's own rewrites, unguided.
      auto rw = svc.engine.rewrite_kernel(j.res.best_files, {});
      if (rw.ok()) {
        for (auto& r : rw.value()) {
          if (!is_new(r)) continue;
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
      reqs.push_back({merged(j.res.best_files, r.files), eval_stage::kernel, static_cast<int>(round), r.title, std::nullopt, {}, {}});
    }
    const auto got = j.evaluate(reqs);
    // The best improvement of the batch is kept.
    std::optional<std::size_t> best;
    auto report = [&](std::size_t i) -> const eval_report& { return j.at(got[i]->entry).report; };
    for (std::size_t i = 0; i < got.size(); ++i) {
      if (!got[i]) continue;
      if (!j.at(got[i]->entry).passing()) {
        // Out of UB on this tiling: the next Stage I round may find one it fits (Stage I on
        // the rewritten operator); the first such rewrite of the step, each one once.
        if (cotune && !j.pending_ && report(i).out_of_ub() && !j.cotuned_.count(j.at(got[i]->entry).key)) {
          j.pending_ = job::pending_rewrite{j.best().key, fresh[i], report(i), diag};
        }
        continue;
      }
      if (!best || report(i).latency_us < report(*best).latency_us) best = i;
    }
    bool accepted = false;
    if (best) {
      const auto& rw = fresh[*best];
      const eval_report before = *j.res.best;
      const file_map prev = j.res.best_files;
      if (j.offer(*got[*best], rw.title, one_line(sum.diagnoses.back()) + " | " + rw.rationale, rw.experience_ids)) {
        accepted = true;
        // A rewrite of the host alone (a core-count cap) leaves the kernel as it was: what broke
        // tiling variants still breaks them, and the original tiling needs no second look.
        j.kernel_changed_ = changes_kernel(prev, j.res.best_files);
        svc.database.learn(distill_change(j.res.changes.back(), diag, before.kernel, report(*best),
                                 motif_of(rw)));
      }
    }
    if (!accepted && cotune) {
      // The first neutral kernel rewrite of the batch (it passed, no slower than the margin, and
      // changes the kernel) is co-tuned with the tilings it may need: at once with the
      // operator's original tiling, else in the next round's Stage I.
      for (std::size_t i = 0; i < got.size(); ++i) {
        if (!got[i] || !j.at(got[i]->entry).passing()) continue;
        const auto& e = j.at(got[i]->entry);
        if (e.report.latency_us > j.res.best->latency_us * (1 + neutral_margin)) continue;
        if (!changes_kernel(j.res.best_files, e.files) || j.cotuned_.count(e.key)) continue;
        j.cotuned_.insert(e.key);
        if (cotune_with_original_tiling(j, svc, round, fresh[i], diag, sum.diagnoses.back())) break;
        if (!j.pending_) j.pending_ = job::pending_rewrite{j.best().key, fresh[i], e.report, diag};
        break;
      }
    }
  }
}

// What the search tries when a round proposed nothing new and budget is left (issue 39: never
// idle with budget left): from the fastest passing candidates other than the best (the elites,
// at most `widen_elites`), (1) recombinations: the best's kernel with an elite's host (its
// tiling) and an elite's kernel with the best's host, so changes accepted or measured on
// different branches meet; (2) restarts: the kernel rewrites of each elite (the bank's tuples
// for its diagnosis, and unguided ones when the configuration allows), which may beat the best
// where they did not apply or were neutral on it. At most `n` of them, recombinations first; the
// fastest passing one is offered. Returns the evaluations spent; `why` says why there was
// nothing to propose.
constexpr std::size_t widen_elites = 4;

// `into` with its op_kernel/ files replaced by those of `from` (kernel = true), or every other
// file (kernel = false).
file_map take_part(file_map into, const file_map& from, bool kernel) {
  for (auto it = into.begin(); it != into.end();) {
    it = is_kernel_file(it->first) == kernel ? into.erase(it) : std::next(it);
  }
  for (const auto& [p, c] : from) {
    if (is_kernel_file(p) == kernel) into[p] = c;
  }
  return into;
}

std::size_t widen(job& j, const services& svc, const optimizer_config& cfg, std::size_t n, std::size_t round,
                  std::string& why) {
  std::vector<std::size_t> elites;
  for (std::size_t i = 0; i < j.entry_count(); ++i) {
    const auto& e = j.at(i);
    if (e.passing() && e.key != j.best().key && e.stage != "verify") elites.push_back(i);
  }
  std::stable_sort(elites.begin(), elites.end(),
                   [&j](std::size_t a, std::size_t b) { return j.at(a).report.latency_us < j.at(b).report.latency_us; });
  if (elites.empty()) {
    why = "no passing candidate besides the best to widen from";
    return 0;
  }
  if (elites.size() > widen_elites) elites.resize(widen_elites);
  const file_map& best = j.best_files();
  std::vector<eval_request> reqs;
  std::set<std::string> seen;
  auto add = [&](file_map f, const std::string& what) {
    if (f == best || j.tried(f) || !seen.insert(files_key(f)).second) return;
    const eval_stage stage = changes_kernel(best, f) ? eval_stage::kernel : eval_stage::tiling;
    reqs.push_back({std::move(f), stage, static_cast<int>(round), "widening: " + what, std::nullopt, {}, {}});
  };
  for (const std::size_t i : elites) {
    const auto& e = j.at(i);
    add(take_part(e.files, best, true), "the best's kernel with the tiling of '" + e.proposal + "'");
    add(take_part(best, e.files, true), "the kernel of '" + e.proposal + "' with the best's tiling");
  }
  const std::size_t recombinations = reqs.size();
  const std::set<std::string> unbuildable = unbuildable_rewrites(j);
  std::size_t skipped = 0;
  for (const std::size_t i : elites) {
    const auto& e = j.at(i);
    std::vector<search::experience> tuples;
    if (auto d = svc.engine.diagnose(e.report.profile, e.files); d.ok()) tuples = svc.database.retrieve(d.value(), cfg.top_k);
    for (const bool guided : {true, false}) {
      if (guided ? tuples.empty() : !cfg.unguided_fallback) continue;
      auto rw = svc.engine.rewrite_kernel(e.files, guided ? tuples : std::vector<search::experience>{});
      if (!rw.ok()) continue;
      for (const auto& r : rw.value()) {
        if (unbuildable.count(r.title)) {
          ++skipped;
          continue;
        }
        add(merged(e.files, r.files), r.title + " on '" + e.proposal + "'");
      }
    }
  }
  if (reqs.empty()) {
    why = "neither a recombination of the best with its " + std::to_string(elites.size()) +
          " fastest other candidate(s) nor a kernel rewrite of them is new" +
          (skipped ? " (" + std::to_string(skipped) + " rewrite(s) not retried: they failed to compile before)" : "");
    return 0;
  }
  if (reqs.size() > n) reqs.resize(n);
  const std::size_t recombined = std::min(recombinations, reqs.size());
  j.say("stage", "round " + std::to_string(round + 1) + ": widening (" + std::to_string(recombined) +
                     " recombination(s), " + std::to_string(reqs.size() - recombined) +
                     " kernel rewrite(s) of the other fastest candidates)");
  const std::size_t before = j.res.evaluations;
  const auto got = j.evaluate(reqs);
  std::optional<std::size_t> fastest;
  for (std::size_t i = 0; i < got.size(); ++i) {
    if (!got[i] || !j.at(got[i]->entry).passing()) continue;
    if (!fastest || j.at(got[i]->entry).report.latency_us < j.at(got[*fastest]->entry).report.latency_us) fastest = i;
  }
  if (fastest) {
    const file_map prev = j.res.best_files;
    if (j.offer(*got[*fastest], reqs[*fastest].proposal, "the search's own ideas were spent with budget left: " + reqs[*fastest].proposal)) {
      j.kernel_changed_ = changes_kernel(prev, j.res.best_files);
    }
  }
  return j.res.evaluations - before;
}

// f(), its wall time added to `into` (also when it throws).
template <class F>
auto timed(double& into, F&& f) {
  struct add_on_exit {
    double& into;
    std::chrono::steady_clock::time_point t0 = std::chrono::steady_clock::now();
    ~add_on_exit() { into += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(); }
  } guard{into};
  return f();
}

// Times every call the search makes (optimize_result::time): the engine's proposals, the
// runner's evaluations (and the evaluators' own seconds), the database's retrievals.
class timed_engine final : public search::engine {
 public:
  timed_engine(search::engine& inner, double& seconds) : inner_(inner), s_(seconds) {}
  std::string name() const override { return inner_.name(); }
  search::outcome<stage1::tiling_template> synthesize_template(const stage1::synthesis_input& input) override {
    return timed(s_, [&] { return inner_.synthesize_template(input); });
  }
  search::outcome<std::vector<stage1::tiling_proposal>> propose_tiling_variants(const stage1::tiling_template& tmpl,
                                                                                const stage1::stage1_history& history,
                                                                                std::size_t n) override {
    return timed(s_, [&] { return inner_.propose_tiling_variants(tmpl, history, n); });
  }
  search::outcome<std::vector<search::deopt_step>> deoptimize(const file_map& kernel_files) override {
    return timed(s_, [&] { return inner_.deoptimize(kernel_files); });
  }
  search::outcome<search::experience> distill(const search::deopt_step& step) override {
    return timed(s_, [&] { return inner_.distill(step); });
  }
  search::outcome<search::diagnosis> diagnose(const nlohmann::json& profile, const file_map& code) override {
    return timed(s_, [&] { return inner_.diagnose(profile, code); });
  }
  search::outcome<std::vector<search::kernel_rewrite>> rewrite_kernel(
      const file_map& files, const std::vector<search::experience>& tuples) override {
    return timed(s_, [&] { return inner_.rewrite_kernel(files, tuples); });
  }

 private:
  search::engine& inner_;
  double& s_;
};

class timed_runner final : public runner {
 public:
  timed_runner(runner& inner, time_breakdown& t) : inner_(inner), t_(t) {}
  std::size_t parallelism() const override { return inner_.parallelism(); }
  std::vector<eval_report> evaluate(const std::vector<eval_request>& batch) override {
    auto reports = timed(t_.evaluate_s, [&] { return inner_.evaluate(batch); });
    for (const auto& r : reports) t_.evaluator_s += r.seconds;
    t_.evaluated += reports.size();
    return reports;
  }

 private:
  runner& inner_;
  time_breakdown& t_;
};

class timed_database final : public database {
 public:
  timed_database(database& inner, double& seconds) : inner_(inner), s_(seconds) {}
  std::vector<search::experience> retrieve(const search::diagnosis& d, std::size_t k) override {
    return timed(s_, [&] { return inner_.retrieve(d, k); });
  }
  void learn(const search::experience& accepted) override { inner_.learn(accepted); }

 private:
  database& inner_;
  double& s_;
};

// Why a search that stopped with budget left could not spend it, from its stop reason.
std::string unused_budget_why(const std::string& stop, const optimizer_config& cfg, std::size_t widened) {
  if (stop.rfind("base failed", 0) == 0) return "the base failed, so there is nothing to improve (" + stop + ")";
  if (stop == "rounds done") {
    return "every round the configuration allows ran (rounds " + std::to_string(cfg.rounds) + " + extra_rounds " +
           std::to_string(cfg.extra_rounds) + " + " + std::to_string(widened) +
           " widening round(s)); raise extra_rounds to spend the rest";
  }
  const std::string prefix = "no new candidate: ";
  if (stop.rfind(prefix, 0) == 0) {
    std::string why = "no new candidate was left to propose (" + stop.substr(prefix.size()) + ")";
    if (!cfg.widen) why += "; widening is off (widen = false)";
    if (!cfg.stage1 || !cfg.stage2) why += std::string("; Stage ") + (cfg.stage1 ? "II" : "I") + " is off";
    return why;
  }
  return stop;
}

// The job's result, with the budget it left and why.
optimize_result finished(job& j, const std::string& stop, const optimizer_config& cfg, std::size_t widened) {
  optimize_result r = j.finish(stop);
  if (r.evaluations < cfg.budget) {
    r.budget_unused = cfg.budget - r.evaluations;
    r.budget_unused_why = unused_budget_why(r.stop_reason, cfg, widened);
  }
  return r;
}

optimize_result run_rounds(const file_map& base_files, const services& inner, const optimizer_config& cfg,
                           const progress_fn& progress, time_breakdown& time) {
  timed_engine engine(inner.engine, time.engine_s);
  timed_runner runner(inner.runner, time);
  timed_database database(inner.database, time.retrieve_s);
  const services svc{engine, runner, database};
  job j(svc, cfg, progress);
  const std::size_t n = cfg.proposals_per_step != 0 ? cfg.proposals_per_step : std::max<std::size_t>(2, svc.runner.parallelism());
  if (!j.start(base_files)) return finished(j, "", cfg, 0);

  // Algorithm 1: R rounds; then up to extra_rounds more while budget remains and a round still
  // evaluates something new (the budget is the user's: leaving it unspent helps nobody).
  // A round that evaluates nothing new ends the job once the R rounds are done, or when the
  // round before it was empty too: an engine whose proposals failed once (a model's malformed
  // answer, a timeout) gets another chance within the R rounds.
  std::size_t round = 0;
  bool last_empty = false;
  std::size_t widened = 0;  // rounds that widened: each spent budget, so they do not count
  std::string stop;
  for (;; ++round) {
    if (j.remaining() == 0) {
      stop = "budget exhausted";
      break;
    }
    if (round >= cfg.rounds + cfg.extra_rounds + widened) {
      stop = "rounds done";
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
      // Budget left and nothing new: widen before giving up (issue 39).
      std::string why;
      if (cfg.widen && cfg.stage2 && j.remaining() > 0 && widen(j, svc, cfg, n, round, why) > 0) {
        last_empty = false;
        ++widened;
        continue;
      }
      stop = "no new candidate: " + (cfg.stage1 ? sum.stage1_stop : std::string()) +
                          (cfg.stage1 && cfg.stage2 ? "; " : "") + (cfg.stage2 ? sum.stage2_stop : std::string()) +
                          (why.empty() ? std::string() : "; widening: " + why);
      break;
    }
    last_empty = empty;
  }

  return finished(j, stop, cfg, widened);
}

}  // namespace

optimize_result run_optimizer(const file_map& base_files, const services& svc, const optimizer_config& cfg,
                              const progress_fn& progress) {
  cfg.validate();
  const auto t0 = std::chrono::steady_clock::now();
  time_breakdown time;
  optimize_result r = run_rounds(base_files, svc, cfg, progress, time);
  time.total_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  r.time = time;
  return r;
}

}  // namespace aopt::optimize
