// Device profiles: every constant of the emulated chip, each with its source, in
// sim/profiles/<name>.json. Loader: sim/profile/. Used by the runtime (cores, UB), the host
// API (PlatformAscendC) and the timing model (the "timing" section, read from `raw`).
#pragma once

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

namespace aopt::sim {

struct device_profile {
  std::string name;               // "910b4", "a2"
  std::string soc_version;        // "Ascend910B4"; PlatformAscendC::GetSocVersion answers from it
  std::uint32_t aiv_cores = 0;    // vector cores
  std::uint32_t aic_cores = 0;    // cube cores
  double clock_ghz = 0;
  std::uint64_t ub_bytes = 0;     // UB per AIV core
  std::uint64_t ub_usable_bytes = 0;  // what a kernel may use by default (GetCoreMemSize(UB)); the rest is reserved
  std::uint64_t l1_bytes = 0;      // per AIC; the Cube's other buffers follow (docs/sim.md, "The Cube unit")
  std::uint64_t l0a_bytes = 0;
  std::uint64_t l0b_bytes = 0;
  std::uint64_t l0c_bytes = 0;
  std::uint64_t bt_bytes = 0;      // bias table (C2)
  std::uint64_t fb_bytes = 0;      // fixpipe buffer
  std::uint64_t l2_bytes = 0;
  std::uint64_t hbm_bytes = 0;
  nlohmann::json raw;             // the whole file, sources included
};

// Directory holding the built-in profiles (env AOPT_PROFILE_DIR overrides).
std::string profile_dir();
// Loads `name_or_path`: a name ("910b4") looked up in profile_dir(), or a path to a .json file.
// Throws std::runtime_error naming the file and the field on any malformed or missing value.
device_profile load_profile(const std::string& name_or_path);

}  // namespace aopt::sim
