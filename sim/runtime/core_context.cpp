// Per-core emulation context: everything declared in aopt_sim/kernel/core.h.
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <string>

#include "internal.h"

namespace aopt::sim {
namespace detail {

core_context*& current_core() {
  thread_local core_context* ctx = nullptr;
  return ctx;
}

namespace {

std::mutex& atomic_mutex() {
  static std::mutex mu;
  return mu;
}

[[noreturn]] void outside_core(const char* what) {
  hw_error e;
  e.kind = hw_error_kind::invalid_use;
  e.message = std::string(what) +
              " was called outside an emulated core: AscendC kernel APIs only work inside "
              "aopt::sim::launch() (the harness launches the kernel for you)";
  e.site.api = what;
  throw hw_fault{std::move(e)};
}

core_context& ctx_or_fail(const char* what) {
  core_context* c = current_core();
  if (c == nullptr) outside_core(what);
  return *c;
}

}  // namespace
}  // namespace detail

using detail::ctx_or_fail;
using detail::current_core;

namespace detail {
namespace {
std::uint32_t cube_start(const launch_options& opts) {
  const std::uint64_t after_ub = (std::uint64_t{opts.ub_bytes} * 2 + 0xFFFF) & ~std::uint64_t{0xFFFF};
  return static_cast<std::uint32_t>(std::max<std::uint64_t>(cube_origin, after_ub));
}
}  // namespace

std::size_t local_host_bytes(const launch_options& opts) {
  // The Cube's buffers, then 64 KiB of slack for raw writes past the last one.
  return std::size_t{cube_start(opts)} + opts.l1_bytes + opts.l0a_bytes + opts.l0b_bytes + opts.l0c_bytes +
         opts.bt_bytes + opts.fb_bytes + 0x10000;
}

void layout_local_memory(const launch_options& opts, core_context& ctx) {
  const std::uint32_t sizes[] = {opts.ub_bytes, opts.l1_bytes, opts.l0a_bytes, opts.l0b_bytes,
                                 opts.l0c_bytes, opts.bt_bytes, opts.fb_bytes};
  std::uint32_t at = cube_start(opts);
  for (int m = 0; m < static_cast<int>(local_mem::count_); ++m) {
    ctx.mem_bytes[m] = sizes[m];
    if (m == 0) continue;
    ctx.mem_base[m] = at;
    at += sizes[m];
  }
  ctx.cube_prepared = false;
}
}  // namespace detail

std::uint32_t local_base(local_mem m) { return ctx_or_fail("local_base").mem_base[static_cast<int>(m)]; }
std::uint32_t local_capacity(local_mem m) { return ctx_or_fail("local_capacity").mem_bytes[static_cast<int>(m)]; }
local_mem local_mem_of(std::uint64_t addr) {
  const detail::core_context& c = ctx_or_fail("local_mem_of");
  for (int m = static_cast<int>(local_mem::count_) - 1; m > 0; --m) {
    if (addr >= c.mem_base[m] && c.mem_base[m] != 0) return static_cast<local_mem>(m);
  }
  return local_mem::ub;
}
void prepare_cube_memory() {
  detail::core_context& c = ctx_or_fail("InitBuffer");
  if (c.cube_prepared) return;
  c.cube_prepared = true;
  const int first = static_cast<int>(local_mem::l1), last = static_cast<int>(local_mem::count_) - 1;
  const std::size_t bytes = std::size_t{c.mem_base[last]} + c.mem_bytes[last] - c.mem_base[first];
  std::memset(c.ub + c.mem_base[first], detail::ub_poison, bytes);
}

std::byte* ub_base() { return ctx_or_fail("ub_base").ub; }
std::uint32_t ub_capacity() { return ctx_or_fail("ub_capacity").ub_bytes; }
std::uint32_t block_idx() { return ctx_or_fail("GetBlockIdx").block_idx; }
std::uint32_t block_num() { return ctx_or_fail("GetBlockNum").block_num; }

std::uint32_t site_of(const src_loc& loc, const char* api) {
  detail::core_context& c = ctx_or_fail(api);
  if (!c.record) return 0;
  detail::site_key key{loc.file, loc.func, api, loc.line};
  auto it = c.sites.find(key);
  if (it != c.sites.end()) return it->second;
  const auto idx = static_cast<std::uint32_t>(c.trace->sites.size());
  c.trace->sites.push_back(call_site{loc.file ? loc.file : "", loc.line, loc.func ? loc.func : "",
                                     api ? api : ""});
  c.sites.emplace(key, idx);
  return idx;
}

void record(const trace_rec& r) {
  detail::core_context& c = ctx_or_fail("record");
  if (c.record) c.trace->recs.push_back(r);
}

namespace {

// The scalar record accesses are merged into: the last record when it is scalar work, else a new one.
trace_rec& scalar_rec(detail::core_context& c, const src_loc& loc, const char* api) {
  auto& recs = c.trace->recs;
  if (!recs.empty() && recs.back().kind == rec_kind::scalar) return recs.back();
  trace_rec r;
  r.kind = rec_kind::scalar;
  r.p = pipe::s;
  r.site = site_of(loc, api);
  recs.push_back(r);
  return recs.back();
}

// Looks `line` up in the core's DataCache (most recent first) and moves it to the front.
bool dcache_touch(detail::core_context& c, std::uintptr_t line) {
  auto& lines = c.dcache_lines;
  std::size_t i = 0;
  while (i < detail::dcache_line_count && lines[i] != line) ++i;
  const bool hit = i < detail::dcache_line_count;
  if (!hit) i = detail::dcache_line_count - 1;
  for (; i > 0; --i) lines[i] = lines[i - 1];
  lines[0] = line;
  return hit;
}

}  // namespace

void record_scalar(std::uint64_t elem_accesses, std::uint64_t raw_cycles, const src_loc& loc,
                   const char* api) {
  detail::core_context& c = ctx_or_fail(api);
  if (!c.record) return;
  trace_rec& r = scalar_rec(c, loc, api);
  r.repeats += static_cast<std::uint32_t>(elem_accesses);
  r.cycles += raw_cycles;
}

void record_ub_access(std::uint32_t addr, std::uint32_t bytes, bool read, bool write, const src_loc& loc,
                      const char* api) {
  detail::core_context& c = ctx_or_fail(api);
  if (!c.record) return;
  const std::int64_t last = c.last_ub_access;
  c.last_ub_access = addr;
  trace_rec& r = scalar_rec(c, loc, api);
  const bool scan = last >= 0 && std::llabs(static_cast<long long>(addr) - last) <= 32;
  if (scan) {
    ++r.sacc[static_cast<int>(scalar_access::ub_scan)];
  } else {
    ++r.repeats;
  }
  if (read) widen_range(r.src_addr[0], r.src_bytes[0], addr, bytes);
  if (write) widen_range(r.ub_addr, r.ub_bytes, addr, bytes);
}

void record_gm_access(const void* p, const src_loc& loc, const char* api) {
  detail::core_context& c = ctx_or_fail(api);
  if (!c.record) return;
  const auto line = reinterpret_cast<std::uintptr_t>(p) / detail::dcache_line_bytes + 1;
  const bool hit = dcache_touch(c, line);
  trace_rec& r = scalar_rec(c, loc, api);
  ++r.sacc[static_cast<int>(hit ? scalar_access::gm_hit : scalar_access::gm_miss)];
}

namespace {

// A load or store of the kernel's own code (not the emulator's: AOPT_SIM_UNTRACED) that the
// address-sanitizer instrumentation reported: traced as a scalar GM access when it hits GM.
void raw_access(std::uintptr_t addr) {
  detail::core_context* c = current_core();
  if (c == nullptr || !c->record) return;
  for (const auto& [start, len] : c->gm_ranges) {
    if (addr - start < len) {
      record_gm_access(reinterpret_cast<const void*>(addr), src_loc{"", 0, ""}, "__gm__ load/store");
      return;
    }
  }
}

}  // namespace

namespace {
hw_error make_hw_error(hw_error_kind kind, const std::string& message, const src_loc& loc, const char* api) {
  hw_error e;
  e.kind = kind;
  e.message = message;
  e.site.file = loc.file ? loc.file : "";
  e.site.line = loc.line;
  e.site.function = loc.func ? loc.func : "";
  e.site.api = api ? api : "";
  if (detail::core_context* c = current_core()) e.block_idx = c->block_idx;
  return e;
}
}  // namespace

void fail(hw_error_kind kind, const std::string& message, const src_loc& loc, const char* api) {
  throw hw_fault{make_hw_error(kind, message, loc, api)};
}

void warn(hw_error_kind kind, const std::string& message, const src_loc& loc, const char* api) {
  detail::core_context* c = current_core();
  if (c == nullptr || c->warnings == nullptr) return;
  constexpr std::size_t max_warnings = 32;
  std::lock_guard lk(c->warnings->mu);
  auto& list = c->warnings->list;
  for (const auto& w : list) {
    if (w.kind == kind && w.site.line == loc.line && w.site.file == (loc.file ? loc.file : "")) return;
  }
  if (list.size() < max_warnings) list.push_back(make_hw_error(kind, message, loc, api));
}

void check_ub_access(std::uint64_t addr, std::uint64_t bytes, std::uint64_t buffer_bytes, const char* what,
                      const src_loc& loc, const char* api) {
  const local_mem mem = local_mem_of(addr);
  const std::uint64_t base = mem == local_mem::ub ? 0 : local_base(mem);
  const std::uint64_t cap = local_capacity(mem);
  const std::string name = local_mem_name(mem);
  auto span = [&] {
    return std::string(what) + " accesses " + std::to_string(bytes) + " bytes at " + name + " address " +
           std::to_string(addr - base);
  };
  if (addr - base + bytes > cap) {
    fail(hw_error_kind::ub_overflow,
         span() + ", past the end of the " + std::to_string(cap) + " bytes of " + name +
             " (InitBuffer placed its buffer beyond it, or the count runs past it): shrink the tile size or the "
             "buffer count",
         loc, api);
  }
  if (bytes > buffer_bytes) {
    warn(hw_error_kind::ub_out_of_bounds,
         span() + " but its buffer holds " + std::to_string(buffer_bytes) + " from there: on the chip it reaches into the next buffer",
         loc, api);
  }
}

void set_current_pipe(void* p) { ctx_or_fail("TPipe").pipe = p; }
void* current_pipe() { return ctx_or_fail("GetTPipePtr").pipe; }

void note_ub_usage(std::uint32_t end_bytes) {
  detail::core_context& c = ctx_or_fail("InitBuffer");
  c.trace->ub_peak_bytes = std::max(c.trace->ub_peak_bytes, end_bytes);
}

std::uint16_t next_queue_event(pipe a, pipe b) {
  detail::core_context& c = ctx_or_fail("InitBuffer");
  auto ia = static_cast<int>(a) % pipe_count;
  auto ib = static_cast<int>(b) % pipe_count;
  if (ia > ib) std::swap(ia, ib);
  return static_cast<std::uint16_t>(64 + c.queue_events[ia][ib]++);
}

atomic_op atomic_mode() { return ctx_or_fail("SetAtomicAdd").atomic; }
void set_atomic_mode(atomic_op op) { ctx_or_fail("SetAtomicAdd").atomic = op; }
void gm_atomic_lock() { detail::atomic_mutex().lock(); }
void gm_atomic_unlock() { detail::atomic_mutex().unlock(); }

void set_sys_workspace(std::uint8_t* p) { ctx_or_fail("SetSysWorkspace").sys_workspace = p; }
std::uint8_t* sys_workspace() { return ctx_or_fail("GetSysWorkSpacePtr").sys_workspace; }
std::uint64_t tiling_key() { return ctx_or_fail("TILING_KEY_IS").tiling_key; }
std::uint64_t core_serial() { return ctx_or_fail("vector mask state").serial; }

void sync_all(const src_loc& loc, const char* api) {
  detail::core_context& c = ctx_or_fail(api);
  if (c.block_num > c.core_count) {
    fail(hw_error_kind::sync_all_missing_core,
         "SyncAll needs every block resident at once, but the kernel runs " +
             std::to_string(c.block_num) + " blocks on " + std::to_string(c.core_count) +
             " cores: set blockDim <= the core count when the kernel uses SyncAll",
         loc, api);
  }
  {
    trace_rec r;
    r.kind = rec_kind::sync_all;
    r.p = pipe::all;
    r.site = site_of(loc, api);
    record(r);
  }
  detail::launch_barrier& b = *c.barrier;
  const int k = static_cast<int>(c.kind);
  std::unique_lock<std::mutex> lk(b.mu);
  auto missing = [&] {
    fail(hw_error_kind::sync_all_missing_core,
         "SyncAll waits for all " + std::to_string(b.participants[k]) + " " + core_kind_name(c.kind) + " cores, but " +
             std::to_string(b.finished[k]) +
             " of them already returned without reaching it: every core must call SyncAll "
             "the same number of times",
         loc, api);
  };
  if (b.aborted) throw detail::launch_aborted{};
  if (b.finished[k] > 0) {
    lk.unlock();
    missing();
  }
  const std::uint64_t gen = b.generation[k];
  if (++b.arrived[k] == b.participants[k]) {
    b.arrived[k] = 0;
    ++b.generation[k];
    b.cv.notify_all();
    return;
  }
  detail::wait_blocked(b, lk, [&] { return b.generation[k] != gen || b.finished[k] > 0; });
  if (b.generation[k] != gen) return;
  if (b.aborted) throw detail::launch_aborted{};
  if (b.deadlocked) {
    lk.unlock();
    fail(hw_error_kind::deadlock,
         "SyncAll waits for cores that wait themselves (a CrossCoreWaitFlag no core will set): no core can go on",
         loc, api);
  }
  lk.unlock();
  missing();
}

}  // namespace aopt::sim

