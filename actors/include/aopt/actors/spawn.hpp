// Spawning the actors of protocols/actors.hpp. Each actor is thin: it converts messages and
// calls the pure code of search/ (or an evaluate_fn), nothing more. The role actors and the
// Scheduler are spawned once per process and serve every job of its job table. Actors that may block
// (evaluations, engine calls that parse with libclang or call a model, the bank sink, the
// scheduler's blocking run) are spawned detached unless `spawn_mode::cooperative` is asked for
// (tests on CAF's deterministic test coordinator).
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <map>
#include <mutex>
#include <optional>
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
#include "aopt/stage1/tiling_template.h"

namespace aopt::actors {

// One job's entry in the process's job table: what the role actors need to serve it. The
// engine is not thread-safe, so every call of this job takes `lock`; the search asks one thing
// at a time, so the lock is uncontended, and other jobs (other entries) never wait for it.
struct search_context {
  std::string package;                                   // operator id of its evaluation requests
  std::string device_class;                              // the profile of its devices; "" = any
  search::engine* engine = nullptr;                      // not owned; outlives the entry
  std::shared_ptr<const search::retriever> index;        // its bank snapshot (Retriever)
  std::function<void(const search::experience&)> learned;  // Distiller sink; may be empty
  protocols::progress_listener_actor listener;           // may be null
  runner_decorator decorate;                             // may be empty
  actor_timeouts timeouts;

  // Guarded by `lock`: engine calls, and the Mutator's copy of the caller's template, one per
  // template content (stage1::template_id; see engine_actors.cpp).
  std::mutex lock;
  std::string template_id;
  std::unique_ptr<stage1::tiling_template> held_template;
};

// The jobs a process's role actors serve, by id. Thread-safe.
class search_table {
 public:
  // Registers a job and returns its id (never 0).
  protocols::search_id add(std::shared_ptr<search_context> job);
  void remove(protocols::search_id id);
  // Throws aopt::error(internal) naming the id when no such job is registered.
  std::shared_ptr<search_context> at(protocols::search_id id) const;

