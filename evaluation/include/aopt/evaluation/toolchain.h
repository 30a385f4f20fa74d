// Where candidate builds find the compiler, the emulator headers, the precompiled header and the
// prebuilt harness libraries. Baked in at configure time (generated build_config.h); each value
// can be overridden by the environment variable of the same name:
//   AOPT_CXX, AOPT_SIM_INCLUDE_DIR, AOPT_PROFILE_DIR, AOPT_PCH_HEADER (empty = no PCH),
//   AOPT_HOST_LINK (space-separated link items), AOPT_HOST_RPATH, AOPT_REFERENCE_MAIN_LIB,
//   AOPT_EVAL_INCLUDE_DIR, AOPT_CCACHE (0 disables ccache for candidate builds).
#pragma once

#include <string>
#include <vector>

namespace aopt::evaluation {

struct toolchain {
  std::string cxx;
  std::vector<std::string> launcher;        // e.g. {"ccache"} or empty
  std::string sim_include;
  std::string profile_dir;
  std::string pch_header;                   // "" = no PCH
  std::string host_pch_header;              // precompiled host prefix; "" = none (AOPT_HOST_PCH_HEADER="" disables)
  std::vector<std::string> common_flags;    // -std=c++17 -O2 -mf16c -fPIC
  std::vector<std::string> host_flags;      // appended for host sources: -O0
  std::vector<std::string> fixed_defines;   // -D__CCE_AICORE__=220 ...
  std::vector<std::string> host_link;       // full link items of the harness chain
  std::string host_rpath;
  bool host_chain_complete = false;
  std::string eval_include;
  std::string reference_main_lib;
  bool use_mold = false;
  std::string ccache_dir;                   // where the launcher stores (writable for isolated compiles)

  // Throws aopt::error(toolchain_error) saying what is missing and how to build it.
  void check_host_chain() const;
  // Content fingerprint of headers and libraries (part of every candidate key). Cached.
  const std::string& id() const;

  static const toolchain& get();
};

}  // namespace aopt::evaluation
