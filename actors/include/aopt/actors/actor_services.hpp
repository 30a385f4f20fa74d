// The optimizer's three seams over actors: every method is a blocking request (from the calling
// thread, through its own scoped_actor) to the matching actor, so run_optimizer runs unchanged
// over the Mutator, Diagnoser and Refiner (search::engine), the evaluator pool (runner), and the
// Retriever and Distiller (database). Use one object from one thread (the job driver's). Engine
// failures are results, as with local_services; an actor that does not answer within its
// timeout, or is gone, is a system fault: aopt::error(internal). Differences from
// local_services: an exception thrown by an evaluate_fn becomes a "runtime_error" report
// (slot_runner rethrows it), and evaluations time out. deoptimize and distill are not the
// optimizer's (rewind runs on the Rewinder): they answer an engine_failure.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "aopt/actors/config.hpp"
#include "aopt/actors/spawn.hpp"
#include "aopt/optimize/services.h"

namespace aopt::actors {

class actor_services final : public search::engine, public optimize::runner, public optimize::database {
 public:
  // For job `job` of the role actors' job table, whose evaluation requests name `package` and
  // go to devices of `device_class` ("" = any). Asks the Mutator for the job's engine's name and
  // the pool for its parallelism (the devices of the class) once, here.
  actor_services(caf::actor_system& sys, service_actors actors, protocols::search_id job,
                 std::string package, std::string device_class = {}, actor_timeouts timeouts = {});
  ~actor_services() override;
  actor_services(const actor_services&) = delete;
  actor_services& operator=(const actor_services&) = delete;

  operator optimize::services() { return {*this, *this, *this}; }  // NOLINT: implicit on purpose

  // search::engine
  std::string name() const override;
  search::outcome<stage1::tiling_template> synthesize_template(const stage1::synthesis_input& input) override;
  search::outcome<std::vector<stage1::tiling_proposal>> propose_tiling_variants(
      const stage1::tiling_template& tmpl, const stage1::stage1_history& history, std::size_t n) override;
  search::outcome<std::vector<search::deopt_step>> deoptimize(const optimize::file_map& kernel_files) override;
  search::outcome<search::experience> distill(const search::deopt_step& step) override;
  search::outcome<search::diagnosis> diagnose(const nlohmann::json& profile, const optimize::file_map& code) override;
  search::outcome<std::vector<search::kernel_rewrite>> rewrite_kernel(
      const optimize::file_map& files, const std::vector<search::experience>& tuples) override;
  // optimize::runner
  std::size_t parallelism() const override;
  std::vector<optimize::eval_report> evaluate(const std::vector<optimize::eval_request>& batch) override;
  // optimize::database
  std::vector<search::experience> retrieve(const search::diagnosis& d, std::size_t k) override;
  void learn(const search::experience& accepted) override;

 private:
  struct impl;
  std::unique_ptr<impl> impl_;
};

}  // namespace aopt::actors
