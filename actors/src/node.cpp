// aopt-node's loop (node.hpp): join, register, heartbeat, join again.
#include "aopt/actors/node.hpp"

#include <algorithm>
#include <chrono>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <caf/all.hpp>
#include <caf/io/all.hpp>
#include <caf/openssl/all.hpp>

#include "aopt/actors/job_support.hpp"
#include "aopt/actors/spawn.hpp"
#include "aopt/common/error.h"

namespace aopt::actors {

using namespace protocols;

namespace {

// The daemon's registry as the node currently knows it (null while it is not joined).
struct registry_link {
  std::mutex mu;
  node_registry_actor handle;

  node_registry_actor get() {
    std::lock_guard<std::mutex> lock(mu);
    return handle;
  }
  void set(node_registry_actor h) {
    std::lock_guard<std::mutex> lock(mu);
    handle = std::move(h);
  }
};

template <class Result, class... Ts>
Result ask_registry(caf::actor_system& sys, registry_link& link, std::chrono::milliseconds timeout,
                    const char* what, Ts&&... xs) {
  auto h = link.get();
  if (!h) throw aopt::error(ec::io_error, std::string("aopt-node: not joined to the daemon, cannot ") + what);
  caf::scoped_actor self{sys};
  std::optional<Result> out;
  caf::error err;
  self->request(h, timeout, std::forward<Ts>(xs)...)
      .receive([&](Result& r) { out = std::move(r); }, [&](caf::error& e) { err = std::move(e); });
  if (!out) throw aopt::error(ec::io_error, std::string("aopt-node: the daemon did not ") + what + ": " + sys.render(err));
  return std::move(*out);
}

void sleep_unless_stopped(const node_options& o, std::chrono::milliseconds d) {
  const auto end = std::chrono::steady_clock::now() + d;
  while (std::chrono::steady_clock::now() < end && !(o.stop && o.stop()))
    std::this_thread::sleep_for(std::min<std::chrono::milliseconds>(d, std::chrono::milliseconds(50)));
}

// The actor system of a node: the middleman (and TLS when asked for), a quiet scheduler.
caf::actor_system_config& node_config(caf::actor_system_config& cfg, const node_options& o) {
  // The evaluators are detached (a thread each); the scheduler only runs the middleman's
  // brokers' clients: one worker that does not spin keeps a node quiet next to its evaluations.
  cfg.set("scheduler.max-threads", 1);
  cfg.set("work-stealing.aggressive-poll-attempts", 1);
  cfg.set("work-stealing.moderate-poll-attempts", 1);
  cfg.load<caf::io::middleman>();
  if (o.tls.enabled()) {
    cfg.openssl_certificate = o.tls.certificate;
    cfg.openssl_key = o.tls.key;
    cfg.openssl_cafile = o.tls.ca;
    cfg.load<caf::openssl::manager>();
  }
  return with_message_types(cfg);
}

// What the node's evaluators fetch from the daemon's registry through `link`: package digests,
// packages, artifacts (a miss or an unreachable daemon is not an error: the evaluator compiles).
package_fetcher registry_fetcher(caf::actor_system& sys, std::shared_ptr<registry_link> link,
                                 std::chrono::milliseconds ask_timeout, const std::string& token) {
  package_fetcher fetch;
  fetch.digest = [&sys, link, ask_timeout, token](const std::string& package) {
    auto d = ask_registry<std::string>(sys, *link, ask_timeout, "name the package's digest", digest_atom::value, token,
                                       package);
    if (d.empty()) throw aopt::error(ec::not_found, "aopt-node: the daemon knows no package '" + package + "'");
    return d;
  };
  fetch.files = [&sys, link, ask_timeout, token](const std::string& digest) {
    auto files = ask_registry<file_map>(sys, *link, ask_timeout, "send the package", package_atom::value, token, digest);
    if (files.empty()) throw aopt::error(ec::not_found, "aopt-node: the daemon no longer has package " + digest);
    return files;
  };
  fetch.artifacts.get = [&sys, link, ask_timeout, token](const std::string& key) -> std::optional<std::string> {
    try {
      auto bytes =
          ask_registry<std::string>(sys, *link, ask_timeout, "send an artifact", artifact_atom::value, token, key);
      if (bytes.empty()) return std::nullopt;
      return bytes;
    } catch (const aopt::error&) {
      return std::nullopt;
    }
  };
  fetch.artifacts.put = [link, token](const std::string& key, const std::string& bytes) {
    if (auto h = link->get()) caf::anon_send(h, artifact_atom::value, token, key, bytes);
  };
  return fetch;
}

// Why a join attempt failed: `why` (CAF's words, to log a failure once) and the operator's line.
struct join_failure {
  std::string why;
  std::string message;
  node_log_level level = node_log_level::info;
};

// One attempt to join the daemon at o.host:o.port: connect, then register the devices.
std::optional<join_failure> join_once(caf::actor_system& sys, caf::scoped_actor& self, registry_link& link,
                                      const node_options& o, const std::vector<evaluator_actor>& evaluators,
                                      std::chrono::milliseconds ask_timeout) {
  const std::string where = o.host + ":" + std::to_string(o.port);
  auto r = o.tls.enabled() ? caf::openssl::remote_actor<node_registry_actor>(sys, o.host, o.port)
                           : sys.middleman().remote_actor<node_registry_actor>(o.host, o.port);
  if (!r) {
    const auto why = sys.render(r.error());
    if (r.error() != caf::sec::disconnect_during_handshake)
      return join_failure{why, "cannot reach the daemon at " + where + ": " + why + "; retrying"};
    // The daemon is there but ended the handshake: over TLS it refused this node's certificate
    // (or spoke no TLS); without TLS, it may require mutual TLS.
    return join_failure{
        why,
        o.tls.enabled() ? "the daemon at " + where + " refused this node's certificate (the TLS handshake failed: " + why +
                              "); --tls-cert must be signed by the CA the daemon trusts ([nodes] tls_ca), and --tls-ca "
                              "must be the CA of the daemon's certificate; retrying"
                        : "the daemon at " + where + " ended the handshake (" + why +
                              "): it may require mutual TLS (give --tls-cert, --tls-key and --tls-ca); retrying",
        node_log_level::warn};
  }
  // Known before registering: the daemon may send work as soon as the devices join, and the
  // evaluators fetch its package through this link.
  link.set(*r);
  bool joined = false;
  caf::error err;
  self->request(*r, ask_timeout, register_atom::value, o.token, o.name, o.devices, evaluators)
      .receive([&](ok_atom) { joined = true; }, [&](caf::error& e) { err = std::move(e); });
  if (joined) return std::nullopt;
  link.set(node_registry_actor{});
  const auto why = sys.render(err);
  return join_failure{why, "the daemon at " + where + " refused this node: " + why + "; retrying", node_log_level::warn};
}

}  // namespace

void run_node(const node_options& o, const node_slot_factory& make_slots) {
  if (o.name.empty() || o.name.find('/') != std::string::npos)
    throw aopt::error(ec::invalid_argument, "aopt-node: --name must be given and hold no '/'");
  if (o.devices.empty()) throw aopt::error(ec::invalid_argument, "aopt-node: at least one device is needed");
  if (o.port == 0) throw aopt::error(ec::invalid_argument, "aopt-node: --join needs HOST:PORT with a port");
  auto log = [&](const std::string& line, node_log_level level = node_log_level::info) {
    if (o.log) o.log(level, line);
  };
  o.tls.check("aopt-node --tls-*");
  caf::actor_system_config cfg;
  caf::actor_system sys{node_config(cfg, o)};
  auto link = std::make_shared<registry_link>();
  const auto ask_timeout = std::max(o.heartbeat * 5, std::chrono::milliseconds(10000));
  auto fns = make_slots(registry_fetcher(sys, link, ask_timeout, o.token));
  if (fns.size() != o.devices.size())
    throw aopt::error(ec::invalid_argument, "aopt-node: one evaluate function per device is needed");
  std::vector<evaluator_actor> evaluators;
  for (std::size_t i = 0; i < fns.size(); ++i) {
    auto info = o.devices[i];
    info.node = o.name;
    evaluators.push_back(spawn_evaluator(sys, std::move(fns[i]), info.name()));
  }
  const std::string where = o.host + ":" + std::to_string(o.port);
  bool joined = false;
  std::string last_failure;
  // Failed attempts back off (doubling up to 30 s): a refused node must not keep knocking (over
  // TLS, each failed handshake disturbs the daemon's other connections: docs/deploy.md).
  auto backoff = o.retry;
  {
    caf::scoped_actor self{sys};
    while (!(o.stop && o.stop())) {
      if (!joined) {
        if (auto failed = join_once(sys, self, *link, o, evaluators, ask_timeout)) {
          if (failed->why != last_failure) log(failed->message, failed->level);
          last_failure = failed->why;
          sleep_unless_stopped(o, backoff);
          backoff = std::min<std::chrono::milliseconds>(backoff * 2, std::max(o.retry, std::chrono::milliseconds(30000)));
          continue;
        }
        joined = true;
        last_failure.clear();
        backoff = o.retry;
        log("joined the daemon at " + where + " as " + o.name + " with " + std::to_string(o.devices.size()) +
            " devices");
      }
      sleep_unless_stopped(o, o.heartbeat);
      if (o.stop && o.stop()) break;
      bool known = false;
      caf::error err;
      self->request(link->get(), o.heartbeat * 3, heartbeat_atom::value, o.token, o.name)
          .receive([&](bool k) { known = k; }, [&](caf::error& e) { err = std::move(e); });
      if (err || !known) {
        log(err ? "lost the daemon at " + where + ": " + sys.render(err) + "; joining again"
                : "the daemon no longer knows this node; registering again");
        joined = false;
        link->set(node_registry_actor{});
      }
    }
  }
  log("leaving");
  link->set(node_registry_actor{});
  caf::scoped_actor self{sys};
  for (const auto& e : evaluators) stop_all(self, e);
}

}  // namespace aopt::actors
