// actors::runtime: one actor system with the shared evaluators and pool, the role actors (pools
// serving every job), the Distiller and the Scheduler, spawned once; each run_optimize call
// registers its job, spawns the job's progress listener, asks the Scheduler and waits.
#include "aopt/actors/runtime.hpp"

#include <exception>
#include <optional>
#include <string>
#include <utility>

#include <caf/all.hpp>

#include "aopt/actors/convert.hpp"
#include "aopt/actors/job_support.hpp"
#include "aopt/actors/spawn.hpp"
#include "aopt/common/error.h"
#include "aopt/protocols/message_types.hpp"

namespace aopt::actors {

using namespace protocols;

struct runtime::impl {
  caf::actor_system_config cfg;
  caf::actor_system sys;
  actor_timeouts timeouts;
  std::shared_ptr<job_table> jobs = std::make_shared<job_table>();
  std::vector<evaluator_actor> evaluators;
  service_actors actors;
  scheduler_actor scheduler;

  impl(std::vector<optimize::package_evaluate_fn> slots, actor_timeouts t, std::size_t role_workers)
      : sys(with_message_types(cfg)), timeouts(t) {
    for (std::size_t i = 0; i < slots.size(); ++i)
      evaluators.push_back(spawn_evaluator(sys, std::move(slots[i]), i));
    actors.pool = spawn_evaluator_pool(sys, evaluators, timeouts.evaluation);
    actors.mutator = spawn_mutator(sys, jobs, role_workers);
    actors.diagnoser = spawn_diagnoser(sys, jobs, role_workers);
    actors.retriever = spawn_retriever(sys, jobs, role_workers);
    actors.refiner = spawn_refiner(sys, jobs, role_workers);
    actors.distiller = spawn_distiller(sys, jobs);
    scheduler = spawn_scheduler(sys, actors, jobs);
  }

  ~impl() {
    caf::scoped_actor self{sys};
    stop_all(self, scheduler, actors.mutator, actors.diagnoser, actors.retriever, actors.refiner,
             actors.distiller, actors.pool);
    for (const auto& e : evaluators) stop_all(self, e);
  }
};

runtime::runtime(std::vector<optimize::package_evaluate_fn> slots, actor_timeouts timeouts,
                 std::size_t role_workers) {
  timeouts.validate();
  if (slots.empty()) {
    throw aopt::error(ec::invalid_argument,
                      "actors: at least one evaluator slot is needed (give --slots >= 1)");
  }
  if (role_workers == 0) {
    throw aopt::error(ec::invalid_argument, "actors: role_workers must be at least 1");
  }
  impl_ = std::make_unique<impl>(std::move(slots), timeouts, role_workers);
}

runtime::~runtime() = default;

std::size_t runtime::slots() const { return impl_->evaluators.size(); }

optimize::optimize_result runtime::run_optimize(const job_spec& spec) {
  if (spec.engine == nullptr) {
    throw aopt::error(ec::invalid_argument,
                      "run_optimize_job: no proposal engine was given (job_spec.engine)");
  }
  spec.timeouts.validate();
  spec.config.validate();
  auto& sys = impl_->sys;
  auto job = std::make_shared<job_context>();
  job->package = spec.package;
  job->engine = spec.engine;
  job->index = std::make_shared<const search::retriever>(spec.bank, spec.make_ranker ? spec.make_ranker() : nullptr);
  job->learned = spec.learned;
  job->decorate = spec.decorate;
  job->timeouts = spec.timeouts;
  if (spec.progress) job->listener = spawn_progress_listener(sys, spec.progress);
  const auto id = impl_->jobs->add(job);

  std::optional<optimize::optimize_result> result;
  std::exception_ptr failure;
  {
    caf::scoped_actor self{sys};
    optimize_job_msg msg{spec.package, spec.base_files, pack(spec.config)};
    ask_local(self, impl_->scheduler, spec.timeouts.job, "run_optimize_job: the Scheduler", result, failure,
              optimize_atom::value, local_atom::value, id, std::move(msg));
    flush(self, impl_->actors.distiller, spec.timeouts.engine);
    flush(self, job->listener, spec.timeouts.engine);
    stop_all(self, job->listener);
  }
  impl_->jobs->remove(id);
  if (failure) std::rethrow_exception(failure);
  return std::move(*result);
}

}  // namespace aopt::actors
