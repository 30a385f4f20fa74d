// The command profile (cann.toml) of the stand-in toolchain of tests/cann/standin/, as the cann
// tests write it: the real templates, the stand-in's toolkit and project, and the [environment]
// that points the scripts at the stand-in device (AOPT_STANDIN_DEVICE_BINARY, from CMake) and
// set_env.sh at the stand-in runtime's libraries (AOPT_STANDIN_LIB64_DIR). The run command is
// the real runner, apps/aopt-acl-run (AOPT_ACL_RUN_BINARY), against that runtime.
#pragma once

#include <filesystem>
#include <fstream>
#include <map>
#include <string>

namespace aopt::testing {

struct standin_profile {
  std::string name = {};                          // [cann] name ("" = the default, "cann")
  std::string soc_version;                        // "" = the profile's default
  int warmup = 2, repeat = 9;                     // [measure]
  std::string timeouts;                           // lines of [timeouts], e.g. "run = 4\n"
  std::map<std::string, std::string> environment; // besides AOPT_STANDIN_DEVICE
  std::string extra;                              // appended as is (more tables)
};

inline void write_standin_profile(const std::filesystem::path& file, const standin_profile& p) {
  const std::string src = AOPT_TEST_SOURCE_DIR;
  std::ofstream f(file);
  f << "[cann]\ntoolkit = \"" << src << "/tests/cann/standin/toolkit\"\n"
    << "project_template = \"" << src << "/tests/cann/standin/project\"\n";
  if (!p.name.empty()) f << "name = \"" << p.name << "\"\n";
  if (!p.soc_version.empty()) f << "soc_version = \"" << p.soc_version << "\"\n";
  f << "[commands]\nbuild = \"cd {project} && bash build.sh\"\n"
    << "install = \"{project}/build_out/custom_opp_*.run --install-path={install}\"\n"
    << "run = \"" << AOPT_ACL_RUN_BINARY << " {run_json}\"\n"
    << "profile = \"msprof op --output={prof_dir} --kernel-name={kernel} --launch-count=1 {app}\"\n";
  if (!p.timeouts.empty()) f << "[timeouts]\n" << p.timeouts;
  f << "[measure]\nwarmup = " << p.warmup << "\nrepeat = " << p.repeat << "\n"
    << "[environment]\nAOPT_STANDIN_DEVICE = \"" << AOPT_STANDIN_DEVICE_BINARY << "\"\n"
    << "AOPT_STANDIN_LIB64 = \"" << AOPT_STANDIN_LIB64_DIR << "\"\n";
  for (const auto& [k, v] : p.environment) f << k << " = \"" << v << "\"\n";
  f << p.extra;
}

}  // namespace aopt::testing
