// One job's language-model side, as `aopt optimize`, `aopt bank rewind` and aoptd build it: the
// client chain (the OpenAI-compatible HTTP client or a recording's replay; recording on top when
// asked; an observer outermost) and the LLM engine over it, plus the bank's embeddings.
#pragma once

#include <filesystem>
#include <memory>
#include <optional>
#include <vector>

#include <nlohmann/json.hpp>

#include "aopt/llm/client.h"
#include "aopt/llm/config.h"
#include "aopt/llm/engine.h"
#include "aopt/llm/replay.h"
#include "aopt/search/retrieve.h"

namespace aopt::llm {

struct session_options {
  llm_config config;                 // validated by the caller (load_llm_config, apply_overrides)
  std::filesystem::path record_dir;  // store every exchange here; "" = no recording
  std::filesystem::path replay_dir;  // answer only from this recording; "" = a live endpoint
  // With record_dir: asks already recorded there are answered from it, only new ones go to the
  // endpoint (a job resumed over its own recording takes the same path; aoptd).
  bool resume = false;
  std::filesystem::path prompts_dir;  // "" = the shipped config/prompts
  request_observer observe;           // optional: told how each request ended
};

class session {
 public:
  // Throws aopt::error for record_dir with replay_dir, a missing recording, a store that cannot
  // be opened, or prompts that cannot be loaded.
  session(session_options o, const llm_engine_options& eo);
  session(const session&) = delete;
  session& operator=(const session&) = delete;

  llm_engine& engine() { return *engine_; }
  llm::client& client() { return *top_; }
  const llm_config& config() const { return config_; }
  bool has_embeddings() const { return !top_->embedding_model().empty(); }

  // Embeds the tuples embedded with another model or none (embed_missing) and returns the
  // indices changed, for the caller to write back to its bank. Nothing to do without an
  // embeddings model. Throws aopt::error(io_error) when the model fails.
  std::vector<std::size_t> embed_corpus(std::vector<search::experience>& corpus);
  // BM25 and dense retrieval over this session's client (has_embeddings() only).
  std::unique_ptr<search::ranker> make_ranker();

  // The engine's accounting with the config (without the key) and whether it was replayed.
  nlohmann::json usage() const;

 private:
  llm_config config_;
  std::optional<replay_store> store_;
  std::unique_ptr<llm::client> base_;
  std::unique_ptr<llm::client> recorder_;
  std::unique_ptr<llm::client> observed_;
  llm::client* top_ = nullptr;
  std::optional<llm_engine> engine_;
  bool replayed_ = false;
};

}  // namespace aopt::llm
