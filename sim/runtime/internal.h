// Internal state shared by runtime.cpp and core_context.cpp (not installed, not a contract).
#pragma once

#include <algorithm>
#include <array>
#include <condition_variable>
#include <cstddef>
#include <map>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <utility>
#include <vector>

#include "aopt_sim/kernel/core.h"
#include "aopt_sim/runtime.h"

namespace aopt::sim::detail {

// Cross-core flags of one launch (CrossCoreSetFlag / CrossCoreWaitFlag; sim/runtime/mix.cpp):
// every core has 16 counters; a set counts in its domain (the cores that must all set before the
// receivers' counters rise: mode 0 every core of the caller's kind, mode 1 the AIVs of one AI
// Core, mode 2 its AIC towards its AIVs or its AIVs towards its AIC).
struct cross_domain {
  std::vector<std::uint32_t> sets;  // per setter, how many times it set the flag
  std::uint32_t released = 0;       // rounds every setter completed (the receivers' counters rose)
};
inline constexpr std::uint32_t cross_flag_count = 16;
inline constexpr std::uint32_t cross_counter_max = 15;

// Barrier and cross-core state shared by every core of one launch; abortable, aware of finished
// cores and of cores that wait (a wait while no core runs is a deadlock). SyncAll's barrier is
// per core kind: the AIVs (SyncAll<true>) and the AICs of a mixed kernel meet apart.
struct launch_barrier {
  std::mutex mu;
  std::condition_variable cv;
  std::uint32_t participants[2] = {};  // by core_kind
  std::uint32_t arrived[2] = {};
  std::uint64_t generation[2] = {};
  std::uint32_t finished[2] = {};  // cores whose body returned (or failed)
  bool aborted = false;            // some core raised an error
  // Threads running kernel code and not blocked in a wait (SyncAll, CrossCoreWaitFlag); when it
  // drops to 0 while a core waits, no core can ever wake it.
  std::uint32_t active = 0;
  std::vector<const std::function<bool()>*> waiters;  // what each waiting core waits for
  bool deadlocked = false;
  // The launch's layout and its cross-core flags.
  kernel_type kernel = kernel_type::aiv_only;
  std::uint32_t groups = 0;        // block dim: AI Cores of a mixed kernel
  std::vector<std::array<std::uint8_t, cross_flag_count>> counters;  // per core (unit index)
  std::map<std::uint64_t, cross_domain> domains;
};

// Warnings of one launch (warn()), shared by its cores.
struct launch_warnings {
  std::mutex mu;
  std::vector<hw_error> list;
};

struct site_key {
  const char* file;
  const char* func;
  const char* api;
  unsigned line;
  bool operator==(const site_key& o) const {
    return file == o.file && func == o.func && api == o.api && line == o.line;
  }
};
struct site_key_hash {
  std::size_t operator()(const site_key& k) const {
    std::size_t h = std::hash<const void*>()(k.file);
    h ^= std::hash<const void*>()(k.func) + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
    h ^= std::hash<const void*>()(k.api) + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
    h ^= std::hash<unsigned>()(k.line) + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
    return h;
  }
};

// The scalar DataCache the model assumes: 64 B lines [OFFICIAL, CANN programming guide
// "Scalar读写数据"], 32 of them, least recently used out [ASSUMED: the capacity is not public].
inline constexpr std::size_t dcache_line_bytes = 64;
inline constexpr std::size_t dcache_line_count = 32;

// Everything one emulated core (one block) owns while its body runs.
struct core_context {
  std::uint32_t block_idx = 0;
  std::uint32_t block_num = 1;
  // Which core of the launch this is (mixed kernels: a block's AIC, then its AIVs).
  std::uint32_t unit = 0;
  std::uint32_t group = 0;
  std::uint32_t sub_block = 0;
  core_kind kind = core_kind::aiv;
  kernel_type kernel = kernel_type::aiv_only;
  std::uint32_t core_count = 1;
  std::uint32_t ub_bytes = 0;
  std::byte* ub = nullptr;  // owned by the worker thread, poisoned per block
  // The Cube's buffers (local_mem order, UB first): base address and capacity in bytes; they
  // lie in the same host allocation as UB, poisoned on the block's first cube allocation.
  std::uint32_t mem_base[static_cast<int>(local_mem::count_)] = {};
  std::uint32_t mem_bytes[static_cast<int>(local_mem::count_)] = {};
  bool cube_prepared = false;
  core_trace* trace = nullptr;
  bool record = true;
  std::unordered_map<site_key, std::uint32_t, site_key_hash> sites;
  void* pipe = nullptr;
  atomic_op atomic = atomic_op::none;
  std::uint8_t* sys_workspace = nullptr;
  std::uint64_t tiling_key = 0;
  std::uint64_t serial = 0;  // process-wide unique id of this block execution
  std::uint16_t queue_events[pipe_count][pipe_count] = {};
  // Scalar access pattern state (record_ub_access / record_gm_access).
  std::int64_t last_ub_access = -1;        // UB byte address of the previous scalar UB access
  std::uintptr_t dcache_lines[dcache_line_count] = {};  // most recent first; 0 = empty
  launch_barrier* barrier = nullptr;
  launch_warnings* warnings = nullptr;
  // GM allocations when the block started ([start, start + mapped bytes)): the raw __gm__ access
  // hooks trace only accesses that fall inside one.
  std::vector<std::pair<std::uintptr_t, std::size_t>> gm_ranges;
};

// Every GM allocation as [start, mapped bytes), for core_context::gm_ranges.
std::vector<std::pair<std::uintptr_t, std::size_t>> gm_snapshot();

// Thrown out of SyncAll in a core whose launch was aborted by another core's error; launch()
// swallows it (the first error wins).
struct launch_aborted {};

// The current thread's core, or nullptr outside launch().
core_context*& current_core();

// Where the Cube's buffers start in a core's address space (beyond UB and its slack) and the
// host bytes of one core's whole address space.
inline constexpr std::uint32_t cube_origin = 1u << 20;
std::size_t local_host_bytes(const launch_options& opts);
void layout_local_memory(const launch_options& opts, core_context& ctx);

// Mixed kernels (sim/runtime/mix.cpp): the cores one block runs on, and where core `unit` of the
// launch sits (its kind, block index as GetBlockIdx answers, AI Core and sub-block).
inline std::uint32_t cores_per_block(kernel_type t) { return kernel_aic_per_block(t) + kernel_aiv_per_block(t); }
void place_core(const launch_options& opts, std::uint32_t unit, core_context& ctx);
// Sets the barrier's participants and the cross-core counters for a launch.
void prepare_launch_barrier(const launch_options& opts, launch_barrier& b);

// Waits on the launch's condition variable until `done()`, the launch aborts or deadlocks
// (the caller checks `done()` first): the thread counts as waiting meanwhile, and when no thread
// runs and no waiter can go on, it declares the deadlock itself.
inline bool any_waiter_ready(const launch_barrier& b) {
  for (const auto* w : b.waiters) {
    if ((*w)()) return true;
  }
  return false;
}
inline void check_deadlock(launch_barrier& b) {
  if (b.active == 0 && !b.waiters.empty() && !any_waiter_ready(b)) {
    b.deadlocked = true;
    b.cv.notify_all();
  }
}
template <class Done>
void wait_blocked(launch_barrier& b, std::unique_lock<std::mutex>& lk, Done done) {
  const std::function<bool()> ready = done;
  b.waiters.push_back(&ready);
  --b.active;
  check_deadlock(b);
  b.cv.wait(lk, [&] { return done() || b.aborted || b.deadlocked; });
  b.waiters.erase(std::find(b.waiters.begin(), b.waiters.end(), &ready));
  ++b.active;
}

// Byte written over a fresh UB, so reads of uninitialised UB give NaN / -1 deterministically.
inline constexpr unsigned char ub_poison = 0xFF;
// What a core's stack holds below the launch when the kernel starts (run_blocks paints it before
// each block): a kernel that reads a local or member it never set (add_rms_norm's merge_n kernel
// branches on an unset `bool isNumColAlign`) then reads the same value on every core and in every
// run. Without it the value was whatever the thread's earlier frames left there, and the
// simulated latency of the same program changed from run to run (18.03 / 18.04 / 18.05 us).
// Zero is [ASSUMED]: the chip's stack holds what earlier work left, which nobody can know.
inline constexpr unsigned char stack_paint = 0x00;
inline constexpr std::size_t stack_paint_bytes = std::size_t(512) << 10;

}  // namespace aopt::sim::detail
