// The node registry: what remote evaluator nodes talk to (protocols/actors.hpp). It checks and
// forwards registrations to the evaluator pool, watches the nodes' heartbeats and connections,
// and serves operator packages by content digest.
#include <chrono>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <caf/all.hpp>

#include "aopt/actors/spawn.hpp"
#include "aopt/common/log.h"
#include "aopt/common/sha256.h"

namespace aopt::actors {

using namespace protocols;

namespace {

using clock = std::chrono::steady_clock;

struct node_entry {
  clock::time_point last_heartbeat;
  caf::actor_addr watched;  // its first evaluator: down when the connection breaks
};

struct registry_state {
  static inline const char* name = "aopt.node_registry";
  registry_options opt;
  std::map<std::string, node_entry> nodes;
  std::map<std::string, std::string> digest_of;   // package id -> digest
  std::map<std::string, std::string> package_of;  // digest -> package id
};

using registry_pointer = node_registry_actor::stateful_pointer<registry_state>;

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
  caf::anon_send(self->state.opt.pool, node_down_atom::value, node, why);
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
      [self](register_atom, const std::string& node, std::vector<device_info>& devices,
             std::vector<evaluator_actor>& handles) -> caf::result<ok_atom> {
        const auto why = check_registration(node, devices, handles);
        if (!why.empty()) {
          common::logger()->warn("refused an evaluator node's registration: {}", why);
          return caf::make_error(caf::sec::invalid_argument, why);
        }
        auto& e = self->state.nodes[node];
        e.last_heartbeat = clock::now();
        e.watched = handles.front().address();
        self->monitor(handles.front());
        std::string names;
        for (const auto& d : devices) names += (names.empty() ? "" : ", ") + d.id + " (" + d.profile + ")";
        common::logger()->info("evaluator node {} joined with {} devices: {}", node, devices.size(), names);
        notify(self, device_event::kind::node_joined, node, {});
        return self->delegate(self->state.opt.pool, register_atom::value, node, std::move(devices),
                              std::move(handles));
      },
      [self](heartbeat_atom, const std::string& node) {
        auto it = self->state.nodes.find(node);
        if (it == self->state.nodes.end()) return false;
        it->second.last_heartbeat = clock::now();
        return true;
      },
      [self](digest_atom, const std::string& package) -> std::string {
        if (auto it = self->state.digest_of.find(package); it != self->state.digest_of.end()) return it->second;
        if (!self->state.opt.packages) return {};
        auto files = self->state.opt.packages(package);
        if (!files) return {};
        const auto d = digest(*files);
        self->state.digest_of[package] = d;
        self->state.package_of[d] = package;
        return d;
      },
      [self](artifact_atom, const std::string& key) -> std::string {
        if (!self->state.opt.artifacts.get) return {};
        return self->state.opt.artifacts.get(key).value_or(std::string());
      },
      [self](artifact_atom, const std::string& key, const std::string& bytes) {
        if (self->state.opt.artifacts.put) self->state.opt.artifacts.put(key, bytes);
      },
      [self](package_atom, const std::string& d) -> file_map {
        auto it = self->state.package_of.find(d);
        if (it == self->state.package_of.end() || !self->state.opt.packages) return {};
        auto files = self->state.opt.packages(it->second);
        if (!files || digest(*files) != d) return {};  // changed or gone: the node asks again
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
