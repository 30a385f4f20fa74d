// A scripted OpenAI-compatible endpoint on loopback, for tests and demos (library
// aopt_llm_testing; program aopt-llm-stub). It answers POST /v1/chat/completions and
// POST /v1/embeddings from a script and injects the faults a real endpoint produces.
//
// Script: a JSON array of rules (or {"rules": [...]}), tried in order; the first that matches wins:
//   {"model": "m",            optional: only requests for this model
//    "contains": "text",      optional: substring of the last user message (chat) or of any
//                             input text (embeddings)
//    "times": 2,              optional: used this many times, then skipped
//    "reply": "content",      chat answer (a rule with "embedding" serves embeddings instead)
//    "embedding": [..] | "hash",  embeddings answer: a fixed vector for every input, or
//                             hash_embedding() of each input text
//    "usage": {"prompt_tokens": P, "completion_tokens": C},  optional; default ~ chars/4
//    "fault": {"delay_ms": N}                    sleep, then answer normally
//           | {"status": 429, "retry_after": S}  that status (any 4xx/5xx), optional Retry-After
//           | {"malformed": true}                HTTP 200 with a body that is not JSON
//           | {"truncated": true}}               the reply cut in the middle of its code block,
//                                                finish_reason "length"
// No matching rule: HTTP 404 with a JSON error naming the model and the start of the message.
// Unknown keys or wrong types in the script throw aopt::error(invalid_spec) naming the rule.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

namespace aopt::llm {

// Deterministic embedding: lower-cased alphanumeric tokens hashed (FNV-1a) into `dim` buckets,
// L2-normalised. Texts sharing words get similar vectors, so a test can plant a relevant tuple.
std::vector<float> hash_embedding(const std::string& text, std::size_t dim = 64);

struct script_fault {
  int delay_ms = 0;
  int status = 0;                 // 0 = answer normally
  std::optional<int> retry_after;  // seconds
  bool malformed = false;
  bool truncated = false;
};

struct script_rule {
  std::optional<std::string> model;
  std::optional<std::string> contains;
  std::optional<int> times;       // remaining uses; nullopt = unlimited
  std::string reply;
  bool is_embedding = false;
  bool any_kind = false;          // neither reply nor embedding: a fault for both endpoints
  bool hash_embedding = false;
  std::vector<float> embedding;   // fixed vector when !hash_embedding
  std::optional<std::uint64_t> prompt_tokens, completion_tokens;
  script_fault fault;
};

// Throws aopt::error(invalid_spec) "<source>: rule N: ..." on a bad script.
std::vector<script_rule> parse_script(const nlohmann::json& script, const std::string& source);
std::vector<script_rule> load_script(const std::filesystem::path& file);

struct recorded_request {
  std::string path;           // "/v1/chat/completions"
  std::string body;
  std::string authorization;  // the Authorization header as received ("" when absent)
  int status = 0;             // what the server answered
};

class scripted_server {
 public:
  explicit scripted_server(std::vector<script_rule> rules);
  ~scripted_server();  // stops
  scripted_server(const scripted_server&) = delete;
  scripted_server& operator=(const scripted_server&) = delete;

  // Binds 127.0.0.1 (port 0 = a free one) and serves on a background thread. Throws
  // aopt::error(io_error) when the port cannot be bound.
  void start(int port = 0);
  void stop();  // wakes delayed handlers, joins; idempotent
  int port() const { return port_; }
  std::string base_url() const;  // "http://127.0.0.1:<port>"

  std::size_t request_count() const;
  std::vector<recorded_request> requests() const;
  recorded_request last_request() const;  // empty when none
  int max_in_flight() const { return max_in_flight_.load(); }

 private:
  struct impl;
  std::unique_ptr<impl> impl_;
  int port_ = 0;
  std::atomic<int> in_flight_{0};
  std::atomic<int> max_in_flight_{0};
};

}  // namespace aopt::llm
