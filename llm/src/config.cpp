#include "aopt/llm/config.h"

#include <cctype>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string_view>

#include <toml++/toml.h>

#include "aopt/config/toml_reader.h"

#include "aopt/common/error.h"
#include "aopt/common/fs.h"

namespace aopt::llm {

namespace fs = std::filesystem;

std::string llm_config::model_for(role r) const {
  const auto it = models.find(r);
  if (it != models.end() && !it->second.empty()) return it->second;
  // Embeddings never fall back to the chat model: a chat model cannot embed, and an empty
  // embeddings model is how the user says "lexical retrieval only".
  return r == role::embeddings ? std::string() : model;
}

namespace {

[[noreturn]] void invalid(const std::string& msg) { throw aopt::error(ec::invalid_spec, msg); }

bool valid_env_name(const std::string& s) {
  if (s.empty()) return true;
  if (!(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
  for (char c : s) {
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) return false;
  }
  return true;
}

}  // namespace

void llm_config::validate() const {
  const std::string where = "[llm] ";
  if (base_url.rfind("http://", 0) != 0 && base_url.rfind("https://", 0) != 0)
    invalid(where + "base_url '" + base_url +
            "' must start with http:// or https:// (e.g. https://api.deepseek.com or "
            "http://127.0.0.1:8000 for a local vLLM/llama.cpp server)");
  // Never echo the value: a user who put the key itself here must not see it in a log.
  if (!valid_env_name(api_key_env))
    invalid(where + "api_key_env must be the NAME of an environment variable holding the key "
                    "(letters, digits, '_'), not the key itself; e.g. api_key_env = \"DEEPSEEK_API_KEY\"");
  if (!(temperature >= 0.0 && temperature <= 2.0))
    invalid(where + "temperature " + std::to_string(temperature) + " is outside [0, 2]");
  if (max_tokens <= 0) invalid(where + "max_tokens must be positive, got " + std::to_string(max_tokens));
  if (request_timeout_ms <= 0)
    invalid(where + "request_timeout_ms must be positive, got " + std::to_string(request_timeout_ms));
  if (connect_timeout_ms <= 0)
    invalid(where + "connect_timeout_ms must be positive, got " + std::to_string(connect_timeout_ms));
  if (max_retries < 0 || max_retries > 100)
    invalid(where + "max_retries must be in [0, 100], got " + std::to_string(max_retries));
  if (backoff_initial_ms < 0)
    invalid(where + "backoff_initial_ms must be >= 0, got " + std::to_string(backoff_initial_ms));
  if (backoff_max_ms < backoff_initial_ms)
    invalid(where + "backoff_max_ms (" + std::to_string(backoff_max_ms) +
            ") must be >= backoff_initial_ms (" + std::to_string(backoff_initial_ms) + ")");
  if (!(jitter >= 0.0 && jitter <= 1.0))
    invalid(where + "jitter " + std::to_string(jitter) + " is outside [0, 1] (a fraction of each delay)");
  if (max_concurrency < 1)
    invalid(where + "max_concurrency must be >= 1, got " + std::to_string(max_concurrency));
}

namespace {

using config::position;
using config::type_name;
using reader = config::toml_reader;

constexpr const char* k_known_keys =
    "base_url, api_key_env, model, temperature, max_tokens, request_timeout_ms, connect_timeout_ms, "
    "max_retries, backoff_initial_ms, backoff_max_ms, jitter, seed, max_concurrency, token_budget, "
    "[llm.models]";

void read_models(const toml::table& t, const reader& r, llm_config& c) {
  for (auto&& [k, v] : t) {
    const std::string key(k.str());
    const auto role_id = parse_role(key);
    if (!role_id)
      invalid(position(r.file, k.source()) + ": [llm.models] unknown role '" + key +
              "'; roles are template_synthesis, tiling_mutation, rewind, distillation, diagnosis, "
              "refinement, embeddings");
    c.models[*role_id] = r.str(v, "models." + key);
  }
}

void read_llm_table(const toml::table& table, const reader& r, llm_config& c) {
  const fs::path& file = r.file;
  for (auto&& [k, v] : table) {
    const std::string key(k.str());
    if (key == "base_url") c.base_url = r.str(v, key);
    else if (key == "api_key_env") c.api_key_env = r.str(v, key);
    else if (key == "model") c.model = r.str(v, key);
    else if (key == "temperature") c.temperature = r.number(v, key);
    else if (key == "max_tokens") c.max_tokens = r.int32(v, key, 1);
    else if (key == "request_timeout_ms") c.request_timeout_ms = r.int32(v, key, 1);
    else if (key == "connect_timeout_ms") c.connect_timeout_ms = r.int32(v, key, 1);
    else if (key == "max_retries") c.max_retries = r.int32(v, key, 0);
    else if (key == "backoff_initial_ms") c.backoff_initial_ms = r.int32(v, key, 0);
    else if (key == "backoff_max_ms") c.backoff_max_ms = r.int32(v, key, 0);
    else if (key == "jitter") c.jitter = r.number(v, key);
    else if (key == "seed") c.seed = static_cast<std::uint64_t>(r.integer(v, key, 0, std::numeric_limits<std::int64_t>::max()));
    else if (key == "max_concurrency") c.max_concurrency = r.int32(v, key, 1);
    else if (key == "token_budget") c.token_budget = static_cast<std::uint64_t>(r.integer(v, key, 0, std::numeric_limits<std::int64_t>::max()));
    else if (key == "models") {
      if (!v.is_table()) r.fail(v, key, std::string("expected a table ([llm.models]), got ") + type_name(v));
      read_models(*v.as_table(), r, c);
    } else {
      invalid(position(file, k.source()) + ": unknown key '" + key + "' in [llm]; known keys: " +
              k_known_keys + "; remove it or fix its spelling");
    }
  }
}

}  // namespace

llm_config parse_llm_config(const std::string& toml_text, const fs::path& file) {
  toml::table root;
  try {
    root = toml::parse(toml_text, file.string());
  } catch (const toml::parse_error& e) {
    throw aopt::error(ec::parse_error, position(file, e.source()) + ": " + std::string(e.description()) +
                                           " (TOML syntax; see config/aopt.example.toml)");
  }
  llm_config c;
  const toml::node* section = root.get("llm");
  if (section == nullptr) return c;
  if (!section->is_table())
    invalid(position(file, section->source()) + ": 'llm' must be a table ([llm]), got " + type_name(*section));

  read_llm_table(*section->as_table(), reader{file, "llm"}, c);
  try {
    c.validate();
  } catch (const aopt::error& e) {
    throw aopt::error(e.code(), file.string() + ": " + e.what());
  }
  return c;
}

llm_config apply_overrides(llm_config c, const std::vector<std::string>& key_values) {
  const fs::path where("command line");
  for (const auto& kv : key_values) {
    const auto eq = kv.find('=');
    if (eq == std::string::npos || eq == 0) {
      throw aopt::error(ec::invalid_argument, "--llm-set " + kv + ": expected KEY=VALUE (e.g. temperature=0.5, "
                                              "models.refinement=deepseek-chat)");
    }
    std::string key = kv.substr(0, eq);
    const std::string value = kv.substr(eq + 1);
    std::string table = "[llm]\n";
    if (key.rfind("models.", 0) == 0) {
      table = "[llm.models]\n";
      key = key.substr(7);
    }
    // The value as TOML (numbers, booleans, quoted strings); anything else is taken as a string.
    toml::table root;
    try {
      root = toml::parse(table + key + " = " + value + "\n", where.string());
    } catch (const toml::parse_error&) {
      std::string quoted = "\"";
      for (char ch : value) {
        if (ch == '"' || ch == '\\') quoted += '\\';
        quoted += ch;
      }
      quoted += "\"";
      try {
        root = toml::parse(table + key + " = " + quoted + "\n", where.string());
      } catch (const toml::parse_error& e) {
        throw aopt::error(ec::invalid_argument, "--llm-set " + kv + ": " + std::string(e.description()));
      }
    }
    try {
      read_llm_table(*root.get("llm")->as_table(), reader{where, "llm"}, c);
    } catch (const aopt::error& e) {
      throw aopt::error(ec::invalid_argument, "--llm-set " + kv + ": " + e.what());
    }
  }
  c.validate();
  return c;
}

llm_config load_llm_config(const fs::path& file) {
  return parse_llm_config(common::read_text_file(file), file);
}

nlohmann::json to_json(const llm_config& c) {
  nlohmann::json models = nlohmann::json::object();
  for (const auto& [r, m] : c.models) models[to_string(r)] = m;
  return {{"base_url", c.base_url},
          {"api_key_env", c.api_key_env},
          {"model", c.model},
          {"models", models},
          {"temperature", c.temperature},
          {"max_tokens", c.max_tokens},
          {"request_timeout_ms", c.request_timeout_ms},
          {"connect_timeout_ms", c.connect_timeout_ms},
          {"max_retries", c.max_retries},
          {"backoff_initial_ms", c.backoff_initial_ms},
          {"backoff_max_ms", c.backoff_max_ms},
          {"jitter", c.jitter},
          {"seed", c.seed},
          {"max_concurrency", c.max_concurrency},
          {"token_budget", c.token_budget}};
}

}  // namespace aopt::llm
