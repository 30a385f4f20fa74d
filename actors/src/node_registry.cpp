// The node registry: what remote evaluator nodes talk to (protocols/actors.hpp). It checks and
// forwards registrations to the evaluator pool, watches the nodes' heartbeats and connections,
// and serves operator packages by content digest. Every message must carry the node token
// (docs/deploy.md, "Security"): CAF 0.17's BASP authenticates neither connections nor senders
// (a message's source node is whatever the peer writes in its header), so a check of the sender's
// caf::node_id could be forged; the token cannot.
#include <chrono>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <caf/all.hpp>
#include <nlohmann/json.hpp>

#include "aopt/actors/spawn.hpp"
#include "aopt/common/log.h"
#include "aopt/common/secret.h"
#include "aopt/common/text.h"
#include "aopt/common/sha256.h"

namespace aopt::actors {

using namespace protocols;

namespace {

using clock = std::chrono::steady_clock;

struct node_entry {
  clock::time_point last_heartbeat;
  caf::actor_addr watched;  // its first evaluator: down when the connection breaks
  caf::node_id peer;        // the process its evaluators live in: tells it from another of that name
};

struct registry_state {
  static inline const char* name = "aopt.node_registry";
  registry_options opt;
  std::map<std::string, node_entry> nodes;
  std::map<std::string, std::string> digest_of;   // package id -> digest
  std::map<std::string, std::string> package_of;  // digest -> package id
};

using registry_pointer = node_registry_actor::stateful_pointer<registry_state>;

// Whether a message carries the node token (always, when the daemon needs none: mutual TLS).
bool authentic(registry_pointer self, const std::string& token) {
  return self->state.opt.token.empty() || common::equal_constant_time(token, self->state.opt.token);
}

// A name a peer sent, for the log: valid UTF-8, bounded, quoted with its control characters escaped.
std::string quoted(const std::string& name) {
  return nlohmann::json(common::bounded_text(name, 64, "...")).dump();
}

// Who sent the current message, for the log: its CAF node (host hash and process id).
std::string sender(registry_pointer self) {
  const auto& s = self->current_sender();
  return s ? "process " + caf::to_string(s->node()) : std::string("an unknown sender");
}

// The answer to a message without the token: nothing of the daemon's, and a warning.
caf::error refuse(registry_pointer self, const std::string& what) {
  common::logger()->warn("refused {} from {}: no valid node token (aopt-node --token-file; docs/deploy.md, Security)",
                         what, sender(self));
  return caf::make_error(caf::sec::invalid_argument,
                         "this daemon admits only nodes with its node token: give aopt-node --token-file "
                         "(a copy of the daemon's [nodes] token_file, by default <state_dir>/node-token)");
}

std::string digest(const file_map& files) {
  common::sha256 h;
  for (const auto& [path, bytes] : files) {
    h.update(std::to_string(path.size()) + ":" + path + std::to_string(bytes.size()) + ":");
    h.update(bytes);
  }
  return h.finish_hex();
}

void notify(registry_pointer self, device_event::kind what, const std::string& node, const std::string& why) {
  if (!self->state.opt.listener) return;
  device_event e;
  e.what = what;
  e.device.node = node;
  e.why = why;
  self->state.opt.listener(e);
}

void lose_node(registry_pointer self, const std::string& node, const std::string& why) {
  if (self->state.nodes.erase(node) == 0) return;
  common::logger()->warn("evaluator node {} lost: {}; its requests in flight are queued again", node, why);
  caf::anon_send(self->state.opt.pool, node_down_atom::value, self->state.opt.pool_key, node, why);
  notify(self, device_event::kind::node_lost, node, why);
}

std::string check_registration(const std::string& node, const std::vector<device_info>& devices,
                               const std::vector<evaluator_actor>& handles) {
  if (node.empty()) return "the node has no name (give aopt-node --name)";
  if (node.find('/') != std::string::npos) return "node name '" + node + "' holds a '/'";
  if (devices.empty()) return "node " + node + " registered no device";
  if (devices.size() != handles.size()) return "node " + node + " sent a different number of devices and evaluators";
  std::set<std::string> ids;
  for (std::size_t i = 0; i < devices.size(); ++i) {
    if (devices[i].id.empty() || !ids.insert(devices[i].id).second)
      return "node " + node + ": device ids must be unique and not empty ('" + devices[i].id + "')";
    if (!handles[i]) return "node " + node + ": device " + devices[i].id + " has no evaluator";
  }
  return {};
}

node_registry_actor::behavior_type registry_behavior(registry_pointer self, registry_options opt) {
  self->state.opt = std::move(opt);
  const auto tick = std::max(std::chrono::milliseconds(50), self->state.opt.heartbeat_timeout / 4);
  self->delayed_send(self, tick, tick_atom::value);
  self->set_down_handler([self](caf::down_msg& dm) {
    for (const auto& [node, e] : self->state.nodes) {
      if (e.watched == dm.source) {
        lose_node(self, node, "disconnected (" + self->system().render(dm.reason) + ")");
        return;
      }
    }
  });
  return {
      [self](register_atom, const std::string& token, const std::string& node, std::vector<device_info>& devices,
             std::vector<evaluator_actor>& handles) -> caf::result<ok_atom> {
        if (!authentic(self, token)) return refuse(self, "the registration of a node named " + quoted(node));
        const auto why = check_registration(node, devices, handles);
        if (!why.empty()) {
          common::logger()->warn("refused an evaluator node's registration: {}", why);
          return caf::make_error(caf::sec::invalid_argument, why);
        }
        // A name belongs to one live node. The same node registering again (it lost its
        // heartbeat's answer, or joined again over a new connection) keeps it; another process
        // is refused until the first is lost (disconnected, or silent for heartbeat_timeout).
        const auto peer = handles.front().node();
        if (auto it = self->state.nodes.find(node); it != self->state.nodes.end() && it->second.peer != peer) {
          common::logger()->warn(
              "refused a second evaluator node named {}: process {} tried to register under the name of the live "
              "node {} (process {}), which keeps it; give the second node another --name",
              node, caf::to_string(peer), node, caf::to_string(it->second.peer));
          return caf::make_error(caf::sec::invalid_argument,
                                 "the name " + node + " is taken by another live node of this daemon; give another --name");
        }
        auto& e = self->state.nodes[node];
        e.last_heartbeat = clock::now();
        e.watched = handles.front().address();
        e.peer = peer;
        self->monitor(handles.front());
        std::string names;
        for (const auto& d : devices) names += (names.empty() ? "" : ", ") + d.id + " (" + d.device_class + ")";
        common::logger()->info("evaluator node {} joined with {} devices: {}", node, devices.size(), names);
        notify(self, device_event::kind::node_joined, node, {});
        return self->delegate(self->state.opt.pool, register_atom::value, self->state.opt.pool_key, node,
                              std::move(devices),
                              std::move(handles));
      },
      [self](heartbeat_atom, const std::string& token, const std::string& node) -> caf::result<bool> {
        if (!authentic(self, token)) return refuse(self, "a heartbeat");
        auto it = self->state.nodes.find(node);
        if (it == self->state.nodes.end()) return false;
        it->second.last_heartbeat = clock::now();
        return true;
      },
      [self](digest_atom, const std::string& token, const std::string& package) -> caf::result<std::string> {
        if (!authentic(self, token)) return refuse(self, "a package digest request");
        if (auto it = self->state.digest_of.find(package); it != self->state.digest_of.end()) return it->second;
        if (!self->state.opt.packages) return std::string();
        auto files = self->state.opt.packages(package);
        if (!files) return std::string();
        const auto d = digest(*files);
        self->state.digest_of[package] = d;
        self->state.package_of[d] = package;
        return d;
      },
      [self](artifact_atom, const std::string& token, const std::string& key) -> caf::result<std::string> {
        if (!authentic(self, token)) return refuse(self, "an artifact request");
        if (!self->state.opt.artifacts.get) return std::string();
        return self->state.opt.artifacts.get(key).value_or(std::string());
      },
      [self](artifact_atom, const std::string& token, const std::string& key, const std::string& bytes) {
        if (!authentic(self, token)) {
          (void)refuse(self, "an artifact a node built");
          return;
        }
        if (self->state.opt.artifacts.put) self->state.opt.artifacts.put(key, bytes);
      },
      [self](package_atom, const std::string& token, const std::string& d) -> caf::result<file_map> {
        if (!authentic(self, token)) return refuse(self, "a package request");
        auto it = self->state.package_of.find(d);
        if (it == self->state.package_of.end() || !self->state.opt.packages) return file_map{};
        auto files = self->state.opt.packages(it->second);
        if (!files || digest(*files) != d) return file_map{};  // changed or gone: the node asks again
        return std::move(*files);
      },
      [self, tick](tick_atom) {
        const auto now = clock::now();
        std::vector<std::string> silent;
        for (const auto& [node, e] : self->state.nodes)
          if (now - e.last_heartbeat > self->state.opt.heartbeat_timeout) silent.push_back(node);
        for (const auto& node : silent) {
          lose_node(self, node,
                    "no heartbeat for " +
                        std::to_string(std::chrono::duration_cast<std::chrono::milliseconds>(
                                           self->state.opt.heartbeat_timeout)
                                           .count()) +
                        " ms");
        }
        self->delayed_send(self, tick, tick_atom::value);
      },
  };
}

}  // namespace

node_registry_actor spawn_node_registry(caf::actor_system& sys, registry_options opt) {
  // Detached: reading a package from disk blocks.
  return sys.spawn<caf::detached>(registry_behavior, std::move(opt));
}

}  // namespace aopt::actors
