#include "job.h"

namespace aopt::bench::detail {

job::job(const services& svc, const baseline_config& cfg, const progress_fn& progress)
    : sj_(svc, optimize::job_rules{cfg.budget, cfg.min_gain, cfg.verify, cfg.verify_seed}, progress) {
  cfg.validate();
}

std::vector<std::optional<std::size_t>> job::submit(const std::vector<candidate>& batch) {
  std::vector<optimize::eval_request> requests;
  requests.reserve(batch.size());
  for (const auto& c : batch) requests.push_back({c.files, c.stage, static_cast<int>(c.round), c.proposal, std::nullopt, {}, {}});
  const auto answers = sj_.evaluate(requests);
  std::vector<std::optional<std::size_t>> out(batch.size());
  for (std::size_t i = 0; i < batch.size(); ++i) {
    if (!answers[i]) continue;
    out[i] = answers[i]->entry;
    if (!answers[i]->memo) sj_.offer(*answers[i], batch[i].proposal, batch[i].rationale);
  }
  return out;
}

}  // namespace aopt::bench::detail
