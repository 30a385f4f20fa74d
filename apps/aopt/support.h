// What the optimizing commands share: the glue of jobs/ (package file maps, sim evaluator slots,
// the offline engine for a profile) and the rewind of seed packages into the bank.
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
#include "aopt/jobs/sim_slots.h"
#include "aopt/storage/experience_bank.h"
#include "llm_setup.h"

namespace aopt::app {

// The glue shared with the daemon lives in jobs/ (aopt/jobs/sim_slots.h).
using jobs::default_slots;
using jobs::load_files;
using jobs::make_sim_slots;
using jobs::offline_config;
using jobs::slot_options;

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

}  // namespace aopt::app
