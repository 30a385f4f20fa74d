#include "aopt/actors/job.hpp"

#include <exception>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <caf/all.hpp>

#include "aopt/actors/convert.hpp"
#include "aopt/actors/spawn.hpp"
#include "aopt/common/error.h"
#include "aopt/protocols/message_types.hpp"

namespace aopt::actors {

using namespace protocols;

namespace {

caf::actor_system_config& system_config(caf::actor_system_config& cfg) {
  add_message_types(cfg);
  return cfg;
}

std::vector<evaluator_actor> spawn_evaluators(caf::actor_system& sys,
                                              const std::vector<optimize::evaluate_fn>& slots) {
  if (slots.empty()) {
    throw aopt::error(ec::invalid_argument,
                      "actors: at least one evaluator slot is needed (give --slots >= 1)");
  }
  std::vector<evaluator_actor> out;
  for (std::size_t i = 0; i < slots.size(); ++i) out.push_back(spawn_evaluator(sys, slots[i], i));
  return out;
}

// Waits until `h` handled everything sent to it before (its ping answer comes after them).
template <class Handle>
void flush(caf::scoped_actor& self, const Handle& h, std::chrono::milliseconds timeout) {
  if (!h) return;
  self->request(h, timeout, ping_atom::value).receive([](ping_atom) {}, [](caf::error&) {});
}

// Asks `dest` for a local reply and keeps its value, or the exception it carries, or a
// system-fault error when no answer came (the caller rethrows after the actors are stopped).
template <class T, class Handle, class... Ts>
void ask_local(caf::scoped_actor& self, const Handle& dest, std::chrono::milliseconds timeout,
               const char* what, std::optional<T>& result, std::exception_ptr& failure,
               Ts&&... xs) {
  self->request(dest, timeout, std::forward<Ts>(xs)...)
      .receive(
          [&](local<T>& r) {
            try {
              result = r.get();
            } catch (...) {
              failure = std::current_exception();
            }
          },
          [&](caf::error& e) {
            failure = std::make_exception_ptr(aopt::error(
                ec::internal, std::string(what) + " did not answer: " + self->system().render(e) +
                                  " (the job outlived actor_timeouts.job, or an actor failed)"));
          });
}

template <class... Handles>
void stop_all(caf::scoped_actor& self, const Handles&... hs) {
  auto stop = [&](const auto& h) {
    if (h) self->send_exit(h, caf::exit_reason::user_shutdown);
  };
  (stop(hs), ...);
}

}  // namespace

optimize::optimize_result run_optimize_job(const job_spec& spec) {
  if (spec.engine == nullptr) {
    throw aopt::error(ec::invalid_argument,
                      "run_optimize_job: no proposal engine was given (job_spec.engine)");
  }
  spec.timeouts.validate();
  spec.config.validate();
  caf::actor_system_config cfg;
  caf::actor_system sys{system_config(cfg)};
  std::optional<optimize::optimize_result> result;
  std::exception_ptr failure;
  {
    auto evaluators = spawn_evaluators(sys, spec.slots);
    auto engine = std::make_shared<shared_engine>(*spec.engine);
    service_actors actors;
    actors.pool = spawn_evaluator_pool(sys, evaluators, spec.timeouts.evaluation);
    actors.mutator = spawn_mutator(sys, engine);
    actors.diagnoser = spawn_diagnoser(sys, engine);
    // A custom ranker may block (an embedding request per query): give it its own thread.
    actors.retriever = spec.make_ranker ? spawn_retriever(sys, spec.bank, spawn_mode::detached, spec.make_ranker())
                                        : spawn_retriever(sys, spec.bank);
    actors.refiner = spawn_refiner(sys, engine);
    if (spec.learned) actors.distiller = spawn_distiller(sys, spec.learned);
    progress_listener_actor listener;
    if (spec.progress) listener = spawn_progress_listener(sys, spec.progress);
    auto scheduler = spawn_scheduler(sys, scheduler_config{actors, listener, spec.timeouts});

    caf::scoped_actor self{sys};
    ask_local(self, scheduler, spec.timeouts.job, "run_optimize_job: the Scheduler", result,
              failure, optimize_atom::value, local_atom::value,
              to_message(spec.package, spec.base_files, spec.config));
    flush(self, actors.distiller, spec.timeouts.engine);
    flush(self, listener, spec.timeouts.engine);
    stop_all(self, scheduler, actors.pool, actors.mutator, actors.diagnoser, actors.retriever,
             actors.refiner, actors.distiller, listener);
    for (const auto& e : evaluators) stop_all(self, e);
  }
  // ~actor_system waits for every actor (an evaluation still running after a timeout included).
  if (failure) std::rethrow_exception(failure);
  return std::move(*result);
}

search::rewind_result run_rewind_job(const rewind_spec& spec) {
  spec.timeouts.validate();
  caf::actor_system_config cfg;
  caf::actor_system sys{system_config(cfg)};
  std::optional<search::rewind_result> result;
  std::exception_ptr failure;
  {
    auto evaluators = spawn_evaluators(sys, spec.slots);
    rewinder_config rc;
    rc.pool = spawn_evaluator_pool(sys, evaluators, spec.timeouts.evaluation);
    if (spec.learned) rc.distiller = spawn_distiller(sys, spec.learned);
    rc.parse = spec.parse;
    rc.package = spec.package;
    rc.timeouts = spec.timeouts;
    rc.engine = spec.engine;
    auto pool = rc.pool;
    auto distiller = rc.distiller;
    auto rewinder = spawn_rewinder(sys, std::move(rc));

    caf::scoped_actor self{sys};
    ask_local(self, rewinder, spec.timeouts.job, "run_rewind_job: the Rewinder", result, failure,
              rewind_atom::value, make_local(spec.seed_files), make_local(spec.config));
    flush(self, distiller, spec.timeouts.engine);
    stop_all(self, rewinder, pool, distiller);
    for (const auto& e : evaluators) stop_all(self, e);
  }
  if (failure) std::rethrow_exception(failure);
  return std::move(*result);
}

}  // namespace aopt::actors
