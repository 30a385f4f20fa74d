// Offline rewind loop, the engine-driven rewind loop, and the Distiller; see rewind.h.
#include "aopt/search/rewind.h"

#include <exception>
#include <optional>
#include <random>
#include <set>
#include <utility>

#include "aopt/common/error.h"
#include "aopt/common/stats.h"
#include "aopt/search/diagnose.h"

namespace aopt::search {

namespace {

struct candidate_site {
  const motifs::motif* m = nullptr;
  motifs::site s;
  std::string key;
};

// Identity of a site independent of byte offsets (earlier edits move them).
std::string site_key(const motifs::source_set& src, const motifs::site& s) {
  std::string anchor;
  if (auto f = src.get(s.path)) {
    if (s.anchor.end <= f->text().size()) anchor = std::string(f->text_of(s.anchor));
  }
  return s.motif + '\x1f' + s.path + '\x1f' + anchor + '\x1f' + s.summary;
}

rewind_eval safe_eval(const rewind_evaluator& eval, const motifs::file_set& files) {
  try {
    return eval(files);
  } catch (const std::exception& e) {
    rewind_eval r;
    r.ok = false;
    r.status = "error";
    r.diagnostic = e.what();
    return r;
  }
}

void check_config(const rewind_evaluator& eval, const rewind_config& cfg, const char* who) {
  const std::string w(who);
  if (!eval) throw error(ec::invalid_argument, w + ": the evaluator callback is empty; pass a function");
  if (cfg.min_slowdown <= 0) throw error(ec::invalid_argument, w + ": min_slowdown must be > 0 (e.g. 1.03 for 3%)");
  if (cfg.max_steps < 0) throw error(ec::invalid_argument, w + ": max_steps must be >= 0");
}

// Both loops start here: the seed must evaluate ok with a positive latency, or nothing is tried.
bool evaluate_seed(const motifs::file_set& seed_files, const rewind_evaluator& eval, rewind_result& out) {
  out.final_files = seed_files;
  out.seed_eval = safe_eval(eval, seed_files);
  if (!out.seed_eval.ok || !(out.seed_eval.latency_us > 0)) {
    out.stop_reason = "seed_failed";
    return false;
  }
  return true;
}

// The keep rule, shared by both loops: evaluates `slow` against the current (faster) state and
// fills the attempt's status, latency, slowdown, outcome and reason. Returns the evaluation of
// `slow` when the step is kept.
std::optional<rewind_eval> measure(const rewind_evaluator& eval, const motifs::file_set& slow,
                                   const rewind_eval& current, const rewind_config& cfg, rewind_attempt& a) {
  a.current_us = current.latency_us;
  const rewind_eval ev = safe_eval(eval, slow);
  a.status = ev.status;
  if (!ev.ok || !(ev.latency_us > 0)) {
    a.outcome = rewind_outcome::failed;
    a.reason = ev.diagnostic.empty() ? "evaluation status " + ev.status : ev.diagnostic;
    return std::nullopt;
  }
  a.latency_us = ev.latency_us;
  a.slowdown = ev.latency_us / current.latency_us;
  if (a.slowdown < cfg.min_slowdown) {
    a.outcome = rewind_outcome::too_small;
    a.reason = "slowdown below the threshold";
    return std::nullopt;
  }
  // A slowdown kept only beyond the measured spread (zero on sim: no change there).
  auto summary = [](const rewind_eval& r) {
    return common::summarize(r.samples_us.empty() ? std::vector<double>{r.latency_us} : r.samples_us, common::acceptance_confidence);
  };
  if (!common::slower_beyond_noise(summary(ev), summary(current), 0.0)) {
    a.outcome = rewind_outcome::too_small;
    a.reason = "slowdown within the measured spread";
    return std::nullopt;
  }
  a.outcome = rewind_outcome::kept;
  return ev;
}

// What every kept step holds, whoever proposed it; the caller names it (motif, title, ...).
rewind_step measured_step(const motifs::file_set& fast, const rewind_eval& fast_eval, const motifs::file_set& slow,
                          const rewind_eval& slow_eval) {
  rewind_step st;
  st.diff = motifs::unified_diff(slow, fast);  // forward: slow -> fast
  st.fast_us = fast_eval.latency_us;
  st.slow_us = slow_eval.latency_us;
  st.fast_profile = fast_eval.profile;
  st.slow_profile = slow_eval.profile;
  st.fast_files = fast;
  st.slow_files = slow;
  return st;
}

void record(rewind_result& out, rewind_attempt a, const rewind_progress& on_attempt) {
  a.index = static_cast<int>(out.attempts.size());
  out.attempts.push_back(std::move(a));
  if (on_attempt) on_attempt(out.attempts.back());
}

nlohmann::json rewind_note(const rewind_step& step, const rewind_config& cfg) {
  return nlohmann::json{{"slowdown", step.fast_us > 0 ? step.slow_us / step.fast_us : 0.0},
                        {"min_slowdown", cfg.min_slowdown},
                        {"seed", cfg.seed},
                        {"slow_profile", step.slow_profile},
                        {"fast_profile", step.fast_profile}};
}

experience_evidence evidence_of(const rewind_step& step, const rewind_config& cfg) {
  return experience_evidence{cfg.op, step.slow_us, step.fast_us, cfg.backend, cfg.profile};
}

// The files a step changes (added, removed or edited), comma-separated: the attempt's path.
std::string changed_paths(const motifs::file_set& before, const motifs::file_set& after) {
  std::set<std::string> paths;
  for (const auto& [p, text] : after) {
    auto it = before.find(p);
    if (it == before.end() || it->second != text) paths.insert(p);
  }
  for (const auto& [p, text] : before) {
    if (after.count(p) == 0) paths.insert(p);
  }
  std::string out;
  for (const auto& p : paths) out += (out.empty() ? "" : ",") + p;
  return out;
}

outcome<std::vector<deopt_step>> safe_deoptimize(engine& eng, const motifs::file_set& files) {
  try {
    return eng.deoptimize(files);
  } catch (const std::exception& e) {
    return engine_failure{std::string("deoptimize threw: ") + e.what()};
  }
}

// The engine's tuple for a kept step, held to the offline rules: the measured diff, our
// evidence, provenance rewind, a valid tuple; else the offline Distiller's, saying why.
experience distill_with(engine& eng, const deopt_step& proposed, const rewind_step& st, const rewind_config& cfg) {
  deopt_step d = proposed;
  d.before = st.fast_files;
  d.after = st.slow_files;
  d.fast_us = st.fast_us;
  d.slow_us = st.slow_us;
  std::string why;
  try {
    auto got = eng.distill(d);
    if (got.ok()) {
      experience e = std::move(got).value();
      e.code_diff = st.diff;  // the change that was measured, whatever the engine wrote
      e.evidence = evidence_of(st, cfg);
      e.origin = provenance::rewind;
      if (e.motif.empty()) e.motif = st.motif;
      e.extra["rewind"] = rewind_note(st, cfg);
      e.extra["rewind"]["engine"] = eng.name();
      e.id.clear();
      finalize(e);
      const auto problems = validate(e);
      if (problems.empty()) return e;
      why = "the engine's tuple is invalid: " + problems.front();
    } else {
      why = got.reason();
    }
  } catch (const std::exception& ex) {
    why = std::string("distill threw: ") + ex.what();
  }
  experience e = distill(st, cfg);
  e.extra["rewind"]["engine"] = eng.name();
  e.extra["distill_fallback"] = why;
  return e;
}

}  // namespace

const char* to_string(rewind_outcome o) {
  switch (o) {
    case rewind_outcome::kept: return "kept";
    case rewind_outcome::too_small: return "too_small";
    case rewind_outcome::failed: return "failed";
    case rewind_outcome::not_applicable: return "not_applicable";
  }
  return "?";
}

rewind_result run_rewind(const motifs::file_set& seed_files, motifs::parser& parser, const rewind_evaluator& eval,
                         const rewind_config& cfg, const rewind_progress& on_attempt) {
  check_config(eval, cfg, "run_rewind");
  rewind_result out;
  if (!evaluate_seed(seed_files, eval, out)) return out;

  std::mt19937_64 rng(cfg.seed);
  std::set<std::string> tried;
  motifs::file_set current = seed_files;
  rewind_eval current_eval = out.seed_eval;
  int evaluations = 0;

  while (static_cast<int>(out.steps.size()) < cfg.max_steps) {
    if (cfg.max_attempts > 0 && evaluations >= cfg.max_attempts) {
      out.stop_reason = "max_attempts";
      break;
    }
    motifs::source_set src(current, parser);
    std::vector<candidate_site> cands;
    for (const auto& m : motifs::all_motifs()) {
      for (auto& s : motifs::sites_for(*m, src, motifs::direction::inverse)) {
        std::string key = site_key(src, s);
        if (tried.count(key) != 0) continue;
        cands.push_back({m.get(), std::move(s), std::move(key)});
      }
    }
    if (cands.empty()) {
      out.stop_reason = "no_site_left";
      break;
    }
    const std::size_t pick = static_cast<std::size_t>(rng() % cands.size());
    const candidate_site& c = cands[pick];
    tried.insert(c.key);

    rewind_attempt a;
    a.motif = c.s.motif;
    a.path = c.s.path;
    a.summary = c.s.summary;
    a.current_us = current_eval.latency_us;

    const motifs::applied ap = motifs::apply_site(*c.m, src, c.s, motifs::direction::inverse);
    if (!ap.ok || ap.files == current) {
      a.outcome = rewind_outcome::not_applicable;
      a.status = "not_applicable";
      a.reason = ap.ok ? "the edit changes nothing" : ap.reason;
    } else {
      ++evaluations;
      if (auto ev = measure(eval, ap.files, current_eval, cfg, a)) {
        rewind_step st = measured_step(current, current_eval, ap.files, *ev);
        st.motif = std::string(c.m->id());
        st.title = std::string(c.m->title());
        st.description = std::string(c.m->description());
        st.bottleneck = c.m->bottleneck();
        out.tuples.push_back(distill(st, cfg));
        out.steps.push_back(std::move(st));
        current = ap.files;
        current_eval = *ev;
      }
    }
    record(out, std::move(a), on_attempt);
  }
  if (out.stop_reason.empty()) out.stop_reason = "max_steps";
  out.final_files = std::move(current);
  return out;
}

rewind_result run_engine_rewind(const motifs::file_set& seed_files, engine& eng, const rewind_evaluator& eval,
                                const rewind_config& cfg, const rewind_progress& on_attempt) {
  check_config(eval, cfg, "run_engine_rewind");
  if (cfg.engine_rounds < 1) {
    throw error(ec::invalid_argument, "run_engine_rewind: engine_rounds must be >= 1 (rounds that may keep nothing)");
  }
  rewind_result out;
  if (!evaluate_seed(seed_files, eval, out)) return out;

  motifs::file_set current = seed_files;
  rewind_eval current_eval = out.seed_eval;
  // Slow file sets already tried: an engine that proposes the same step again (a deterministic
  // one always does) costs no second evaluation.
  std::set<motifs::file_set> tried;
  int fruitless = 0;         // rounds in a row that kept nothing
  std::string engine_error;  // the last round's deoptimize failure, if it failed
  auto attempts_left = [&] { return cfg.max_attempts <= 0 || static_cast<int>(out.attempts.size()) < cfg.max_attempts; };

  while (static_cast<int>(out.steps.size()) < cfg.max_steps) {
    if (fruitless >= cfg.engine_rounds) {
      out.stop_reason = engine_error.empty() ? "no_step_left" : "engine: " + engine_error;
      break;
    }
    if (!attempts_left()) {
      out.stop_reason = "max_attempts";
      break;
    }
    auto proposed = safe_deoptimize(eng, current);
    if (!proposed.ok()) {
      rewind_attempt a;
      a.summary = "deoptimize (" + eng.name() + " engine)";
      a.current_us = current_eval.latency_us;
      a.outcome = rewind_outcome::failed;
      a.status = "engine_failed";
      a.reason = proposed.reason();
      engine_error = proposed.reason();
      record(out, std::move(a), on_attempt);
      ++fruitless;
      continue;
    }
    engine_error.clear();
    bool kept = false;
    for (const deopt_step& d : proposed.value()) {
      if (!attempts_left()) {
        out.stop_reason = "max_attempts";
        break;
      }
      if (!tried.insert(d.after).second) continue;
      rewind_attempt a;
      a.motif = d.motif;
      a.path = changed_paths(current, d.after);
      a.summary = d.title;
      a.current_us = current_eval.latency_us;
      if (d.after == current) {
        a.outcome = rewind_outcome::not_applicable;
        a.status = "not_applicable";
        a.reason = "the edit changes nothing";
      } else if (auto ev = measure(eval, d.after, current_eval, cfg, a)) {
        rewind_step st = measured_step(current, current_eval, d.after, *ev);
        st.motif = d.motif;
        st.title = d.title;
        st.description = d.description;
        if (auto c = parse_bottleneck_class(d.bottleneck)) {
          st.bottleneck = *c;
        } else if (auto named = classify_bottleneck(d.bottleneck); !named.empty()) {
          st.bottleneck = named.front();
        }
        out.tuples.push_back(distill_with(eng, d, st, cfg));
        out.steps.push_back(std::move(st));
        current = d.after;
        current_eval = *ev;
        kept = true;
      }
      record(out, std::move(a), on_attempt);
      if (kept) break;
    }
    if (!out.stop_reason.empty()) break;
    fruitless = kept ? 0 : fruitless + 1;
  }
  if (out.stop_reason.empty()) out.stop_reason = "max_steps";
  out.final_files = std::move(current);
  return out;
}

bottleneck_class caused_bottleneck(const rewind_step& step) {
  // The class whose finding grew most from the fast to the slow profile: what the
  // de-optimization made worse, as the Diagnoser will name it on a kernel that has it.
  try {
    if (step.slow_profile.empty() || step.fast_profile.empty()) return step.bottleneck;
    const diagnosis slow = diagnose(step.slow_profile);
    const diagnosis fast = diagnose(step.fast_profile);
    std::optional<bottleneck_class> best;
    double best_gain = 0.05;  // a smaller change is noise: keep the motif's own class
    for (const auto& f : slow.findings) {
      double before = 0;
      for (const auto& g : fast.findings) {
        if (g.kind == f.kind) before = g.score;
      }
      if (f.score - before > best_gain) {
        best_gain = f.score - before;
        best = f.kind;
      }
    }
    return best.value_or(step.bottleneck);
  } catch (const std::exception&) {
    return step.bottleneck;  // a profile the Diagnoser cannot read
  }
}

experience distill(const rewind_step& step, const rewind_config& cfg) {
  experience e;
  e.title = step.title;
  e.description = step.description;
  e.bottleneck = to_string(caused_bottleneck(step));
  e.code_diff = step.diff;
  e.evidence = evidence_of(step, cfg);
  e.motif = step.motif;
  e.origin = provenance::rewind;
  e.extra["rewind"] = rewind_note(step, cfg);
  finalize(e);
  return e;
}

}  // namespace aopt::search
