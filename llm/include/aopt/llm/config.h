// The [llm] section of the config file: where the model endpoint is, which model serves each
// role, and how hard to try (timeouts, retries, concurrency, token budget). docs/llm.md lists
// every key with its default; config/aopt.example.toml is the commented example.
//
// The API key itself is never part of this struct: only the *name* of the environment variable
// that holds it. The key is read when a client is constructed and lives only inside it, so
// to_json(), logs, reports, error messages and the replay store cannot leak it.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "aopt/llm/client.h"

namespace aopt::llm {

struct llm_config {
  std::string base_url = "http://127.0.0.1:8000";  // without /v1; "/v1/chat/completions" is appended
  std::string api_key_env = "AOPT_LLM_API_KEY";     // "" = never send a key
  std::string model;                                // default model of every chat role
  std::map<role, std::string> models;               // per-role overrides ([llm.models])
  double temperature = 0.2;
  int max_tokens = 4096;
  int request_timeout_ms = 120'000;  // one HTTP attempt, connect included
  int connect_timeout_ms = 10'000;
  int max_retries = 4;               // extra attempts after the first, on 429/5xx/timeouts/connection errors
  int backoff_initial_ms = 500;      // first retry delay; doubles each retry
  int backoff_max_ms = 30'000;       // cap of every delay, Retry-After included
  double jitter = 0.2;               // each delay is scaled by a uniform factor in [1-jitter, 1+jitter]
  std::uint64_t seed = 1;            // of the jitter rng: a run is reproducible from its config
  int max_concurrency = 4;           // requests in flight at once, over all threads of one client
  std::uint64_t token_budget = 0;    // prompt+completion tokens per job; 0 = unlimited

  // The model a role uses: its override, else `model`. Embeddings have no fallback: an empty
  // embeddings model means "no embeddings" (retrieval stays lexical).
  std::string model_for(role r) const;
  // Throws aopt::error(invalid_spec) naming the first bad field and what to do.
  void validate() const;
};

// Parses the [llm] table (and [llm.models]) of a TOML document; other top-level tables belong
// to other subsystems and are ignored. A missing [llm] table gives the defaults. Unknown keys
// and wrong types inside [llm] throw aopt::error(invalid_spec) "file:line:col: ..." naming the
// key; TOML syntax errors throw aopt::error(parse_error) with the position. Validates.
llm_config parse_llm_config(const std::string& toml_text, const std::filesystem::path& file);
// Overrides single keys from the command line (`--llm-set KEY=VALUE`, repeatable): KEY is a key
// of [llm] or "models.<role>"; VALUE is TOML (0.5, 3, "text") or else taken as a string. Each
// is checked like the file's keys (unknown key, wrong type: aopt::error naming the override).
// Validates the result.
llm_config apply_overrides(llm_config c, const std::vector<std::string>& key_values);
// Reads the file first: aopt::error(io_error/not_found) naming it when it cannot be read.
llm_config load_llm_config(const std::filesystem::path& file);

// Every field (models by role name); never contains the API key, only api_key_env.
nlohmann::json to_json(const llm_config& c);

}  // namespace aopt::llm
