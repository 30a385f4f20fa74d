// The job supervisor (cooperative: it only decides which queued job a free worker runs) and its
// job workers (detached: each runs one job's whole life at a time). See supervisor.hpp.
#include "aopt/actors/supervisor.hpp"

#include <algorithm>
#include <exception>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include <caf/all.hpp>

#include "aopt/actors/job_support.hpp"
#include "aopt/actors/runtime.hpp"
#include "aopt/common/error.h"
#include "aopt/common/log.h"
#include "aopt/protocols/actors.hpp"

namespace aopt::actors {

using namespace protocols;

namespace {

using run_fn = std::function<void(const std::string&)>;

struct supervisor_state {
  static inline const char* name = "aopt.job-supervisor";
  struct queued {
    job_rank rank;
    std::string id;
  };
  std::vector<queued> queue;
  std::vector<job_worker_actor> idle;
  std::size_t running = 0;
  bool draining = false;
  std::vector<caf::typed_response_promise<drain_atom>> drained;  // answered once none runs
};

using supervisor_pointer = job_supervisor_actor::stateful_pointer<supervisor_state>;

auto order_key(const job_rank& r) { return std::make_tuple(r.resume ? 1 : 0, r.priority, -r.order); }

void dispatch(supervisor_pointer self);

void finished(supervisor_pointer self, const job_worker_actor& worker) {
  auto& st = self->state;
  --st.running;
  st.idle.push_back(worker);
  if (st.running == 0) {
    for (auto& rp : st.drained) rp.deliver(drain_atom::value);
    st.drained.clear();
  }
  dispatch(self);
}

// Hands the best-ranked queued jobs to the free workers.
void dispatch(supervisor_pointer self) {
  auto& st = self->state;
  while (!st.draining && !st.idle.empty() && !st.queue.empty()) {
    auto best = std::max_element(st.queue.begin(), st.queue.end(), [](const auto& a, const auto& b) {
      return order_key(a.rank) < order_key(b.rank);
    });
    const std::string id = std::move(best->id);
    st.queue.erase(best);
    auto worker = st.idle.back();
    st.idle.pop_back();
    ++st.running;
    self->request(worker, caf::infinite, run_atom::value, id)
        .then([self, worker](run_atom) { finished(self, worker); },
              [self, worker, id](caf::error& e) {
                common::logger()->error("job {}: its worker failed: {}", id, self->system().render(e));
                finished(self, worker);
              });
  }
}

job_supervisor_actor::behavior_type supervisor_behavior(supervisor_pointer self,
                                                        std::vector<job_worker_actor> workers) {
  self->state.idle = std::move(workers);
  return {
      [self](enqueue_atom, const std::string& id, bool resume, std::int32_t priority, std::int64_t order) {
        self->state.queue.push_back({{resume, priority, order}, id});
        dispatch(self);
      },
      [self](drain_atom a) {
        auto rp = self->make_response_promise<drain_atom>();
        self->state.draining = true;
        if (self->state.running == 0) {
          rp.deliver(a);
        } else {
          self->state.drained.push_back(rp);
        }
        return rp;
      },
  };
}

job_worker_actor::behavior_type worker_behavior(job_worker_actor::pointer, run_fn run) {
  return {
      [run](run_atom a, const std::string& id) {
        try {
          run(id);
        } catch (const std::exception& e) {
          common::logger()->error("job {}: {}", id, e.what());
        } catch (...) {
          common::logger()->error("job {}: an unknown exception", id);
        }
        return a;
      },
  };
}

}  // namespace

void supervisor_config::validate() const {
  if (workers == 0) throw aopt::error(ec::invalid_argument, "job supervisor: at least one worker is needed (max_running >= 1)");
  if (!run) throw aopt::error(ec::invalid_argument, "job supervisor: no job body was given (supervisor_config.run)");
}

struct job_supervisor::impl {
  caf::actor_system& sys;
  std::vector<job_worker_actor> workers;
  job_supervisor_actor supervisor;
};

job_supervisor::job_supervisor(runtime& rt, supervisor_config cfg) {
  cfg.validate();
  auto& sys = rt.system();
  std::vector<job_worker_actor> workers;
  for (std::size_t i = 0; i < cfg.workers; ++i) workers.push_back(sys.spawn<caf::detached>(worker_behavior, cfg.run));
  auto supervisor = sys.spawn(supervisor_behavior, workers);
  impl_ = std::unique_ptr<impl>(new impl{sys, std::move(workers), std::move(supervisor)});
}

job_supervisor::~job_supervisor() {
  caf::scoped_actor self{impl_->sys};
  stop_all(self, impl_->supervisor);
  for (const auto& w : impl_->workers) stop_all(self, w);
}

void job_supervisor::enqueue(const std::string& id, job_rank rank) {
  caf::anon_send(impl_->supervisor, enqueue_atom::value, id, rank.resume, rank.priority, rank.order);
}

bool job_supervisor::drain(std::chrono::milliseconds grace) {
  caf::scoped_actor self{impl_->sys};
  bool drained = false;
  self->request(impl_->supervisor, grace, drain_atom::value)
      .receive([&](drain_atom) { drained = true; }, [](caf::error&) {});
  return drained;
}

}  // namespace aopt::actors
