#include "aopt/llm/client.h"

#include <array>
#include <chrono>
#include <utility>

namespace aopt::llm {

namespace {
// Index = enum value; the spellings are the config keys ([llm.models]) and report keys.
constexpr std::array<const char*, role_count> k_role_names = {
    "template_synthesis", "tiling_mutation", "rewind", "distillation",
    "diagnosis",          "refinement",      "embeddings",
};
}  // namespace

const char* to_string(role r) {
  const auto i = static_cast<std::size_t>(r);
  return i < k_role_names.size() ? k_role_names[i] : "unknown";
}

std::optional<role> parse_role(std::string_view name) {
  for (std::size_t i = 0; i < k_role_names.size(); ++i) {
    if (name == k_role_names[i]) return static_cast<role>(i);
  }
  return std::nullopt;
}

nlohmann::json to_json(const usage_by_role& u) {
  nlohmann::json out = nlohmann::json::object();
  role_usage total;
  for (const auto& [name, r] : u) {
    out[name] = {{"requests", r.requests},
                 {"failures", r.failures},
                 {"retries", r.retries},
                 {"prompt_tokens", r.prompt_tokens},
                 {"completion_tokens", r.completion_tokens},
                 {"seconds", r.seconds}};
    total.requests += r.requests;
    total.failures += r.failures;
    total.retries += r.retries;
    total.prompt_tokens += r.prompt_tokens;
    total.completion_tokens += r.completion_tokens;
    total.seconds += r.seconds;
  }
  // A total row saves every report writer from summing (and "total" is not a role name).
  out["total"] = {{"requests", total.requests},
                  {"failures", total.failures},
                  {"retries", total.retries},
                  {"prompt_tokens", total.prompt_tokens},
                  {"completion_tokens", total.completion_tokens},
                  {"seconds", total.seconds}};
  return out;
}

observed_client::observed_client(client& inner, request_observer observe)
    : forwarding_client(inner), observe_(std::move(observe)) {}

namespace {
double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}
}  // namespace

search::outcome<chat_response> observed_client::chat(const chat_request& request) {
  const auto t0 = std::chrono::steady_clock::now();
  auto result = inner_.chat(request);
  request_observation o{request.role, result.ok(), {}, seconds_since(t0), false};
  if (result.ok()) {
    o.tokens = result.value().tokens;
    o.replayed = result.value().replayed;
  }
  if (observe_) observe_(o);
  return result;
}

search::outcome<std::vector<std::vector<float>>> observed_client::embed(const std::vector<std::string>& texts) {
  const auto t0 = std::chrono::steady_clock::now();
  auto result = inner_.embed(texts);
  if (observe_) observe_({role::embeddings, result.ok(), {}, seconds_since(t0), false});
  return result;
}

}  // namespace aopt::llm
