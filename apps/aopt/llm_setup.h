// The LLM side of a command (`aopt optimize` and `aopt bank rewind` with `--engine llm`): the
// options both register, their checks, and the llm::session options they give (docs/llm.md).
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "aopt/llm/config.h"
#include "aopt/llm/engine.h"
#include "aopt/llm/session.h"
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

// The session options of `--engine llm` (docs/llm.md): the [llm] config file with the
// command line's overrides applied (validated), recording, replay and prompts.
llm::session_options session_options(const llm_options& o);

// One line for the console: "llm: N request(s), P prompt + C completion tokens[ (replayed ...)]".
std::string usage_line(const nlohmann::json& usage);

}  // namespace aopt::app
