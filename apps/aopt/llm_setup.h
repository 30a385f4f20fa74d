// The LLM side of a command (`aopt optimize` and `aopt bank rewind` with `--engine llm`): the
// options both register, their checks, and the client chain plus engine they build
// (docs/llm.md).
#pragma once

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "aopt/llm/client.h"
#include "aopt/llm/config.h"
#include "aopt/llm/engine.h"
#include "aopt/llm/replay.h"
#include "aopt/optimize/offline_engine.h"

namespace CLI {
class App;
}

namespace aopt::app {

// `--engine llm`: where the model is and how to talk to it (docs/llm.md).
struct llm_options {
  std::filesystem::path config_file;  // TOML with an [llm] table; empty = the defaults
  std::string base_url;               // overrides [llm] base_url
  std::string model;                  // overrides [llm] model (every chat role without its own)
  std::string embeddings_model;       // overrides [llm.models] embeddings
  std::filesystem::path record_dir;   // store every exchange there (replay later)
  std::filesystem::path replay_dir;   // answer only from a recording: no server is contacted
  std::filesystem::path prompts_dir;  // empty = the shipped config/prompts
  std::vector<std::string> set;       // --llm-set KEY=VALUE overrides, applied last
};

// Registers --engine, --config, --llm-base-url, --llm-model, --llm-record, --llm-replay,
// --prompts (and --llm-embeddings-model when `embeddings`) on `cmd`, bound to `engine` and `o`.
void add_engine_options(CLI::App& cmd, std::string& engine, llm_options& o, bool embeddings);

// Throws aopt::error(invalid_argument) for an unknown engine, or llm options without
// `--engine llm`.
void check_engine_options(const std::string& engine, const llm_options& o);

// The llm engine's options for a job: the device limits and seed of the offline engine's
// config (offline_config(profile, seed)), the operator and profile as tuple evidence.
llm::llm_engine_options engine_options(const optimize::offline_engine_config& offline,
                                       const std::string& op, const std::string& profile);

// The LLM side of one job: the client chain (HTTP, or replay; recording on top when asked) and
// the engine. Throws aopt::error for a bad config, --llm-record with --llm-replay, or a missing
// recording.
struct llm_side {
  llm::llm_config config;
  std::optional<llm::replay_store> store;
  std::unique_ptr<llm::client> base;
  std::unique_ptr<llm::client> recorder;
  std::optional<llm::llm_engine> engine;
  bool replayed = false;

  llm_side(const llm_options& o, const llm::llm_engine_options& eo);
  llm::client& client() { return recorder ? *recorder : *base; }
  // The engine's accounting with the config (without the key) and whether it was replayed.
  nlohmann::json usage() const;
};

// One line for the console: "llm: N request(s), P prompt + C completion tokens[ (replayed ...)]".
std::string usage_line(const nlohmann::json& usage);

}  // namespace aopt::app
