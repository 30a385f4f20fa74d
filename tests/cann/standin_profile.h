// The command profile (cann.toml) of the stand-in toolchain of tests/cann/standin/, as the cann
// tests write it: the real templates, the stand-in's toolkit and project, and the [environment]
// that points the scripts at the stand-in device (AOPT_STANDIN_DEVICE_BINARY, from CMake) and
// set_env.sh at the stand-in runtime's libraries (AOPT_STANDIN_LIB64_DIR). The commands are those
// of config/cann.example.toml; the run command is the real runner, apps/aopt-acl-run
// (AOPT_ACL_RUN_BINARY, on PATH through AOPT_STANDIN_BIN), against that runtime.
#pragma once

#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>

namespace aopt::testing {

struct standin_profile {
  std::string name = {};                                // [cann] name ("" = the default, "cann")
  std::string soc_version = {};                         // "" = the profile's default
  int warmup = 2, repeat = 9;                           // [measure]
  int launches = 0;                                     // [measure] launches (0: the default)
  std::string timeouts = {};                            // lines of [timeouts], e.g. "run = 4\n"
  std::map<std::string, std::string> environment = {};  // besides AOPT_STANDIN_DEVICE
  std::string extra = {};                               // appended as is (more tables)
  std::set<std::string> without = {};                   // [commands] keys left out (e.g. the partial builds)
};

// The [commands] lines of config/cann.example.toml, as a site copies them (`key = "line"`).
inline std::map<std::string, std::string> example_commands() {
  std::ifstream in(std::string(AOPT_TEST_SOURCE_DIR) + "/config/cann.example.toml");
  std::map<std::string, std::string> out;
  bool commands = false;
  for (std::string line; std::getline(in, line);) {
    if (!line.empty() && line[0] == '[') commands = line.rfind("[commands]", 0) == 0;
    const auto eq = line.find(" = \"");
    if (!commands || line.empty() || line[0] == '#' || eq == std::string::npos) continue;
    const auto close = line.find('"', eq + 4);
    if (close != std::string::npos) out[line.substr(0, eq)] = line.substr(eq + 4, close - eq - 4);
  }
  return out;
}

inline void write_standin_profile(const std::filesystem::path& file, const standin_profile& p) {
  const std::string src = AOPT_TEST_SOURCE_DIR;
  std::ofstream f(file);
  f << "[cann]\ntoolkit = \"" << src << "/tests/cann/standin/toolkit\"\n"
    << "project_template = \"" << src << "/tests/cann/standin/project\"\n";
  if (!p.name.empty()) f << "name = \"" << p.name << "\"\n";
  if (!p.soc_version.empty()) f << "soc_version = \"" << p.soc_version << "\"\n";
  // The example's commands, verbatim: the stand-in toolchain answers them as CANN's tools would
  // (the installer asks without --quiet, msprof op takes --kernel-name as a prefix and does not
  // search PATH), so what a site copies is what is tested. aopt-acl-run is found on PATH, where
  // set_env.sh puts AOPT_STANDIN_BIN.
  auto cmd = example_commands();
  f << "[commands]\n";
  for (const char* k : {"build", "install", "run", "profile", "build_tiling", "build_kernel"}) {
    if (!p.without.count(k)) f << k << " = \"" << cmd[k] << "\"\n";
  }
  if (!p.timeouts.empty()) f << "[timeouts]\n" << p.timeouts;
  f << "[measure]\nwarmup = " << p.warmup << "\nrepeat = " << p.repeat << "\n";
  if (p.launches > 0) f << "launches = " << p.launches << "\n";
  f << "[environment]\nAOPT_STANDIN_DEVICE = \"" << AOPT_STANDIN_DEVICE_BINARY << "\"\n"
    << "AOPT_STANDIN_LIB64 = \"" << AOPT_STANDIN_LIB64_DIR << "\"\n"
    << "AOPT_STANDIN_BIN = \"" << std::filesystem::path(AOPT_ACL_RUN_BINARY).parent_path().string() << "\"\n";
  for (const auto& [k, v] : p.environment) f << k << " = \"" << v << "\"\n";
  f << p.extra;
}

}  // namespace aopt::testing
