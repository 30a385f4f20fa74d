// The daemon's jobs as one supervisor actor (VAST's state/behavior/spawn; protocols/actors.hpp:
// job_supervisor_actor), in place of a dispatcher thread and a thread per running job. The
// supervisor keeps the queue and starts at most `workers` jobs at once, each on one of `workers`
// job workers spawned with it: the process's threads do not grow with its jobs. A job's whole
// life (set up, the search on the runtime, the result) is the caller's `run`, on a worker's
// thread. CAF-free header.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

namespace aopt::actors {

class runtime;

// A queued job's place: resumed ones first, then the higher priority, then the earlier order.
struct job_rank {
  bool resume = false;
  std::int32_t priority = 0;
  std::int64_t order = 0;  // submission order, smaller first
};

struct supervisor_config {
  std::size_t workers = 1;  // jobs that run at once ([jobs] max_running)
  // A job's whole life, on a worker's thread. Called once per enqueue; it decides itself whether
  // the job is still to run (it may have been cancelled while queued). An exception it throws
  // is logged and the worker goes on.
  std::function<void(const std::string& id)> run;
  // Throws aopt::error(invalid_argument) for no worker or no `run`.
  void validate() const;
};

class job_supervisor {
 public:
  // Spawns the supervisor and its workers in `rt`'s actor system; `rt` must outlive it.
  job_supervisor(runtime& rt, supervisor_config cfg);
  // Stops the supervisor and its workers; a job running on one ends first.
  ~job_supervisor();
  job_supervisor(const job_supervisor&) = delete;
  job_supervisor& operator=(const job_supervisor&) = delete;

  // Queues job `id` (a message: returns at once).
  void enqueue(const std::string& id, job_rank rank);
  // Starts no more job and waits up to `grace` for the running ones to end. False when some
  // still run.
  bool drain(std::chrono::milliseconds grace);

 private:
  struct impl;
  std::unique_ptr<impl> impl_;
};

}  // namespace aopt::actors
