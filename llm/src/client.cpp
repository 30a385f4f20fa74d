#include "aopt/llm/client.h"

#include <array>

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

}  // namespace aopt::llm
