// llm::client over an OpenAI-compatible HTTP endpoint (libcurl): DeepSeek, OpenAI-compatible
// gateways, vLLM, llama.cpp's server, or the scripted endpoint of the tests.
//
// Robustness, all configured in llm_config:
//  - retries with exponential backoff and seeded jitter on HTTP 429, 5xx, timeouts and
//    connection errors; Retry-After (seconds) on 429/503 is honoured, capped at backoff_max_ms;
//    other 4xx and malformed answers are not retried (asking again would not help);
//  - at most max_concurrency requests in flight (threads may call chat()/embed() at once);
//  - a per-job token budget: once spent, calls fail without contacting the server.
// Every failure is an engine_failure with a one-line reason that never contains the API key.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <random>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "aopt/llm/client.h"
#include "aopt/llm/config.h"

namespace aopt::llm {

// The JSON bodies exactly as sent; the replay store hashes these, so a recording matches
// only the same request (same model, messages, temperature, max_tokens / inputs).
nlohmann::json chat_request_body(const chat_request& request, const llm_config& config);
nlohmann::json embeddings_request_body(const std::vector<std::string>& texts, const std::string& model);

// Parsing of the endpoint's answers (public for tests and the replay client). Throw
// std::runtime_error("malformed response: ...") when a required field is missing.
chat_response parse_chat_response(const std::string& body);
std::vector<std::vector<float>> parse_embeddings_response(const std::string& body, std::size_t expected,
                                                         token_usage& tokens);

class http_client final : public client {
 public:
  // Reads the API key from the environment variable config.api_key_env (if set and non-empty).
  // Throws aopt::error(invalid_spec) when the config does not validate.
  explicit http_client(llm_config config);
  ~http_client() override;
  http_client(const http_client&) = delete;
  http_client& operator=(const http_client&) = delete;

  outcome<chat_response> chat(const chat_request& request) override;
  outcome<std::vector<std::vector<float>>> embed(const std::vector<std::string>& texts) override;
  std::string embedding_model() const override;
  std::string model_for(role r) const override;
  usage_by_role usage() const override;

  const llm_config& config() const { return config_; }
  bool has_api_key() const { return !api_key_.empty(); }
  std::uint64_t tokens_used() const;

 private:
  struct attempt_result;   // one HTTP exchange
  struct call_result;      // all attempts of one call
  call_result post(const std::string& path, const std::string& body);
  attempt_result post_once(const std::string& url, const std::string& body);
  int backoff_ms(int retry);            // delay before retry number `retry` (1-based)
  std::string redact(std::string s) const;  // removes the key, keeps one line
  void acquire_slot();
  void release_slot();
  bool budget_spent() const;
  void account(role r, bool failed, int attempts, const token_usage& t, double seconds);

  llm_config config_;
  std::string api_key_;  // never logged, never copied into reasons (see redact)

  mutable std::mutex mutex_;     // usage_, tokens_used_, rng_
  std::condition_variable slot_free_;
  int in_flight_ = 0;
  usage_by_role usage_;
  std::uint64_t tokens_used_ = 0;
  std::mt19937_64 rng_;
};

}  // namespace aopt::llm
