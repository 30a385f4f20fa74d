// The Evaluator: candidate -> result. Build, run every case sandboxed, check against the
// reference, time, bound; the content-addressed cache makes the same candidate free the second time.
#pragma once

#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "aopt/common/subprocess.h"
#include "aopt/evaluation/backend.h"
#include "aopt/evaluation/cache.h"
#include "aopt/evaluation/candidate.h"
#include "aopt/evaluation/result.h"
#include "aopt/evaluation/sandbox.h"

namespace aopt::evaluation {

struct eval_options {
  std::string backend = "sim";
  std::string profile = "910b4";
  std::filesystem::path cann_config;        // backend "cann": the command profile (config/cann.example.toml)
  std::optional<int> cann_device;           // backend "cann": this device id instead of the profile's [cann] device
  std::optional<std::string> only_case;     // --case NAME
  std::optional<std::uint64_t> seed;        // default: aopt.json "seed", else 1
  bool use_cache = true;                    // the result cache (results/); `timeout` results are never stored
  // Reuse generated inputs (<cache>/inputs/) and reference outputs (<cache>/references/) across
  // evaluations and processes: both are content-addressed (generator version, seed, case, dtype,
  // shape; baseline or reference sources, toolchain, profile), so they cannot go stale. On even
  // with use_cache off; off when false or when the environment sets AOPT_ARTIFACT_CACHE=0.
  bool reuse_artifacts = true;
  std::filesystem::path cache_dir;          // empty = eval_cache::default_root()
  bool keep_workdir = false;
  std::filesystem::path work_root;          // empty = $TMPDIR/aopt-work
  common::sandbox_limits limits = default_limits();
  sandbox_policy sandbox;                   // namespaces for compilers and runs (docs/evaluation.md)

  static common::sandbox_limits default_limits();  // 60 s wall, 120 s CPU, 8 GiB AS, 4 GiB files
};

class evaluator {
 public:
  explicit evaluator(eval_options opts);
  // For tests and other backends.
  evaluator(eval_options opts, std::unique_ptr<backend> be);

  eval_result evaluate(const candidate& cand);
  // A builder's half of an evaluation: builds the candidate without running it, so that its host
  // executable and kernels land in the artifact cache and the evaluation that follows (on a
  // device) compiles nothing. Returns the final result when there is one already: the candidate
  // does not build (stored in the result cache as evaluate would), or the result cache has it;
  // nullopt when it built and is to be run.
  std::optional<eval_result> prebuild(const candidate& cand);
  // A screen (docs/evaluation.md, "Screening a tiling"): builds the candidate's host only (it
  // lands in the artifact cache, so its evaluation compiles at most its kernels; a kernel that
  // does not compile fails the evaluation, not the screen) and runs only the host tiling
  // of every case, sandboxed like a run: no GM, no kernel, no reference. Never cached. Returns
  // the verdict (status ok, compile_error, tiling_error, runtime_error, ...; unsupported on a
  // backend other than sim; `ok` when every case tiled) with each case's tiling facts: block
  // dim, tiling key, workspace, the tiling data as little-endian 32-bit words, the device's
  // vector cores, UB capacity and usable UB, the elements and element size of the case's
  // largest input, the run-time tunables it read.
  vocab::eval_report screen(const candidate& cand);
  std::string key_of(const candidate& cand) const;
  const eval_options& options() const { return opts_; }
  backend& get_backend() { return *backend_; }
  // Work directory of the last evaluation (kept only with keep_workdir).
  const std::filesystem::path& last_workdir() const { return last_workdir_; }

 private:
  std::uint64_t seed_for(const op_package& pkg) const;
  std::filesystem::path new_work_dir(const std::string& prefix);
  eval_result run_cases(const candidate& cand, const std::filesystem::path& work, eval_result r);
  struct cases_run;  // run_cases' phases (evaluator.cpp)
  // The result's identity (key, package, backend, seed, ...), before anything runs.
  eval_result start_result(const candidate& cand) const;
  std::vector<const case_spec*> cases_to_run(const candidate& cand) const;
  // Fills `r` from a build; false (r is final: compile_error or runtime_error) when it failed.
  static bool take_build(const build_result& built, eval_result& r);
  // The result cache's result for `key` (marked cached), if any.
  std::optional<eval_result> from_cache(const std::string& key);
  // Stores a final result unless a timeout or an untrusted channel may have made it.
  void store(const eval_result& r);

  eval_options opts_;
  std::unique_ptr<backend> backend_;
  std::optional<eval_cache> cache_;
  std::filesystem::path last_workdir_;
  // Built baselines (reference: baseline) and C++ references, kept for the evaluator's life.
  std::map<std::string, std::pair<std::filesystem::path, build_result>> baselines_;
  std::map<std::string, std::filesystem::path> references_;
  std::vector<std::filesystem::path> owned_dirs_;
  std::filesystem::path artifact_root_;      // empty = artifacts not reused
  bool untrusted_ = false;                   // this evaluation's verdict is not to be cached

 public:
  ~evaluator();
};

}  // namespace aopt::evaluation
