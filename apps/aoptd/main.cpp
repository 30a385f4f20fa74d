// aoptd: the long-running daemon (docs/api.md). One actor system for its lifetime, the jobs in
// RocksDB under the state directory, the API on a Unix socket. SIGTERM or SIGINT: refuse
// submissions (503), let running jobs reach a checkpoint (shutdown_grace_ms), close the socket, exit.
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstddef>
#include <cstring>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <memory>
#include <string>

#include <CLI/CLI.hpp>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "aopt/common/error.h"
#include "aopt/common/log.h"
#include "aopt/common/ownership.h"
#include "aopt/storage/experience_bank.h"
#include "api.h"
#include "config.h"
#include "http.h"
#include "job_manager.h"
#include "metrics_observer.h"

namespace {

// systemd's readiness protocol (sd_notify(3)): one datagram to $NOTIFY_SOCKET, a path or, with a
// leading '@', an abstract socket name. Without the variable (not started by systemd) nothing.
void notify_systemd(const std::string& state) {
  const char* where = std::getenv("NOTIFY_SOCKET");
  if (where == nullptr || where[0] == '\0') return;
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  const std::string path = where;
  if (path.size() >= sizeof addr.sun_path) return;
  std::memcpy(addr.sun_path, path.data(), path.size());
  if (addr.sun_path[0] == '@') addr.sun_path[0] = '\0';
  const int fd = ::socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return;
  const auto len = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + path.size());
  if (::sendto(fd, state.data(), state.size(), MSG_NOSIGNAL, reinterpret_cast<const sockaddr*>(&addr), len) < 0) {
    aopt::common::logger()->warn("cannot notify systemd on {}: {}", path, std::strerror(errno));
  }
  ::close(fd);
}

}  // namespace

int main(int argc, char** argv) {
  using namespace aopt::daemon;
  CLI::App app{"aoptd: the AscendOptimizer daemon (HTTP/1.1 + JSON on a Unix socket; see docs/api.md)"};
  std::string config_file, socket, state_dir, metrics, log_level, nodes_listen;
  app.add_option("--config", config_file, "Config file (see config/aoptd.example.toml)");
  app.add_option("--socket", socket, "API socket path (overrides [daemon] socket)");
  app.add_option("--state-dir", state_dir, "State directory (overrides [daemon] state_dir)");
  app.add_option("--metrics-address", metrics, "HOST:PORT for metrics, \"\" = off (overrides [metrics] address and enabled)");
  app.add_option("--nodes-listen", nodes_listen,
                 "HOST:PORT where remote evaluator nodes join (aopt-node --join), port 0 = any free one, logged and "
                 "in GET /v1/health; \"\" = no nodes (overrides [nodes] listen)");
  app.add_option("--log-level", log_level, "trace, debug, info, warn, error (overrides [daemon] log_level)");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
  auto log = aopt::common::logger();
  log->set_pattern("%l: %v");  // one line per event, level first (journald keeps stderr lines)
  // Signals are taken by sigwait below; every thread started from here on inherits the mask.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGTERM);
  sigaddset(&stop_signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);
  std::signal(SIGPIPE, SIG_IGN);
  try {
    daemon_config cfg = config_file.empty() ? default_config() : read_config(config_file);
    if (!socket.empty()) cfg.socket = socket;
    if (!state_dir.empty()) cfg.state_dir = state_dir;
    if (app.count("--metrics-address") != 0) {
      cfg.metrics_address = metrics;
      cfg.metrics_enabled = !metrics.empty();
    }
    if (!log_level.empty()) cfg.log_level = log_level;
    if (app.count("--nodes-listen") != 0) cfg.nodes_listen = nodes_listen;
    cfg.validate();
    aopt::common::set_log_level(cfg.log_level);
    // Everything aoptd writes (jobs, journals, the bank, caches) is its user's only; with a socket
    // group, readable by the group too. The state directory itself is checked and tightened.
    ::umask(cfg.socket_group.empty() ? 077 : 027);
    aopt::common::make_private_dir(cfg.state_dir, cfg.socket_group.empty() ? 0700 : 0750, "state directory", true);
    // Metrics first, so that the jobs recovered at start-up are counted.
    auto metrics = std::make_shared<aopt::monitoring::metrics>(std::chrono::seconds(cfg.metrics_job_retention_s));
    metrics_observer observer(metrics, [bank = cfg.bank_dir.empty() ? aopt::storage::default_bank_dir() : cfg.bank_dir]() {
      std::error_code e;
      if (!std::filesystem::exists(bank / "CURRENT", e)) return std::uint64_t(0);
      try {
        aopt::storage::experience_bank b(bank, {.create_if_missing = false, .read_only = true});
        return static_cast<std::uint64_t>(b.count());
      } catch (const std::exception&) {
        return std::uint64_t(0);  // a writer holds it or it is damaged: the job says so, not the metric
      }
    });
    std::unique_ptr<aopt::monitoring::exporter> exporter;
    if (cfg.serves_metrics()) {
      exporter = std::make_unique<aopt::monitoring::exporter>(metrics, cfg.metrics_address);
      log->info("metrics on http://{}/metrics", exporter->address());
    }
    job_manager jobs(cfg, {&observer});
    http_limits limits{cfg.max_header_bytes, cfg.max_body_bytes, cfg.request_timeout_ms, cfg.max_connections};
    http_server server(cfg.socket, limits, [&jobs](const http_request& r) { return handle_api(jobs, r); },
                       cfg.socket_group);
    jobs.start();
    server.start();
    log->info("aoptd {} listening on {} (state {}, pid {})", AOPT_VERSION, cfg.socket.string(), cfg.state_dir.string(),
              ::getpid());
    notify_systemd("READY=1\nMAINPID=" + std::to_string(::getpid()) + "\nSTATUS=listening on " + cfg.socket.string());
    int sig = 0;
    sigwait(&stop_signals, &sig);
    log->info("signal {}: stopping (no new requests; running jobs checkpoint)", sig);
    notify_systemd("STOPPING=1");
    // While running jobs reach a checkpoint the socket still answers (docs/api.md, "Stopping"):
    // GET /v1/health says "stopping", submissions and new event streams get 503 shutting_down.
    jobs.request_stop();  // new submissions get 503, event streams end
    const bool stopped = jobs.shutdown(std::chrono::milliseconds(cfg.shutdown_grace_ms));
    server.stop(1000);    // no new connections; the socket file is removed
    if (!stopped) {
      // Every evaluation result is already in the journal: the job resumes from there.
      log->warn("a running evaluation outlived shutdown_grace_ms; exiting now, its job resumes on the next start");
      log->flush();
      std::_Exit(0);
    }
    log->info("stopped");
    log->flush();
    return 0;
  } catch (const aopt::error& e) {
    log->error("{} ({})", e.what(), aopt::to_string(e.code()));
    return 2;
  } catch (const std::exception& e) {
    log->error("internal error: {}", e.what());
    return 3;
  }
}
