#include "llm_setup.h"

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include "aopt/common/error.h"

namespace aopt::app {

namespace {

llm::llm_config llm_config_of(const llm_options& o) {
  llm::llm_config c =
      o.config_file.empty() ? llm::llm_config{} : llm::load_llm_config(o.config_file);
  if (!o.base_url.empty()) c.base_url = o.base_url;
  if (!o.model.empty()) c.model = o.model;
  if (!o.embeddings_model.empty()) c.models[llm::role::embeddings] = o.embeddings_model;
  return llm::apply_overrides(std::move(c), o.set);  // validates
}

}  // namespace

void add_engine_options(CLI::App& cmd, std::string& engine, llm_options& o, bool embeddings) {
  cmd.add_option(
      "--engine", engine,
      "Proposal engine: offline (default, no model) or llm (an OpenAI-compatible endpoint)");
  cmd.add_option("--config", o.config_file, "Config file (TOML) with the [llm] table (docs/llm.md)")
      ->check(CLI::ExistingFile);
  cmd.add_option("--llm-base-url", o.base_url,
                 "Endpoint of the llm engine (overrides [llm] base_url)");
  cmd.add_option("--llm-model", o.model,
                 "Model of every llm role without its own (overrides [llm] model)");
  if (embeddings) {
    cmd.add_option("--llm-embeddings-model", o.embeddings_model,
                   "Embeddings model for retrieval (overrides [llm.models] embeddings)");
  }
  cmd.add_option("--llm-set", o.set,
                 "Override one [llm] key: KEY=VALUE (temperature=0.5, max_retries=2, "
                 "models.refinement=M); repeatable");
  cmd.add_option("--llm-record", o.record_dir,
                 "Record every model exchange in this directory (replay with --llm-replay)");
  cmd.add_option("--llm-replay", o.replay_dir,
                 "Answer every model request from this recording; contacts no server");
  cmd.add_option("--prompts", o.prompts_dir,
                 "Prompt templates directory (default: the shipped config/prompts)");
}

void check_engine_options(const std::string& engine, const llm_options& o) {
  if (engine != "offline" && engine != "llm") {
    throw error(ec::invalid_argument,
                fmt::format("--engine {}: unknown engine; use offline (default) or llm", engine));
  }
  if (engine != "llm" && (!o.config_file.empty() || !o.record_dir.empty() ||
                          !o.replay_dir.empty() || !o.base_url.empty() || !o.model.empty() ||
                          !o.embeddings_model.empty() || !o.prompts_dir.empty() || !o.set.empty())) {
    throw error(ec::invalid_argument,
                "--config/--llm-*/--prompts options configure the llm engine: add --engine llm");
  }
}

llm::session_options session_options(const llm_options& o) {
  llm::session_options s;
  s.config = llm_config_of(o);
  s.record_dir = o.record_dir;
  s.replay_dir = o.replay_dir;
  s.prompts_dir = o.prompts_dir;
  return s;
}

std::string usage_line(const nlohmann::json& usage) {
  const auto total =
      usage.value("client", nlohmann::json::object()).value("total", nlohmann::json::object());
  return fmt::format("llm: {} request(s), {} prompt + {} completion tokens{}",
                     total.value("requests", 0), total.value("prompt_tokens", 0),
                     total.value("completion_tokens", 0),
                     usage.value("replayed", false) ? " (replayed from a recording)" : "");
}

}  // namespace aopt::app
