// The seam for monitoring: aoptd calls every registered observer after a job's state change is
// persisted and after each evaluation of a running job (a trajectory point). Observers run on
// the daemon's threads and must not block; monitoring/ (Prometheus) will implement one. The
// records are the JSON the API returns (docs/api.md), so an observer sees what a client sees.
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
  // One evaluation (or job-memory answer) of job `id`: the trajectory point's JSON
  // (optimize::to_json(trajectory_point)). Not called for points a resumed job replays.
  virtual void on_evaluation(const std::string& id, const nlohmann::json& point) {
    (void)id;
    (void)point;
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
