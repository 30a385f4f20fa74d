// actors::runtime: the shared evaluators and pool, and one optimize job's actors per call.
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
  std::vector<evaluator_actor> evaluators;
  evaluator_pool_actor pool;

  impl(std::vector<optimize::package_evaluate_fn> slots, actor_timeouts t)
      : sys(with_message_types(cfg)), timeouts(t) {
    for (std::size_t i = 0; i < slots.size(); ++i)
      evaluators.push_back(spawn_evaluator(sys, std::move(slots[i]), i));
    pool = spawn_evaluator_pool(sys, evaluators, timeouts.evaluation);
  }

  ~impl() {
    caf::scoped_actor self{sys};
    stop_all(self, pool);
    for (const auto& e : evaluators) stop_all(self, e);
  }
};

runtime::runtime(std::vector<optimize::package_evaluate_fn> slots, actor_timeouts timeouts) {
  timeouts.validate();
  if (slots.empty()) {
    throw aopt::error(ec::invalid_argument,
                      "actors: at least one evaluator slot is needed (give --slots >= 1)");
  }
  impl_ = std::make_unique<impl>(std::move(slots), timeouts);
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
  std::optional<optimize::optimize_result> result;
  std::exception_ptr failure;
  {
    auto engine = std::make_shared<shared_engine>(*spec.engine);
    service_actors actors;
    actors.pool = impl_->pool;
    actors.mutator = spawn_mutator(sys, engine);
    actors.diagnoser = spawn_diagnoser(sys, engine);
    // A custom ranker may block (an embedding request per query): give it its own thread.
    actors.retriever = spec.make_ranker
                           ? spawn_retriever(sys, spec.bank, spawn_mode::detached, spec.make_ranker())
                           : spawn_retriever(sys, spec.bank);
    actors.refiner = spawn_refiner(sys, engine);
    if (spec.learned) actors.distiller = spawn_distiller(sys, spec.learned);
    progress_listener_actor listener;
    if (spec.progress) listener = spawn_progress_listener(sys, spec.progress);
    auto scheduler =
        spawn_scheduler(sys, scheduler_config{actors, listener, spec.timeouts, spec.decorate});

    caf::scoped_actor self{sys};
    ask_local(self, scheduler, spec.timeouts.job, "run_optimize_job: the Scheduler", result,
              failure, optimize_atom::value, local_atom::value,
              to_message(spec.package, spec.base_files, spec.config));
    flush(self, actors.distiller, spec.timeouts.engine);
    flush(self, listener, spec.timeouts.engine);
    stop_all(self, scheduler, actors.mutator, actors.diagnoser, actors.retriever, actors.refiner,
             actors.distiller, listener);
  }
  if (failure) std::rethrow_exception(failure);
  return std::move(*result);
}

}  // namespace aopt::actors
