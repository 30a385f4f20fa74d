// The Stage I loop (the kernel fixed): U steps; each asks the engine for variants, answers the
// ones already evaluated from the history (no budget spent), evaluates the others through the
// callback (one budget unit each, failures included), and tracks the best passing variant.
// Zero tolerance: a failed variant is never the best; it joins the negative history. A pure
// function of its inputs: deterministic for a deterministic engine and evaluator.
#pragma once

#include <cstddef>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "aopt/search/engine.h"
#include "aopt/stage1/mutator.h"
#include "aopt/stage1/tiling_template.h"

namespace aopt::stage1 {

using evaluator = std::function<eval_outcome(const tiling_proposal&)>;
// Evaluates a step's new proposals together (in parallel where the caller can): one outcome per
// proposal, in order. An outcome with `memo` set was answered without spending budget.
using batch_evaluator = std::function<std::vector<eval_outcome>(const std::vector<tiling_proposal>&)>;

// A screen's verdict on one proposal: why it would fail (nullopt: it keeps every invariant), and
// whether every case tiles exactly as the template's base does (block dim, key, tiling data).
struct screen_verdict {
  std::optional<std::string> why;
  bool same_tiling = false;
  // The tiling every case got (block dim, key, tiling words), comparable between proposals; empty
  // when unknown. A proposal that tiles as one this run already measured, and changes no
  // tunable the kernel reads relative to it, is answered with that measurement (memo, no budget).
  std::string tiling;
};

// Screens a step's new proposals before they cost budget (Feasible Stage I, feasibility.h): one
// verdict per proposal. A screened-out proposal joins the history as a failure with status
// "screened" (no budget spent), so the mutator learns from it. So does one that tiles every case
// as the base does and changes no tunable the kernel reads (status "same_tiling"): it would run
// the base's program, and measuring it again only spends budget.
using screener = std::function<std::vector<screen_verdict>(const std::vector<tiling_proposal>&)>;

struct stage1_config {
  std::size_t steps = 8;               // U: proposal rounds. Default: 8
  std::size_t proposals_per_step = 4;  // variants asked of the engine per step. Default: 4
  std::size_t budget = 40;             // evaluations (failures included, cache hits not). Default: 40
  // Evaluate the base assignment first when the history does not hold it (one budget unit).
  // Default: true
  bool evaluate_base = true;
  // With a screener: how many times a step asks the engine again for the proposals it screened
  // out (so a step still evaluates proposals_per_step variants). Default: 3
  std::size_t screen_refills = 3;
  // With a screener, before the first step: each tunable is probed, changed alone from the base
  // to at most `probes_per_tunable` values of its probe_ladder (at most `max_probes` in all, taken
  // breadth first: every tunable's first ladder value, then every second one, ...), and
  // the screen's verdicts recorded (stage1_history::record_probe): a tunable with a failing probe
  // then moves only among the values that passed, and one the kernel does not read whose every
  // probe tiles every case as the base does (it sits in a branch no case takes, e.g. another
  // dtype's) is frozen at its written value. Probes spend no budget. Once per history.
  // Defaults: 8 and 48; 0 turns probing off.
  std::size_t probes_per_tunable = 8;
  std::size_t max_probes = 48;
  device_limits limits;  // the device the ladders' core counts come from
  // Says what the probes found, one line per probed tunable (nullptr: silent).
  std::function<void(const std::string&)> note;
  void validate() const;  // throws aopt::error(invalid_argument) naming the field
};

struct stage1_trial {
  std::size_t step = 0;      // 0-based; the base evaluation is step 0 too
  assignment values;
  std::string op;
  std::string description;
  eval_outcome outcome;
  bool cached = false;       // answered from the history
  std::map<std::string, std::string> files;  // the proposal's files (a free-form rewrite has no values)
};

struct stage1_result {
  std::optional<assignment> best;      // fastest passing variant (the base if nothing beat it)
  // Its files when this run evaluated it (a free-form rewrite, values empty, has only these);
  // empty when the best came from an earlier round's history: instantiate `best` then.
  std::map<std::string, std::string> best_files;
  double best_latency_us = 0;
  std::string best_description;
  std::optional<double> base_latency_us;
  bool improved = false;               // best is faster than the base
  std::size_t evaluations = 0;         // budget spent
  std::size_t cache_hits = 0;
  std::size_t failures = 0;
  std::size_t screened = 0;            // proposals the screener rejected (no budget spent)
  std::size_t probed = 0;              // probes screened (no budget spent), rejected ones in `screened`
  std::size_t steps_run = 0;
  std::vector<stage1_trial> trials;    // in order
  std::string stop_reason;             // "budget exhausted", "steps done", "engine: ..."
};

// Runs Stage I on `tmpl`, recording every evaluation in `history` (which may already hold
// evaluations from earlier rounds: those are cache hits and parents, not budget).
stage1_result run_stage1(const tiling_template& tmpl, search::engine& engine, const evaluator& evaluate,
                         const stage1_config& cfg, stage1_history& history);

// The same loop with a step's proposals evaluated as one batch, and proposals asked through
// `propose` (an engine call, or the same call routed elsewhere, e.g. to an actor).
using proposer = std::function<search::outcome<std::vector<tiling_proposal>>(
    const tiling_template&, const stage1_history&, std::size_t)>;
stage1_result run_stage1(const tiling_template& tmpl, const proposer& propose, const batch_evaluator& evaluate,
                         const stage1_config& cfg, stage1_history& history, const screener& screen = {});

}  // namespace aopt::stage1
