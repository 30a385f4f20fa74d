// A remote evaluator node (`aopt-node`): an actor system that joins a daemon's node registry
// through CAF's middleman, registers its devices (one Evaluator each), sends heartbeats, and
// serves the daemon's evaluation requests until told to stop. It joins again whenever it loses
// the daemon (the daemon restarted, the network broke). CAF-free header.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "aopt/actors/config.hpp"
#include "aopt/common/file_map.h"
#include "aopt/protocols/device.hpp"

namespace aopt::actors {

// How a node's evaluators get an operator package they have not seen: its digest first (cheap),
// then its files only for a digest the node lacks. Both block; both throw aopt::error when the
// daemon does not answer or does not know the package.
struct package_fetcher {
  std::function<std::string(const std::string& package)> digest;
  std::function<file_map(const std::string& digest)> files;
  // The daemon's built artifacts (artifact_service): get blocks, returns nullopt when the daemon
  // has none or does not answer; put does not wait.
  artifact_service artifacts;
};

// How much a line of the node's log matters: a refusal (token, name, certificate) is a warning.
enum class node_log_level { info, warn };

struct node_options {
  std::string host = "127.0.0.1";  // the daemon's [nodes] listen address
  std::uint16_t port = 0;
  std::string name;                // unique among the daemon's nodes; no '/'
  std::vector<protocols::device_info> devices;  // id, kind, profile, labels
  std::chrono::milliseconds heartbeat{1000};
  std::chrono::milliseconds retry{1000};        // between attempts to join
  std::function<bool()> stop;                   // polled; true = leave and return
  // One line per join, loss, retry; refusals at warn.
  std::function<void(node_log_level level, const std::string& line)> log;
  tls_files tls;  // the daemon's registry speaks mutual TLS: this node's certificate, key and CA
  // The daemon's node token (aopt-node --token-file), carried by every message to its registry;
  // "" when the daemon's mutual TLS alone admits nodes (docs/deploy.md, "Security").
  std::string token;
};

// Makes the evaluate function of each device (same order as options.devices).
using node_slot_factory = std::function<std::vector<optimize::package_evaluate_fn>(package_fetcher)>;

// Runs the node until options.stop() is true. Throws aopt::error(invalid_argument) for bad
// options.
void run_node(const node_options& options, const node_slot_factory& make_slots);

}  // namespace aopt::actors
