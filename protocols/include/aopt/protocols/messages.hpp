// The messages of the actor system. Two kinds, kept apart on purpose:
//
// - Network-ready messages: the search's records as their one JSON form (`wire<T>`: the text of
//   optimize::to_json(T), read back with from_json: optimizer.h, search/optimize/src/records.cpp),
//   plus optimize_job_msg and optimize_reply_msg. Each record's fields are spelled once, beside
//   the record, and travel unchanged to report.json, the daemon's journal and other hosts. An
//   evaluator, a progress listener or a scheduler on another host can be added without changing
//   the protocol. Register them on every node with add_message_types() (message_types.hpp)
//   before the actor_system starts.
// - Local-only messages: `local<T>`, a shared pointer to an immutable object of this process
//   (templates, histories, file maps, diagnoses, experience tuples, results). They avoid copying
//   and serialising large search objects between actors of one process, cannot cross the
//   network (CAF would refuse to serialise them) and are declared as allowed unsafe message
//   types below. A local reply may carry an exception instead of a value: a system fault inside
//   the actor travels back to the requester, which rethrows it, as a direct call would.
//
// Requests to the role actors carry the id of the job they serve (`search_id`): one Mutator,
// Diagnoser, Retriever, Refiner and Distiller serve every job of the process, each job with its
// own engine and bank snapshot (actors/spawn.hpp, search_table).
//
// This header includes only small CAF headers; actors.hpp holds the (heavier) interfaces.
#pragma once

#include <cstdint>
#include <exception>
#include <map>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <caf/allowed_unsafe_message_type.hpp>
#include <caf/error.hpp>
#include <caf/meta/load_callback.hpp>
#include <caf/meta/type_name.hpp>
#include <caf/none.hpp>
#include <caf/sec.hpp>

#include "aopt/common/file_map.h"
#include "aopt/protocols/device.hpp"
#include "aopt/vocab/verdict.h"

namespace aopt::optimize {
struct progress_event;
struct optimizer_config;
}  // namespace aopt::optimize

namespace aopt::protocols {

using aopt::file_map;  // common/file_map.h

// A job of this process, as the role actors know it (actors::search_table). 0 is no job.
using search_id = std::uint64_t;

// A record of the search as its JSON text (optimize::to_json / from_json). Packing and unpacking
// live with the actors (actors/convert.hpp), which see both CAF and the record types.
template <class T>
struct wire {
  std::string json;
};

template <class Inspector, class T>
typename Inspector::result_type inspect(Inspector& f, wire<T>& x) {
  return f(caf::meta::type_name("aopt::protocols::wire"), x.json);
}

// How the evaluator pool routes one evaluation: a small record beside the request's body, filled
// by the sender from the request it packs (actors::pack_routed, convert.hpp), so that the pool
// never parses a body. A body that does not read back still goes where its route says; its
// evaluator reports it.
struct eval_route {
  std::string package;                              // the job's package id
  vocab::eval_stage stage = vocab::eval_stage::base;  // the request's stage (the device listener's metrics)
  std::string device;  // run on this device ("" = any device of the batch's class; see eval_request)
};

// The stage travels as its JSON spelling (vocab::to_string: "kernel", "tiling+kernel", ...), so
// the binary form does not depend on the enum's numbering; a stage this process does not know is
// an error of the message (a peer of another version), never a crash.
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, eval_route& x) {
  std::string stage(vocab::to_string(x.stage));
  auto read_stage = caf::meta::load_callback([&]() -> caf::error {
    const auto s = vocab::parse_eval_stage(stage);
    if (!s) {
      return caf::make_error(caf::sec::invalid_argument,
                             "eval_route: unknown stage '" + stage +
                                 "' (the sender is of another version; known: base, tiling, kernel, tiling+kernel, "
                                 "random, verify, remeasure, screen, rewind)");
    }
    x.stage = *s;
    return caf::none;
  });
  return f(caf::meta::type_name("aopt::protocols::eval_route"), x.package, stage, x.device, read_stage);
}

// One request to the evaluator pool: its route and its body.
struct eval_envelope {
  eval_route route;
  wire<vocab::eval_request> body;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, eval_envelope& x) {
  return f(caf::meta::type_name("aopt::protocols::eval_envelope"), x.route, x.body);
}

// An optimize job: the operator, its base files and the optimizer's configuration.
struct optimize_job_msg {
  std::string package;
  file_map base_files;
  wire<optimize::optimizer_config> config;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, optimize_job_msg& x) {
  return f(caf::meta::type_name("aopt::protocols::optimize_job_msg"), x.package, x.base_files,
           x.config);
}

// The answer to an optimize job: optimize::to_json(optimize_result) and the best file map.
struct optimize_reply_msg {
  std::string result_json;
  file_map best_files;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, optimize_reply_msg& x) {
  return f(caf::meta::type_name("aopt::protocols::optimize_reply_msg"), x.result_json,
           x.best_files);
}

// An evaluation device (device.hpp), as it travels when a node registers.
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, device_info& x) {
  return f(caf::meta::type_name("aopt::protocols::device_info"), x.id, x.node, x.kind, x.device_class,
           x.labels, x.chip);
}

// Local-only: an immutable object shared between actors of this process, or the exception that
// replaced it (a system fault of the actor that made the reply; the requester rethrows it).
template <class T>
struct local {
  std::shared_ptr<const T> ptr;
  std::exception_ptr error;

  const T& get() const {
    if (error) std::rethrow_exception(error);
    return *ptr;
  }
};

template <class T>
local<std::decay_t<T>> make_local(T&& value) {
  return {std::make_shared<const std::decay_t<T>>(std::forward<T>(value)), nullptr};
}

template <class T>
local<T> local_error(std::exception_ptr e) {
  return {nullptr, std::move(e)};
}

}  // namespace aopt::protocols

// Every `local<T>` may travel inside this process (the CAF_ALLOW_UNSAFE_MESSAGE_TYPE trait of
// caf/allowed_unsafe_message_type.hpp, specialised for the whole template at once).
namespace caf {
template <class T>
struct allowed_unsafe_message_type<aopt::protocols::local<T>> : std::true_type {};
}  // namespace caf
