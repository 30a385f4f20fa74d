#include "aopt_sim/timing_params.h"

#include <algorithm>
#include <cmath>

#include "field.h"

namespace aopt::sim {

namespace {

constexpr double gib = 1073741824.0;

dma_curve read_curve(const detail::field_reader& r, const std::string& path) {
  const auto& v = r.value(path);
  if (!v.is_array() || v.size() < 2) r.fail(path, "expected an array of at least two [KiB, GiB/s] pairs");
  dma_curve c;
  for (const auto& pt : v) {
    if (!pt.is_array() || pt.size() != 2 || !pt[0].is_number() || !pt[1].is_number())
      r.fail(path, "expected every point to be a [KiB, GiB/s] pair of numbers");
    const double k = pt[0].get<double>(), g = pt[1].get<double>();
    if (!(k > 0) || !(g > 0) || g > 10000) r.fail(path, "expected positive sizes and bandwidths (GiB/s, at most 10000)");
    if (!c.kib.empty() && k <= c.kib.back()) r.fail(path, "expected transfer sizes in strictly increasing order");
    c.kib.push_back(k);
    c.gibs.push_back(g);
  }
  return c;
}

}  // namespace

double dma_curve::time_ns(double bytes) const {
  const double k = bytes / 1024.0;
  double bw = 0;  // GiB/s
  if (k <= kib.front()) {
    return kib.front() * 1024.0 / (gibs.front() * gib / 1e9);
  }
  if (k >= kib.back()) {
    bw = gibs.back();
  } else {
    const auto it = std::upper_bound(kib.begin(), kib.end(), k);
    const std::size_t i = static_cast<std::size_t>(it - kib.begin());
    const double t = (k - kib[i - 1]) / (kib[i] - kib[i - 1]);
    bw = gibs[i - 1] + t * (gibs[i] - gibs[i - 1]);
  }
  return bytes / (bw * gib / 1e9);
}

double timing_params::cycles_per_repeat(vec_class c, std::uint8_t dtype_bytes) const {
  const auto& row = cpr[static_cast<std::size_t>(c)];
  switch (dtype_bytes) {
    case 1: return row[0];
    case 4: return row[2];
    case 8: return row[3];
    default: return row[1];
  }
}

timing_params parse_timing_params(const nlohmann::json& raw, const std::string& where) {
  const detail::field_reader r(raw, where);
  timing_params p;
  p.profile_name = r.string("name");
  p.clock_ghz = r.number("clock_ghz", 0.1, 10);
  p.aiv_cores = static_cast<std::uint32_t>(r.integer("aiv_cores", 1, 1024));
  p.l2_bytes = static_cast<double>(r.integer("l2_bytes", 0, std::uint64_t{1} << 40));
  p.ub_bank_groups = static_cast<std::uint32_t>(r.integer("timing.ub.bank_groups", 1, 256));
  p.ub_banks_per_group = static_cast<std::uint32_t>(r.integer("timing.ub.banks_per_group", 1, 64));
  p.ub_row_bytes = static_cast<std::uint32_t>(r.integer("timing.ub.row_bytes", 1, 4096));
  p.hbm_gbs = r.number("timing.chip.hbm_bandwidth_gbs", 1, 1e6);
  p.l2_gbs = r.number("timing.chip.l2_bandwidth_gbs", 1, 1e6);
  p.l2_model = r.boolean("timing.chip.l2_model");
  p.l2_chunk_bytes = static_cast<double>(r.integer("timing.chip.l2_chunk_bytes", 32, 1 << 24));
  p.l2_warm = r.boolean("timing.chip.l2_warm");
  p.gm_to_ub = read_curve(r, "timing.dma.gm_to_ub_gibs");
  p.ub_to_gm = read_curve(r, "timing.dma.ub_to_gm_gibs");
  p.dma_latency_ns = r.number("timing.dma.fixed_latency_ns", 0, 100000);
  p.window_bytes = static_cast<std::uint32_t>(r.integer("timing.dma.window_bytes", 32, 1 << 20));
  p.align_eff_32b = r.number("timing.dma.align_eff_32b", 0.01, 1);
  p.align_eff_unaligned = r.number("timing.dma.align_eff_unaligned", 0.01, 1);
  p.same_window_eff = r.number("timing.dma.same_window_eff", 0.01, 1);
  p.repeat_bytes = static_cast<std::uint32_t>(r.integer("timing.vector.repeat_bytes", 1, 1 << 16));
  p.max_repeats = static_cast<std::uint32_t>(r.integer("timing.vector.max_repeats", 1, 1 << 20));
  p.vec_floor_cycles = r.number("timing.vector.floor_cycles", 0, 1e6);
  p.vec_head_cycles = r.number("timing.vector.head_cycles", 0, 1e6);
  p.ub_copy_bytes_per_cycle = r.number("timing.vector.ub_copy_bytes_per_cycle", 1, 1e6);
  {
    const std::string path = "timing.vector.cycles_per_repeat";
    const auto& t = r.value(path);
    if (!t.is_object()) r.fail(path, "expected an object keyed by vector class");
    for (std::size_t i = 0; i < static_cast<std::size_t>(vec_class::count_); ++i) {
      const char* cls = vec_class_name(static_cast<vec_class>(i));
      if (!t.contains(cls) || !t[cls].is_object())
        r.fail(path, std::string("missing class '") + cls + "': expected {\"b16\": cycles, \"b32\": cycles}");
      const auto& row = t[cls];
      auto get = [&](const char* key, double fallback, bool required) {
        if (!row.contains(key)) {
          if (required) r.fail(path, std::string("class '") + cls + "' lacks '" + key + "' (cycles per repeat)");
          return fallback;
        }
        if (!row[key].is_number() || !(row[key].get<double>() > 0) || row[key].get<double>() > 1e4)
          r.fail(path, std::string("class '") + cls + "', '" + key + "': expected a positive number of cycles");
        return row[key].get<double>();
      };
      auto& out = p.cpr[i];
      out[1] = get("b16", 0, true);
      out[2] = get("b32", 0, true);
      out[0] = get("b8", out[1], false);
      out[3] = get("b64", out[2], false);
    }
    for (const auto& [key, val] : t.items()) {
      bool known = false;
      for (std::size_t i = 0; i < static_cast<std::size_t>(vec_class::count_); ++i)
        known = known || key == vec_class_name(static_cast<vec_class>(i));
      if (!known) r.fail(path, "unknown vector class '" + key + "' (known: the names of vec_class_name() in trace.h)");
    }
  }
  p.elem_access_cycles = r.number("timing.scalar.elem_access_cycles", 0, 1e4);
  p.api_issue_cycles = r.number("timing.scalar.api_issue_cycles", 0, 1e4);
  p.access_cycles[static_cast<int>(scalar_access::ub_scan)] = r.number("timing.scalar.ub_scan_cycles", 0, 1e4);
  p.access_cycles[static_cast<int>(scalar_access::gm_hit)] = r.number("timing.scalar.gm_hit_cycles", 0, 1e4);
  p.access_cycles[static_cast<int>(scalar_access::gm_miss)] = r.number("timing.scalar.gm_miss_cycles", 0, 1e4);
  p.sync_all_cycles = r.number("timing.scalar.sync_all_cycles", 0, 1e7);
  p.queue_depth = static_cast<std::uint32_t>(r.integer("timing.queue_depth", 1, 4096));
  p.launch_base_us = r.number("timing.launch.base_us", 0, 1e4);
  p.head_per_core_us = r.number("timing.launch.head_per_core_us", 0, 1e3);
  {
    const std::string path = "timing.cube.mmad_cycles_per_fractal";
    const auto& t = r.value(path);
    const char* keys[] = {"b8", "b16", "b32"};
    if (!t.is_object()) r.fail(path, "expected {\"b8\": cycles, \"b16\": cycles, \"b32\": cycles}");
    for (int i = 0; i < 3; ++i) {
      if (!t.contains(keys[i]) || !t[keys[i]].is_number() || !(t[keys[i]].get<double>() > 0) || t[keys[i]].get<double>() > 1e4)
        r.fail(path, std::string("'") + keys[i] + "': expected a positive number of cycles per 16 x C0 x 16 step");
      p.mmad_cycles_per_fractal[static_cast<std::size_t>(i)] = t[keys[i]].get<double>();
    }
  }
  p.mmad_head_cycles = r.number("timing.cube.mmad_head_cycles", 0, 1e6);
  p.mte1_l0a_bytes_per_cycle = r.number("timing.cube.mte1_l0a_bytes_per_cycle", 1, 1e6);
  p.mte1_l0b_bytes_per_cycle = r.number("timing.cube.mte1_l0b_bytes_per_cycle", 1, 1e6);
  p.mte1_start_cycles = r.number("timing.cube.mte1_start_cycles", 0, 1e6);
  p.fix_l0c_bytes_per_cycle = r.number("timing.cube.fix_l0c_bytes_per_cycle", 1, 1e6);
  p.fix_out_bytes_per_cycle = r.number("timing.cube.fix_out_bytes_per_cycle", 1, 1e6);
  p.nd2nz_start_cycles = r.number("timing.cube.nd2nz_start_cycles", 0, 1e6);
  p.nd2nz_bytes_per_cycle = r.number("timing.cube.nd2nz_bytes_per_cycle", 1, 1e6);
  return p;
}

}  // namespace aopt::sim
