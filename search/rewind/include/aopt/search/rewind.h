// Offline rewind (DESIGN.md, experience bank): de-optimizes a seed (an expert kernel) step by
// step with inverse motifs, evaluates every step through a callback, keeps a step only when the
// slowdown is real (latency_new / latency_cur >= min_slowdown), and distills each kept step into
// an experience tuple whose code_diff goes from the slow code to the fast code. Pure: no
// evaluation, storage or I/O here; see docs/experience-bank.md "Offline rewind".
//
// run_engine_rewind is the same loop with the steps proposed by a search::engine (the LLM
// engine's rewind role) instead of motif sites: the same seed check, keep rule, attempt
// records and tuples, so a model's de-optimization is kept only when it measurably slows down.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "aopt/motifs/motif.h"
#include "aopt/search/engine.h"
#include "aopt/search/experience.h"

namespace aopt::search {

// What the evaluator callback reports for one file set.
struct rewind_eval {
  bool ok = false;
  double latency_us = 0;
  std::string status;                                 // "ok", "compile_error", ...
  nlohmann::json profile = nlohmann::json::object();  // profile of the timed case (msprof names)
  std::string diagnostic;                             // why it failed, when !ok
  // Repeated timings of the timed case (a measured backend, or sim with a noise profile); empty:
  // latency_us is one deterministic sample.
  std::vector<double> samples_us;
};
using rewind_evaluator = std::function<rewind_eval(const motifs::file_set&)>;

struct rewind_config {
  int max_steps = 6;            // stop after this many kept steps
  double min_slowdown = 1.03;   // keep a step when latency_new / latency_cur >= this, and (with
                                // repeated timings) the new 99% interval lies above the current one
  std::uint64_t seed = 1;       // picks among the untried sites (std::mt19937_64, modulo)
  int max_attempts = 64;        // evaluations of candidate steps at most (0 = no limit)
  std::string op;               // evidence: operator name
  std::string backend = "sim";  // evidence: backend
  std::string profile = "910b4";  // evidence: device profile name
  // run_engine_rewind: rounds in a row that may keep nothing (the engine failed, or none of its
  // steps was kept) before the loop stops; the engine is asked again after each such round.
  int engine_rounds = 3;
};

enum class rewind_outcome { kept, too_small, failed, not_applicable };
const char* to_string(rewind_outcome o);

// One tried site.
struct rewind_attempt {
  int index = 0;                 // 0-based, in trial order
  std::string motif;
  std::string path;
  std::string summary;
  rewind_outcome outcome = rewind_outcome::not_applicable;
  double current_us = 0;         // latency of the current (faster) files
  std::optional<double> latency_us;  // latency of the de-optimized files, when evaluated ok
  double slowdown = 0;           // latency_us / current_us (0 when not evaluated ok)
  std::string status;            // evaluator status, or "not_applicable"
  std::string reason;            // diagnostic or motif reason when not kept
};

// One kept step: `slow_files` is `fast_files` de-optimized by `motif`.
struct rewind_step {
  std::string motif;
  std::string title;
  std::string description;
  bottleneck_class bottleneck = bottleneck_class::serialized_pipes;
  std::string diff;  // forward: unified diff from slow_files to fast_files
  double fast_us = 0;
  double slow_us = 0;
  nlohmann::json slow_profile = nlohmann::json::object();
  nlohmann::json fast_profile = nlohmann::json::object();
  motifs::file_set fast_files;
  motifs::file_set slow_files;
};

struct rewind_result {
  rewind_eval seed_eval;
  std::vector<rewind_attempt> attempts;
  std::vector<rewind_step> steps;
  std::vector<experience> tuples;  // one per step, finalized (id, created_ms)
  motifs::file_set final_files;    // the most de-optimized files
  std::string stop_reason;         // "max_steps", "no_site_left", "max_attempts", "seed_failed";
                                   // engine rewind: "no_step_left", "engine: <reason>"
};

using rewind_progress = std::function<void(const rewind_attempt&)>;

// Runs the loop. The seed is evaluated first; if it fails, nothing is tried (stop_reason
// "seed_failed"). Each site (motif, path, anchor text, summary) is tried at most once; sites
// are listed over all_motifs() in their fixed order and one untried site is picked with
// mt19937_64(seed) modulo their count, so a seed gives the same chain every time.
// `on_attempt`, when set, is called after every attempt (for progress output).
rewind_result run_rewind(const motifs::file_set& seed_files, motifs::parser& parser, const rewind_evaluator& eval,
                         const rewind_config& cfg, const rewind_progress& on_attempt = {});

// The loop with an engine proposing the steps. The seed is evaluated first ("seed_failed" as
// above). Each round asks engine.deoptimize(current files) and tries its steps in order until
// one is kept (latency_new / latency_cur >= min_slowdown); a kept step is distilled with
// engine.distill (deopt_step with fast_us / slow_us set), and the chain goes on from its slow
// files. Every tried step is an attempt (a step whose files were tried before is skipped, not
// re-evaluated); a failed deoptimize call is an attempt too (outcome failed, status
// "engine_failed", its reason), and both count against max_attempts. After engine_rounds
// rounds in a row that kept nothing the loop stops: "engine: <reason>" when the last round was
// an engine failure, else "no_step_left". The tuple is the engine's with the measured diff,
// the evidence of `cfg`, provenance rewind and extra.rewind (as distill() below, plus the
// engine's name); when the engine's distill fails or its tuple is invalid, the tuple is
// distill(step, cfg) with extra.distill_fallback naming why. Engine exceptions are failures.
rewind_result run_engine_rewind(const motifs::file_set& seed_files, engine& eng, const rewind_evaluator& eval,
                                const rewind_config& cfg, const rewind_progress& on_attempt = {});

// What a kept step made worse: the bottleneck class whose Diagnoser finding grew most (by more
// than 0.05) from the fast to the slow profile; the motif's own class when none did or a profile
// is missing.
bottleneck_class caused_bottleneck(const rewind_step& step);

// The Distiller: one kept step -> an experience tuple (title and description from the motif,
// bottleneck: caused_bottleneck(step), forward diff, evidence, motif id, provenance rewind; `extra.rewind`
// holds the slowdown and both profiles). Finalized.
experience distill(const rewind_step& step, const rewind_config& cfg);

}  // namespace aopt::search
