#include "aopt_sim/timing.h"

namespace aopt::sim {

namespace {

// Same names as hw_error_kind_name() of the runtime; kept here so the timing library does not
// depend on the runtime's shared library.
const char* kind_name(hw_error_kind k) {
  switch (k) {
    case hw_error_kind::ub_overflow: return "ub_overflow";
    case hw_error_kind::misaligned: return "misaligned";
    case hw_error_kind::truncated_copy: return "truncated_copy";
    case hw_error_kind::param_out_of_range: return "param_out_of_range";
    case hw_error_kind::reserved_event: return "reserved_event";
    case hw_error_kind::double_set_event: return "double_set_event";
    case hw_error_kind::deadlock: return "deadlock";
    case hw_error_kind::gm_out_of_bounds: return "gm_out_of_bounds";
    case hw_error_kind::ub_out_of_bounds: return "ub_out_of_bounds";
    case hw_error_kind::sync_all_missing_core: return "sync_all_missing_core";
    case hw_error_kind::invalid_use: return "invalid_use";
  }
  return "unknown";
}

}  // namespace

nlohmann::json timing_report::to_json() const {
  nlohmann::json j;
  j["simulated"] = true;
  j["profile"] = profile;
  j["Task Duration(us)"] = task_duration_us;
  j["aiv_time(us)"] = aiv_time_us;
  j["aiv_vec_time(us)"] = vec_us;
  j["aiv_vec_ratio"] = vec_ratio;
  j["aiv_scalar_time(us)"] = scalar_us;
  j["aiv_scalar_ratio"] = scalar_ratio;
  j["aiv_mte2_time(us)"] = mte2_us;
  j["aiv_mte2_ratio"] = mte2_ratio;
  j["aiv_mte3_time(us)"] = mte3_us;
  j["aiv_mte3_ratio"] = mte3_ratio;
  j["aiv_vec_bankgroup_cflt_ratio"] = bank_conflict_ratio;
  j["GM_to_UB_datas(KB)"] = gm_to_ub_kb;
  j["UB_to_GM_datas(KB)"] = ub_to_gm_kb;
  j["Block Dim"] = block_dim;
  j["cores_used"] = cores_used;
  j["waves"] = waves;
  if (error) {
    j["hw_error"] = {{"kind", kind_name(error->kind)},
                     {"message", error->message},
                     {"file", error->site.file},
                     {"line", error->site.line},
                     {"function", error->site.function},
                     {"api", error->site.api},
                     {"block_idx", error->block_idx}};
  } else {
    j["hw_error"] = nullptr;
  }
  return j;
}

}  // namespace aopt::sim
