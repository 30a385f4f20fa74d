// optimize::services over actors: every method is a blocking request (from the calling thread,
// through its own scoped_actor) to the matching actor, so run_optimizer runs unchanged over the
// Mutator, Diagnoser, Retriever, Refiner, Distiller and the evaluator pool. Use one object from
// one thread (the Scheduler's). Engine failures are results, as with local_services; an actor
// that does not answer within its timeout, or is gone, is a system fault: aopt::error(internal).
// Differences from local_services: an exception thrown by an evaluate_fn becomes a
// "runtime_error" report (local_services rethrows it), and evaluations time out.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "aopt/actors/config.hpp"
#include "aopt/actors/spawn.hpp"
#include "aopt/optimize/services.h"

namespace aopt::actors {

class actor_services final : public optimize::services {
 public:
  // For job `job` of the role actors' job table, whose evaluation requests name `package`. Asks
  // the Mutator for the job's engine's name and the pool for its parallelism once, here.
  actor_services(caf::actor_system& sys, service_actors actors, protocols::job_id job,
                 std::string package, actor_timeouts timeouts = {});
  ~actor_services() override;
  actor_services(const actor_services&) = delete;
  actor_services& operator=(const actor_services&) = delete;

  std::string engine_name() const override;
  std::size_t parallelism() const override;
  search::outcome<stage1::tiling_template> synthesize_template(
      const stage1::synthesis_input& input) override;
  search::outcome<std::vector<stage1::tiling_proposal>> propose_tiling(
      const stage1::tiling_template& tmpl, const stage1::stage1_history& history,
      std::size_t n) override;
  search::outcome<search::diagnosis> diagnose(const nlohmann::json& profile,
                                              const optimize::file_map& code) override;
  std::vector<search::experience> retrieve(const search::diagnosis& d, std::size_t k) override;
  search::outcome<std::vector<search::kernel_rewrite>> refine(
      const optimize::file_map& files, const std::vector<search::experience>& tuples) override;
  std::vector<optimize::eval_report> evaluate(
      const std::vector<optimize::eval_request>& batch) override;
  void learn(const search::experience& accepted) override;

 private:
  struct impl;
  std::unique_ptr<impl> impl_;
};

}  // namespace aopt::actors
