// The language-model client seam: what the LLM engine (llm/engine) asks of a model endpoint.
// Implementations: `http_client` (OpenAI-compatible, libcurl, retries, concurrency limit,
// token budget), `recording_client` (stores every exchange for replay) and `replay_client`
// (answers only from recorded exchanges). Failures are results (search::outcome), never
// exceptions: a timeout, a 429 after the last retry, malformed JSON or an exhausted token
// budget come back as an engine_failure whose reason names what happened.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "aopt/search/engine.h"  // search::outcome, search::engine_failure

namespace aopt::llm {

// The paper's roles, each with its own model (a strong one for template synthesis and rewind,
// a cheaper one for the online loops) and its own prompt template (config/prompts/<role>.md).
enum class role : std::uint8_t {
  template_synthesis,
  tiling_mutation,
  rewind,
  distillation,
  diagnosis,
  refinement,
  embeddings,
};
inline constexpr std::size_t role_count = 7;
const char* to_string(role r);                          // "template_synthesis", ...
std::optional<role> parse_role(std::string_view name);  // the same spellings

struct message {
  std::string role;     // "system", "user", "assistant"
  std::string content;
};

struct chat_request {
  llm::role role = llm::role::refinement;
  std::vector<message> messages;
  std::optional<double> temperature;  // unset: the configured value
  std::optional<int> max_tokens;      // unset: the configured value
};

struct token_usage {
  std::uint64_t prompt_tokens = 0;
  std::uint64_t completion_tokens = 0;
};

struct chat_response {
  std::string content;        // choices[0].message.content
  std::string model;          // the model that answered
  std::string finish_reason;  // "stop", "length", ...
  token_usage tokens;
  double seconds = 0;         // wall time including retries
  int attempts = 1;           // HTTP attempts made (1 = no retry)
  bool replayed = false;      // answered from a recording
};

// Accounting per role (and per job: a client instance lives as long as one job).
struct role_usage {
  std::uint64_t requests = 0;   // chat/embedding calls made
  std::uint64_t failures = 0;   // calls that ended in a failure
  std::uint64_t retries = 0;    // extra HTTP attempts
  std::uint64_t prompt_tokens = 0;
  std::uint64_t completion_tokens = 0;
  double seconds = 0;
};
using usage_by_role = std::map<std::string, role_usage>;  // key: to_string(role)
nlohmann::json to_json(const usage_by_role& u);

class client {
 public:
  virtual ~client() = default;
  virtual search::outcome<chat_response> chat(const chat_request& request) = 0;
  // One vector per text, same order. Failure when no embeddings model is configured.
  virtual search::outcome<std::vector<std::vector<float>>> embed(const std::vector<std::string>& texts) = 0;
  // The model used for embeddings ("" when none is configured): stored with each vector.
  virtual std::string embedding_model() const = 0;
  // The model configured for a role (for reports and replay keys).
  virtual std::string model_for(role r) const = 0;
  virtual usage_by_role usage() const = 0;
};

// One finished request as an observer sees it (aoptd's Prometheus metrics).
struct request_observation {
  llm::role role = llm::role::refinement;
  bool ok = false;
  token_usage tokens;
  double seconds = 0;     // wall time, retries included
  bool replayed = false;  // answered from a recording, no server contacted
};
using request_observer = std::function<void(const request_observation&)>;

// A client that wraps another (recording, observing): the model names and the accounting are
// the inner client's; a decorator overrides chat and embed.
class forwarding_client : public client {
 public:
  explicit forwarding_client(client& inner) : inner_(inner) {}
  std::string embedding_model() const override { return inner_.embedding_model(); }
  std::string model_for(role r) const override { return inner_.model_for(r); }
  usage_by_role usage() const override { return inner_.usage(); }

 protected:
  client& inner_;
};

// Forwards every call to `inner` and tells `observe` how each one ended. `observe` runs on the
// calling thread and must not block.
class observed_client final : public forwarding_client {
 public:
  observed_client(client& inner, request_observer observe);
  search::outcome<chat_response> chat(const chat_request& request) override;
  search::outcome<std::vector<std::vector<float>>> embed(const std::vector<std::string>& texts) override;

 private:
  request_observer observe_;
};

}  // namespace aopt::llm
