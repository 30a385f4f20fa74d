// The timing model: replays the per-core traces of one kernel launch (trace.h) through a
// discrete-event simulation of the AIV cores and the chip's memory system, and reports the
// kernel time with msprof's field names. Model and constants: docs/sim.md, sim/profiles/.
//
//   auto res = aopt::sim::launch(opts, body);                  // functional run, traces
//   auto rep = aopt::sim::simulate(res.cores, aopt::sim::load_profile("910b4"));
//   if (rep.error) ...;                                        // deadlock, double SetFlag, ...
//   nlohmann::json j = rep.to_json();                          // "Task Duration(us)", ...
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "aopt_sim/profile.h"
#include "aopt_sim/runtime.h"
#include "aopt_sim/timing_params.h"
#include "aopt_sim/trace.h"

namespace aopt::sim {

struct timing_options {
  // Physical AIV cores to schedule blocks on; 0 = the profile's aiv_cores. Blocks beyond it
  // run in waves (block b on core b % cores, after the blocks before it on that core).
  std::uint32_t cores = 0;
};

// One block (one core_trace) of the launch.
struct block_timing {
  std::uint32_t block_idx = 0;
  std::uint32_t core = 0;      // physical core it ran on
  double start_us = 0;         // from the start of aiv execution
  double end_us = 0;
  double vec_us = 0;           // busy time of PIPE_V (vector instructions and UB->UB copies)
  double scalar_us = 0;        // scalar cycles: API issue, GetValue/SetValue, mask sets
  double mte2_us = 0;          // busy time of MTE2 (GM->UB)
  double mte3_us = 0;          // busy time of MTE3 (UB->GM)
  double bank_conflict_us = 0; // part of vec_us caused by UB bank-group conflicts
  double mte1_us = 0;          // the Cube's pipes: MTE1 (L1 -> L0A/L0B), M (Mmad), FIX (out of L0C)
  double mac_us = 0;
  double fix_us = 0;
  std::uint64_t gm_to_ub_bytes = 0;
  std::uint64_t ub_to_gm_bytes = 0;
};

struct timing_report {
  std::string profile;         // profile name
  std::uint32_t block_dim = 0;
  std::uint32_t cores_used = 0;
  std::uint32_t waves = 0;
  double task_duration_us = 0; // launch base + head(cores_used) + aiv_time
  double aiv_time_us = 0;      // slowest core
  // msprof PipeUtilization fields: per-core averages over the cores used; ratios = time / aiv_time
  double vec_us = 0, scalar_us = 0, mte2_us = 0, mte3_us = 0;
  double vec_ratio = 0, scalar_ratio = 0, mte2_ratio = 0, mte3_ratio = 0;
  double bank_conflict_ratio = 0;  // aiv_vec_bankgroup_cflt_ratio: conflict cycles / vector cycles
  // The Cube's pipes (msprof's aic_* fields), per-core averages: 0 in vector-only kernels.
  double mte1_us = 0, mac_us = 0, fix_us = 0, mac_ratio = 0;
  double gm_to_ub_kb = 0, ub_to_gm_kb = 0;  // whole kernel, KiB
  double l2_write_hbm_fraction = 0;         // dirty bytes the L2 model wrote back to HBM / bytes written
  double l2_read_hit_kb = 0;                // bytes read from L2 (resident), KiB
  std::vector<block_timing> blocks;
  std::optional<hw_error> error;            // set when replay found a hardware error
  // {"simulated": true, "profile", "Task Duration(us)", "aiv_time(us)", "aiv_vec_time(us)",
  //  "aiv_vec_ratio", ..., "Block Dim"}; with "hw_error" {"kind","message","file","line",...}
  // when error is set.
  nlohmann::json to_json() const;
};

timing_report simulate(const std::vector<core_trace>& traces, const device_profile& profile,
                       const timing_options& opts = {});
timing_report simulate(const std::vector<core_trace>& traces, const timing_params& params,
                       const timing_options& opts = {});

// The roofline bound of one case: min over core counts c of launch(c) + max(memory(c),
// vector(c)), where memory(c) is the largest of the HBM time of (bytes_read + the writes L2
// cannot absorb), the L2 time of the absorbed writes, and the per-core DMA time at plateau
// bandwidth over c cores; vector(c) = vector_repeats x cycles_per_repeat / (clock x c).
// A lower bound on what any kernel for the case can reach under the model's own rules.
struct roofline_input {
  double bytes_read = 0;
  double bytes_written = 0;
  double vector_repeats = 0;   // total 256 B repeats of vector work over all cores
  double cycles_per_repeat = 1.0;
  std::uint32_t cores = 0;     // 0 = all of the profile's AIV cores
};
struct roofline_bound {
  double bound_us = 0;         // launch + max(memory_us, vector_us), at the best core count
  std::uint32_t cores = 0;     // the core count that attains the bound
  double launch_us = 0, memory_us = 0, vector_us = 0;
  bool memory_bound = false;
};
roofline_bound roofline(const roofline_input& in, const timing_params& params);

}  // namespace aopt::sim
