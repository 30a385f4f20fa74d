#include "aopt/evaluation/sandbox.h"

#include <algorithm>
#include <cstdlib>
#include <mutex>
#include <set>

#include "aopt/common/log.h"
#include "aopt/evaluation/toolchain.h"

namespace aopt::evaluation {

namespace fs = std::filesystem;
using common::mount_entry;

namespace {

std::string real_path(const fs::path& p) {
  std::error_code e;
  const fs::path c = fs::weakly_canonical(fs::absolute(p), e);
  return (e ? fs::absolute(p) : c).lexically_normal().string();
}

// The toolchain's files (emulator headers, profiles, precompiled headers, prebuilt harness
// libraries, the reference main), outside /usr, each once and not below another.
std::vector<std::string> toolchain_paths() {
  static const std::vector<std::string> paths = [] {
    const auto& tc = toolchain::get();
    std::vector<std::string> all;
    auto add = [&](const std::string& p) {
      if (!p.empty() && fs::path(p).is_absolute()) all.push_back(real_path(p));
    };
    add(tc.sim_include);
    add(tc.profile_dir);
    add(tc.eval_include);
    add(tc.reference_main_lib);
    add(tc.host_rpath);
    for (const auto& h : {tc.pch_header, tc.host_pch_header}) {
      if (!h.empty()) add(fs::path(h).parent_path().string());
    }
    for (const auto& item : tc.host_link) add(item);
    std::sort(all.begin(), all.end());
    std::vector<std::string> out;
    for (const auto& p : all) {
      if (path_under(p, "/usr")) continue;
      if (!out.empty() && path_under(p, out.back())) continue;
      out.push_back(p);
    }
    return out;
  }();
  return paths;
}

// What a built candidate loads when it runs: the runtime library's directory (the host's rpath).
// Headers, static libraries and the precompiled headers stay out of a run's root.
std::vector<std::string> run_toolchain_paths() {
  static const std::vector<std::string> paths = [] {
    std::vector<std::string> out;
    const auto& rpath = toolchain::get().host_rpath;
    if (!rpath.empty() && fs::path(rpath).is_absolute() && !path_under(real_path(rpath), "/usr")) out.push_back(real_path(rpath));
    return out;
  }();
  return paths;
}

common::isolation base(const sandbox_policy& p, std::uint64_t tmp_bytes, std::uint32_t max_processes,
                       const std::vector<std::string>& toolchain_parts) {
  common::isolation iso;
  iso.enabled = p.isolate;
  iso.max_processes = max_processes;
  iso.mounts = common::system_mounts(tmp_bytes);
  for (const auto& t : toolchain_parts) iso.mounts.push_back({mount_entry::kind::read_only, t, "", 0, true});
  for (const auto& d : p.devices) iso.mounts.push_back({mount_entry::kind::writable, d, "", 0, true});
  return iso;
}

}  // namespace

bool isolation_default() {
  const char* v = std::getenv("AOPT_SANDBOX");
  return !(v && std::string(v) == "0");
}

std::vector<std::string> devices_default() {
  std::vector<std::string> out;
  const char* v = std::getenv("AOPT_SANDBOX_DEVICES");
  std::string list = v ? v : "";
  for (std::size_t at = 0; at <= list.size();) {
    const auto colon = list.find(':', at);
    const std::string d = list.substr(at, colon == std::string::npos ? std::string::npos : colon - at);
    if (!d.empty()) out.push_back(d);
    if (colon == std::string::npos) break;
    at = colon + 1;
  }
  return out;
}

common::isolation compile_isolation(const sandbox_policy& p, const fs::path& build_dir) {
  auto iso = base(p, std::uint64_t(1) << 30, p.max_compile_processes, toolchain_paths());
  iso.mounts.push_back({mount_entry::kind::writable, real_path(build_dir), "", 0, false});
  const auto& cc = toolchain::get().ccache_dir;
  if (!cc.empty()) iso.mounts.push_back({mount_entry::kind::writable, real_path(cc), "", 0, true});
  return iso;
}

common::isolation run_session_base(const sandbox_policy& p, const std::vector<fs::path>& read_only) {
  auto iso = base(p, p.disk_bytes / 2, p.max_processes, run_toolchain_paths());
  std::set<std::string> seen;
  for (const auto& r : read_only) {
    const std::string c = real_path(r);
    if (seen.insert(c).second) iso.mounts.push_back({mount_entry::kind::read_only, c, "", 0, false});
  }
  return iso;
}

common::isolation run_isolation(const sandbox_policy& p, const std::vector<fs::path>& read_only, const fs::path& run_dir,
                                const std::vector<fs::path>& files_in_run_dir) {
  auto iso = base(p, p.disk_bytes / 2, p.max_processes, run_toolchain_paths());
  const std::string rd = real_path(run_dir);
  std::set<std::string> seen;
  for (const auto& r : read_only) {
    const std::string c = real_path(r);
    if (path_under(c, rd) || !seen.insert(c).second) continue;  // those are bound after the tmpfs below
    iso.mounts.push_back({mount_entry::kind::read_only, c, "", 0, false});
  }
  iso.mounts.push_back({mount_entry::kind::tmpfs, "", rd, p.disk_bytes / 2, false});
  for (const auto& f : files_in_run_dir) iso.mounts.push_back({mount_entry::kind::read_only, real_path(f), "", 0, false});
  for (const auto& r : read_only) {
    const std::string c = real_path(r);
    if (path_under(c, rd) && seen.insert(c).second) iso.mounts.push_back({mount_entry::kind::read_only, c, "", 0, false});
  }
  return iso;
}

common::isolation script_isolation(const sandbox_policy& p, const std::vector<fs::path>& read_only) {
  auto iso = base(p, std::uint64_t(64) << 20, 64, {});
  for (const auto& r : read_only) iso.mounts.push_back({mount_entry::kind::read_only, real_path(r), "", 0, false});
  return iso;
}

std::string isolation_warning(const sandbox_policy& p) {
  if (!p.isolate) return {};
  const auto& s = common::probe_isolation();
  if (s.namespaces) return {};
  static std::once_flag once;
  std::call_once(once, [&] { common::logger()->warn("{}", s.why); });
  return "not isolated: " + s.why;
}

}  // namespace aopt::evaluation
