// One actor system that lives as long as its owner. Spawned once and shared by every job: the
// evaluators (one Evaluator actor per slot) and their pool, the Scheduler, the role actors
// (Mutator, Diagnoser, Retriever, Refiner: pools of `role_workers` workers each) and the
// Distiller. Each job brings its own engine, bank snapshot and progress listener, registered in
// the runtime's job table for the job's length. `aopt optimize` makes one for one job; `aoptd`
// keeps one for its lifetime and runs many jobs on it at once (one calling thread per job).
// CAF-free header.
#pragma once

#include <cstddef>
#include <memory>
#include <vector>

#include "aopt/actors/config.hpp"
#include "aopt/actors/job.hpp"
#include "aopt/optimize/optimizer.h"
#include "aopt/optimize/services.h"

namespace aopt::actors {

class runtime {
 public:
  // `role_workers`: workers per role actor, the number of jobs whose engine calls run at once
  // (give the number of jobs that may run together). Throws aopt::error(invalid_argument) for no
  // slot, no worker or a bad timeout.
  runtime(std::vector<optimize::package_evaluate_fn> slots, actor_timeouts timeouts = {},
          std::size_t role_workers = 1);
  // Stops every actor and waits for them (an evaluation still running included).
  ~runtime();
  runtime(const runtime&) = delete;
  runtime& operator=(const runtime&) = delete;

  // Runs Algorithm 1 for `spec` (spec.slots is ignored: the runtime's evaluators serve it; the
  // evaluation requests carry spec.package, which the slots use to find the operator). Blocks
  // the calling thread; calls from several threads run their jobs at once. Throws what
  // run_optimizer throws (what spec.decorate's runner throws included), and
  // aopt::error(internal) when an actor stops answering.
  optimize::optimize_result run_optimize(const job_spec& spec);

  std::size_t slots() const;

 private:
  struct impl;
  std::unique_ptr<impl> impl_;
};

}  // namespace aopt::actors
