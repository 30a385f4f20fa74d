#include "metrics_observer.h"

#include <algorithm>
#include <chrono>

namespace aopt::daemon {

metrics_observer::metrics_observer(std::shared_ptr<monitoring::metrics> m, std::function<std::uint64_t()> bank_size)
    : m_(std::move(m)), bank_size_(std::move(bank_size)) {
  // The language model's roles (docs/llm.md): their series exist, at zero, from the start.
  for (std::size_t r = 0; r < llm::role_count; ++r) m_->llm_role(llm::to_string(static_cast<llm::role>(r)));
  if (bank_size_) m_->bank_size(bank_size_());
}

namespace {

bool ended(const std::string& state) { return state == "finished" || state == "failed" || state == "cancelled"; }

}  // namespace

void metrics_observer::on_state(const nlohmann::json& job) {
  const std::string id = job.value("id", std::string());
  const std::string state = job.value("state", std::string());
  std::string previous, op;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto& v = jobs_[id];
    previous = v.state;
    if (v.op.empty()) v.op = job.value("name", id);
    v.state = state;
    op = v.op;
  }
  m_->job_state(id, op, previous, state);
  if (job.contains("speedup") && job["speedup"].is_number()) m_->best_speedup(id, op, job["speedup"].get<double>());
  if (ended(state) && bank_size_) m_->bank_size(bank_size_());
}

void metrics_observer::on_recovered(const nlohmann::json& job) {
  const std::string id = job.value("id", std::string());
  const std::string state = job.value("state", std::string());
  const std::string op = job.value("name", id);
  {
    std::lock_guard<std::mutex> lock(mu_);
    jobs_[id] = {op, state, 0};
  }
  if (!ended(state)) return;
  // When it ended: the record's time of its final state (milliseconds since the epoch).
  const auto ms = job.value(state + "_ms", std::int64_t{0});
  monitoring::ended_job r{id, op, state, std::chrono::system_clock::time_point(std::chrono::milliseconds(ms)), std::nullopt,
                          job.value("evaluations", std::uint64_t{0}), job.value("accepted_changes", std::uint64_t{0})};
  if (job.contains("speedup") && job["speedup"].is_number()) r.speedup = job["speedup"].get<double>();
  m_->restore_job(r);
}

void metrics_observer::on_jobs(const nlohmann::json& by_state) {
  std::map<std::string, std::size_t> counts;
  for (const auto& [state, n] : by_state.items()) counts[state] = n.get<std::size_t>();
  m_->job_counts(counts);
  m_->queue_depth(counts["queued"]);
}

void metrics_observer::on_removed(const std::string& id) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    jobs_.erase(id);
  }
  m_->job_removed(id);
}

std::string metrics_observer::op_of(const std::string& id) {
  std::lock_guard<std::mutex> lock(mu_);
  const auto it = jobs_.find(id);
  return it == jobs_.end() || it->second.op.empty() ? id : it->second.op;
}

std::string metrics_observer::best_speedup(const std::string& id, const nlohmann::json& point, double& speedup) {
  std::lock_guard<std::mutex> lock(mu_);
  auto& v = jobs_[id];
  const double best = point.value("best_us", 0.0);
  if (v.base_us <= 0 && best > 0) v.base_us = best;  // the first point is the base's
  speedup = v.base_us > 0 && best > 0 ? v.base_us / best : 0;
  return v.op.empty() ? id : v.op;
}

void metrics_observer::on_evaluation(const std::string& id, const nlohmann::json& point) {
  double speedup = 0;
  const std::string op = best_speedup(id, point, speedup);
  m_->budget_spent(id, op, point.value("evaluations", std::uint64_t(0)));
  if (speedup > 0) m_->best_speedup(id, op, speedup);
}

void metrics_observer::on_accepted(const std::string& id, const nlohmann::json& point, bool replayed) {
  double speedup = 0;
  const std::string op = point.is_object() ? best_speedup(id, point, speedup) : op_of(id);
  m_->accepted_change(id, op, point.is_object() ? point.value("stage", std::string()) : std::string(), replayed);
  if (speedup > 0) m_->best_speedup(id, op, speedup);  // the new best: the job's speedup now
}

void metrics_observer::on_device(const std::string& device, bool busy) {
  m_->device_up(device, true);
  m_->device_busy(device, busy);
}

void metrics_observer::on_device_down(const std::string& device, const std::string& why) {
  (void)why;
  m_->device_busy(device, false);
  m_->device_up(device, false);
}

void metrics_observer::on_node(const std::string& node, bool up) { m_->node_up(node, up); }

void metrics_observer::on_queue(const std::string& device_class, std::size_t requests) {
  m_->class_queue(device_class.empty() ? "any" : device_class, requests);
}

void metrics_observer::on_evaluated(const std::string& device, const std::string& id, const std::string& stage,
                                    const optimize::eval_report& report) {
  std::string op;
  {
    std::lock_guard<std::mutex> lock(mu_);
    const auto it = jobs_.find(id);
    op = it == jobs_.end() ? id : it->second.op;
  }
  const double build = report.build_seconds;
  m_->evaluation({id, op, to_string(report.status), stage, device, report.backend.empty() ? "sim" : report.backend, build,
                  std::max(0.0, report.seconds - build), report.cached});
}

void metrics_observer::on_llm_request(const std::string& id, const llm::request_observation& r) {
  (void)id;
  m_->llm_request(llm::to_string(r.role), r.ok ? "ok" : "failed", r.tokens.prompt_tokens, r.tokens.completion_tokens,
                  r.seconds);
}

}  // namespace aopt::daemon
