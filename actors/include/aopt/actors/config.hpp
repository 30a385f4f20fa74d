// Settings shared by the actors. CAF-free: included by the command line.
#pragma once

#include <chrono>
#include <functional>
#include <memory>

#include "aopt/optimize/services.h"

namespace aopt::actors {

// Every request between actors has a finite timeout (a remote or stuck actor must never hang a
// job). An evaluation that outlives `evaluation` becomes a report with status "timeout"; the slot
// is used again once its evaluator answers a ping (within another `evaluation`), else it is lost.
struct actor_timeouts {
  std::chrono::milliseconds evaluation{std::chrono::minutes(30)};  // one candidate. Default: 30 min
  std::chrono::milliseconds engine{
      std::chrono::minutes(30)};  // one engine or bank call. Default: 30 min
  std::chrono::milliseconds job{
      std::chrono::hours(72)};  // one optimize or rewind job. Default: 72 h
  void validate() const;        // throws aopt::error(invalid_argument) naming the field
};

// How an actor that may block is spawned. `detached` (its own thread) in production; tests on
// CAF's deterministic test coordinator spawn everything cooperatively.
enum class spawn_mode { detached, cooperative };

// Wraps a job's runner (e.g. jobs::journaled_runner: every evaluation journaled, stop checks);
// may be empty.
using runner_decorator = std::function<std::unique_ptr<optimize::runner>(optimize::runner& inner)>;

}  // namespace aopt::actors
