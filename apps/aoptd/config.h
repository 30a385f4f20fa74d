// aoptd's configuration: typed, defaults in one place (here, and config/aoptd.example.toml says
// the same), validate() naming the key, a TOML reader whose errors name file, line and key.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "aopt/llm/config.h"

namespace aopt::daemon {

// One evaluation device of this host ([[devices]]).
struct device_config {
  std::string id;                   // unique ("sim0"); required
  std::string kind = "sim";         // "sim" (aopt's emulator) or "npu" (an Ascend device through the cann backend)
  // sim: the device's profile. npu: the sim profile of its chip, which the search's estimates use
  // (its roofline, its UB size). "" = [jobs] profile; a name or a profile file (.json)
  std::string profile;
  std::vector<std::string> labels;  // free-form, shown by GET /v1/devices
  // npu only: the cann backend's command profile (config/cann.example.toml; relative to this
  // file), and the device id on this host (npu-smi; default: the command profile's [cann] device).
  // The device class jobs name is the command profile's [cann] name.
  std::filesystem::path cann_config = {};
  std::optional<int> npu_device = {};
};

struct daemon_config {
  // [daemon]
  std::filesystem::path socket;     // Default: $XDG_RUNTIME_DIR/aopt/aoptd.sock, else /tmp/aopt-<uid>/aoptd.sock
  // "" = only this user and root may connect (directory 0700, socket 0600); a group name = its
  // members may connect too (directory 0710 when aoptd creates it, socket 0660; the state is then
  // group-readable: umask 027). Default: ""
  std::string socket_group;
  std::filesystem::path state_dir;  // Default: $XDG_STATE_HOME/aopt, else $HOME/.local/state/aopt
  std::string log_level = "info";  // trace, debug, info, warn, error. Default: info
  // [metrics] (docs/monitoring.md)
  // Where monitoring/ serves Prometheus metrics (port 0 = any free port, logged; "" = off).
  // `[daemon] metrics_address` is its older name, still read. Default: 127.0.0.1:9464
  std::string metrics_address = "127.0.0.1:9464";
  bool metrics_enabled = true;  // false: no metrics endpoint. Default: true
  // How long the series of a job stay after it ended, also across a restart (the jobs of the
  // store that ended within it get theirs back at start). Default: 3600
  std::uint32_t metrics_job_retention_s = 3600;
  bool serves_metrics() const { return metrics_enabled && !metrics_address.empty(); }
  // [jobs]
  std::size_t max_running = 2;      // jobs that run at once. Default: 2
  // This host's sim devices (sim0, ...) when there is no [[devices]]; 0 = 2 (1 on a one-core
  // machine), or none when nodes may join ([nodes] listen). Default: 0
  std::size_t evaluator_slots = 0;
  std::string profile = "910b4";    // device profile of the sim backend. Default: 910b4
  // Builders that compile candidates before a device of this host runs them (jobs of [jobs]
  // profile): a device then only runs, and a candidate that does not compile never takes a
  // device. 0 = none (each device compiles what it runs). Default: 0
  std::size_t builders = 0;
  std::size_t default_budget = 40;  // a job's budget when the client gives none. Default: 40
  std::size_t max_budget = 100000;  // the largest budget a client may ask for. Default: 100000
  bool use_cache = true;            // the evaluation result cache. Default: true
  std::filesystem::path cache_dir;  // Default: "" (the user's evaluation cache)
  std::filesystem::path bank_dir;   // Default: "" (the user's experience bank)
  bool learn = true;                // accepted kernel changes go to the bank. Default: true
  // [[devices]]: this host's evaluation devices. Empty: evaluator_slots sim devices (sim0, ...)
  // of [jobs] profile. Default: empty
  std::vector<device_config> devices;
  // [nodes]: remote evaluator nodes (aopt-node --join HOST:PORT, docs/deploy.md).
  // Where the node registry listens ("" = no nodes). An address other than loopback needs mutual
  // TLS (the three tls_ keys). Default: ""
  std::string nodes_listen;
  // Mutual TLS for nodes: this daemon's certificate and key, and the CA whose certificates it
  // accepts (PEM files, relative to the config file; docs/deploy.md). Default: "" (no TLS)
  std::string nodes_tls_certificate, nodes_tls_key, nodes_tls_ca;
  // The node token: a file only this daemon's user may read (mode 0600), whose secret every
  // node's message carries (aopt-node --token-file; docs/deploy.md, "Security"). "" = without
  // TLS, <state_dir>/node-token, made at the first start; with TLS, no token (the certificate
  // admits a node). Relative to the config file. Default: ""
  std::string nodes_token_file;
  std::uint32_t node_heartbeat_timeout_ms = 10000;  // a silent node is lost after. Default: 10000
  // Requests of a profile no device serves wait so long for a node to join. Default: 120000
  std::uint32_t device_wait_ms = 120000;
  // [limits]
  std::size_t max_body_bytes = 64u << 20;  // an uploaded package. Default: 67108864 (64 MiB)
  std::size_t max_header_bytes = 16384;    // request line and headers. Default: 16384
  std::uint32_t request_timeout_ms = 10000;  // to receive a whole request. Default: 10000
  std::size_t max_connections = 64;        // at once; more get 503. Default: 64
  std::uint32_t shutdown_grace_ms = 7000;  // SIGTERM: how long running jobs get to checkpoint. Default: 7000
  // [llm] (docs/llm.md, the same keys as aopt's): the endpoint of jobs submitted with engine
  // "llm". Absent: this daemon runs the offline engine only. Default: absent
  std::optional<llm::llm_config> llm;

  void validate() const;  // throws aopt::error(invalid_argument) naming the key
  // The node token's file: [nodes] token_file, else without TLS <state_dir>/node-token; "" when
  // mutual TLS alone admits nodes.
  std::filesystem::path node_token_file() const;
};

// The defaults with the environment's socket and state paths filled in.
daemon_config default_config();

// Reads `file` over default_config(). aopt::error(invalid_spec) "file:line:col: [section] key:
// what" for a wrong type, range or unknown key; aopt::error(parse_error) for TOML syntax.
daemon_config read_config(const std::filesystem::path& file);

}  // namespace aopt::daemon
