#include "aopt/evaluation/toolchain.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <sstream>

#include "aopt/common/error.h"
#include "aopt/common/fast_hash.h"
#include "aopt/common/fs.h"
#include "aopt/common/sha256.h"
#include "aopt/evaluation/build_config.h"

#include "aopt/common/subprocess.h"

namespace aopt::evaluation {

namespace fs = std::filesystem;

namespace {

std::string env_or(const char* name, const std::string& fallback) {
  const char* v = std::getenv(name);
  return v ? std::string(v) : fallback;
}

std::vector<std::string> split_ws(const std::string& s) {
  std::istringstream in(s);
  std::vector<std::string> out;
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

// A path that exists and can be looked at: an unreadable directory on the way is "absent", not
// an exception.
bool present(const fs::path& p) {
  std::error_code e;
  return fs::exists(p, e);
}

bool on_path(const std::string& exe) { return !common::find_on_path(exe).empty(); }

}  // namespace

const toolchain& toolchain::get() {
  static const toolchain tc = [] {
    toolchain t;
    t.cxx = env_or("AOPT_CXX", AOPT_CXX);
    if (env_or("AOPT_CCACHE", "1") != "0" && on_path("ccache")) t.launcher = {"ccache"};
    t.sim_include = env_or("AOPT_SIM_INCLUDE_DIR", AOPT_SIM_INCLUDE_DIR);
    t.profile_dir = env_or("AOPT_PROFILE_DIR", AOPT_PROFILE_DIR);
    t.pch_header = env_or("AOPT_PCH_HEADER", AOPT_HAVE_PCH ? AOPT_PCH_HEADER : "");
    if (!t.pch_header.empty() && !present(t.pch_header + ".gch")) t.pch_header.clear();
    t.host_pch_header = env_or("AOPT_HOST_PCH_HEADER", AOPT_HAVE_HOST_PCH ? AOPT_HOST_PCH_HEADER : "");
    if (!t.host_pch_header.empty() && !present(t.host_pch_header + ".gch")) t.host_pch_header.clear();
    t.common_flags = split_ws(env_or("AOPT_KERNEL_COMMON_FLAGS", AOPT_KERNEL_COMMON_FLAGS));
    t.host_flags = split_ws(env_or("AOPT_HOST_EXTRA_FLAGS", AOPT_HOST_EXTRA_FLAGS));
    t.fixed_defines = split_ws(AOPT_KERNEL_FIXED_DEFINES);
    const char* link_env = std::getenv("AOPT_HOST_LINK");
    if (link_env) {
      t.host_link = split_ws(link_env);
      t.host_chain_complete = true;
    } else {
      t.host_link = std::vector<std::string> AOPT_HOST_LINK_ITEMS;
      t.host_chain_complete = AOPT_HOST_CHAIN_COMPLETE != 0;
    }
    t.host_rpath = env_or("AOPT_HOST_RPATH", AOPT_HOST_RPATH);
    t.eval_include = env_or("AOPT_EVAL_INCLUDE_DIR", AOPT_EVAL_INCLUDE_DIR);
    t.reference_main_lib = env_or("AOPT_REFERENCE_MAIN_LIB", AOPT_REFERENCE_MAIN_LIB);
    t.use_mold = AOPT_USE_MOLD != 0;
    if (!t.launcher.empty()) {
      // Isolated compiles see only the directories they need: ask ccache where it stores.
      common::process_request req;
      req.argv = {t.launcher.front(), "-k", "cache_dir"};
      req.limits.wall_timeout = std::chrono::seconds(10);
      const auto out = common::run_process(req);
      std::string dir = out.ok() ? out.out : std::string();
      while (!dir.empty() && (dir.back() == '\n' || dir.back() == '\r')) dir.pop_back();
      if (!dir.empty()) {
        std::error_code e;
        fs::create_directories(dir, e);
        t.ccache_dir = dir;
      } else {
        t.launcher.clear();  // an old ccache without -k: compile without it rather than unisolated
      }
    }
    return t;
  }();
  return tc;
}

void toolchain::check_host_chain() const {
  if (!host_chain_complete) {
    throw error(ec::toolchain_error,
                "the sim harness chain (aopt_harness, aopt_sim_host, aopt_sim_timing, aopt_sim_profile, "
                "aopt_sim_runtime) was not part of this build when it was configured; re-run cmake once sim/ "
                "provides them, or set AOPT_HOST_LINK to the link items");
  }
  for (const auto& item : host_link) {
    if (!item.empty() && item[0] == '/' && !present(item)) {
      throw error(ec::toolchain_error, item + ": prebuilt library missing; build it first "
                                              "(cmake --build <build-dir> --target aopt)");
    }
  }
  if (!present(fs::path(sim_include) / "kernel_operator.h")) {
    throw error(ec::toolchain_error, sim_include + "/kernel_operator.h missing: the sim headers are not where "
                                                   "the build expected them; set AOPT_SIM_INCLUDE_DIR");
  }
}

const std::string& toolchain::id() const {
  static std::once_flag once;
  static std::string value;
  std::call_once(once, [this] {
    common::sha256 h;
    // Per-file digests are the fast 64-bit hash (some 30 MB of prebuilt libraries are read at every
    // start); the id itself stays SHA-256 over them.
    h.field("aopt-toolchain-v2").field(cxx);
    for (const auto& f : common_flags) h.field(f);
    for (const auto& f : fixed_defines) h.field(f);
    for (const auto& f : host_flags) h.field("host:" + f);
    h.field(host_pch_header.empty() ? "no-host-pch" : "host-pch");
    auto hash_file = [&](const fs::path& p) {
      std::error_code e;
      if (fs::is_regular_file(p, e)) {
        h.field(p.filename().string());
        char buf[24];
        std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(common::fast_hash_file(p)));
        h.field(buf);
      }
    };
    std::error_code e;
    if (fs::is_directory(sim_include, e)) {
      std::vector<fs::path> files;
      for (const auto& f : fs::recursive_directory_iterator(sim_include)) {
        if (f.is_regular_file()) files.push_back(f.path());
      }
      std::sort(files.begin(), files.end());
      for (const auto& f : files) hash_file(f);
    }
    for (const auto& item : host_link) {
      if (!item.empty() && item[0] == '/') hash_file(item);
      else h.field(item);
    }
    hash_file(reference_main_lib);
    value = h.finish_hex();
  });
  return value;
}

}  // namespace aopt::evaluation
