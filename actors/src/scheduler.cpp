// The Scheduler and the Rewinder: detached actors that block for the length of a job. The
// Scheduler runs run_optimizer over actor_services; the Rewinder runs search::run_rewind (or
// run_engine_rewind when it was given an engine) with every evaluation routed to the evaluator
// pool and the kept tuples sent to the Distiller.
#include <chrono>
#include <exception>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include <caf/all.hpp>

#include "aopt/actors/actor_services.hpp"
#include "aopt/actors/convert.hpp"
#include "aopt/actors/spawn.hpp"
#include "aopt/common/error.h"
#include "aopt/search/rewind.h"

namespace aopt::actors {

using namespace protocols;

namespace {

// -- Scheduler ------------------------------------------------------------------------------

struct scheduler_state {
  static inline const char* name = "aopt.scheduler";
  scheduler_config cfg;
};

using scheduler_pointer = scheduler_actor::stateful_pointer<scheduler_state>;

optimize::optimize_result run_job(scheduler_pointer self, const optimize_job_msg& job) {
  const auto& cfg = self->state.cfg;
  const auto config = config_of(job);
  config.validate();
  actor_services svc(self->system(), cfg.actors, job.package, cfg.timeouts);
  optimize::progress_fn progress;
  if (cfg.listener) {
    progress = [&cfg](const optimize::progress_event& e) {
      caf::anon_send(cfg.listener, progress_atom::value, to_message(e));
    };
  }
  std::unique_ptr<optimize::services> decorated;
  if (cfg.decorate) decorated = cfg.decorate(svc);
  return optimize::run_optimizer(job.base_files, decorated ? *decorated : svc, config, progress);
}

scheduler_actor::behavior_type scheduler_behavior(scheduler_pointer self, scheduler_config cfg) {
  self->state.cfg = std::move(cfg);
  return {
      [self](optimize_atom, const optimize_job_msg& job) -> caf::result<optimize_reply_msg> {
        try {
          auto r = run_job(self, job);
          return optimize_reply_msg{optimize::to_json(r).dump(), std::move(r.best_files)};
        } catch (const std::exception& e) {
          return caf::make_error(caf::sec::runtime_error,
                                 std::string("optimize job failed: ") + e.what());
        }
      },
      [self](optimize_atom, local_atom, const optimize_job_msg& job) {
        try {
          return make_local(run_job(self, job));
        } catch (...) {
          return local_error<optimize::optimize_result>(std::current_exception());
        }
      },
  };
}

// -- Rewinder -------------------------------------------------------------------------------

struct rewinder_state {
  static inline const char* name = "aopt.rewinder";
  rewinder_config cfg;
  std::unique_ptr<motifs::parser> parser;  // created on the first job, on this actor's thread
};

using rewinder_pointer = rewinder_actor::stateful_pointer<rewinder_state>;

search::rewind_result run_rewind_job(rewinder_pointer self, const file_map& seed,
                                     const search::rewind_config& rc) {
  auto& st = self->state;
  caf::scoped_actor asker{self->system()};
  const auto timeout = st.cfg.timeouts.evaluation * 3;  // one evaluation, a ping, and slack
  int step = 0;
  auto eval = [&](const motifs::file_set& files) {
    eval_request_msg m;
    m.package = st.cfg.package;
    m.files = files;
    m.stage = "rewind";
    m.proposal = "rewind step " + std::to_string(step++);
    std::optional<search::rewind_eval> out;
    caf::error err;
    asker
        ->request(st.cfg.pool, timeout, evaluate_atom::value,
                  std::vector<eval_request_msg>{std::move(m)})
        .receive(
            [&](std::vector<eval_report_msg>& reports) {
              if (reports.size() == 1) out = to_rewind_eval(from_message(reports.front()));
            },
            [&](caf::error& e) { err = std::move(e); });
    if (!out) {
      throw aopt::error(ec::internal, "rewinder: the evaluator pool did not answer: " +
                                          self->system().render(err));
    }
    return *out;
  };
  search::rewind_result result;
  if (st.cfg.engine != nullptr) {
    result = search::run_engine_rewind(seed, *st.cfg.engine, eval, rc);
  } else {
    if (!st.parser) st.parser = std::make_unique<motifs::parser>(st.cfg.parse);
    result = search::run_rewind(seed, *st.parser, eval, rc);
  }
  if (st.cfg.distiller) {
    for (const auto& t : result.tuples)
      caf::anon_send(st.cfg.distiller, learn_atom::value, make_local(t));
  }
  return result;
}

rewinder_actor::behavior_type rewinder_behavior(rewinder_pointer self, rewinder_config cfg) {
  self->state.cfg = std::move(cfg);
  return {
      [self](rewind_atom, const local<file_map>& seed, const local<search::rewind_config>& rc) {
        try {
          return make_local(run_rewind_job(self, seed.get(), rc.get()));
        } catch (...) {
          return local_error<search::rewind_result>(std::current_exception());
        }
      },
  };
}

}  // namespace

scheduler_actor spawn_scheduler(caf::actor_system& sys, scheduler_config cfg) {
  cfg.timeouts.validate();
  return sys.spawn<caf::detached>(scheduler_behavior, std::move(cfg));
}

rewinder_actor spawn_rewinder(caf::actor_system& sys, rewinder_config cfg) {
  cfg.timeouts.validate();
  return sys.spawn<caf::detached>(rewinder_behavior, std::move(cfg));
}

}  // namespace aopt::actors
