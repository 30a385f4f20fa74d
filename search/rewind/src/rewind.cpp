// Offline rewind loop and Distiller; see rewind.h.
#include "aopt/search/rewind.h"

#include <exception>
#include <optional>
#include <random>
#include <set>
#include <utility>

#include "aopt/common/error.h"
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
                         const rewind_config& cfg, const std::function<void(const rewind_attempt&)>& on_attempt) {
  if (!eval) throw error(ec::invalid_argument, "run_rewind: the evaluator callback is empty; pass a function");
  if (cfg.min_slowdown <= 0)
    throw error(ec::invalid_argument, "run_rewind: min_slowdown must be > 0 (e.g. 1.03 for 3%)");
  if (cfg.max_steps < 0) throw error(ec::invalid_argument, "run_rewind: max_steps must be >= 0");

  rewind_result out;
  out.final_files = seed_files;
  out.seed_eval = safe_eval(eval, seed_files);
  if (!out.seed_eval.ok || !(out.seed_eval.latency_us > 0)) {
    out.stop_reason = "seed_failed";
    return out;
  }

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
    a.index = static_cast<int>(out.attempts.size());
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
      const rewind_eval ev = safe_eval(eval, ap.files);
      a.status = ev.status;
      if (!ev.ok || !(ev.latency_us > 0)) {
        a.outcome = rewind_outcome::failed;
        a.reason = ev.diagnostic.empty() ? "evaluation status " + ev.status : ev.diagnostic;
      } else {
        a.latency_us = ev.latency_us;
        a.slowdown = ev.latency_us / current_eval.latency_us;
        if (a.slowdown >= cfg.min_slowdown) {
          a.outcome = rewind_outcome::kept;
          rewind_step st;
          st.motif = std::string(c.m->id());
          st.title = std::string(c.m->title());
          st.description = std::string(c.m->description());
          st.bottleneck = c.m->bottleneck();
          st.diff = motifs::unified_diff(ap.files, current);  // slow -> fast
          st.fast_us = current_eval.latency_us;
          st.slow_us = ev.latency_us;
          st.fast_profile = current_eval.profile;
          st.slow_profile = ev.profile;
          st.fast_files = current;
          st.slow_files = ap.files;
          out.tuples.push_back(distill(st, cfg));
          out.steps.push_back(std::move(st));
          current = ap.files;
          current_eval = ev;
        } else {
          a.outcome = rewind_outcome::too_small;
          a.reason = "slowdown below the threshold";
        }
      }
    }
    out.attempts.push_back(a);
    if (on_attempt) on_attempt(out.attempts.back());
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
  e.evidence = experience_evidence{cfg.op, step.slow_us, step.fast_us, cfg.backend, cfg.profile};
  e.motif = step.motif;
  e.origin = provenance::rewind;
  e.extra["rewind"] = nlohmann::json{{"slowdown", step.fast_us > 0 ? step.slow_us / step.fast_us : 0.0},
                                     {"min_slowdown", cfg.min_slowdown},
                                     {"seed", cfg.seed},
                                     {"slow_profile", step.slow_profile},
                                     {"fast_profile", step.fast_profile}};
  finalize(e);
  return e;
}

}  // namespace aopt::search
