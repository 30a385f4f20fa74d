#include <algorithm>

#include "aopt_sim/timing.h"

namespace aopt::sim {

roofline_bound roofline(const roofline_input& in, const timing_params& p) {
  roofline_bound r;
  const std::uint32_t cores = in.cores != 0 ? std::min(in.cores, p.aiv_cores) : p.aiv_cores;
  r.launch_us = p.launch_base_us + p.head_per_core_us * cores;
  r.memory_us = (in.bytes_read + in.bytes_written) / p.hbm_gbs / 1000.0;  // bytes / (bytes/ns)
  r.vector_us = in.vector_repeats * in.cycles_per_repeat / (p.clock_ghz * 1000.0 * std::max(cores, 1u));
  r.memory_bound = r.memory_us >= r.vector_us;
  r.bound_us = r.launch_us + std::max(r.memory_us, r.vector_us);
  return r;
}

}  // namespace aopt::sim
