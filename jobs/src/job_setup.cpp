#include "aopt/jobs/job_setup.h"

#include "aopt/jobs/llm_options.h"
#include "aopt/storage/experience_bank.h"

namespace aopt::jobs {

job_engine::job_engine(const engine_options& o, std::vector<vocab::experience>& corpus) {
  if (!o.llm) {
    offline_.emplace(o.offline);
    return;
  }
  lm_.emplace(o.session, llm_engine_options_for(o.offline, o.op, o.profile));
  if (lm_->has_embeddings()) embedded_ = lm_->embed_corpus(corpus);
}

search::engine& job_engine::engine() {
  if (lm_) return lm_->engine();
  return *offline_;
}

std::function<std::unique_ptr<search::ranker>()> job_engine::ranker_factory() {
  if (!lm_ || !lm_->has_embeddings()) return {};
  return [this] { return lm_->make_ranker(); };
}

nlohmann::json job_engine::usage() const { return lm_ ? lm_->usage() : nlohmann::json(); }

std::function<void(const vocab::experience&)> bank_sink(std::filesystem::path dir, std::mutex* mu) {
  return [dir = std::move(dir), mu](const vocab::experience& e) {
    std::unique_lock<std::mutex> lock;
    if (mu != nullptr) lock = std::unique_lock<std::mutex>(*mu);
    storage::experience_bank(dir).put(e);
  };
}

}  // namespace aopt::jobs
