#include "aopt_sim/timing.h"

namespace aopt::sim {

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
  if (mac_us > 0 || mte1_us > 0 || fix_us > 0) {
    j["aic_mac_time(us)"] = mac_us;
    j["aic_mac_ratio"] = mac_ratio;
    j["aic_mte1_time(us)"] = mte1_us;
    j["aic_fixpipe_time(us)"] = fix_us;
  }
  j["GM_to_UB_datas(KB)"] = gm_to_ub_kb;
  j["UB_to_GM_datas(KB)"] = ub_to_gm_kb;
  j["Block Dim"] = block_dim;
  j["cores_used"] = cores_used;
  j["waves"] = waves;
  if (error) {
    j["hw_error"] = {{"kind", hw_error_kind_name(error->kind)},
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
