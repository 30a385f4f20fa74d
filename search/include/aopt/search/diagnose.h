// The Diagnoser (Stage II): from an msprof-style profile, name the kernel's bottleneck(s) from
// the fixed set of bottleneck_class, each with a score and evidence text quoting the numbers.
// Every threshold is a documented field of diagnosis_config.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "aopt/search/experience.h"

namespace aopt::search {

// The profile fields the Diagnoser reads (msprof names in comments). Only task_us is required.
struct profile_metrics {
  double task_us = 0;                     // "Task Duration(us)"
  std::optional<double> aiv_us;           // "aiv_time(us)"
  std::optional<double> vec_ratio;        // "aiv_vec_ratio"
  std::optional<double> scalar_ratio;     // "aiv_scalar_ratio"
  std::optional<double> mte2_ratio;       // "aiv_mte2_ratio"
  std::optional<double> mte3_ratio;       // "aiv_mte3_ratio"
  std::optional<double> bank_conflict_ratio;  // "aiv_vec_bankgroup_cflt_ratio"
  std::optional<double> gm_to_ub_kb;      // "GM_to_UB_datas(KB)"
  std::optional<double> ub_to_gm_kb;      // "UB_to_GM_datas(KB)"
  std::optional<std::uint64_t> block_dim; // "Block Dim"
  std::vector<double> core_times_us;      // "core_times_us": per-core busy time
  std::optional<std::uint64_t> ub_bytes;  // "ub_bytes": UB footprint of one core
  std::optional<std::uint64_t> core_count;  // "core_count": vector cores of the device
  std::optional<double> bound_us;         // "bound_us": roofline lower bound of the task
};

// Reads the fields above from `profile`. Accepts the profile object itself or the harness's
// result.json (fields under "timing"; "ub_bytes" and "tiling.block_dim" at the top level), and
// takes bound_us also from a "bound" object (evaluation's eval_result::bound).
// Numbers may be JSON numbers or numeric strings (msprof CSV cells). Throws
// aopt::error(invalid_spec) "profile field 'aiv_mte2_ratio': expected a number, found ...".
profile_metrics parse_profile(const nlohmann::json& profile);

struct diagnosis_config {
  // A pipe whose ratio (busy time / aiv_time) reaches this bounds the kernel (mte2, mte3,
  // vector, scalar bound). Default: 0.6
  double pipe_bound_ratio = 0.6;
  // Serialized pipes: the sum of the vector, MTE2 and MTE3 ratios lies in
  // [serial_sum_min, serial_sum_max] (pipes that overlap push the sum well above 1), and no
  // pipe reaches pipe_bound_ratio. Default: 0.8 and 1.25
  double serial_sum_min = 0.8;
  double serial_sum_max = 1.25;
  // Load imbalance: max / mean of core_times_us reaches this. Default: 1.2
  double imbalance_ratio = 1.2;
  // Load imbalance (idle cores): Block Dim below this fraction of core_count, on a task
  // longer than idle_cores_min_task_us. Default: 0.5 and 20 us
  double idle_core_fraction = 0.5;
  double idle_cores_min_task_us = 20.0;
  // Launch bound: (Task Duration - aiv_time) / Task Duration reaches this. Default: 0.3
  double launch_share = 0.3;
  // Bank conflict: aiv_vec_bankgroup_cflt_ratio reaches this while the vector pipe is busy at
  // least bank_conflict_min_vec of the time. Default: 0.1 and 0.2
  double bank_conflict_ratio = 0.1;
  double bank_conflict_min_vec = 0.2;
  // UB under-used: an MTE pipe ratio reaches mte_for_ub and ub_bytes / ub_capacity_bytes is
  // below ub_used_fraction. Default: 0.5, 0.25, 196608 B (910B UB per core; set it from the
  // device profile's ub_bytes).
  double mte_for_ub = 0.5;
  double ub_used_fraction = 0.25;
  std::uint64_t ub_capacity_bytes = 196608;
  void validate() const;  // throws aopt::error(invalid_argument) naming the field
};

struct finding {
  bottleneck_class kind = bottleneck_class::mte2_bound;
  // Strength in [0, 1], comparable across classes (docs/experience-bank.md gives each formula).
  double score = 0;
  std::string evidence;  // "aiv_mte2_ratio 0.91: the copy-in pipe is busy 91% of the kernel; ..."
};

struct diagnosis {
  std::vector<finding> findings;  // highest score first, ties in enum order; may be empty
  std::string summary;            // one paragraph: the findings' evidence, roofline headroom
  std::optional<double> roofline_headroom;  // Task Duration / bound_us when bound_us is given

  const finding* primary() const { return findings.empty() ? nullptr : &findings.front(); }
  bool has(bottleneck_class c) const;
};

diagnosis diagnose(const profile_metrics& m, const diagnosis_config& cfg = {});
diagnosis diagnose(const nlohmann::json& profile, const diagnosis_config& cfg = {});

// The retrieval query text for a diagnosis: class names and evidence of the findings.
std::string retrieval_query_text(const diagnosis& d);

nlohmann::json to_json(const diagnosis& d);

}  // namespace aopt::search
