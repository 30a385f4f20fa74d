// Settings shared by the actors. CAF-free: included by the command line.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "aopt/optimize/services.h"
#include "aopt/protocols/device.hpp"

namespace aopt::actors {

// Every request between actors has a finite timeout (a remote or stuck actor must never hang a
// job). An evaluation that outlives `evaluation` becomes a report with status "timeout"; the slot
// is used again once its evaluator answers a ping (within another `evaluation`), else it is lost.
struct actor_timeouts {
  std::chrono::milliseconds evaluation{std::chrono::minutes(30)};  // one candidate. Default: 30 min
  std::chrono::milliseconds engine{
      std::chrono::minutes(30)};  // one engine or bank call. Default: 30 min
  std::chrono::milliseconds job{
      std::chrono::hours(72)};  // one optimize or rewind job. Default: 72 h
  void validate() const;        // throws aopt::error(invalid_argument) naming the field
};

// How an actor that may block is spawned. `detached` (its own thread) in production; tests on
// CAF's deterministic test coordinator spawn everything cooperatively.
enum class spawn_mode { detached, cooperative };

// Wraps a job's runner (e.g. jobs::journaled_runner: every evaluation journaled, stop checks);
// may be empty.
using runner_decorator = std::function<std::unique_ptr<optimize::runner>(optimize::runner& inner)>;

// Mutual TLS between a daemon and its evaluator nodes (CAF's openssl module): each side shows a
// certificate signed by `ca` and accepts only peers whose certificate `ca` signed. PEM files.
struct tls_files {
  std::string certificate;
  std::string key;
  std::string ca;
  bool enabled() const { return !certificate.empty(); }
  // Throws aopt::error(invalid_argument) naming `where` and the file when one is missing or
  // not given (all three or none).
  void check(const std::string& where) const;
};

// A node registry's address, "HOST:PORT" ([nodes] listen, aopt-node --join).
struct host_port {
  std::string host;
  std::uint16_t port = 0;
};
// Throws aopt::error(invalid_argument) "`what`: 'TEXT' ..." when it is not HOST:PORT with a port in
// [0, 65535] ([1, 65535] unless `any_port`: 0 asks for any free port).
host_port parse_host_port(const std::string& text, const std::string& what, bool any_port);

// A device of this process: what it is and the function that evaluates on it (blocking).
struct device_slot {
  protocols::device_info info;
  optimize::package_evaluate_fn evaluate;
};

// What the evaluator pool tells its listener (the daemon's device metrics and state). Through an
// actors::runtime the listener gets it as a message, on an observer actor's thread; a pool
// spawned by itself calls it on the pool's thread.
struct device_event {
  enum class kind {
    joined,  // a device became usable (this process's at start, a node's when it registers)
    busy,    // it took a request of `package`
    done,    // it answered one: `stage` (the search's stage of the request) and `report`
    down,    // it is lost: `why`
    node_joined,  // a remote node registered (device.node names it; device.id is empty)
    node_lost,    // a remote node was lost (no heartbeat, disconnected): `why`
    queue,        // `queued` requests wait for a device of class device.device_class
  };
  kind what = kind::joined;
  protocols::device_info device;
  std::string package;
  optimize::eval_stage stage = optimize::eval_stage::base;
  const optimize::eval_report* report = nullptr;  // `done` only
  std::size_t queued = 0;                          // `queue` only
  std::string why;
};
using device_listener = std::function<void(const device_event&)>;

// Built artifacts by key (evaluation/artifacts.h) as a host offers them to other hosts: `get`
// the bytes of a key (nullopt: none), `put` what another host built. The daemon's registry
// serves them to nodes; a node's evaluators ask before compiling.
struct artifact_service {
  std::function<std::optional<std::string>(const std::string& key)> get;
  std::function<void(const std::string& key, const std::string& bytes)> put;
};

}  // namespace aopt::actors
