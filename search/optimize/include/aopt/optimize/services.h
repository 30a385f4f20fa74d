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
#include "aopt/vocab/verdict.h"

namespace aopt::optimize {

using search::file_map;  // relative path ("op_kernel/add_custom.cpp") -> content

// One evaluation's request and report, one C++ type each from the search to the evaluator and
// back (vocab/verdict.h: status and stage as enums, the facts of each case, typed warnings).
using vocab::case_facts;
using vocab::eval_report;
using vocab::eval_request;
using vocab::eval_stage;
using vocab::eval_status;
using vocab::failure_report;

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

// Whether a file of a candidate is kernel source: op_kernel/..., or a shared kernel header the
// loader took (aopt_shared/...h: jobs::shared_search_files); the rest is host (op_host/, a shared
// tiling source aopt_shared/...cpp).
bool is_kernel_file(const std::string& path);
// A stable hash of a file set (paths and contents), the job-level identity of a candidate.
std::string files_key(const file_map& files);

}  // namespace aopt::optimize
