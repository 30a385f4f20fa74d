// CANN's CPU-debug library as emulated on `sim` (layout 2, kernel-direct projects; see
// docs/harness-protocol.md "Layout 2"). The sample's own main.cpp, compiled with
// -DASCENDC_CPU_DEBUG, allocates GM with AscendC::GmAlloc, optionally picks a tiling key with
// ICPU_SET_TILING_KEY, and runs the kernel with ICPU_RUN_KF(kernel, blockDim, args...).
//
// ICPU_RUN_KF runs kernel(args...) once per block on blockDim emulated AIV cores
// (aopt::sim::launch), with the core count and UB size of the device profile (env
// AOPT_PROFILE, a name or a .json path; default "910b4"). The arguments are evaluated once, on
// the calling thread, and every block receives its own copy. The traces are then replayed
// through the timing model, which also finds the hardware errors only a timeline reveals
// (deadlock, double SetFlag). A hardware error is printed on stderr with its site and the
// process exits with status 1, as CANN's CPU mode fails loudly. With env AOPT_TIMING_OUT=path
// the timing report (msprof field names) is written there as JSON after every launch.
//
// Header-only: a layout-2 build compiles with -I sim/include -I sim/timing/include
// -I sim/profile/include and links aopt_sim_runtime, aopt_sim_timing and aopt_sim_profile.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <fstream>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "aopt_sim/profile.h"
#include "aopt_sim/runtime.h"
#include "aopt_sim/timing.h"

// The kernel modes of SetKernelMode; CANN declares the enum at global scope (samples write
// KernelMode::AIV_MODE without a namespace).
enum class KernelMode { MIX_MODE = 0, AIC_MODE, AIV_MODE };

