#include "aopt/jobs/device_setup.h"

#include "aopt/common/error.h"
#include "aopt/evaluation/cann.h"
#include "aopt_sim/profile.h"

namespace aopt::jobs {

std::vector<device_config> default_sim_devices(std::size_t n, const std::string& profile) {
  if (n == 0) n = default_slots();
  std::vector<device_config> out;
  for (std::size_t i = 0; i < n; ++i) out.push_back({"sim" + std::to_string(i), "sim", profile, {}, {}});
  return out;
}

device_setup set_up_device(const device_config& d, const slot_options& base) {
  device_setup s;
  s.config = d;
  s.slot = base;
  s.slot.profile = d.profile;
  s.slot.slots = 1;
  try {
    s.chip = sim::load_profile(d.profile).name;
  } catch (const std::exception& e) {
    throw error(ec::invalid_argument, "device " + d.id + ": profile '" + d.profile + "': " + e.what());
  }
  s.device_class = s.chip;
  if (d.kind == "npu") {
    s.slot.backend = "cann";
    s.slot.cann_config = d.cann_config;
    s.slot.cann_device = d.npu_device;
    try {
      s.device_class = evaluation::load_cann_profile(d.cann_config).name;
    } catch (const std::exception& e) {
      throw error(ec::invalid_argument, "device " + d.id + ": " + e.what());
    }
  }
  return s;
}

}  // namespace aopt::jobs
