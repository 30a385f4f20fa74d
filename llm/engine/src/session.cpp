#include "aopt/llm/session.h"

#include <string>
#include <utility>

#include "aopt/common/error.h"
#include "aopt/llm/embeddings.h"
#include "aopt/llm/http_client.h"
#include "aopt/llm/prompts.h"

namespace aopt::llm {

namespace fs = std::filesystem;

session::session(session_options o, const llm_engine_options& eo)
    : config_(std::move(o.config)), replayed_(!o.replay_dir.empty()) {
  if (!o.replay_dir.empty() && !o.record_dir.empty()) {
    throw error(ec::invalid_argument,
                "--llm-replay and --llm-record exclude each other: replay reads a recording, "
                "record writes one");
  }
  if (!o.replay_dir.empty()) {
    if (!fs::is_directory(o.replay_dir)) {
      throw error(ec::not_found,
                  "--llm-replay " + o.replay_dir.string() + ": no recording there; record one first with --llm-record DIR");
    }
    store_.emplace(o.replay_dir, false);
    base_ = std::make_unique<replay_client>(*store_, config_);
  } else {
    base_ = std::make_unique<http_client>(config_);
  }
  top_ = base_.get();
  if (!o.record_dir.empty()) {
    store_.emplace(o.record_dir, true);
    recorder_ = std::make_unique<recording_client>(*base_, *store_, config_, o.resume);
    top_ = recorder_.get();
  }
  if (o.observe) {
    observed_ = std::make_unique<observed_client>(*top_, std::move(o.observe));
    top_ = observed_.get();
  }
  auto prompts = prompt_library::load(o.prompts_dir.empty() ? prompt_library::default_dir() : o.prompts_dir);
  engine_.emplace(*top_, std::move(prompts), eo);
}

std::vector<std::size_t> session::embed_corpus(std::vector<search::experience>& corpus) {
  if (!has_embeddings()) return {};
  auto changed = embed_missing(corpus, *top_);
  if (!changed) {
    throw error(ec::io_error, "embedding the experience bank failed: " + changed.reason() +
                                  " (unset the embeddings model to rank with BM25 only)");
  }
  return changed.value();
}

std::unique_ptr<search::ranker> session::make_ranker() { return make_hybrid_ranker(*top_); }

nlohmann::json session::usage() const {
  nlohmann::json u = engine_->usage();
  u["config"] = to_json(config_);
  u["replayed"] = replayed_;
  return u;
}

}  // namespace aopt::llm