namespace aopt::sim::cpu_debug {

// Where an ICPU_RUN_KF call is written, for error messages.
struct run_site {
  const char* kernel = "";  // the spelling of the kernel argument
  const char* file = "";
  unsigned line = 0;
};

// What one launch produced (kept for the whole process; the timing file lists every launch).
struct launch_record {
  std::string kernel;
  std::uint32_t block_dim = 0;
  std::uint64_t tiling_key = 0;
  std::uint32_t ub_bytes = 0;  // peak UB use over the blocks
  nlohmann::json timing;       // timing_report::to_json(), or {"hw_error": ...} on failure
};

// Process-wide CPU-debug state: the tiling key for the next launch, the loaded profile, the
// launches so far.
struct state {
  std::mutex mu;
  std::uint64_t tiling_key = 0;
  // SetKernelMode's cores (AIC_MODE: AIC-only; MIX_MODE: one AIC and two AIVs a block); a kernel's
  // own KERNEL_TASK_TYPE declarations come first.
  std::optional<kernel_type> mode_type;
  bool profile_loaded = false;
  device_profile profile;
  std::vector<launch_record> launches;
  std::size_t gm_allocs = 0;
};

inline state& global_state() {
  static state s;
  return s;
}

// Prints "aopt sim: ICPU_RUN_KF(kernel) at file:line: message" and exits with status 1.
[[noreturn]] inline void fail_run(const run_site& site, const std::string& message) {
  std::fprintf(stderr, "aopt sim: ICPU_RUN_KF(%s) at %s:%u: %s\n", site.kernel, site.file, site.line,
               message.c_str());
  std::fflush(stderr);
  std::exit(1);
}

// The profile named by env AOPT_PROFILE (name or path), default "910b4"; loaded once.
inline const device_profile& current_profile(const run_site& site) {
  state& s = global_state();
  std::lock_guard lk(s.mu);
  if (!s.profile_loaded) {
    const char* env = std::getenv("AOPT_PROFILE");
    const std::string name = (env != nullptr && *env != '\0') ? env : "910b4";
    try {
      s.profile = load_profile(name);
    } catch (const std::exception& e) {
      fail_run(site, std::string("cannot load device profile '") + name + "' (env AOPT_PROFILE): " + e.what() +
                         "; set AOPT_PROFILE to a profile name in " + profile_dir() + " or to a .json path");
    }
    s.profile_loaded = true;
  }
  return s.profile;
}

inline nlohmann::json hw_error_to_json(const hw_error& e) {
  return {{"kind", hw_error_kind_name(e.kind)}, {"message", e.message},   {"file", e.site.file},
          {"line", e.site.line},                {"function", e.site.function}, {"api", e.site.api},
          {"block_idx", e.block_idx}};
}

// Writes env AOPT_TIMING_OUT (when set): the last launch's timing fields at top level, plus
// "kernel", "tiling_key", "ub_bytes" and "launches" (every launch of the process, in order).
inline void write_timing_file(const run_site& site) {
  const char* path = std::getenv("AOPT_TIMING_OUT");
  if (path == nullptr || *path == '\0') return;
  state& s = global_state();
  nlohmann::json out;
  nlohmann::json all = nlohmann::json::array();
  {
    std::lock_guard lk(s.mu);
    for (const auto& l : s.launches) {
      nlohmann::json j = l.timing;
      j["kernel"] = l.kernel;
      j["tiling_key"] = l.tiling_key;
      j["ub_bytes"] = l.ub_bytes;
      j["Block Dim"] = l.block_dim;
      all.push_back(std::move(j));
    }
  }
  if (!all.empty()) out = all.back();
  out["launches"] = std::move(all);
  std::ofstream f(path, std::ios::trunc);
  if (!f) {
    std::fprintf(stderr, "aopt sim: ICPU_RUN_KF(%s) at %s:%u: cannot write the timing file '%s' (env AOPT_TIMING_OUT)\n",
                 site.kernel, site.file, site.line, path);
    std::fflush(stderr);
    std::exit(1);
  }
  f << out.dump(2) << '\n';
}

// Runs `body` on block_dim emulated cores, replays the traces through the timing model,
// records the launch. Exits the process with status 1 on a hardware error.
inline void run_blocks(const run_site& site, std::int64_t block_dim, const std::function<void()>& body) {
  if (block_dim <= 0 || block_dim > 65535) {
    fail_run(site, "blockDim is " + std::to_string(block_dim) + "; it must be between 1 and 65535");
  }
  const device_profile& prof = current_profile(site);
  launch_options opts;
  opts.block_dim = static_cast<std::uint32_t>(block_dim);
  opts.core_count = prof.aiv_cores;
  opts.aic_count = prof.aic_cores;
  opts.ub_bytes = static_cast<std::uint32_t>(prof.ub_bytes);
  opts.record_trace = true;
  {
    std::lock_guard lk(global_state().mu);
    opts.tiling_key = global_state().tiling_key;
    opts.kernel = declared_kernel_type(opts.tiling_key).value_or(global_state().mode_type.value_or(kernel_type::aiv_only));
  }

  launch_record rec;
  rec.kernel = site.kernel;
  rec.block_dim = opts.block_dim;
  rec.tiling_key = opts.tiling_key;

  launch_result lr;
  try {
    lr = launch(opts, body);
  } catch (const std::exception& e) {
    fail_run(site, std::string("launch failed: ") + e.what());
  }
  for (const auto& c : lr.cores) rec.ub_bytes = std::max(rec.ub_bytes, c.ub_peak_bytes);

  std::optional<hw_error> err = lr.error;
  if (!err) {
    try {
      timing_options topts;
      if (kernel_aic_per_block(opts.kernel) > 0) {
        topts.cores = prof.aic_cores * (kernel_aic_per_block(opts.kernel) + kernel_aiv_per_block(opts.kernel));
      }
      timing_report rep = simulate(lr.cores, prof, topts);
      rec.timing = rep.to_json();
      err = rep.error;
    } catch (const std::exception& e) {
      fail_run(site, std::string("the timing model failed: ") + e.what());
    }
  } else {
    rec.timing = {{"simulated", true}, {"profile", prof.name}, {"hw_error", hw_error_to_json(*err)}};
  }
  rec.timing["status"] = err ? "runtime_error" : "ok";
  {
    std::lock_guard lk(global_state().mu);
    global_state().launches.push_back(std::move(rec));
  }
  write_timing_file(site);
  if (err) fail_run(site, std::string("hardware error (") + hw_error_kind_name(err->kind) + "): " + err->to_string());
}

// ICPU_RUN_KF's entry: the arguments are evaluated once here; each block calls func with
// its own copy of them.
template <typename F, typename... Args>
void run_kf(const run_site& site, std::int64_t block_dim, F&& func, Args&&... args) {
  using fn_t = std::decay_t<F>;
  const fn_t fn(std::forward<F>(func));
  const std::tuple<std::decay_t<Args>...> argv(std::forward<Args>(args)...);
  run_blocks(site, block_dim, [&fn, &argv] {
    fn_t f = fn;
    std::tuple<std::decay_t<Args>...> mine(argv);
    std::apply([&f](auto&... a) { f(a...); }, mine);
  });
}

// All launches of this process so far (tests, tools).
inline std::vector<launch_record> launches() {
  std::lock_guard lk(global_state().mu);
  return global_state().launches;
}

}  // namespace aopt::sim::cpu_debug

