// The optimizer: the paper's Algorithm 1 (block coordinate descent). R rounds; each round runs
// U Stage-I steps (tiling variants, the kernel fixed) and then S Stage-II steps (diagnose,
// retrieve, rewrite, the tiling fixed); every round starts from the best pair so far. The
// budget counts every evaluation, failures included; a candidate identical to one already
// evaluated in this job is answered from the job's memory and costs nothing. Zero tolerance: only
// candidates that pass every case count; one faster than the roofline bound is suspect and never
// accepted. Pure: all effects go through `services`; deterministic for a deterministic services.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "aopt/optimize/services.h"

namespace aopt::optimize {

struct optimizer_config {
  std::size_t budget = 40;            // evaluations, failures included. Default: 40
  std::size_t rounds = 3;             // R. Default: 3
  // Rounds after R while budget remains and the last round evaluated a new candidate. Default: 8
  std::size_t extra_rounds = 8;
  std::size_t stage1_steps = 4;       // U: Stage-I proposal steps per round. Default: 4
  std::size_t stage2_steps = 3;       // S: Stage-II steps per round. Default: 3
  // Candidates asked for per step; 0 = services.parallelism() (at least 2). Default: 0
  std::size_t proposals_per_step = 0;
  std::size_t top_k = 4;              // tuples retrieved per Stage-II step. Default: 4
  bool stage1 = true;                 // false: Stage II only (a bench baseline). Default: true
  bool stage2 = true;                 // false: Stage I only (a bench baseline). Default: true
  // Stage II: when no rewrite from the bank's tuples is left to try, ask the engine for
  // unguided rewrites (offline: every forward motif site). Default: true
  bool unguided_fallback = true;
  // A kernel rewrite that fails only for lack of UB on the current tiling gets the next round's
  // Stage I: the tiling is tuned for the rewritten operator (from the failing base, its
  // neighbours first) and a passing pair is accepted as one change. Default: true
  bool cotune = true;
  // When a round proposes nothing new and budget is left: recombine the best with the fastest
  // other candidates (kernel of one, tiling of the other) and rewrite those candidates' kernels,
  // before the job ends (the stop reason then says why nothing could be proposed). Default: true
  bool widen = true;
  // Feasible Stage I: screen each tiling variant (its host tiling alone, a request of stage
  // "screen") against what the base's tiling kept (stage1/feasibility.h) before it costs an
  // evaluation; a rejected variant spends no budget and joins the negative history. The runner's
  // slots must answer screen requests (jobs::make_sim_slots do; `aopt optimize` turns it on).
  // Default: false
  bool screen = false;
  // Stage I without a compile (stage1/search_form.h): a template whose search form builds,
  // reads its tunables at run time and tiles every case as the operator does has its variants
  // evaluated on one host build (the variant's values travel with the request); a variant that
  // changes a tunable the form writes as a literal is built. Needs a runner that screens, like
  // `screen` (`aopt optimize`, `aopt bench` and aoptd turn it on). Default: false
  bool search_form = false;
  // A candidate replaces the best only when latency < best * (1 - min_gain). Default: 0.001
  double min_gain = 0.001;
  // Re-check the final best on freshly generated inputs (a new seed): one evaluation outside
  // the budget. A winner that fails it is dropped for the next best. Default: true
  bool verify = true;
  std::uint64_t verify_seed = 0x5eed;  // input seed of the verification. Default: 0x5eed
  void validate() const;               // throws aopt::error(invalid_argument) naming the field
};

// One point of the trajectory: one evaluation (or job-memory answer) in order.
struct trajectory_point {
  std::size_t index = 0;        // 0-based position in the job
  std::size_t evaluations = 0;  // budget spent after this point
  std::size_t round = 0;        // 0-based
  std::string stage;            // "base", "tiling", "kernel", "verify"
  std::string proposal;
  std::string status;
  std::optional<double> latency_us;
  double best_us = 0;           // best accepted latency after this point (0 before the base)
  bool accepted = false;        // became the new best
  bool memo = false;            // answered from the job's memory (no budget)
  bool cached = false;          // answered from the evaluator's persistent cache (budget spent)
  bool suspect = false;
  std::string diagnostic;       // a failure's reason: the first line of the evaluator's diagnostic, bounded
};

// One accepted change: the diff from the previous best and its measured effect.
struct accepted_change {
  std::size_t round = 0;
  std::string stage;                       // "tiling" or "kernel"
  std::string title;                       // mutation description or rewrite title
  std::string rationale;                   // why (diagnosis evidence, tuple titles, ...)
  std::vector<std::string> experience_ids; // tuples a kernel rewrite applied
  std::string diff;                        // unified diff, previous best -> new best
  double before_us = 0;
  double after_us = 0;
  nlohmann::json profile_before = nlohmann::json::object();
  nlohmann::json profile_after = nlohmann::json::object();
};

// Per round: what each stage did.
struct round_summary {
  std::size_t round = 0;
  std::string stage1_stop;             // "steps done", "budget exhausted", "engine: ..."
  std::string stage2_stop;
  std::vector<std::string> diagnoses;  // one summary line per Stage-II step
  double best_us_after = 0;
};

// Where a job's wall time went, as the search saw it (run_optimizer times every services call).
// `evaluate_s - evaluator_s` is what routing the evaluations cost (actors, queues, the pool, a
// daemon's journal) over the evaluators' own time; `total_s - engine_s - retrieve_s - evaluate_s`
// is the search's own bookkeeping. With more than one evaluator slot, evaluations overlap and
// evaluator_s can exceed evaluate_s.
struct time_breakdown {
  double total_s = 0;      // run_optimizer, start to end
  double engine_s = 0;     // template synthesis, tiling proposals, diagnosis, rewrites
  double retrieve_s = 0;   // experience bank retrieval
  double evaluate_s = 0;   // waiting for evaluate() batches
  double evaluator_s = 0;  // the evaluators' own time: the sum of the reports' `seconds`
  std::size_t evaluated = 0;  // reports received (cached answers included)
};

struct optimize_result {
  std::string engine;
  file_map base_files;
  file_map best_files;
  eval_report base;                  // the base evaluation
  std::optional<eval_report> best;   // the best accepted evaluation (base when nothing beat it)
  double base_us = 0;
  double best_us = 0;
  double speedup = 1.0;              // base_us / best_us (1 when the base failed)
  std::vector<trajectory_point> trajectory;
  std::vector<accepted_change> changes;
  std::vector<round_summary> rounds;
  std::optional<eval_report> verification;  // the fresh-input check of the final best
  std::size_t evaluations = 0;       // budget spent
  std::size_t memo_hits = 0;
  std::size_t failures = 0;
  std::size_t screened = 0;          // Stage I variants the feasibility screen rejected (no budget)
  // Stage I variants evaluated (screens included) on their template's search-form build, and
  // those that needed a build of their own (a tunable the search form writes as a literal, or a
  // template without a search form).
  std::size_t unbuilt_variants = 0;
  std::size_t built_variants = 0;
  // Why the built ones were built, with how many each: "BUFFER_NUM: a kernel constant" (a
  // tunable the search form writes as a literal, search_form::literal_why), "no search form
  // (...)", "no tunable values (a rewrite)", "search form off".
  std::map<std::string, std::size_t> built_why;
  std::size_t suspects = 0;
  std::string stop_reason;           // "budget exhausted", "rounds done", "base failed: ...", ...
  // The budget the search stopped with (evaluations it was allowed but did not spend) and why it
  // could not spend it; 0 and empty when it spent the whole budget (issue 39: report.json's
  // result.budget_unused, report.md's "unused budget" row).
  std::size_t budget_unused = 0;
  std::string budget_unused_why;
  // What the user should know about the job's own setup, e.g. a timed case too small for any
  // change to show (small_case_us). Also sent as progress events of kind "warning".
  std::vector<std::string> warnings;
  time_breakdown time;               // wall time, not part of the search's result
};

// A base latency under this many microseconds is mostly the kernel's launch and head cost: a
// change of the kernel's body can hardly show, so the job warns before it spends its budget.
inline constexpr double small_case_us = 5.0;

// Progress events: called after every trajectory point and at stage boundaries ("stage1 round 1"),
// and for warnings (kind "warning").
struct progress_event {
  std::string kind;  // "point", "stage", "warning", "done"
  std::string message;
  std::optional<trajectory_point> point;  // set for kind "point"
};
using progress_fn = std::function<void(const progress_event&)>;

// Runs Algorithm 1 from `base_files`. The base is evaluated first (one budget unit); when it
// fails, the job stops with stop_reason "base failed: <status>: <diagnostic>".
optimize_result run_optimizer(const file_map& base_files, const services& svc, const optimizer_config& cfg,
                              const progress_fn& progress = {});

// Each record of the search has one JSON form (src/records.cpp; the request's and the report's
// in vocab/verdict.h), used alike by report.json, the daemon's journal and events, and the actor
// messages (protocols::wire): to_json writes every field, from_json (nlohmann's ADL hook:
// `j.get<trajectory_point>()`) reads it back exactly (doubles bit-equal) and throws
// nlohmann::json::exception on a missing or mistyped field.
using vocab::from_json;
using vocab::to_json;
nlohmann::json to_json(const trajectory_point& p);
void from_json(const nlohmann::json& j, trajectory_point& p);
nlohmann::json to_json(const progress_event& e);
void from_json(const nlohmann::json& j, progress_event& e);
nlohmann::json to_json(const optimizer_config& c);
void from_json(const nlohmann::json& j, optimizer_config& c);

// JSON of a result (report.json's "result"): every field above; files are not included.
nlohmann::json to_json(const optimize_result& r);
// The one line a trajectory point prints as (`aopt optimize` and `aopt watch`), no newline.
std::string progress_line(const trajectory_point& p);

}  // namespace aopt::optimize
