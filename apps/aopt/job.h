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
#include "llm_setup.h"
#include "support.h"

namespace aopt::app {

struct optimize_spec {
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

struct optimize_outcome {
  optimize::optimize_result result;
  // The LLM engine's accounting (per-role requests, tokens, seconds, failed proposals by kind)
  // and its configuration without the key; null for the offline engine.
  nlohmann::json engine_usage;
};

optimize_outcome run_optimize(const optimize_spec& spec);

}  // namespace aopt::app
