// Registration of the network-ready messages (messages.hpp) and actor handles with CAF. Call
// add_message_types(cfg) on every node before constructing its actor_system: a type unknown to
// the receiving node arrives as an empty message (DEPENDENCIES.md, CAF 0.17.6).
#pragma once

namespace caf {
class actor_system_config;
}

namespace aopt::protocols {

caf::actor_system_config& add_message_types(caf::actor_system_config& cfg);

}  // namespace aopt::protocols