namespace AscendC {

// Emulated GM for ICPU_RUN_KF's pointer arguments: 4096-byte aligned, zero-filled.
inline void* GmAlloc(std::size_t size) {
  auto& s = ::aopt::sim::cpu_debug::global_state();
  std::size_t n = 0;
  {
    std::lock_guard lk(s.mu);
    n = s.gm_allocs++;
  }
  try {
    return ::aopt::sim::gm_alloc(size, "GmAlloc#" + std::to_string(n));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "aopt sim: GmAlloc(%zu): %s\n", size, e.what());
    std::fflush(stderr);
    std::exit(1);
  }
}

inline void GmFree(void* ptr) {
  try {
    ::aopt::sim::gm_free(ptr);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "aopt sim: GmFree(%p): %s; free only pointers returned by AscendC::GmAlloc, once\n", ptr,
                 e.what());
    std::fflush(stderr);
    std::exit(1);
  }
}

// AIV/AIC/MIX selection of CANN's CPU mode (the kernel's KERNEL_TASK_TYPE declarations win).
inline void SetKernelMode(KernelMode mode) {
  using aopt::sim::kernel_type;
  std::lock_guard lk(aopt::sim::cpu_debug::global_state().mu);
  aopt::sim::cpu_debug::global_state().mode_type = mode == KernelMode::AIC_MODE   ? kernel_type::aic_only
                                                   : mode == KernelMode::MIX_MODE ? kernel_type::mix_aic_1_2
                                                                                  : kernel_type::aiv_only;
}
using ::KernelMode;

}  // namespace AscendC

// Older samples call GmAlloc/GmFree/SetKernelMode without the namespace.
using AscendC::GmAlloc;
using AscendC::GmFree;
using AscendC::SetKernelMode;

// The tiling key that TILING_KEY_IS(k) sees in the next ICPU_RUN_KF launches (default 0).
#define ICPU_SET_TILING_KEY(key)                                                                   \
  do {                                                                                             \
    auto& aopt_cpu_debug_state_ = ::aopt::sim::cpu_debug::global_state();                         \
    std::lock_guard aopt_cpu_debug_lock_(aopt_cpu_debug_state_.mu);                                \
    aopt_cpu_debug_state_.tiling_key = static_cast<std::uint64_t>(static_cast<std::int64_t>(key)); \
  } while (0)

// Runs func(args...) on blkdim emulated cores (see the top of this file).
#define ICPU_RUN_KF(func, blkdim, ...)                                                                       \
  ::aopt::sim::cpu_debug::run_kf(::aopt::sim::cpu_debug::run_site{#func, __FILE__, __LINE__},                \
                                 static_cast<std::int64_t>(blkdim), func, ##__VA_ARGS__)
