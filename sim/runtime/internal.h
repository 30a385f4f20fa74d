// Internal state shared by runtime.cpp and core_context.cpp (not installed, not a contract).
#pragma once

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <utility>
#include <vector>

#include "aopt_sim/kernel/core.h"
#include "aopt_sim/runtime.h"

namespace aopt::sim::detail {

// Barrier shared by every block of one launch; abortable, and aware of finished blocks.
struct launch_barrier {
  std::mutex mu;
  std::condition_variable cv;
  std::uint32_t participants = 0;
  std::uint32_t arrived = 0;
  std::uint64_t generation = 0;
  std::uint32_t finished = 0;  // blocks whose body returned (or failed)
  bool aborted = false;        // some block raised an error
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

// Byte written over a fresh UB, so reads of uninitialised UB give NaN / -1 deterministically.
inline constexpr unsigned char ub_poison = 0xFF;

}  // namespace aopt::sim::detail
