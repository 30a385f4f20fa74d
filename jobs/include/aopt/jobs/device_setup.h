// One evaluation device as aoptd ([[devices]], apps/aoptd/job_manager.cpp) and aopt-node
// (--devices, --device, --npu; apps/aopt-node/main.cpp) set it up: a sim device of a profile,
// or an npu device measured by the cann backend. Resolving it loads its sim profile (the chip)
// and, for an npu, its command profile, whose [cann] name is the device's class; the slot
// options are those of its evaluator (jobs::make_sim_slots).
#pragma once

#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "aopt/jobs/sim_slots.h"

namespace aopt::jobs {

struct device_config {
  std::string id;                     // "sim0", "npu1"
  std::string kind = "sim";           // "sim" or "npu"
  std::string profile;                // sim: the device's profile; npu: its chip's (name or .json file)
  std::filesystem::path cann_config;  // npu: the cann backend's command profile
  std::optional<int> npu_device;      // npu: the device id (default: the command profile's)
};

struct device_setup {
  device_config config;
  std::string device_class;  // sim: the profile's name; npu: the command profile's [cann] name
  std::string chip;          // the sim profile's name (npu: the search's estimates use it)
  slot_options slot;         // one evaluator slot on this device
};

// Devices sim0..sim<n-1> of `profile`; n = 0: default_slots() of them.
std::vector<device_config> default_sim_devices(std::size_t n, const std::string& profile);

// Resolves `d`; `base` gives the cache settings of its slot. Throws aopt::error(invalid_argument)
// naming the device when its sim profile or command profile cannot be loaded.
device_setup set_up_device(const device_config& d, const slot_options& base);

}  // namespace aopt::jobs
