#include "aopt_sim/profile.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "aopt_sim/timing_params.h"
#include "field.h"

#ifndef AOPT_SIM_PROFILE_DIR
#error "AOPT_SIM_PROFILE_DIR must be defined by sim/profile/CMakeLists.txt"
#endif

namespace aopt::sim {

std::string profile_dir() {
  if (const char* env = std::getenv("AOPT_PROFILE_DIR"); env != nullptr && *env != '\0') return env;
  return AOPT_SIM_PROFILE_DIR;
}

device_profile load_profile(const std::string& name_or_path) {
  namespace fs = std::filesystem;
  if (name_or_path.empty())
    throw std::runtime_error("load_profile: empty profile name; give a name such as '910b4' or a path to a .json file");
  fs::path path;
  const bool is_path = name_or_path.find('/') != std::string::npos ||
                       (name_or_path.size() > 5 && name_or_path.ends_with(".json"));
  path = is_path ? fs::path(name_or_path) : fs::path(profile_dir()) / (name_or_path + ".json");
  // A profile is a small JSON file: a device, a FIFO or a huge file is refused unread.
  constexpr std::uintmax_t max_bytes = 4u << 20;
  std::error_code e;
  if (fs::exists(path, e) && (!fs::is_regular_file(path, e) || fs::file_size(path, e) > max_bytes)) {
    throw std::runtime_error("device profile '" + name_or_path + "': " + path.string() +
                             " is not a regular file of at most " + std::to_string(max_bytes >> 20) + " MiB");
  }
  std::ifstream in(path);
  if (!in) {
    throw std::runtime_error("device profile '" + name_or_path + "': cannot open " + path.string() +
                             (is_path ? "" : " (profiles are looked up in " + profile_dir() +
                                                 "; set AOPT_PROFILE_DIR or pass a path)"));
  }
  std::stringstream ss;
  ss << in.rdbuf();
  nlohmann::json raw;
  try {
    raw = nlohmann::json::parse(ss.str());
  } catch (const nlohmann::json::parse_error& e) {
    throw std::runtime_error(path.string() + ": not valid JSON: " + e.what());
  }
  if (!raw.is_object()) throw std::runtime_error(path.string() + ": expected a JSON object at the top level");
  const detail::field_reader r(raw, path.string());
  if (r.integer("format", 1, 1) != 1) r.fail("format", "expected 1");
  device_profile p;
  p.name = r.string("name");
  p.soc_version = r.string("soc_version");
  p.aiv_cores = static_cast<std::uint32_t>(r.integer("aiv_cores", 1, 1024));
  p.aic_cores = static_cast<std::uint32_t>(r.integer("aic_cores", 0, 1024));
  p.clock_ghz = r.number("clock_ghz", 0.1, 10);
  p.ub_bytes = r.integer("ub_bytes", 1024, std::uint64_t{1} << 30);
  const auto usable = r.integer("ub_usable_bytes", 1024, std::uint64_t{1} << 30);
  if (usable > p.ub_bytes) r.fail("ub_usable_bytes", "must not exceed ub_bytes (" + std::to_string(p.ub_bytes) + ")");
  p.ub_usable_bytes = usable;
  p.l1_bytes = r.integer("l1_bytes", 0, std::uint64_t{1} << 24);
  p.l0a_bytes = r.integer("l0a_bytes", 0, std::uint64_t{1} << 24);
  p.l0b_bytes = r.integer("l0b_bytes", 0, std::uint64_t{1} << 24);
  p.l0c_bytes = r.integer("l0c_bytes", 0, std::uint64_t{1} << 24);
  p.bt_bytes = r.integer("bt_bytes", 0, std::uint64_t{1} << 20);
  p.fb_bytes = r.integer("fb_bytes", 0, std::uint64_t{1} << 20);
  p.l2_bytes = r.integer("l2_bytes", 0, std::uint64_t{1} << 40);
  p.hbm_bytes = r.integer("hbm_bytes", 0, std::uint64_t{1} << 50);
  (void)parse_timing_params(raw, path.string());  // validates the timing section
  p.raw = std::move(raw);
  return p;
}

}  // namespace aopt::sim
