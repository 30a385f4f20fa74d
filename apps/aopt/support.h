// What the optimizing commands share: the source files of a package as a file map, evaluator
// slots on the embedded sim backend (one ev::evaluator per slot, candidates built from file
// maps), the bank corpus and the offline engine for a device profile.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "aopt/evaluation/evaluator.h"
#include "aopt/evaluation/package.h"
#include "aopt/optimize/offline_engine.h"
#include "aopt/optimize/services.h"
#include "aopt/storage/experience_bank.h"
#include "llm_setup.h"

namespace aopt::app {

// Every source file of the package (op_host/, op_kernel/), by relative path.
optimize::file_map load_files(const evaluation::op_package& pkg);

// eval_result -> the optimizer's report (timed case profile, bound, suspect when faster than it).
optimize::eval_report to_report(const evaluation::eval_result& r);

struct slot_options {
  std::string backend = "sim";          // "sim" or "cann"
  std::string profile = "910b4";        // sim's device profile
  std::filesystem::path cann_config;    // cann's command profile
  bool use_cache = true;
  std::size_t slots = 2;
  std::filesystem::path cache_dir;  // empty: the default evaluation cache
};

// `slots` evaluator functions for candidates of `pkg` (files that differ from the package are
// replaced) on opt.backend. Each slot owns its evaluators (one per input seed used, and one
// without the result cache for "remeasure" requests).
std::vector<optimize::evaluate_fn> make_sim_slots(std::shared_ptr<const evaluation::op_package> pkg,
                                                  const slot_options& opt);

// The offline engine configured for a device profile (core count and UB for the mutator).
optimize::offline_engine_config offline_config(const std::string& profile, std::uint64_t seed);

// Rewind of seed packages into a bank (`aopt bank rewind`, and `aopt bench` building its bank
// from the suite's experts): inverse motifs (engine offline) or the llm engine's rewind role
// proposing the steps, every step evaluated and kept only when the slowdown is real. Progress
// lines go to `log`.
struct rewind_options {
  int steps = 6;              // kept steps per seed at most
  double min_slowdown = 1.03; // keep a step when new / current latency >= this
  std::uint64_t seed = 1;     // site choice
  std::string profile = "910b4";
  int attempts = 64;          // evaluated candidates per seed at most (0 = no limit)
  bool no_cache = false;
  std::string engine = "offline";  // "offline" (inverse motifs) or "llm"
  llm_options llm;                 // with engine llm
};
struct rewind_summary {
  std::size_t attempts = 0, kept = 0, inserted = 0;
  nlohmann::json engine_usage;  // the llm engine's accounting (llm_side::usage()); null offline
};
rewind_summary rewind_into_bank(const std::vector<std::string>& seeds, const rewind_options& opt,
                                storage::experience_bank& bank, std::ostream& log);

// Default evaluator slots: 2, or fewer on a one-core machine.
std::size_t default_slots();

}  // namespace aopt::app
