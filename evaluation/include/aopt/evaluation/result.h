// The result record (DESIGN.md section 4), as data and as JSON, and the verdict the search reads
// from it (vocab/verdict.h: eval_result::report).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "aopt/evaluation/checker.h"
#include "aopt/vocab/verdict.h"

namespace aopt::evaluation {

// Statuses in the order a candidate can fail them.
inline constexpr const char* result_statuses[] = {"ok",      "compile_error",   "tiling_error",  "runtime_error",
                                                  "timeout", "precision_error", "resource_error"};

struct case_result {
  std::string name;
  bool timed = false;
  std::string status = "ok";
  std::string diagnostic;
  std::vector<output_check> outputs;
  double max_abs_err = 0, max_rel_err = 0, mismatch_ratio = 0;
  std::optional<double> latency_us;            // simulated on sim ("Task Duration(us)")
  std::optional<std::uint32_t> block_dim;
  std::optional<std::int64_t> tiling_key;
  std::optional<std::uint64_t> ub_bytes;
  std::optional<std::uint64_t> ub_usable;  // the UB a kernel may use by default (GetCoreMemSize); sim only
  std::optional<std::uint64_t> workspace_bytes;
  nlohmann::json profile = nlohmann::json::object();  // msprof field names, from the backend
  // A measured latency's statistics (cann): {"measured", "repetitions", "warmups", "median_us",
  // "ci_low_us", "ci_high_us", "spread", "samples_us", ...}; null for a simulated one (one
  // deterministic sample, zero spread).
  nlohmann::json measurement;
  double run_seconds = 0;
  // Where run_seconds went: "inputs", "run" (the sandboxed host), "reference" (cached: ~0),
  // "compare", seconds each. Diagnostics only; "reference_cached" says whether it was reused.
  nlohmann::json phases = nlohmann::json::object();
  nlohmann::json to_json() const;
};

struct eval_result {
  int version = 1;
  std::string status = "ok";
  std::string diagnostic;
  std::string key;
  std::string package;                         // package directory
  std::string kernel, op_type;
  std::string backend, profile;
  bool simulated = true;
  std::uint64_t seed = 0;
  bool cached = false;
  std::string reference;                       // "baseline" or the reference file
  std::vector<case_result> cases;
  // Timed case (the first one marked timed that ran ok).
  std::optional<std::string> timed_case;
  std::optional<double> latency_us;
  nlohmann::json measurement;                  // the timed case's (case_result::measurement)
  nlohmann::json bound;                        // roofline: {"bound_us", "headroom", ...} or null
  nlohmann::json build = nlohmann::json::object();  // seconds, stage, log
  double total_seconds = 0;
  // Typed (a harness's warning names its kind and site); the record's JSON keeps their text,
  // from which from_json types them again (vocab::warning_from_text).
  std::vector<vocab::eval_warning> warnings;

  bool ok() const { return status == "ok"; }
  // Adds `w` unless a warning of the same text is there already.
  void warn(vocab::eval_warning w);
  nlohmann::json to_json() const;
  static eval_result from_json(const nlohmann::json& j);  // throws aopt::error(cache_error)
  // The verdict the search reads: `ok` only for a candidate that passed every case and has a
  // latency (a run that passed without one is a runtime_error), a suspect when the latency is
  // under the roofline bound, the timed case's profile (with "bound_us"), each case's facts, the
  // timed case's samples, the warnings, the build's seconds. `seconds` is total_seconds (the
  // caller may count more: the cache write, the work directory's removal).
  vocab::eval_report report() const;
};

// A status of the result record (or of a backend's run) as the verdict's enum; one the verdict
// does not know is a runtime_error.
vocab::eval_status verdict_status(const std::string& status);

}  // namespace aopt::evaluation
