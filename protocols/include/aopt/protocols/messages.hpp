// The messages of the actor system. Two kinds, kept apart on purpose:
//
// - Network-ready messages (eval_request_msg, eval_report_msg, progress_msg, optimize_job_msg,
//   optimize_reply_msg): plain strings, maps, integers and doubles with a CAF 0.17 `inspect`, so
//   an evaluator, a progress listener or a scheduler on another host can be added later without
//   changing the protocol. JSON payloads travel as strings. Register them on every node with
//   add_message_types() (message_types.hpp) before the actor_system starts.
// - Local-only messages: `local<T>`, a shared pointer to an immutable object of this process
//   (templates, histories, file maps, diagnoses, experience tuples, results). They avoid copying
//   and serialising large search objects between actors of one process, cannot cross the
//   network (CAF would refuse to serialise them) and are declared as allowed unsafe message
//   types below. A local reply may carry an exception instead of a value: a system fault inside
//   the actor travels back to the requester, which rethrows it, as a direct call would.
//
// This header includes only two small CAF headers; actors.hpp holds the (heavier) interfaces.
#pragma once

#include <cstdint>
#include <exception>
#include <map>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>

#include <caf/allowed_unsafe_message_type.hpp>
#include <caf/meta/type_name.hpp>

namespace aopt::protocols {

using file_map = std::map<std::string, std::string>;  // relative path -> content

// One candidate to evaluate (optimize::eval_request plus the operator it belongs to).
struct eval_request_msg {
  std::string package;  // operator/package id ("add_custom"); names the evaluator's base package
  file_map files;       // the complete source set of the candidate
  std::string stage;    // "base", "tiling", "kernel", "verify", "rewind", ...
  std::int32_t round = 0;
  std::string proposal;
  bool has_input_seed = false;  // std::optional is not inspectable in CAF 0.17
  std::uint64_t input_seed = 0;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, eval_request_msg& x) {
  return f(caf::meta::type_name("aopt::protocols::eval_request_msg"), x.package, x.files, x.stage,
           x.round, x.proposal, x.has_input_seed, x.input_seed);
}

// One evaluation result (optimize::eval_report, field for field; JSON objects as strings).
struct eval_report_msg {
  bool ok = false;
  std::string status;
  std::string diagnostic;
  double latency_us = 0;
  bool has_bound = false;
  double bound_us = 0;
  bool suspect = false;
  bool cached = false;
  std::string backend;
  std::string profile_name;
  std::string profile_json = "{}";  // msprof field names of the timed case
  std::string result_json = "{}";   // the full result record
  double seconds = 0;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, eval_report_msg& x) {
  return f(caf::meta::type_name("aopt::protocols::eval_report_msg"), x.ok, x.status, x.diagnostic,
           x.latency_us, x.has_bound, x.bound_us, x.suspect, x.cached, x.backend, x.profile_name,
           x.profile_json, x.result_json, x.seconds);
}

// A progress event of a running job (optimize::progress_event with its trajectory point copied).
struct progress_msg {
  std::string kind;  // "point", "stage", "done"
  std::string message;
  bool has_point = false;
  // The trajectory point (valid when has_point), optimize::trajectory_point field for field.
  std::uint64_t index = 0;
  std::uint64_t evaluations = 0;
  std::uint64_t round = 0;
  std::string stage;
  std::string proposal;
  std::string status;
  bool has_latency = false;
  double latency_us = 0;
  double best_us = 0;
  bool accepted = false;
  bool memo = false;
  bool cached = false;
  bool suspect = false;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, progress_msg& x) {
  return f(caf::meta::type_name("aopt::protocols::progress_msg"), x.kind, x.message, x.has_point,
           x.index, x.evaluations, x.round, x.stage, x.proposal, x.status, x.has_latency,
           x.latency_us, x.best_us, x.accepted, x.memo, x.cached, x.suspect);
}

// An optimize job: the base files and optimize::optimizer_config field for field.
struct optimize_job_msg {
  std::string package;
  file_map base_files;
  std::uint64_t budget = 40;
  std::uint64_t rounds = 3;
  std::uint64_t extra_rounds = 8;
  std::uint64_t stage1_steps = 4;
  std::uint64_t stage2_steps = 3;
  std::uint64_t proposals_per_step = 0;
  std::uint64_t top_k = 4;
  bool stage1 = true;
  bool stage2 = true;
  double min_gain = 0.001;
  bool verify = true;
  std::uint64_t verify_seed = 0x5eed;
  bool unguided_fallback = true;
  bool cotune = true;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, optimize_job_msg& x) {
  return f(caf::meta::type_name("aopt::protocols::optimize_job_msg"), x.package, x.base_files,
           x.budget, x.rounds, x.extra_rounds, x.stage1_steps, x.stage2_steps, x.proposals_per_step, x.top_k,
           x.stage1, x.stage2, x.min_gain, x.verify, x.verify_seed, x.unguided_fallback, x.cotune);
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