// The calls GCC emits for every load and store of a translation unit built with
// -fsanitize=kernel-address --param asan-instrumentation-with-call-threshold=0 (the evaluation
// builds such kernels when their source dereferences a raw __gm__ pointer; docs/sim.md). The
// runtime defines them itself: they trace, they check nothing.
extern "C" {
#define AOPT_SIM_ACCESS_HOOKS(n)                                                           \
  void __asan_load##n##_noabort(std::uintptr_t a) { aopt::sim::raw_access(a); }           \
  void __asan_store##n##_noabort(std::uintptr_t a) { aopt::sim::raw_access(a); }
AOPT_SIM_ACCESS_HOOKS(1)
AOPT_SIM_ACCESS_HOOKS(2)
AOPT_SIM_ACCESS_HOOKS(4)
AOPT_SIM_ACCESS_HOOKS(8)
AOPT_SIM_ACCESS_HOOKS(16)
#undef AOPT_SIM_ACCESS_HOOKS
void __asan_loadN_noabort(std::uintptr_t a, std::size_t) { aopt::sim::raw_access(a); }
void __asan_storeN_noabort(std::uintptr_t a, std::size_t) { aopt::sim::raw_access(a); }
void __asan_handle_no_return() {}
// GCC also brackets the dynamic initialisation of a translation unit's globals (a global set by a
// function call or a constructor) with these, for ASan's initialisation-order check, whatever
// asan-globals says. The runtime checks no order: they do nothing.
void __asan_before_dynamic_init(const char*) {}
void __asan_after_dynamic_init() {}
}
