#include "llm_setup.h"

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include "aopt/common/error.h"
#include "aopt/llm/http_client.h"

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

llm::llm_engine_options engine_options(const optimize::offline_engine_config& offline,
                                       const std::string& op, const std::string& profile) {
  llm::llm_engine_options eo;
  eo.limits.core_count = offline.mutator.limits.core_count;
  eo.limits.ub_bytes = offline.mutator.limits.ub_bytes;
  eo.seed = offline.seed;
  eo.evidence_op = op;
  eo.evidence_profile = profile;
  return eo;
}

llm_side::llm_side(const llm_options& o, const llm::llm_engine_options& eo)
    : config(llm_config_of(o)), replayed(!o.replay_dir.empty()) {
  if (!o.replay_dir.empty() && !o.record_dir.empty()) {
    throw error(ec::invalid_argument,
                "--llm-replay and --llm-record exclude each other: replay reads a recording, "
                "record writes one");
  }
  if (!o.replay_dir.empty()) {
    if (!std::filesystem::is_directory(o.replay_dir)) {
      throw error(
          ec::not_found,
          fmt::format("--llm-replay {}: no recording there; record one first with --llm-record DIR",
                      o.replay_dir.string()));
    }
    store.emplace(o.replay_dir, false);
    base = std::make_unique<llm::replay_client>(*store, config);
  } else {
    base = std::make_unique<llm::http_client>(config);
    if (!o.record_dir.empty()) {
      store.emplace(o.record_dir, true);
      recorder = std::make_unique<llm::recording_client>(*base, *store, config);
    }
  }
  const auto prompts = llm::prompt_library::load(
      o.prompts_dir.empty() ? llm::prompt_library::default_dir() : o.prompts_dir);
  engine.emplace(client(), prompts, eo);
}

nlohmann::json llm_side::usage() const {
  nlohmann::json u = engine->usage();
  u["config"] = llm::to_json(config);
  u["replayed"] = replayed;
  return u;
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
