// The Scheduler (long-lived, cooperative) and its job drivers and the Rewinder: detached actors
// that block for the length of a job. A driver runs run_optimizer over actor_services; the
// Rewinder runs search::run_rewind (or
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
#include "aopt/actors/job_support.hpp"
#include "aopt/actors/spawn.hpp"
#include "aopt/common/error.h"
#include "aopt/search/rewind.h"

namespace aopt::actors {

using namespace protocols;

namespace {

// -- Scheduler ------------------------------------------------------------------------------

// What the Scheduler and each job driver know: the role actors and the job table.
struct scheduler_env {
  service_actors actors;
  std::shared_ptr<const search_table> jobs;
};

optimize::optimize_result run_job(caf::actor_system& sys, const scheduler_env& env, search_id id,
                                  const optimize_job_msg& msg) {
  return run_search_here(sys, env.actors, *env.jobs, id, msg.package, msg.base_files, unpack(msg.config));
}

// One job's driver: blocks in run_optimizer for the job's length on its own thread, answers,
// and quits.
scheduler_actor::behavior_type driver_behavior(scheduler_actor::pointer self, scheduler_env env) {
  return {
      [self, env](optimize_atom, search_id id, const optimize_job_msg& job) {
        auto rp = self->make_response_promise<optimize_reply_msg>();
        try {
          auto r = run_job(self->system(), env, id, job);
          rp.deliver(optimize_reply_msg{optimize::to_json(r).dump(), std::move(r.best_files)});
        } catch (const std::exception& e) {
          rp.deliver(caf::make_error(caf::sec::runtime_error, std::string("optimize job failed: ") + e.what()));
        }
        self->quit();
        return rp;
      },
      [self, env](optimize_atom, local_atom, search_id id, const optimize_job_msg& job) {
        auto rp = self->make_response_promise<local<optimize::optimize_result>>();
        try {
          rp.deliver(make_local(run_job(self->system(), env, id, job)));
        } catch (...) {
          rp.deliver(local_error<optimize::optimize_result>(std::current_exception()));
        }
        self->quit();
        return rp;
      },
  };
}

// The long-lived Scheduler: cooperative (it never blocks); each job gets a detached driver and
// the driver's answer goes straight to the requester.
scheduler_actor::behavior_type scheduler_behavior(scheduler_actor::pointer self, scheduler_env env) {
  return {
      [self, env](optimize_atom a, search_id id, const optimize_job_msg& job) {
        auto driver = self->system().spawn<caf::detached>(driver_behavior, env);
        return self->delegate(driver, a, id, job);
      },
      [self, env](optimize_atom a, local_atom l, search_id id, const optimize_job_msg& job) {
        auto driver = self->system().spawn<caf::detached>(driver_behavior, env);
        return self->delegate(driver, a, l, id, job);
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
    optimize::eval_request r;
    r.package = st.cfg.package;
    r.files = files;
    r.stage = optimize::eval_stage::rewind;
    r.proposal = "rewind step " + std::to_string(step++);
    std::optional<search::rewind_eval> out;
    caf::error err;
    asker
        ->request(st.cfg.pool, timeout, evaluate_atom::value, st.cfg.package, std::string(),
                  std::vector<eval_envelope>{pack_routed(r)})
        .receive(
            [&](eval_reports& answer) {
              const auto& reports = answer.get();
              if (reports.size() == 1) out = to_rewind_eval(reports.front());
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
      caf::anon_send(st.cfg.distiller, learn_atom::value, st.cfg.job, make_local(t));
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

optimize::optimize_result run_search_here(caf::actor_system& sys, const service_actors& actors, const search_table& jobs,
                                          search_id id, const std::string& package, const optimize::file_map& base_files,
                                          const optimize::optimizer_config& config) {
  const auto job = jobs.at(id);
  config.validate();
  actor_services svc(sys, actors, id, package, job->device_class, job->timeouts);
  optimize::progress_fn progress;
  if (job->listener) {
    progress = [listener = job->listener](const optimize::progress_event& e) {
      caf::anon_send(listener, progress_atom::value, pack(e));
    };
  }
  std::unique_ptr<optimize::runner> decorated;
  if (job->decorate) decorated = job->decorate(svc);
  const optimize::services seams{svc, decorated ? *decorated : static_cast<optimize::runner&>(svc), svc};
  return optimize::run_optimizer(base_files, seams, config, progress);
}

scheduler_actor spawn_scheduler(caf::actor_system& sys, service_actors actors,
                                std::shared_ptr<const search_table> jobs) {
  if (!jobs) throw aopt::error(ec::invalid_argument, "actors: the Scheduler needs a job table");
  return sys.spawn(scheduler_behavior, scheduler_env{std::move(actors), std::move(jobs)});
}

rewinder_actor spawn_rewinder(caf::actor_system& sys, rewinder_config cfg) {
  cfg.timeouts.validate();
  return sys.spawn<caf::detached>(rewinder_behavior, std::move(cfg));
}

}  // namespace aopt::actors
