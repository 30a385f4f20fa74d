// The "timing" section of a device profile, parsed and validated: every constant the timing
// model (sim/timing) uses. Each JSON field is {"value": ..., "source": "..."}; see docs/sim.md.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "aopt_sim/trace.h"

namespace aopt::sim {

// Single-core DMA bandwidth against transfer size, as measured end to end (msKPP tables).
struct dma_curve {
  std::vector<double> kib;   // transfer sizes, strictly increasing
  std::vector<double> gibs;  // measured bandwidth at each size, GiB/s
  // End-to-end time in ns of one transfer of `bytes` on an idle chip. Linear interpolation
  // of the bandwidth between points; below the first point the time of the first point
  // (latency-bound); above the last point the last bandwidth (plateau).
  double time_ns(double bytes) const;
};

struct timing_params {
  std::string profile_name;
  double clock_ghz = 0;
  std::uint32_t aiv_cores = 0;
  // UB banks
  std::uint32_t ub_bank_groups = 0, ub_banks_per_group = 0, ub_row_bytes = 0;
  // chip-level memory
  double hbm_gbs = 0;       // bytes per ns shared by all cores
  double l2_gbs = 0;        // bytes per ns for writes absorbed by L2
  double l2_bytes = 0;
  bool l2_model = false;
  double l2_chunk_bytes = 0;  // granularity of the L2 model's residency tracking
  bool l2_warm = false;       // L2 starts as the previous launch of the same kernel left it
  // DMA
  dma_curve gm_to_ub, ub_to_gm;
  double dma_latency_ns = 0;
  std::uint32_t window_bytes = 0;
  double align_eff_32b = 0, align_eff_unaligned = 0, same_window_eff = 0;
  // vector
  std::uint32_t repeat_bytes = 0, max_repeats = 0;
  double vec_floor_cycles = 0, vec_head_cycles = 0, ub_copy_bytes_per_cycle = 0;
  // cycles per repeat [class][size index: 0 = 1 B, 1 = 2 B, 2 = 4 B, 3 = 8 B]
  std::array<std::array<double, 4>, static_cast<std::size_t>(vec_class::count_)> cpr{};
  // scalar
  double elem_access_cycles = 0, api_issue_cycles = 0, sync_all_cycles = 0;
  // element accesses by class (trace.h scalar_access): UB scan, GM DataCache hit, GM miss
  std::array<double, scalar_access_count> access_cycles{};
  std::uint32_t queue_depth = 0;
  // launch
  double launch_base_us = 0, head_per_core_us = 0;
  // the Cube unit: cycles per fractal step by input size [0 = 1 B, 1 = 2 B, 2 = 4 B], MTE1
  // (L1 -> L0A/L0B) and fixpipe (L0C -> out) rates, per-instruction start costs
  std::array<double, 3> mmad_cycles_per_fractal{};
  double mmad_head_cycles = 0;
  double mte1_l0a_bytes_per_cycle = 0, mte1_l0b_bytes_per_cycle = 0, mte1_start_cycles = 0;
  double fix_l0c_bytes_per_cycle = 0, fix_out_bytes_per_cycle = 0, nd2nz_start_cycles = 0, nd2nz_bytes_per_cycle = 0;

  double cycles_per_repeat(vec_class c, std::uint8_t dtype_bytes) const;
};

// Parses and validates the profile JSON `raw` (the whole file). `where` names the file in
// error messages. Throws std::runtime_error "<where>: field <path>: <what is expected>".
timing_params parse_timing_params(const nlohmann::json& raw, const std::string& where);

}  // namespace aopt::sim
