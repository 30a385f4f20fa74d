// One actor system that lives as long as its owner. Spawned once and shared by every job: the
// evaluators (one Evaluator actor per slot) and their pool, the role actors (Mutator, Diagnoser,
// Retriever, Refiner: pools of `role_workers` workers each) and the Distiller. Each job brings
// its own engine, bank snapshot and progress listener, registered in the runtime's job table for
// the job's length. `aopt optimize` makes one for one job; `aoptd` keeps one for its lifetime and
// runs many jobs on it at once, each on one of its job_supervisor's workers (supervisor.hpp).
// CAF-free header.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "aopt/actors/config.hpp"
#include "aopt/actors/job.hpp"
#include "aopt/optimize/optimizer.h"
#include "aopt/optimize/services.h"

namespace caf {
class actor_system;
}

namespace aopt::actors {

struct runtime_options {
  actor_timeouts timeouts;
  // Workers per role actor: the number of jobs whose engine calls run at once.
  std::size_t role_workers = 1;
  // Remote evaluator nodes may join (listen_for_nodes): the actor system loads CAF's middleman,
  // no local device is required, and requests of a class with no device wait `device_wait` for
  // one.
  bool nodes = false;
  std::chrono::milliseconds device_wait{std::chrono::minutes(2)};
  // Nodes join over mutual TLS (required for an address other than loopback).
  tls_files tls;
  // Device state changes (metrics), in order, on an observer actor of their own: never on the
  // pool's or the registry's thread, so a slow listener holds neither. May be empty.
  device_listener listener;
  // Builders (jobs::make_sim_builders): requests of `builder_class` that this process's devices
  // run are built first by a free builder, so a device only runs (evaluator pool). Empty: none.
  std::vector<optimize::package_evaluate_fn> builders;
  std::string builder_class;
};

// Where remote evaluator nodes connect (docs/deploy.md).
struct node_listen_options {
  std::string host = "127.0.0.1";  // loopback unless configured otherwise
  std::uint16_t port = 0;          // 0 = any free port (listen_for_nodes returns it)
  // A node that sends no heartbeat for so long is lost: its devices go down, their requests are
  // queued again.
  std::chrono::milliseconds heartbeat_timeout{std::chrono::seconds(10)};
  // A package's files by package id (what the nodes fetch, once per content); nullopt = unknown.
  std::function<std::optional<file_map>(const std::string& package)> packages;
  artifact_service artifacts;  // built artifacts shared with nodes; empty: none
  // The secret every node's message must carry (aopt-node --token-file; docs/deploy.md,
  // "Security"). Required without mutual TLS; with it, "" lets the certificate alone admit a node.
  std::string token;
};

class runtime {
 public:
  // `role_workers`: workers per role actor, the number of jobs whose engine calls run at once
  // (give the number of jobs that may run together). Throws aopt::error(invalid_argument) for no
  // slot, no worker or a bad timeout.
  runtime(std::vector<optimize::package_evaluate_fn> slots, actor_timeouts timeouts = {},
          std::size_t role_workers = 1);
  // This process's devices (each with its class) and the options. Throws
  // aopt::error(invalid_argument) for no device (unless nodes may join), duplicate device ids,
  // no worker or a bad timeout.
  runtime(std::vector<device_slot> devices, runtime_options options);
  // Stops every actor and waits for them (an evaluation still running included).
  ~runtime();
  runtime(const runtime&) = delete;
  runtime& operator=(const runtime&) = delete;

  // Runs Algorithm 1 for `spec` (spec.slots is ignored: the runtime's evaluators serve it; the
  // evaluation requests carry spec.package, which the slots use to find the operator) on the
  // calling thread, which it blocks for the search's length (spec.timeouts.job does not apply:
  // each actor call has its own timeout); calls from several threads run their jobs at once. Throws what
  // run_optimizer throws (what spec.decorate's runner throws included), and
  // aopt::error(internal) when an actor stops answering.
  optimize::optimize_result run_optimize(const search_spec& spec);

  std::size_t slots() const;

  // Every device, local and remote, with its state (docs/api.md, GET /v1/devices).
  nlohmann::json devices() const;

  // Publishes the node registry on CAF's middleman at host:port (needs options.nodes) and
  // returns the port. Throws aopt::error(io_error) naming the address when it cannot listen, and
  // aopt::error(invalid_argument) for no token without mutual TLS (nodes always authenticate).
  std::uint16_t listen_for_nodes(const node_listen_options& options);

 private:
  friend class job_supervisor;  // spawns its actors in this runtime's actor system
  caf::actor_system& system();
  struct impl;
  std::unique_ptr<impl> impl_;
};

}  // namespace aopt::actors
