// The optimizer's view of the world, in three seams (TVM MetaSchedule's names): every step the
// search takes that is not pure computation goes through one of them.
//   search::engine  proposals: tiling templates and variants, diagnoses, kernel rewrites
//                   (search/engine.h; the offline engine, the LLM engine, or the actors'
//                   proxy to the Mutator, Diagnoser and Refiner);
//   runner          evaluations of candidates on devices (evaluator slots, or the actors' pool);
//   database        the experience bank: retrieval for a diagnosis, and learning accepted changes.
// The search algorithms (optimizer.h, the bench baselines) are pure functions of their inputs and
// a `services` bundle of the three.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "aopt/search/diagnose.h"
#include "aopt/search/engine.h"
#include "aopt/search/experience.h"
#include "aopt/stage1/mutator.h"
#include "aopt/stage1/tiling_template.h"

namespace aopt::optimize {

using search::file_map;  // relative path ("op_kernel/add_custom.cpp") -> content

// One candidate to evaluate: the complete source set of the operator (every op_host/ and
// op_kernel/ source file, changed or not) plus its lineage. The evaluator replaces the files
// that differ from the operator's base package.
struct eval_request {
  file_map files;
  std::string stage;     // "base", "tiling", "kernel", "verify", "random", ...; "remeasure":
                         // measured again, never answered from the result cache; "screen": only
                         // the host tiling of every case runs (no kernel): the report's `result`
                         // is the screen (evaluation::evaluator::screen), `ok` when every case tiled
  int round = 0;
  std::string proposal;  // one line: what this candidate changes
  // Input seed override: "verify" requests use a fresh seed so the winner is checked on inputs
  // it was not selected on. nullopt = the operator's seed (aopt.json "seed", else 1).
  std::optional<std::uint64_t> input_seed;
  // The operator the candidate belongs to (a job's package id): the evaluator's base package
  // when one evaluator serves several jobs. Empty for an evaluator of one package.
  std::string package;
  // Run on this device (its name as reports give it, "sim1" or "node/npu0"): a noisy backend's
  // confirming measurements of champion and challenger go to the device that measured the
  // challenger. Empty, or a device that is down or unknown: any device of the job's class.
  std::string device;
  // Evaluate these files on top of `files` instead (Stage I's search form, stage1/search_form.h:
  // the tiling source reading its tunables at run time, and the tunables file with this
  // variant's values), so that the variants of one template share one host build. The
  // candidate is still `files`: the job's memory, the journal and the report know only those.
  file_map search_form = {};
};

// What came back. `ok` only for a candidate that passed every case (the timed one included),
// did not write to its inputs, and has a latency.
struct eval_report {
  bool ok = false;
  std::string status;        // evaluator status: "ok", "compile_error", "tiling_error", ...
  std::string diagnostic;    // why it failed, one paragraph
  double latency_us = 0;     // timed case (simulated on `sim`; see `backend`)
  std::optional<double> bound_us;  // roofline lower bound of the timed case, when known
  // Faster than the bound: held as suspect, never accepted (the evaluator or the model is wrong).
  bool suspect = false;
  bool cached = false;       // the evaluator answered from its persistent result cache
  std::string backend;       // "sim", "cann"
  std::string profile_name;  // device profile ("910b4")
  nlohmann::json profile = nlohmann::json::object();  // timed case, msprof field names
  nlohmann::json result = nlohmann::json::object();   // the full result record (DESIGN.md §4)
  double seconds = 0;        // wall time of this evaluation
  // The device that ran it ("sim0", or "node/sim0" on a remote evaluator node); empty when the
  // evaluator was not told its name.
  std::string device;
  // A failure for lack of on-chip buffer (the kernel asked for more UB than the core has, e.g.
  // a second queue slot on a tiling sized for one): the candidate may pass with smaller tiles.
  bool out_of_ub() const;
  // The UB the candidate reserved (its InitBuffer calls) in case `name` (result.cases[].ub_bytes),
  // or with an empty name the most of any case; 0 when the evaluator did not say.
  std::uint64_t ub_reserved(const std::string& name = {}) const;
  // The timed case's repeated timings (result["measurement"]["samples_us"]: cann, or sim with a
  // noise profile); otherwise the one deterministic latency.
  std::vector<double> samples() const;
};

// The status of a builder's report (jobs::make_sim_builders): the candidate built and its
// artifacts wait in the host's cache; a device is still to run it. Never a search's answer.
inline constexpr std::string_view built_status = "built";

// Evaluates candidates (the Evaluator role).
class runner {
 public:
  virtual ~runner() = default;
  // Evaluations run at once (evaluator slots or devices); batches of this size use the hardware
  // best. At least 1.
  virtual std::size_t parallelism() const = 0;
  // One report per request, in request order. Requests run in parallel up to parallelism().
  // Never throws for a bad candidate (that is a report); throws only for system faults (the
  // evaluator itself is gone).
  virtual std::vector<eval_report> evaluate(const std::vector<eval_request>& batch) = 0;
};

// The experience bank as the search sees it (the Retriever and Distiller roles).
class database {
 public:
  virtual ~database() = default;
  // The k best tuples of the bank for a diagnosis (fewer when the bank is smaller).
  virtual std::vector<search::experience> retrieve(const search::diagnosis& d, std::size_t k) = 0;
  // An accepted Stage II change, distilled: stored in the bank with provenance `refinement`.
  // Default: dropped.
  virtual void learn(const search::experience& accepted) { (void)accepted; }
};

// What a search works with. The objects must outlive the search.
struct services {
  search::engine& engine;
  optimize::runner& runner;
  optimize::database& database;
};

// One evaluator slot: evaluates a request (blocking). Each slot is used by one thread at a time.
using evaluate_fn = std::function<eval_report(const eval_request&)>;
// An evaluator slot shared by the jobs of a long-lived process: `package` names the operator
// the request belongs to (the job's package id).
using package_evaluate_fn = std::function<eval_report(const std::string& package, const eval_request&)>;

// Evaluator slots run from the calling thread: one thread per slot for each batch. An exception
// of a slot is rethrown (after the batch) to the caller.
class slot_runner final : public runner {
 public:
  explicit slot_runner(std::vector<evaluate_fn> slots);  // at least one
  std::size_t parallelism() const override { return slots_.size(); }
  std::vector<eval_report> evaluate(const std::vector<eval_request>& batch) override;

