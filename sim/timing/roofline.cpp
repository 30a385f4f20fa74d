#include <algorithm>
#include <limits>

#include "aopt_sim/timing.h"

namespace aopt::sim {

// The operator's bound: the fastest any implementation could be under the model's own rules,
// minimised over the number of cores it might use (more cores pay more head overhead but
// add per-core DMA and vector throughput):
//   bound = min over c of  launch(c) + max(memory(c), vector(c))
//   memory(c) = max(HBM time, L2 time, per-core DMA time at the plateau bandwidth over c cores)
// The L2 rule follows simulate.cpp's L2 at its best: the writes land in L2, costing HBM
// bandwidth only for what exceeds the L2 capacity; and with a warm L2 (`l2_warm`: the previous
// launch of the same kernel left its data there) up to the L2 capacity of the reads hit it and
// cost no HBM bandwidth at all (a hit is bounded by the per-core DMA rate only, as a read is).
// Without that rule a kernel whose inputs stay in L2 runs faster than its "bound", and the
// optimizer would hold every correct candidate of it as suspect.
roofline_bound roofline(const roofline_input& in, const timing_params& p) {
  const double hbm_read = p.l2_model && p.l2_warm ? std::max(0.0, in.bytes_read - p.l2_bytes) : in.bytes_read;
  double hbm_written = in.bytes_written;
  double l2_written = 0;
  if (p.l2_model && in.bytes_written > 0) {
    hbm_written = std::clamp(in.bytes_written - p.l2_bytes, 0.0, in.bytes_written);
    l2_written = in.bytes_written - hbm_written;
  }
  const double hbm_us = (hbm_read + hbm_written) / p.hbm_gbs / 1000.0;  // bytes/(bytes/ns)
  const double l2_us = p.l2_gbs > 0 ? l2_written / p.l2_gbs / 1000.0 : 0.0;
  constexpr double gib_per_gb = 1.073741824;  // GiB/s -> bytes/ns
  const double read_plateau = p.gm_to_ub.gibs.empty() ? 0 : p.gm_to_ub.gibs.back() * gib_per_gb;
  const double write_plateau = p.ub_to_gm.gibs.empty() ? 0 : p.ub_to_gm.gibs.back() * gib_per_gb;

  const std::uint32_t max_cores = in.cores != 0 ? std::min(in.cores, p.aiv_cores) : p.aiv_cores;
  roofline_bound best;
  best.bound_us = std::numeric_limits<double>::infinity();
  for (std::uint32_t c = 1; c <= std::max(max_cores, 1u); ++c) {
    roofline_bound r;
    r.cores = c;
    r.launch_us = p.launch_base_us + p.head_per_core_us * c;
    double core_us = 0;
    if (read_plateau > 0) core_us = std::max(core_us, in.bytes_read / (c * read_plateau) / 1000.0);
    if (write_plateau > 0) core_us = std::max(core_us, in.bytes_written / (c * write_plateau) / 1000.0);
    r.memory_us = std::max({hbm_us, l2_us, core_us});
    r.vector_us = in.vector_repeats * in.cycles_per_repeat / (p.clock_ghz * 1000.0 * c);
    r.memory_bound = r.memory_us >= r.vector_us;
    r.bound_us = r.launch_us + std::max(r.memory_us, r.vector_us);
    if (r.bound_us < best.bound_us) best = r;
  }
  return best;
}

}  // namespace aopt::sim