 private:
  mutable std::mutex mutex_;
  std::map<protocols::search_id, std::shared_ptr<search_context>> jobs_;
  protocols::search_id next_ = 1;
};

// Evaluator of slot `slot` ("slot<N>"): runs `fn` for one request at a time. An exception from
// `fn` becomes a report with status "runtime_error" (the candidate is not to blame, but the job
// goes on).
protocols::evaluator_actor spawn_evaluator(caf::actor_system& sys, optimize::evaluate_fn fn,
                                           std::size_t slot,
                                           spawn_mode mode = spawn_mode::detached);
// The same for a device shared by several jobs: `fn` gets the request's package id; every
// report names `device` (device_info::name()).
protocols::evaluator_actor spawn_evaluator(caf::actor_system& sys, optimize::package_evaluate_fn fn,
                                           const std::string& device,
                                           spawn_mode mode = spawn_mode::detached);

// A device of the pool and its Evaluator.
struct device_evaluator {
  protocols::device_info info;
  protocols::evaluator_actor handle;
};

struct pool_options {
  std::chrono::milliseconds timeout{std::chrono::minutes(30)};  // one evaluation
  // How long requests of a class with no device up wait for one to join (remote nodes); 0 =
  // they fail at once.
  std::chrono::milliseconds device_wait{0};
  device_listener listener;  // may be empty
  // Builders (the Builder half of MetaSchedule's Builder/Runner split): a request of
  // `builder_class` that a device of this process will run is first built by a free builder
  // (its artifacts land in this host's cache, so the device compiles nothing); a candidate that
  // does not build is answered by the builder and never takes a device. Empty: devices build.
  std::vector<protocols::evaluator_actor> builders;
  std::string builder_class;
  // What the node registry's register and node_down messages must carry (a secret of this
  // process; "": no node may register).
  std::string registry_key;
};

// The pool over `evaluators` (cooperative: it only routes): devices "slot<N>" that serve any
// class. Each request gets `timeout` from the moment it is handed to an evaluator. Requests of
// different packages (jobs) are handed out round-robin, one request per package in turn; FIFO
// within a package.
protocols::evaluator_pool_actor spawn_evaluator_pool(
    caf::actor_system& sys, std::vector<protocols::evaluator_actor> evaluators,
    std::chrono::milliseconds timeout);
// The pool over named devices with classes; nodes may add more (register_atom).
protocols::evaluator_pool_actor spawn_evaluator_pool(caf::actor_system& sys, std::vector<device_evaluator> devices,
                                                     pool_options opt);

// The role actors: each a cooperative pool over `workers` workers (spawned `mode`: detached in
// production, since a call may block), serving every job of `jobs`. A request goes to the worker
// with the fewest calls in flight.
protocols::mutator_actor spawn_mutator(caf::actor_system& sys, std::shared_ptr<const search_table> jobs,
                                       std::size_t workers, spawn_mode mode = spawn_mode::detached);
protocols::diagnoser_actor spawn_diagnoser(caf::actor_system& sys, std::shared_ptr<const search_table> jobs,
                                           std::size_t workers, spawn_mode mode = spawn_mode::detached);
protocols::refiner_actor spawn_refiner(caf::actor_system& sys, std::shared_ptr<const search_table> jobs,
                                       std::size_t workers, spawn_mode mode = spawn_mode::detached);
// Retrieval over the job's bank snapshot (search::top_k_for with the snapshot's ranker: BM25, or
// embeddings through the LLM client, which block).
protocols::retriever_actor spawn_retriever(caf::actor_system& sys, std::shared_ptr<const search_table> jobs,
                                           std::size_t workers, spawn_mode mode = spawn_mode::detached);
// One actor for every job: calls the job's sink for each tuple, in arrival order (e.g. the
// RocksDB bank's put). A throwing sink, or a tuple of a job no longer registered, is logged and
// the tuple dropped: learning is best effort, the job goes on.
protocols::distiller_actor spawn_distiller(caf::actor_system& sys, std::shared_ptr<const search_table> jobs,
                                           spawn_mode mode = spawn_mode::detached);
// A Distiller for one sink, whatever job a tuple comes from (the rewind entry point).
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
  protocols::search_id job = 0;             // sent with the kept tuples to the Distiller
  actor_timeouts timeouts;
  // Proposes the steps (search::run_engine_rewind) when set; null = inverse motifs
  // (search::run_rewind). Called on the Rewinder's own thread only; must outlive the actor.
  search::engine* engine = nullptr;
};
// Always detached: libclang parses, engine calls (an LLM request) and blocking requests to the pool.
protocols::rewinder_actor spawn_rewinder(caf::actor_system& sys, rewinder_config cfg);

// The node registry (published on the middleman by runtime::listen_for_nodes).
struct registry_options {
  protocols::evaluator_pool_actor pool;  // receives the registrations and lost nodes
  std::string pool_key;                  // the pool's registry_key
  std::chrono::milliseconds heartbeat_timeout{std::chrono::seconds(10)};
  // A package's files by id; nullopt = unknown. Called on the registry's own thread.
  std::function<std::optional<file_map>(const std::string& package)> packages;
  artifact_service artifacts;  // empty: nodes build for themselves
  device_listener listener;  // node_joined, node_lost; may be empty
  // What every message of a node must carry (docs/deploy.md, "Security"); "" = none (only when
  // mutual TLS authenticates the connections: runtime::listen_for_nodes refuses it otherwise).
  std::string token;
};
protocols::node_registry_actor spawn_node_registry(caf::actor_system& sys, registry_options opt);

// The role actors a job's services route to (actor_services).
struct service_actors {
  protocols::evaluator_pool_actor pool;
  protocols::mutator_actor mutator;
  protocols::diagnoser_actor diagnoser;
  protocols::retriever_actor retriever;
  protocols::refiner_actor refiner;
  protocols::distiller_actor distiller;  // may be null: accepted changes are then dropped
};

// The long-lived Scheduler: for each job (registered in `jobs`) a detached job driver runs
// run_optimizer over actor_services on `actors`, with the job's decorator and listener.
protocols::scheduler_actor spawn_scheduler(caf::actor_system& sys, service_actors actors,
                                           std::shared_ptr<const search_table> jobs);

}  // namespace aopt::actors