 private:
  std::vector<evaluate_fn> slots_;
};

// A bank held in memory: BM25 (or the given ranker) retrieval over a fixed corpus; accepted
// changes go to `learned` (optional).
class bank_database final : public database {
 public:
  explicit bank_database(std::vector<search::experience> bank,
                         std::function<void(const search::experience&)> learned = {});
  ~bank_database() override;
  std::vector<search::experience> retrieve(const search::diagnosis& d, std::size_t k) override;
  void learn(const search::experience& accepted) override;

 private:
  struct impl;
  std::unique_ptr<impl> impl_;
};

// The three seams without actors: the engine called in the caller's thread, a slot_runner and a
// bank_database. Converts to `services`; must outlive the search it is given to.
class local_services {
 public:
  local_services(search::engine& engine, std::vector<search::experience> bank, std::vector<evaluate_fn> slots,
                 std::function<void(const search::experience&)> learned = {})
      : engine_(engine), runner_(std::move(slots)), database_(std::move(bank), std::move(learned)) {}
  operator services() { return {engine_, runner_, database_}; }  // NOLINT: implicit on purpose

 private:
  search::engine& engine_;
  slot_runner runner_;
  bank_database database_;
};

// Helpers shared by every implementation.
// The synthesis input of a file set: op_host/ sources as host files, op_kernel/ as kernel files.
stage1::synthesis_input synthesis_input_of(const file_map& files);
// A stable hash of a file set (paths and contents), the job-level identity of a candidate.
std::string files_key(const file_map& files);

}  // namespace aopt::optimize
