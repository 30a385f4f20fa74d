// The use-case glue that both `aopt` (in-process) and `aoptd` (the daemon) call: an operator
// package as a file map, evaluator slots on the embedded sim backend, the evaluation result as
// the optimizer's report, the offline engine for a device profile, and writing an optimized
// package back out. CAF-free.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "aopt/evaluation/evaluator.h"
#include "aopt/evaluation/package.h"
#include "aopt/optimize/offline_engine.h"
#include "aopt/optimize/services.h"

namespace aopt::jobs {

// Every source file of the package (op_host/, op_kernel/), by relative path, and the shared files
// the search may change, as aopt_shared/<path under the tree root> (shared_search_files).
optimize::file_map load_files(const evaluation::op_package& pkg);

// The shared files (relative to the tree root) a search may change besides the package's own: the
// shared sources its host libraries compile (a family's tiling function, e.g. cann-ops' foreach
// operators), the shared kernel headers its kernel includes from its shared include directories,
// transitively, and last the shared headers its host code includes (a tiling class's methods
// written in its header, which Stage I's synthesis slices); at most 24, each with its text as
// read (one read per file).
// `package_files`: the package's own (op_kernel/ read).
optimize::file_map shared_search_files(const evaluation::op_package& pkg, const optimize::file_map& package_files);

struct slot_options {
  std::string backend = "sim";          // "sim" or "cann"
  std::string profile = "910b4";        // sim's device profile
  std::filesystem::path cann_config;    // cann's command profile
  std::optional<int> cann_device;       // cann: the device id, instead of the command profile's
  bool use_cache = true;
  std::size_t slots = 2;
  std::filesystem::path cache_dir;  // empty: the default evaluation cache
};

// A package evaluator slots can evaluate candidates of: the package and its source files.
struct sim_package {
  std::shared_ptr<const evaluation::op_package> package;
  optimize::file_map base;  // load_files(*package)
};
// Loads and checks a package for evaluation (its cases must fit the evaluator's memory limit).
std::shared_ptr<const sim_package> make_sim_package(std::shared_ptr<const evaluation::op_package> pkg);

// Finds the package a request names (eval_request::package); null when unknown, which
// makes the evaluation a "runtime_error" report.
using package_lookup = std::function<std::shared_ptr<const sim_package>(const std::string& package)>;

// `slots` evaluator functions for candidates of the packages `lookup` finds (files that differ
// from the package are replaced) on opt.backend. Each slot owns its evaluators (one per input seed
// used, and one without the result cache for "remeasure" requests).
std::vector<optimize::package_evaluate_fn> make_sim_slots(package_lookup lookup, const slot_options& opt);
// Builders (opt.slots of them): each builds a candidate without running it (evaluator::prebuild),
// so that its artifacts are in this host's artifact cache when a device of this host runs it.
// The report is final when the candidate does not build (or its result is cached); otherwise its
// status is optimize::eval_status::built and a device is to run it. Remeasure requests never take a
// cached result.
std::vector<optimize::package_evaluate_fn> make_sim_builders(package_lookup lookup, const slot_options& opt);
// The same for one package (the command line's jobs).
std::vector<optimize::evaluate_fn> make_sim_slots(std::shared_ptr<const evaluation::op_package> pkg,
                                                  const slot_options& opt);

// The offline engine configured for a device profile (core count and UB for the mutator).
optimize::offline_engine_config offline_config(const std::string& profile, std::uint64_t seed);

// Default evaluator slots: 2, or fewer on a one-core machine.
std::size_t default_slots();

// Copies the package directory to `out` (skipping build outputs), then writes the best files:
// a drop-in optimized package.
void write_package(const evaluation::op_package& pkg, const optimize::file_map& best, const std::filesystem::path& out);

}  // namespace aopt::jobs
