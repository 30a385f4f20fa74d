#include "config.h"

#include <limits>

#include <toml++/toml.h>

#include "aopt/actors/config.hpp"
#include "aopt/config/toml_reader.h"

#include "aopt/common/error.h"
#include "aopt/common/log.h"
#include "aopt/evaluation/cann.h"
#include "aopt/jobs/daemon_paths.h"
#include "aopt/monitoring/metrics.h"
#include "aopt_sim/profile.h"

namespace aopt::daemon {

namespace fs = std::filesystem;

namespace {

[[noreturn]] void invalid(const std::string& what) { throw error(ec::invalid_argument, what); }

using reader = config::toml_reader;

constexpr std::int64_t big = std::numeric_limits<std::int32_t>::max();

void read_daemon(const toml::table& t, const reader& r, daemon_config& c) {
  for (auto&& [k, v] : t) {
    const std::string key(k.str());
    if (key == "socket") c.socket = r.str(v, key);
    else if (key == "socket_group") c.socket_group = r.str(v, key);
    else if (key == "state_dir") c.state_dir = r.str(v, key);
    else if (key == "metrics_address") {
      c.metrics_address = r.str(v, key);  // the older name of [metrics] address
      common::logger()->warn("{}: [daemon] metrics_address is the older name of [metrics] address; it still works, "
                             "but move it there", config::position(r.file, v.source()));
    } else if (key == "log_level") c.log_level = r.str(v, key);
    else r.fail(v, key, "unknown key; [daemon] has socket, socket_group, state_dir, log_level (and metrics_address, "
                        "the older name of [metrics] address)");
  }
}

void read_metrics(const toml::table& t, const reader& r, daemon_config& c) {
  for (auto&& [k, v] : t) {
    const std::string key(k.str());
    if (key == "address") c.metrics_address = r.str(v, key);
    else if (key == "enabled") c.metrics_enabled = r.boolean(v, key);
    else if (key == "job_retention_seconds") c.metrics_job_retention_s = static_cast<std::uint32_t>(r.integer(v, key, 0, big));
    else r.fail(v, key, "unknown key; [metrics] has address, enabled, job_retention_seconds");
  }
}

// [jobs] profile: a built-in profile's name, or the path of a profile file (such as one `aopt
// calibrate` wrote), relative to this config file. It must load: a typo fails at start, not at
// the first evaluation.
std::string profile_setting(const toml::node& v, const reader& r, const std::string& key) {
  std::string p = r.str(v, key);
  if (p.ends_with(".json") && fs::path(p).is_relative()) p = (r.file.parent_path() / p).lexically_normal().string();
  try {
    (void)sim::load_profile(p);
  } catch (const std::exception& e) {
    r.fail(v, key, std::string(e.what()) + "; give a profile name (910b4, a2) or the path of a profile file (.json)");
  }
  return p;
}

void read_jobs(const toml::table& t, const reader& r, daemon_config& c) {
  for (auto&& [k, v] : t) {
    const std::string key(k.str());
    if (key == "max_running") c.max_running = static_cast<std::size_t>(r.integer(v, key, 1, 1024));
    else if (key == "evaluator_slots") c.evaluator_slots = static_cast<std::size_t>(r.integer(v, key, 0, 1024));
    else if (key == "builders") c.builders = static_cast<std::size_t>(r.integer(v, key, 0, 1024));
    else if (key == "profile") c.profile = profile_setting(v, r, key);
    else if (key == "default_budget") c.default_budget = static_cast<std::size_t>(r.integer(v, key, 1, big));
    else if (key == "max_budget") c.max_budget = static_cast<std::size_t>(r.integer(v, key, 1, big));
    else if (key == "use_cache") c.use_cache = r.boolean(v, key);
    else if (key == "cache_dir") c.cache_dir = r.str(v, key);
    else if (key == "bank_dir") c.bank_dir = r.str(v, key);
    else if (key == "learn") c.learn = r.boolean(v, key);
    else r.fail(v, key, "unknown key; [jobs] has max_running, evaluator_slots, builders, profile, default_budget, max_budget, "
                        "use_cache, cache_dir, bank_dir, learn");
  }
}

void read_limits(const toml::table& t, const reader& r, daemon_config& c) {
  for (auto&& [k, v] : t) {
    const std::string key(k.str());
    if (key == "max_body_bytes") c.max_body_bytes = static_cast<std::size_t>(r.integer(v, key, 1024, std::int64_t{1} << 40));
    else if (key == "max_header_bytes") c.max_header_bytes = static_cast<std::size_t>(r.integer(v, key, 256, 1 << 20));
    else if (key == "request_timeout_ms") c.request_timeout_ms = static_cast<std::uint32_t>(r.integer(v, key, 10, big));
    else if (key == "max_connections") c.max_connections = static_cast<std::size_t>(r.integer(v, key, 1, 100000));
    else if (key == "shutdown_grace_ms") c.shutdown_grace_ms = static_cast<std::uint32_t>(r.integer(v, key, 0, 60000));
    else r.fail(v, key, "unknown key; [limits] has max_body_bytes, max_header_bytes, request_timeout_ms, "
                        "max_connections, shutdown_grace_ms");
  }
}

std::string config_path(const std::string& p, const reader& r) {
  if (p.empty() || fs::path(p).is_absolute()) return p;
  return (r.file.parent_path() / p).lexically_normal().string();
}

void read_nodes(const toml::table& t, const reader& r, daemon_config& c) {
  for (auto&& [k, v] : t) {
    const std::string key(k.str());
    if (key == "listen") c.nodes_listen = r.str(v, key);
    else if (key == "heartbeat_timeout_ms") c.node_heartbeat_timeout_ms = static_cast<std::uint32_t>(r.integer(v, key, 100, big));
    else if (key == "device_wait_ms") c.device_wait_ms = static_cast<std::uint32_t>(r.integer(v, key, 0, big));
    else if (key == "tls_certificate") c.nodes_tls_certificate = config_path(r.str(v, key), r);
    else if (key == "tls_key") c.nodes_tls_key = config_path(r.str(v, key), r);
    else if (key == "tls_ca") c.nodes_tls_ca = config_path(r.str(v, key), r);
    else if (key == "token_file") c.nodes_token_file = config_path(r.str(v, key), r);
    else r.fail(v, key, "unknown key; [nodes] has listen, heartbeat_timeout_ms, device_wait_ms, tls_certificate, "
                        "tls_key, tls_ca, token_file");
  }
}

void read_devices(const toml::node& n, const reader& r, daemon_config& c) {
  const auto* arr = n.as_array();
  if (arr == nullptr || !arr->is_array_of_tables()) {
    r.fail(n, "devices", "expected an array of tables: [[devices]] id = \"sim0\" ...");
  }
  for (const auto& item : *arr) {
    device_config d;
    for (auto&& [k, v] : *item.as_table()) {
      const std::string key(k.str());
      if (key == "id") d.id = r.str(v, key);
      else if (key == "kind") d.kind = r.str(v, key);
      else if (key == "profile") d.profile = profile_setting(v, r, key);
      else if (key == "labels") {
        const auto* labels = v.as_array();
        if (labels == nullptr) r.fail(v, key, "expected an array of strings");
        for (const auto& l : *labels) d.labels.push_back(r.str(l, key));
      } else if (key == "cann_config") {
        d.cann_config = config_path(r.str(v, key), r);
        try {
          (void)evaluation::load_cann_profile(d.cann_config);
        } catch (const std::exception& e) {
          r.fail(v, key, e.what());
        }
      } else if (key == "device") d.npu_device = static_cast<int>(r.integer(v, key, 0, 1023));
      else r.fail(v, key, "unknown key; [[devices]] has id, kind, profile, labels, and for npu devices cann_config, device");
    }
    if (d.id.empty() || d.id.find('/') != std::string::npos) r.fail(item, "id", "every device needs an id without '/'");
    if (d.kind != "sim" && d.kind != "npu") r.fail(item, "kind", "'" + d.kind + "': a device is \"sim\" or \"npu\"");
    if (d.kind == "npu" && d.cann_config.empty()) {
      r.fail(item, "cann_config", "npu device '" + d.id + "' needs cann_config = \"FILE\": the cann backend's command profile "
                                  "(start from config/cann.example.toml; docs/cann.md)");
    }
    if (d.kind == "sim" && (!d.cann_config.empty() || d.npu_device)) {
      r.fail(item, "kind", "device '" + d.id + "' has cann_config or device, which only npu devices take: set kind = \"npu\"");
    }
    for (const auto& other : c.devices)
      if (other.id == d.id) r.fail(item, "id", "device id '" + d.id + "' is used twice");
    c.devices.push_back(std::move(d));
  }
}

bool loopback_host(const std::string& host) {
  return host == "127.0.0.1" || host == "localhost" || host == "::1" || host == "[::1]";
}

}  // namespace

daemon_config default_config() {
  daemon_config c;
  c.socket = jobs::default_socket_path();
  c.state_dir = jobs::default_state_dir();
  return c;
}

std::filesystem::path daemon_config::node_token_file() const {
  if (!nodes_token_file.empty()) return nodes_token_file;
  if (!nodes_tls_certificate.empty()) return {};
  return state_dir / "node-token";
}

void daemon_config::validate() const {
  if (socket.empty()) invalid("socket: must not be empty (give --socket PATH)");
  // sun_path holds 108 bytes with its NUL.
  if (socket.string().size() > 107) {
    invalid("socket: '" + socket.string() + "' is longer than the 107 bytes a Unix socket path may have; choose a shorter path");
  }
  if (state_dir.empty()) invalid("state_dir: must not be empty (give --state-dir DIR)");
  if (max_running < 1) invalid("max_running: must be >= 1");
  if (default_budget < 1 || default_budget > max_budget) invalid("default_budget: must be in [1, max_budget]");
  if (max_connections < 1) invalid("max_connections: must be >= 1");
  if (max_header_bytes < 256) invalid("max_header_bytes: must be >= 256");
  if (request_timeout_ms < 10) invalid("request_timeout_ms: must be >= 10");
  if (!nodes_listen.empty()) {
    actors::host_port address;
    try {
      address = actors::parse_host_port(nodes_listen, "nodes.listen", true);
    } catch (const error& e) {
      invalid(std::string(e.what()) + " (\"\" means no nodes)");
    }
    const bool tls = !nodes_tls_certificate.empty() || !nodes_tls_key.empty() || !nodes_tls_ca.empty();
    if (!loopback_host(address.host) && !tls) {
      invalid("nodes.listen: '" + nodes_listen + "' is not a loopback address; nodes on other hosts need mutual "
              "TLS: set [nodes] tls_certificate, tls_key and tls_ca (docs/deploy.md)");
    }
    try {
      actors::tls_files{nodes_tls_certificate, nodes_tls_key, nodes_tls_ca}.check("nodes");
    } catch (const error& e) {
      invalid(e.what());
    }
  }
  if (serves_metrics()) {
    if (const auto why = monitoring::check_address(metrics_address); !why.empty()) {
      invalid("metrics.address: '" + metrics_address + "': " + why + " (or turn metrics off: [metrics] enabled = false)");
    }
  }
}

daemon_config read_config(const fs::path& file) {
  daemon_config c = default_config();
  std::error_code e;
  if (!fs::is_regular_file(file, e)) throw error(ec::not_found, file.string() + ": no such config file (--config)");
  toml::table root;
  try {
    root = toml::parse_file(file.string());
  } catch (const toml::parse_error& e) {
    throw error(ec::parse_error, config::position(file, e.source()) + ": " + std::string(e.description()) +
                                     " (TOML syntax; see config/aoptd.example.toml)");
  }
  for (auto&& [k, v] : root) {
    const std::string name(k.str());
    const reader r{file, name};
    if (name == "devices") {
      read_devices(v, r, c);
      continue;
    }
    if (!v.is_table()) r.fail(v, name, "expected a table ([daemon], [metrics], [jobs], [limits], [nodes] or [[devices]])");
    if (name == "daemon") read_daemon(*v.as_table(), r, c);
    else if (name == "metrics") read_metrics(*v.as_table(), r, c);
    else if (name == "jobs") read_jobs(*v.as_table(), r, c);
    else if (name == "limits") read_limits(*v.as_table(), r, c);
    else if (name == "nodes") read_nodes(*v.as_table(), r, c);
    else if (name != "llm") {
      r.fail(v, name, "unknown table; aoptd reads [daemon], [metrics], [jobs], [limits], [nodes], [[devices]] and [llm]");
    }
  }
  // One address, under one name.
  if (const auto* old_name = root.at_path("daemon.metrics_address").node(); old_name && root.at_path("metrics.address")) {
    reader{file, "daemon"}.fail(*old_name, "metrics_address", "set twice: here and as [metrics] address (line " +
                                                                  std::to_string(root.at_path("metrics.address").node()->source().begin.line) +
                                                                  "); keep [metrics] address only");
  }
  // [llm] is read by its own subsystem, whose errors name the file, line and key too.
  if (root.contains("llm")) c.llm = llm::load_llm_config(file);
  try {
    c.validate();
  } catch (const error& e) {
    throw error(ec::invalid_spec, file.string() + ": " + e.what());
  }
  return c;
}

}  // namespace aopt::daemon
