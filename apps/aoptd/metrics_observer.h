// The daemon's Prometheus metrics (monitoring/): a job_observer that turns job state changes,
// trajectory points, accepted changes and device reports into monitoring::metrics events. The
// jobs by state are the store's counts; the jobs that ended before a restart get their series
// back for the rest of the retention.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "aopt/monitoring/metrics.h"
#include "observer.h"

namespace aopt::daemon {

class metrics_observer : public job_observer {
 public:
  // `bank_size` counts the experience bank's tuples (asked at start and whenever a job ends).
  metrics_observer(std::shared_ptr<monitoring::metrics> m, std::function<std::uint64_t()> bank_size);
  void on_state(const nlohmann::json& job) override;
  void on_recovered(const nlohmann::json& job) override;
  void on_jobs(const nlohmann::json& by_state) override;
  void on_removed(const std::string& id) override;
  void on_evaluation(const std::string& id, const nlohmann::json& point) override;
  void on_accepted(const std::string& id, const nlohmann::json& point, bool replayed) override;
  void on_device(const std::string& device, bool busy) override;
  void on_device_down(const std::string& device, const std::string& why) override;
  void on_node(const std::string& node, bool up) override;
  void on_queue(const std::string& device_class, std::size_t requests) override;
  void on_evaluated(const std::string& device, const std::string& id, const std::string& stage,
                    const optimize::eval_report& report) override;
  void on_llm_request(const std::string& id, const llm::request_observation& request) override;

 private:
  struct job_view {
    std::string op, state;
    double base_us = 0;  // the first measured latency (the baseline)
  };
  std::string op_of(const std::string& id);  // the job's operator (its name), or its id
  // The job's speedup at `point` (0 before its base is known); returns its operator.
  std::string best_speedup(const std::string& id, const nlohmann::json& point, double& speedup);
  std::shared_ptr<monitoring::metrics> m_;
  std::function<std::uint64_t()> bank_size_;
  std::mutex mu_;
  std::map<std::string, job_view> jobs_;
};

}  // namespace aopt::daemon
