// Spawning the actors of protocols/actors.hpp. Each actor is thin: it converts messages and
// calls the pure code of search/ (or an evaluate_fn), nothing more. Actors that may block
// (evaluations, engine calls that parse with libclang or call a model, the bank sink, the
// scheduler's blocking run) are spawned detached unless `spawn_mode::cooperative` is asked for
// (tests on CAF's deterministic test coordinator).
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <caf/fwd.hpp>

#include "aopt/actors/config.hpp"
#include "aopt/motifs/source.h"
#include "aopt/search/retrieve.h"
#include "aopt/optimize/optimizer.h"
#include "aopt/optimize/services.h"
#include "aopt/protocols/actors.hpp"
#include "aopt/search/engine.h"

namespace aopt::actors {

// The engine behind one job's Mutator, Diagnoser and Refiner. Engines are not thread-safe and
// these actors run on different threads, so every call takes this job's lock. Each job has its
// own engine and its own role actors (actors::runtime), so jobs never wait for each other's
// engine calls; within a job the search asks one thing at a time, so the lock is uncontended.
class shared_engine {
 public:
  explicit shared_engine(search::engine& e) : engine_(e) {}
  template <class F>
  auto call(F&& f) {
    std::lock_guard<std::mutex> lock(mutex_);
    return f(engine_);
  }
  std::string name() {
    std::lock_guard<std::mutex> lock(mutex_);
    return engine_.name();
  }

 private:
  search::engine& engine_;
  std::mutex mutex_;
};

// Evaluator of slot `slot`: runs `fn` for one request at a time. An exception from `fn` becomes
// a report with status "runtime_error" (the candidate is not to blame, but the job goes on).
protocols::evaluator_actor spawn_evaluator(caf::actor_system& sys, optimize::evaluate_fn fn,
                                           std::size_t slot,
                                           spawn_mode mode = spawn_mode::detached);
// The same for a slot shared by several jobs: `fn` gets the request's package id.
protocols::evaluator_actor spawn_evaluator(caf::actor_system& sys, optimize::package_evaluate_fn fn,
                                           std::size_t slot,
                                           spawn_mode mode = spawn_mode::detached);

// The pool over `evaluators` (cooperative: it only routes). Each request gets `timeout` from the
// moment it is handed to an evaluator. Requests of different packages (jobs) are handed out
// round-robin, one request per package in turn; FIFO within a package.
protocols::evaluator_pool_actor spawn_evaluator_pool(
    caf::actor_system& sys, std::vector<protocols::evaluator_actor> evaluators,
    std::chrono::milliseconds timeout);

protocols::mutator_actor spawn_mutator(caf::actor_system& sys,
                                       std::shared_ptr<shared_engine> engine,
                                       spawn_mode mode = spawn_mode::detached);
protocols::diagnoser_actor spawn_diagnoser(caf::actor_system& sys,
                                           std::shared_ptr<shared_engine> engine,
                                           spawn_mode mode = spawn_mode::detached);
protocols::refiner_actor spawn_refiner(caf::actor_system& sys,
                                       std::shared_ptr<shared_engine> engine,
                                       spawn_mode mode = spawn_mode::detached);
// A retriever over `bank` (search::retriever, search::top_k_for), as local_services has, ranking
// with `ranker` (default BM25; an embedding ranker when the LLM engine has an embeddings model).
protocols::retriever_actor spawn_retriever(caf::actor_system& sys,
                                           std::vector<search::experience> bank,
                                           spawn_mode mode = spawn_mode::cooperative,
                                           std::unique_ptr<search::ranker> ranker = nullptr);
// Calls `sink` for each tuple, in arrival order (e.g. the RocksDB bank's put). A throwing sink is
// logged and the tuple dropped: learning is best effort, the job goes on.
protocols::distiller_actor spawn_distiller(caf::actor_system& sys,
                                           std::function<void(const search::experience&)> sink,
                                           spawn_mode mode = spawn_mode::detached);
// Calls `fn` for each progress event, in order.
protocols::progress_listener_actor spawn_progress_listener(caf::actor_system& sys,
                                                           optimize::progress_fn fn,
                                                           spawn_mode mode = spawn_mode::detached);

struct rewinder_config {
  protocols::evaluator_pool_actor pool;  // evaluates the seed and every step
  protocols::distiller_actor distiller;  // receives the kept tuples; may be null
  motifs::parse_options parse;           // the libclang parser of the motifs
  std::string package;                   // operator id put in evaluation requests
  actor_timeouts timeouts;
  // Proposes the steps (search::run_engine_rewind) when set; null = inverse motifs
  // (search::run_rewind). Called on the Rewinder's own thread only; must outlive the actor.
  search::engine* engine = nullptr;
};
// Always detached: libclang parses, engine calls (an LLM request) and blocking requests to the pool.
protocols::rewinder_actor spawn_rewinder(caf::actor_system& sys, rewinder_config cfg);

// The actors an optimize job talks to (actor_services routes to them).
struct service_actors {
  protocols::evaluator_pool_actor pool;
  protocols::mutator_actor mutator;
  protocols::diagnoser_actor diagnoser;
  protocols::retriever_actor retriever;
  protocols::refiner_actor refiner;
  protocols::distiller_actor distiller;  // may be null: accepted changes are then dropped
};

struct scheduler_config {
  service_actors actors;
  protocols::progress_listener_actor listener;  // may be null
  actor_timeouts timeouts;
  services_decorator decorate;  // optional
};
// Always detached: it blocks in run_optimizer for the length of a job, one job at a time.
protocols::scheduler_actor spawn_scheduler(caf::actor_system& sys, scheduler_config cfg);

}  // namespace aopt::actors
