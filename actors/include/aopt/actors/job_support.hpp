// Helpers of the job entry points (job.cpp, runtime.cpp): blocking round trips from a
// scoped_actor. Internal to actors/ (includes CAF).
#pragma once

#include <chrono>
#include <exception>
#include <optional>
#include <string>
#include <utility>

#include <caf/all.hpp>

#include "aopt/actors/spawn.hpp"
#include "aopt/common/error.h"
#include "aopt/optimize/optimizer.h"
#include "aopt/protocols/actors.hpp"
#include "aopt/protocols/message_types.hpp"

namespace aopt::actors {

inline caf::actor_system_config& with_message_types(caf::actor_system_config& cfg) {
  protocols::add_message_types(cfg);
  return cfg;
}

// Waits until `h` handled everything sent to it before (its ping answer comes after them).
template <class Handle>
void flush(caf::scoped_actor& self, const Handle& h, std::chrono::milliseconds timeout) {
  if (!h) return;
  self->request(h, timeout, protocols::ping_atom::value)
      .receive([](protocols::ping_atom) {}, [](caf::error&) {});
}

// Asks `dest` for a local reply and keeps its value, or the exception it carries, or a
// system-fault error when no answer came (the caller rethrows after the actors are stopped).
template <class T, class Handle, class... Ts>
void ask_local(caf::scoped_actor& self, const Handle& dest, std::chrono::milliseconds timeout,
               const char* what, std::optional<T>& result, std::exception_ptr& failure,
               Ts&&... xs) {
  self->request(dest, timeout, std::forward<Ts>(xs)...)
      .receive(
          [&](protocols::local<T>& r) {
            try {
              result = r.get();
            } catch (...) {
              failure = std::current_exception();
            }
          },
          [&](caf::error& e) {
            failure = std::make_exception_ptr(aopt::error(
                ec::internal, std::string(what) + " did not answer: " + self->system().render(e) +
                                  " (the job outlived actor_timeouts.job, or an actor failed)"));
          });
}

// Runs the search of job `id` of `jobs` (run_optimizer over actor_services on `actors`, with the
// job's runner decorator and progress listener) on the calling thread, which it blocks for the
// search's length: a Scheduler's driver, or runtime::run_optimize's caller (the daemon's job
// worker). Throws what run_optimizer throws.
optimize::optimize_result run_search_here(caf::actor_system& sys, const service_actors& actors, const search_table& jobs,
                                          protocols::search_id id, const std::string& package,
                                          const optimize::file_map& base_files, const optimize::optimizer_config& config);

template <class... Handles>
void stop_all(caf::scoped_actor& self, const Handles&... hs) {
  auto stop = [&](const auto& h) {
    if (h) self->send_exit(h, caf::exit_reason::user_shutdown);
  };
  (stop(hs), ...);
}

}  // namespace aopt::actors
