#include "aopt/protocols/message_types.hpp"

#include <caf/actor_system_config.hpp>

#include "aopt/protocols/actors.hpp"

namespace aopt::protocols {

caf::actor_system_config& add_message_types(caf::actor_system_config& cfg) {
  // add_message_type<T> also registers std::vector<T>.
  cfg.add_message_type<eval_request_wire>("aopt::protocols::wire<eval_request>");
  cfg.add_message_type<eval_envelope>("aopt::protocols::eval_envelope");
  cfg.add_message_type<eval_report_wire>("aopt::protocols::wire<eval_report>");
  cfg.add_message_type<progress_wire>("aopt::protocols::wire<progress_event>");
  cfg.add_message_type<optimize_job_msg>("aopt::protocols::optimize_job_msg");
  cfg.add_message_type<optimize_reply_msg>("aopt::protocols::optimize_reply_msg");
  cfg.add_message_type<device_info>("aopt::protocols::device_info");
  cfg.add_message_type<file_map>("aopt::file_map");
  // Handles that may travel inside messages (a remote evaluator joining a pool, a listener).
  cfg.add_message_type<evaluator_actor>("aopt::protocols::evaluator_actor");
  cfg.add_message_type<evaluator_pool_actor>("aopt::protocols::evaluator_pool_actor");
  cfg.add_message_type<progress_listener_actor>("aopt::protocols::progress_listener_actor");
  cfg.add_message_type<scheduler_actor>("aopt::protocols::scheduler_actor");
  cfg.add_message_type<node_registry_actor>("aopt::protocols::node_registry_actor");
  return cfg;
}

}  // namespace aopt::protocols
