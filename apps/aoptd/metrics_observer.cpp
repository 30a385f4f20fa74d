#include "metrics_observer.h"

#include <algorithm>

namespace aopt::daemon {

metrics_observer::metrics_observer(std::shared_ptr<monitoring::metrics> m, std::function<std::uint64_t()> bank_size)
    : m_(std::move(m)), bank_size_(std::move(bank_size)) {
  // The language model's roles (docs/llm.md): their series exist, at zero, from the start.
  for (std::size_t r = 0; r < llm::role_count; ++r) m_->llm_role(llm::to_string(static_cast<llm::role>(r)));
  if (bank_size_) m_->bank_size(bank_size_());
}

void metrics_observer::on_state(const nlohmann::json& job) {
  const std::string id = job.value("id", std::string());
  const std::string state = job.value("state", std::string());
  std::string previous, op;
  std::size_t queued = 0;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto& v = jobs_[id];
    previous = v.state;
    if (v.op.empty()) v.op = job.value("name", id);
    v.state = state;
    op = v.op;
    for (const auto& [_, j] : jobs_) queued += j.state == "queued";
  }
  m_->job_state(id, op, previous, state);
  m_->queue_depth(queued);
  if (job.contains("speedup") && job["speedup"].is_number()) m_->best_speedup(id, op, job["speedup"].get<double>());
  const bool ended = state == "finished" || state == "failed" || state == "cancelled";
  if (ended && bank_size_) m_->bank_size(bank_size_());
}

void metrics_observer::on_evaluation(const std::string& id, const nlohmann::json& point) {
  std::string op;
  double speedup = 0;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto& v = jobs_[id];
    op = v.op.empty() ? id : v.op;
    const double best = point.value("best_us", 0.0);
    if (v.base_us <= 0 && best > 0) v.base_us = best;
    if (v.base_us > 0 && best > 0) speedup = v.base_us / best;
  }
  m_->budget_spent(id, op, point.value("evaluations", std::uint64_t(0)));
  if (speedup > 0) m_->best_speedup(id, op, speedup);
  if (point.value("accepted", false)) m_->accepted_change(id, op, point.value("stage", std::string()));
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
  double build = 0;
  if (report.result.contains("build") && report.result["build"].is_object()) {
    build = report.result["build"].value("total_seconds", 0.0);
  }
  m_->evaluation({id, op, report.status, stage, device, report.backend.empty() ? "sim" : report.backend, build,
                  std::max(0.0, report.seconds - build), report.cached});
}

void metrics_observer::on_llm_request(const std::string& id, const llm::request_observation& r) {
  (void)id;
  m_->llm_request(llm::to_string(r.role), r.ok ? "ok" : "failed", r.tokens.prompt_tokens, r.tokens.completion_tokens,
                  r.seconds);
}

}  // namespace aopt::daemon
