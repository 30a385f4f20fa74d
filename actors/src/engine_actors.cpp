// The role actors (Mutator, Diagnoser, Refiner: engine calls; Retriever: bank retrieval), each a
// pool over workers that serve every job of the job table; the Distiller (bank sink) and the
// progress listener. Each worker handler is one engine or library call on the job's own engine;
// a system fault (an exception, an unknown job) travels back inside the local reply and is
// rethrown by the requester.
#include <algorithm>
#include <cstdint>
#include <exception>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include <caf/all.hpp>

#include "aopt/actors/convert.hpp"
#include "aopt/actors/spawn.hpp"
#include "aopt/common/error.h"
#include "aopt/common/log.h"
#include "aopt/search/retrieve.h"

namespace aopt::actors {

using namespace protocols;

// -- job table ------------------------------------------------------------------------------

search_id search_table::add(std::shared_ptr<search_context> job) {
  std::lock_guard<std::mutex> lock(mutex_);
  const auto id = next_++;
  jobs_.emplace(id, std::move(job));
  return id;
}

void search_table::remove(search_id id) {
  std::lock_guard<std::mutex> lock(mutex_);
  jobs_.erase(id);
}

std::shared_ptr<search_context> search_table::at(search_id id) const {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = jobs_.find(id);
  if (it == jobs_.end()) {
    throw aopt::error(ec::internal, "actors: job " + std::to_string(id) +
                                        " is not registered with the role actors (it ended, or was never started)");
  }
  return it->second;
}

namespace {

using jobs_ptr = std::shared_ptr<const search_table>;

// Runs `f` and wraps its value, or the exception it threw, into a local reply.
template <class T, class F>
local<T> guarded(F&& f) {
  try {
    return make_local<T>(f());
  } catch (...) {
    return local_error<T>(std::current_exception());
  }
}

// Calls `f(engine)` on job `id`'s engine under the job's lock.
template <class F>
auto with_engine(const search_table& jobs, search_id id, F&& f) {
  auto job = jobs.at(id);
  if (job->engine == nullptr) {
    throw aopt::error(ec::internal, "actors: job " + std::to_string(id) + " has no engine");
  }
  std::lock_guard<std::mutex> lock(job->lock);
  return f(*job->engine, *job);
}

// The engine keeps per-template state (the offline engine's mutator) keyed by the template's
// identity, its content id (stage1::template_id); an engine may also key it by the object's
// address. The template arrives as a copy, so the job keeps one object per identity: the engine
// sees one stable object exactly while the content is the same, wherever the caller keeps it.
stage1::tiling_template& hold(search_context& job, const stage1::tiling_template& t) {
  auto id = stage1::template_id(t);
  if (!job.held_template || job.template_id != id) {
    // The new object is allocated before the old one is freed: a new identity never gets the
    // old address, so the engine starts afresh.
    auto fresh = std::make_unique<stage1::tiling_template>(t);
    job.held_template = std::move(fresh);
    job.template_id = std::move(id);
  }
  return *job.held_template;
}

// -- workers --------------------------------------------------------------------------------

mutator_actor::behavior_type mutator_worker(mutator_actor::pointer, jobs_ptr jobs) {
  return {
      [jobs](name_atom, search_id id) -> caf::result<std::string> {
        try {
          return with_engine(*jobs, id, [](search::engine& e, search_context&) { return e.name(); });
        } catch (const std::exception& e) {
          return caf::make_error(caf::sec::runtime_error, e.what());
        }
      },
      [jobs](synthesize_atom, search_id id, const local<stage1::synthesis_input>& in) {
        return guarded<template_outcome>([&] {
          return with_engine(*jobs, id,
                             [&](search::engine& e, search_context&) { return e.synthesize_template(in.get()); });
        });
      },
      [jobs](propose_atom, search_id id, const local<stage1::tiling_template>& tmpl,
             const local<stage1::stage1_history>& history, std::uint64_t n) {
        return guarded<proposals_outcome>([&] {
          return with_engine(*jobs, id, [&](search::engine& e, search_context& job) {
            auto& t = hold(job, tmpl.get());
            return e.propose_tiling_variants(t, history.get(), static_cast<std::size_t>(n));
          });
        });
      },
  };
}

diagnoser_actor::behavior_type diagnoser_worker(diagnoser_actor::pointer, jobs_ptr jobs) {
  return {
      [jobs](diagnose_atom, search_id id, const local<nlohmann::json>& profile, const local<file_map>& code) {
        return guarded<diagnosis_outcome>([&] {
          return with_engine(*jobs, id,
                             [&](search::engine& e, search_context&) { return e.diagnose(profile.get(), code.get()); });
        });
      },
  };
}

refiner_actor::behavior_type refiner_worker(refiner_actor::pointer, jobs_ptr jobs) {
  return {
      [jobs](refine_atom, search_id id, const local<file_map>& files, const local<experiences>& tuples) {
        return guarded<rewrites_outcome>([&] {
          return with_engine(*jobs, id, [&](search::engine& e, search_context&) {
            return e.rewrite_kernel(files.get(), tuples.get());
          });
        });
      },
  };
}

retriever_actor::behavior_type retriever_worker(retriever_actor::pointer, jobs_ptr jobs) {
  return {
      [jobs](retrieve_atom, search_id id, const local<search::diagnosis>& d, std::uint64_t k) {
        return guarded<experiences>([&] {
          const auto job = jobs->at(id);
          experiences out;
          if (!job->index) return out;
          for (const auto& hit : search::top_k_for(*job->index, d.get(), static_cast<std::size_t>(k))) {
            out.push_back(job->index->at(hit.index));
          }
          return out;
        });
      },
  };
}

// -- pools ----------------------------------------------------------------------------------

template <class Handle>
struct role_pool_state {
  static inline const char* name = "aopt.role_pool";
  std::vector<Handle> workers;
  std::vector<std::size_t> in_flight;  // per worker
};

template <class Handle>
using pool_pointer = typename Handle::template stateful_pointer<role_pool_state<Handle>>;

// Hands the current request to the worker with the fewest calls in flight and delivers its
// answer. No timeout here: the requester has its own.
template <class Result, class Self, class... Ts>
caf::typed_response_promise<Result> route(Self* self, const Ts&... xs) {
  auto& st = self->state;
  const auto i = static_cast<std::size_t>(std::min_element(st.in_flight.begin(), st.in_flight.end()) -
                                          st.in_flight.begin());
  ++st.in_flight[i];
  auto rp = self->template make_response_promise<Result>();
  self->request(st.workers[i], caf::infinite, xs...)
      .then(
          [self, i, rp](Result& r) mutable {
            --self->state.in_flight[i];
            rp.deliver(std::move(r));
          },
          [self, i, rp](caf::error& e) mutable {
            --self->state.in_flight[i];
            rp.deliver(std::move(e));
          });
  return rp;
}

template <class Self, class Handle>
void adopt(Self* self, std::vector<Handle> workers) {
  self->state.in_flight.assign(workers.size(), 0);
  self->state.workers = std::move(workers);
  // The workers live as long as their pool.
  for (const auto& w : self->state.workers) self->link_to(w);
}

mutator_actor::behavior_type mutator_pool(pool_pointer<mutator_actor> self, std::vector<mutator_actor> workers) {
  adopt(self, std::move(workers));
  return {
      [self](name_atom a, search_id id) { return route<std::string>(self, a, id); },
      [self](synthesize_atom a, search_id id, const local<stage1::synthesis_input>& in) {
        return route<local<template_outcome>>(self, a, id, in);
      },
      [self](propose_atom a, search_id id, const local<stage1::tiling_template>& t,
             const local<stage1::stage1_history>& h, std::uint64_t n) {
        return route<local<proposals_outcome>>(self, a, id, t, h, n);
      },
  };
}

diagnoser_actor::behavior_type diagnoser_pool(pool_pointer<diagnoser_actor> self,
                                              std::vector<diagnoser_actor> workers) {
  adopt(self, std::move(workers));
  return {
      [self](diagnose_atom a, search_id id, const local<nlohmann::json>& p, const local<file_map>& code) {
        return route<local<diagnosis_outcome>>(self, a, id, p, code);
      },
  };
}

refiner_actor::behavior_type refiner_pool(pool_pointer<refiner_actor> self, std::vector<refiner_actor> workers) {
  adopt(self, std::move(workers));
  return {
      [self](refine_atom a, search_id id, const local<file_map>& files, const local<experiences>& tuples) {
        return route<local<rewrites_outcome>>(self, a, id, files, tuples);
      },
  };
}

retriever_actor::behavior_type retriever_pool(pool_pointer<retriever_actor> self,
                                              std::vector<retriever_actor> workers) {
  adopt(self, std::move(workers));
  return {
      [self](retrieve_atom a, search_id id, const local<search::diagnosis>& d, std::uint64_t k) {
        return route<local<experiences>>(self, a, id, d, k);
      },
  };
}

// -- Distiller, progress listener ------------------------------------------------------------

using sink_fn = std::function<void(const search::experience&)>;

void store_tuple(const sink_fn& sink, const search::experience& tuple) {
  try {
    if (sink) sink(tuple);
  } catch (const std::exception& e) {
    common::logger()->warn("distiller: a tuple was not stored and is dropped: {}", e.what());
  } catch (...) {
    common::logger()->warn("distiller: a tuple was not stored and is dropped (unknown exception)");
  }
}

distiller_actor::behavior_type distiller_behavior(distiller_actor::pointer, jobs_ptr jobs, sink_fn fixed) {
  return {
      [jobs, fixed](learn_atom, search_id id, const local<search::experience>& tuple) {
        if (!jobs) {
          store_tuple(fixed, tuple.get());
          return;
        }
        std::shared_ptr<search_context> job;
        try {
          job = jobs->at(id);
        } catch (const std::exception& e) {
          common::logger()->warn("distiller: a tuple is dropped: {}", e.what());
          return;
        }
        store_tuple(job->learned, tuple.get());
      },
      [](ping_atom) { return ping_atom::value; },
  };
}

progress_listener_actor::behavior_type listener_behavior(progress_listener_actor::pointer self,
                                                         optimize::progress_fn fn) {
  (void)self;
  return {
      [fn](progress_atom, const progress_wire& m) {
        try {
          if (fn) fn(unpack(m));
        } catch (const std::exception& ex) {
          common::logger()->warn("progress listener: the callback failed: {}", ex.what());
        }
      },
      [](ping_atom) { return ping_atom::value; },
  };
}

template <class F, class... Ts>
auto spawn_as(caf::actor_system& sys, spawn_mode mode, F f, Ts&&... xs) {
  if (mode == spawn_mode::detached) return sys.spawn<caf::detached>(f, std::forward<Ts>(xs)...);
  return sys.spawn(f, std::forward<Ts>(xs)...);
}

template <class Handle, class Worker, class Pool>
Handle spawn_pool(caf::actor_system& sys, jobs_ptr jobs, std::size_t n, spawn_mode mode, Worker worker, Pool pool) {
  if (!jobs) throw aopt::error(ec::invalid_argument, "actors: a role actor needs a job table");
  std::vector<Handle> workers;
  for (std::size_t i = 0; i < std::max<std::size_t>(n, 1); ++i) workers.push_back(spawn_as(sys, mode, worker, jobs));
  return sys.spawn(pool, std::move(workers));
}

}  // namespace

mutator_actor spawn_mutator(caf::actor_system& sys, jobs_ptr jobs, std::size_t workers, spawn_mode mode) {
  return spawn_pool<mutator_actor>(sys, std::move(jobs), workers, mode, mutator_worker, mutator_pool);
}

diagnoser_actor spawn_diagnoser(caf::actor_system& sys, jobs_ptr jobs, std::size_t workers, spawn_mode mode) {
  return spawn_pool<diagnoser_actor>(sys, std::move(jobs), workers, mode, diagnoser_worker, diagnoser_pool);
}

refiner_actor spawn_refiner(caf::actor_system& sys, jobs_ptr jobs, std::size_t workers, spawn_mode mode) {
  return spawn_pool<refiner_actor>(sys, std::move(jobs), workers, mode, refiner_worker, refiner_pool);
}

retriever_actor spawn_retriever(caf::actor_system& sys, jobs_ptr jobs, std::size_t workers, spawn_mode mode) {
  return spawn_pool<retriever_actor>(sys, std::move(jobs), workers, mode, retriever_worker, retriever_pool);
}

distiller_actor spawn_distiller(caf::actor_system& sys, jobs_ptr jobs, spawn_mode mode) {
  if (!jobs) throw aopt::error(ec::invalid_argument, "actors: the Distiller needs a job table");
  return spawn_as(sys, mode, distiller_behavior, std::move(jobs), sink_fn{});
}

distiller_actor spawn_distiller(caf::actor_system& sys, sink_fn sink, spawn_mode mode) {
  return spawn_as(sys, mode, distiller_behavior, jobs_ptr{}, std::move(sink));
}

progress_listener_actor spawn_progress_listener(caf::actor_system& sys, optimize::progress_fn fn,
                                                spawn_mode mode) {
  return spawn_as(sys, mode, listener_behavior, std::move(fn));
}

}  // namespace aopt::actors
