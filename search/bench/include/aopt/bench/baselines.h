// The bench baselines: search methods the paper compares AscendOptimizer with, at equal budget.
// Each is a pure function of the base package, a `services` and a seeded config, and returns the
// same `optimize_result` as run_optimizer (optimizer.h) so the table and plots treat every method
// alike. The rules are the optimizer's: the base is evaluated first (one budget unit); the budget
// counts every evaluation, failures included; a candidate identical to one already evaluated in
// the job (files_key) is answered from memory and costs nothing; only passing candidates count;
// a suspect one (faster than the roofline bound) is never accepted; candidates go to the
// evaluator in batches of svc.runner.parallelism(); the final best is re-checked on fresh inputs
// (stage "verify", input_seed = verify_seed) outside the budget, walking back through the
// accepted states until one passes (a trajectory point with stage "verify" each, no budget).
//
// The methods (docs: search/bench/README.md):
//   random      each candidate is the base with a random tunable assignment (a restart of the
//               Stage I mutator) and/or one random unguided rewrite.
//   best_of_n   N = budget - 1 independent single proposals from the base (tiling variants of a
//               fresh history and unguided rewrites), no iteration; the best is kept.
//   openevolve  an evolutionary loop over whole programs: a small population of passing
//               programs, parents by tournament, child = one mutation of the parent.
// No method here diagnoses or uses the experience bank: rewrites are svc.engine.rewrite_kernel(files, {}).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "aopt/optimize/optimizer.h"
#include "aopt/optimize/services.h"
#include "aopt/stage1/mutator.h"

namespace aopt::bench {

using optimize::file_map;
using optimize::optimize_result;
using optimize::progress_fn;
using optimize::services;

// What every baseline shares with the optimizer's config.
struct baseline_config {
  std::size_t budget = 40;        // evaluations, failures and the base included. Default: 40
  std::uint64_t seed = 0;         // root of every random choice of the method. Default: 0
  // A candidate replaces the best only when latency < best * (1 - min_gain). Default: 0.001
  double min_gain = 0.001;
  bool verify = true;             // re-check the final best on fresh inputs. Default: true
  std::uint64_t verify_seed = 0x5eed;  // input seed of the verification. Default: 0x5eed
  // Proposals drawn per budget unit before the method gives up finding new candidates (a small
  // search space makes random draws repeat; repeats cost no budget, so a bound is needed).
  // Default: 8
  std::size_t max_draws_per_unit = 8;
  // Domains and feasibility of tunable assignments (core count and UB of the device).
  stage1::mutator_config mutator;
  void validate() const;  // throws aopt::error(invalid_argument) naming the field
};

struct random_search_config {
  baseline_config common;
  // Share of candidates that only change tunables, only apply one rewrite; the rest do both.
  // When the operator has no template (or no rewrite), every candidate uses the other kind.
  double tiling_only = 0.4;   // Default: 0.4
  double rewrite_only = 0.4;  // Default: 0.4
  void validate() const;
};

struct best_of_n_config {
  baseline_config common;
  // Share of the N proposals that are unguided rewrites (at most as many as exist); the rest
  // are tiling variants. Either kind fills in when the other runs out. Default: 0.5
  double rewrite_share = 0.5;
  void validate() const;
};

struct evolve_config {
  baseline_config common;
  std::size_t population = 6;   // passing programs kept (the fastest). Default: 6
  std::size_t tournament = 2;   // contestants per parent selection. Default: 2
  double rewrite_rate = 0.5;    // share of children made by a rewrite, not a tiling variant. Default: 0.5
  // Tiling variants asked for per child, so one not evaluated yet can be picked. Default: 8
  std::size_t variants_per_child = 8;
  void validate() const;
};

optimize_result run_random_search(const file_map& base, const services& svc, const random_search_config& cfg,
                                  const progress_fn& progress = {});
optimize_result run_best_of_n(const file_map& base, const services& svc, const best_of_n_config& cfg,
                              const progress_fn& progress = {});
optimize_result run_openevolve(const file_map& base, const services& svc, const evolve_config& cfg,
                               const progress_fn& progress = {});

// --- every method of the table behind one call --------------------------------------------------

enum class method : std::uint8_t {
  aopt,         // AscendOptimizer: Algorithm 1, both stages
  stage1_only,  // run_optimizer with stage2 = false
  stage2_only,  // run_optimizer with stage1 = false
  random,
  best_of_n,
  openevolve,
};
// "aopt", "stage1_only", "stage2_only", "random", "best_of_n", "openevolve".
const char* to_string(method m);
// Table label: "AscendOptimizer", "Stage I only", "Stage II only", "Random search", "Best-of-N",
// "OpenEvolve-style".
const char* display_name(method m);
// Accepts the names above and a few spellings ("ours", "stage1", "bon", "evolve"); nullopt otherwise.
std::optional<method> parse_method(std::string_view s);
const std::vector<method>& all_methods();  // in table order

// One config for a whole bench run: the budget, seed and verification apply to every method
// (equal budget); the per-method parts keep their own knobs.
struct bench_config {
  std::size_t budget = 40;        // Default: 40
  std::uint64_t seed = 0;         // Default: 0
  double min_gain = 0.001;        // Default: 0.001
  bool verify = true;             // Default: true
  std::uint64_t verify_seed = 0x5eed;  // Default: 0x5eed
  optimize::optimizer_config optimizer;  // rounds, steps, top_k of the aopt methods
  random_search_config random;
  best_of_n_config best_of_n;
  evolve_config evolve;
  void validate() const;
};

// Runs `m` on one operator. The shared fields of `cfg` override the per-method ones.
optimize_result run_method(method m, const file_map& base, const services& svc, const bench_config& cfg,
                           const progress_fn& progress = {});

}  // namespace aopt::bench
