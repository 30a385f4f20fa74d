// What the optimizing commands share: the source files of a package as a file map, evaluator
// slots on the embedded sim backend (one ev::evaluator per slot, candidates built from file
// maps), the bank corpus and the offline engine for a device profile.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "aopt/evaluation/evaluator.h"
#include "aopt/evaluation/package.h"
#include "aopt/optimize/offline_engine.h"
#include "aopt/optimize/services.h"

namespace aopt::app {

// Every source file of the package (op_host/, op_kernel/), by relative path.
optimize::file_map load_files(const evaluation::op_package& pkg);

// eval_result -> the optimizer's report (timed case profile, bound, suspect when faster than it).
optimize::eval_report to_report(const evaluation::eval_result& r);

struct slot_options {
  std::string profile = "910b4";
  bool use_cache = true;
  std::size_t slots = 2;
};

// `slots` evaluator functions for candidates of `pkg` (files that differ from the package are
// replaced). Each slot owns its evaluators (one per input seed used).
std::vector<optimize::evaluate_fn> make_sim_slots(std::shared_ptr<const evaluation::op_package> pkg,
                                                  const slot_options& opt);

// The offline engine configured for a device profile (core count and UB for the mutator).
optimize::offline_engine_config offline_config(const std::string& profile, std::uint64_t seed);

// Default evaluator slots: 2, or fewer on a one-core machine.
std::size_t default_slots();

}  // namespace aopt::app
