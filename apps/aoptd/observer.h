// The seam for monitoring: aoptd calls every registered observer after a job's state change is
// persisted, after each evaluation of a running job (a trajectory point) and each accepted
// change, and at start for the jobs of its store. Observers run on the daemon's threads (some
// under the job manager's lock) and must not block or call back into it; metrics_observer.h
// (Prometheus) implements one. The records are the JSON the API returns (docs/api.md), so an
// observer sees what a client sees.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "aopt/llm/client.h"
#include "aopt/optimize/services.h"

namespace aopt::daemon {

class job_observer {
 public:
  virtual ~job_observer() = default;
  // `job` is the job record after the change (its "state" is the new state).
  virtual void on_state(const nlohmann::json& job) { (void)job; }
  // A job found in the store when aoptd starts, as stored (a job interrupted by the restart is
  // still "running"), before any on_state of it.
  virtual void on_recovered(const nlohmann::json& job) { (void)job; }
  // The jobs in the store by state ({"finished": 3, "queued": 1}: what GET /v1/health says),
  // after the recovery at start and after every change (state, deletion).
  virtual void on_jobs(const nlohmann::json& by_state) { (void)by_state; }
  // Job `id` was deleted through the API.
  virtual void on_removed(const std::string& id) { (void)id; }
  // One evaluation (or job-memory answer) of job `id`: the trajectory point's JSON
  // (optimize::to_json(trajectory_point)). Also called for the points a resumed job replays
  // (the same points as before the restart), so that what is derived from them starts right.
  virtual void on_evaluation(const std::string& id, const nlohmann::json& point) {
    (void)id;
    (void)point;
  }
  // Job `id` accepted a change: the point that produced the new best (its "accepted" true,
  // "best_us" the new best; null when the search had none). `replayed`: a resumed job accepting
  // again what it accepted before the restart.
  virtual void on_accepted(const std::string& id, const nlohmann::json& point, bool replayed) {
    (void)id;
    (void)point;
    (void)replayed;
  }
  // A request of job `id`'s llm engine reached the language model and ended (ok or failed).
  virtual void on_llm_request(const std::string& id, const llm::request_observation& request) {
    (void)id;
    (void)request;
  }
  // An evaluator ("device", e.g. "sim0") started (busy) or ended an evaluation of job `id`.
  virtual void on_device(const std::string& device, bool busy) {
    (void)device;
    (void)busy;
  }
  // A device went down (its evaluator died, stopped answering, or its node was lost).
  virtual void on_device_down(const std::string& device, const std::string& why) {
    (void)device;
    (void)why;
  }
  // Requests waiting for a device of `device_class` ("" = jobs of any class).
  virtual void on_queue(const std::string& device_class, std::size_t requests) {
    (void)device_class;
    (void)requests;
  }
  // A remote evaluator node joined (up) or was lost.
  virtual void on_node(const std::string& node, bool up) {
    (void)node;
    (void)up;
  }
  // What that device reported for one evaluation of job `id` (the stage the search asked for).
  virtual void on_evaluated(const std::string& device, const std::string& id, const std::string& stage,
                            const optimize::eval_report& report) {
    (void)device;
    (void)id;
    (void)stage;
    (void)report;
  }
};

}  // namespace aopt::daemon
