// One optimize job as the command line runs it: the spec (package, config, engine, evaluator
// slots, bank) and the entry point that runs it in-process on the CAF actors (actors/job.hpp:
// Scheduler, Mutator, Diagnoser, Retriever, Refiner, Distiller, one Evaluator per slot).
#pragma once

#include <filesystem>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "aopt/evaluation/package.h"
#include "aopt/optimize/offline_engine.h"
#include "aopt/optimize/optimizer.h"
#include "support.h"

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
};

struct job_spec {
  std::shared_ptr<const evaluation::op_package> package;
  optimize::file_map base_files;
  optimize::optimizer_config config;
  std::string engine = "offline";  // "offline" or "llm"
  optimize::offline_engine_config offline;
  llm_options llm;
  slot_options slots;
  std::filesystem::path bank_dir;  // empty: no bank (Stage II retrieves nothing)
  bool learn = true;               // accepted kernel changes go to the bank
  optimize::progress_fn progress;
};

struct job_outcome {
  optimize::optimize_result result;
  // The LLM engine's accounting (per-role requests, tokens, seconds, failed proposals by kind)
  // and its configuration without the key; null for the offline engine.
  nlohmann::json engine_usage;
};

job_outcome run_optimize_job(const job_spec& spec);

}  // namespace aopt::app
