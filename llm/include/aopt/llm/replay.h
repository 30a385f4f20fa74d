// Record and replay of model exchanges, so a job can be re-run offline with identical answers
// (`--llm-replay`) and tests can run from recorded sessions.
//
// Store layout (one RocksDB directory, default column family, key prefixes):
//   "req/<hash>"          the canonical JSON of the request as sent (for inspection; no API key)
//   "res/<hash>/<n:06>"   the n-th recorded answer to that request (JSON: content, model, usage...)
//   "meta/schema_version"
// <hash> is the SHA-256 of the canonical request body (chat_request_body / embeddings_request_body
// of http_client.h, dumped with sorted keys): model, messages, temperature, max_tokens for chat;
// model and inputs for embeddings (the endpoint is implied by the body's shape). The API key is
// never part of a request body, so it can never reach the store.
//
// Occurrences: a job may ask the same prompt twice and get two different answers. Each
// recording/replay client counts how often it has seen each request hash; the n-th ask is
// stored in, and replayed from, slot n. Recording the same job again overwrites the same slots
// (one entry per ask, never duplicates). When a replayed job asks more often than was recorded,
// the last recorded answer is returned again.
#pragma once

#include <cstddef>
#include <filesystem>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "aopt/llm/client.h"
#include "aopt/llm/config.h"

namespace rocksdb {
class DB;
}

namespace aopt::llm {

inline constexpr int replay_schema_version = 1;

// SHA-256 hex of the canonical dump of a request body.
std::string request_hash(const nlohmann::json& body);

class replay_store {
 public:
  // Opens (creating when asked) the store directory. Throws aopt::error(io_error/not_found)
  // with the directory and what to do (in use by another process, missing, corrupt).
  explicit replay_store(const std::filesystem::path& dir, bool create_if_missing = true);
  ~replay_store();
  replay_store(const replay_store&) = delete;
  replay_store& operator=(const replay_store&) = delete;

  // Stores `answer` as occurrence `n` of the request `body` (overwrites that slot).
  void put(const nlohmann::json& body, std::size_t n, const nlohmann::json& answer);
  // Occurrence n, or the last one when fewer were recorded; nullopt when none was.
  std::optional<nlohmann::json> get(const std::string& hash, std::size_t n) const;
  std::size_t occurrences(const std::string& hash) const;
  std::optional<nlohmann::json> request(const std::string& hash) const;  // the stored body
  std::size_t size() const;  // distinct requests recorded

  const std::filesystem::path& dir() const { return dir_; }
  void close();  // also done by the destructor

 private:
  void check(const void* status, const std::string& action) const;
  std::filesystem::path dir_;
  rocksdb::DB* db_ = nullptr;
};

// Per-client occurrence counting (see above). Thread-safe.
class occurrence_counter {
 public:
  std::size_t next(const std::string& hash);  // 0 on the first ask
 private:
  std::mutex mutex_;
  std::map<std::string, std::size_t> seen_;
};

// Forwards every call to `inner` and stores each answer (content, model, finish_reason, usage,
// or the vectors). A failed call is stored as its reason, so a replayed job meets the same
// failures at the same asks and takes the same path. `config` resolves the defaults (temperature, max_tokens) the way the
// HTTP client does, so keys match the bodies actually sent.
//
// `resume`: an ask whose occurrence is already in the store is answered from it (replayed, as
// replay_client would) and only new asks go to `inner`. A job interrupted and started again
// over its own recording (aoptd after a crash) thus meets the answers it met before, takes the
// same path, and pays for no request twice.
class recording_client final : public forwarding_client {
 public:
  recording_client(client& inner, replay_store& store, llm_config config, bool resume = false);
  search::outcome<chat_response> chat(const chat_request& request) override;
  search::outcome<std::vector<std::vector<float>>> embed(const std::vector<std::string>& texts) override;

 private:
  replay_store& store_;
  llm_config config_;
  bool resume_ = false;
  occurrence_counter counter_;
};

// Answers only from the store (replayed = true); never contacts a server. A request that was
// not recorded is a failure "no recorded response for <role> request <hash prefix>; ...".
// Usage is accounted from the recorded token counts, so reports look like the recorded run's.
class replay_client final : public client {
 public:
  replay_client(replay_store& store, llm_config config);
  search::outcome<chat_response> chat(const chat_request& request) override;
  search::outcome<std::vector<std::vector<float>>> embed(const std::vector<std::string>& texts) override;
  std::string embedding_model() const override { return config_.model_for(role::embeddings); }
  std::string model_for(role r) const override { return config_.model_for(r); }
  usage_by_role usage() const override;

 private:
  void account(role r, bool failed, const token_usage& t);
  replay_store& store_;
  llm_config config_;
  occurrence_counter counter_;
  mutable std::mutex mutex_;
  usage_by_role usage_;
};

}  // namespace aopt::llm
