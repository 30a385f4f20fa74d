// GM allocation registry, hardware-error formatting and kernel launch on emulated cores.
#include <dlfcn.h>
#include <link.h>
#include <sys/mman.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <exception>
#include <map>
#include <new>
#include <memory>
#include <shared_mutex>
#include <stdexcept>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

#include "internal.h"

namespace aopt::sim {

std::string hw_error::to_string() const {
  std::string s;
  if (!site.file.empty()) {
    s += site.file;
    s += ':';
    s += std::to_string(site.line);
    s += ": ";
  }
  if (!site.function.empty()) {
    s += "in ";
    s += site.function;
    s += ": ";
  }
  if (!site.api.empty()) {
    s += site.api;
    s += ": ";
  }
  s += message;
  s += " (core ";
  s += std::to_string(block_idx);
  s += ')';
  return s;
}

// ---------------------------------------------------------------------------------------------
// GM registry
namespace {

constexpr std::size_t gm_align = 4096;

struct gm_entry {
  std::size_t bytes = 0;     // as requested
  std::size_t mapped = 0;    // as mapped (page multiple, at least one page)
  std::string name;
};

struct gm_registry {
  std::shared_mutex mu;
  std::map<std::uintptr_t, gm_entry> allocs;  // keyed by start address
  // Data segments of the loaded kernel image found by image_segment (keyed by start address).
  std::map<std::uintptr_t, gm_entry> image;
};

// The kernel image's load address (dli_fbase, never 0 for a loaded object) when set_kernel_image
// named one; 0: unset, the main program is the image.
std::atomic<std::uintptr_t> g_kernel_image_base{0};

// A kernel's `__gm__` global (`static const __gm__ int16_t table[] = {...}`, a constant table
// the kernel copies in with DataCopy) lies in GM on the chip, beside the kernel's code. Here it
// lies in a data segment of the loaded kernel image: the non-executable PT_LOAD segment holding
// p, as [start, end), or {0, 0} when p is in none.
std::pair<std::uintptr_t, std::uintptr_t> image_segment(std::uintptr_t p) {
  std::pair<std::uintptr_t, std::uintptr_t> found{0, 0};
  struct query {
    std::uintptr_t p;
    std::pair<std::uintptr_t, std::uintptr_t>* found;
    std::uintptr_t base;
    bool first = true;
  } q{p, &found, g_kernel_image_base.load()};
  dl_iterate_phdr(
      [](dl_phdr_info* info, std::size_t, void* arg) -> int {
        auto* q = static_cast<query*>(arg);
        // Only the kernel's own object: the main program (listed first) unless one was set.
        const bool image = q->base != 0 ? info->dlpi_addr == q->base : q->first;
        q->first = false;
        if (!image) return 0;
        for (int i = 0; i < info->dlpi_phnum; ++i) {
          const auto& ph = info->dlpi_phdr[i];
          if (ph.p_type != PT_LOAD || (ph.p_flags & PF_X) != 0 || (ph.p_flags & PF_R) == 0) continue;
          const std::uintptr_t start = info->dlpi_addr + ph.p_vaddr;
          if (q->p - start < ph.p_memsz) {
            *q->found = {start, start + ph.p_memsz};
            return 1;
          }
        }
        return 0;
      },
      &q);
  return found;
}

gm_registry& registry() {
  static gm_registry r;
  return r;
}

// A tensor of megabytes is mapped on a 2 MiB boundary and offered to transparent huge pages: a
// case's inputs are read into GM and its outputs written, and with 4 KiB pages that is one page
// fault per 4 KiB (about a third of an unbuilt evaluation's system time on a 2 M-element case,
// issue 35). The contents and the junk past the end are as before; only the page size differs.
constexpr std::size_t huge_page = std::size_t{2} << 20;

void* map_gm(std::size_t mapped) {
  constexpr int prot = PROT_READ | PROT_WRITE;
  constexpr int flags = MAP_PRIVATE | MAP_ANONYMOUS;
  if (mapped < 2 * huge_page) return mmap(nullptr, mapped, prot, flags, -1, 0);
  void* raw = mmap(nullptr, mapped + huge_page, prot, flags, -1, 0);
  if (raw == MAP_FAILED) return raw;
  const auto start = reinterpret_cast<std::uintptr_t>(raw);
  const auto aligned = (start + huge_page - 1) / huge_page * huge_page;
  if (aligned > start) munmap(raw, aligned - start);
  const std::uintptr_t tail = start + mapped + huge_page - (aligned + mapped);
  if (tail > 0) munmap(reinterpret_cast<void*>(aligned + mapped), tail);
  void* p = reinterpret_cast<void*>(aligned);
  (void)madvise(p, mapped, MADV_HUGEPAGE);  // advice: where THP is off it changes nothing
  return p;
}

}  // namespace

void* gm_alloc(std::size_t bytes, std::string name) {
  const std::size_t mapped = std::max(gm_align, (bytes + gm_align - 1) / gm_align * gm_align);
  // Anonymous mappings are page aligned and zero-filled (lazily, so huge tensors cost nothing
  // until touched).
  void* p = map_gm(mapped);
  if (p == MAP_FAILED) {
    throw std::runtime_error("gm_alloc: cannot map " + std::to_string(bytes) +
                             " bytes of emulated GM for '" + name +
                             "': out of memory (reduce the case's tensor sizes)");
  }
  // Past the allocation, to the end of its last page: junk, as the chip's uninitialized memory
  // (a kernel may read there without a fault; see gm_alloc_device).
  std::memset(static_cast<std::uint8_t*>(p) + bytes, gm_padding_junk, mapped - bytes);
  auto& r = registry();
  std::unique_lock lk(r.mu);
  r.allocs[reinterpret_cast<std::uintptr_t>(p)] = gm_entry{bytes, mapped, std::move(name)};
  return p;
}

void* gm_alloc_device(std::size_t bytes, std::string name) {
  const std::size_t padded = device_alloc_bytes(bytes);
  auto* p = static_cast<std::uint8_t*>(gm_alloc(padded, std::move(name)));
  std::memset(p + bytes, gm_padding_junk, padded - bytes);  // the padding (the rest of the page is junk already)
  return p;
}

void gm_free(void* p) {
  if (p == nullptr) return;
  auto& r = registry();
  std::size_t mapped = 0;
  {
    std::unique_lock lk(r.mu);
    auto it = r.allocs.find(reinterpret_cast<std::uintptr_t>(p));
    if (it == r.allocs.end()) {
      throw std::invalid_argument("gm_free: pointer was not returned by gm_alloc");
    }
    mapped = it->second.mapped;
    r.allocs.erase(it);
  }
  munmap(p, mapped);
}

void set_kernel_image(const void* addr) {
  Dl_info info{};
  g_kernel_image_base = addr != nullptr && dladdr(addr, &info) != 0 ? reinterpret_cast<std::uintptr_t>(info.dli_fbase) : 0;
  std::unique_lock lk(registry().mu);
  registry().image.clear();
}

const char* gm_find(const void* p, std::size_t bytes, const void** base) {
  auto& r = registry();
  const auto a = reinterpret_cast<std::uintptr_t>(p);
  const auto in = [&](const std::map<std::uintptr_t, gm_entry>& m) -> const char* {
    auto it = m.upper_bound(a);
    if (it == m.begin()) return nullptr;
    --it;
    const std::uintptr_t start = it->first;
    const std::uintptr_t end = start + it->second.bytes;
    if (a < start || a > end || bytes > end - a) return nullptr;
    if (base != nullptr) *base = reinterpret_cast<const void*>(start);
    return it->second.name.c_str();
  };
  {
    std::shared_lock lk(r.mu);
    if (const char* name = in(r.allocs)) return name;
    if (const char* name = in(r.image)) return name;
  }
  // Not a buffer the kernel was given: a `__gm__` global of the kernel image (image_segment)?
  const auto [start, end] = image_segment(a);
  if (start == end) return nullptr;
  std::unique_lock lk(r.mu);
  r.image.try_emplace(start, gm_entry{end - start, end - start, "the kernel's __gm__ globals"});
  return in(r.image);
}

std::vector<std::pair<std::uintptr_t, std::size_t>> detail::gm_snapshot() {
  auto& r = registry();
  std::shared_lock lk(r.mu);
  std::vector<std::pair<std::uintptr_t, std::size_t>> out;
  out.reserve(r.allocs.size());
  for (const auto& [start, e] : r.allocs) out.emplace_back(start, e.mapped);
  return out;
}

std::size_t gm_mapped_bytes(const void* base) {
  auto& r = registry();
  std::shared_lock lk(r.mu);
  auto it = r.allocs.find(reinterpret_cast<std::uintptr_t>(base));
  if (it != r.allocs.end()) return it->second.mapped;
  it = r.image.find(reinterpret_cast<std::uintptr_t>(base));
  return it == r.image.end() ? 0 : it->second.mapped;
}

std::size_t gm_alloc_bytes(const void* base) {
  auto& r = registry();
  std::shared_lock lk(r.mu);
  auto it = r.allocs.find(reinterpret_cast<std::uintptr_t>(base));
  if (it != r.allocs.end()) return it->second.bytes;
  it = r.image.find(reinterpret_cast<std::uintptr_t>(base));
  return it == r.image.end() ? 0 : it->second.bytes;
}

// ---------------------------------------------------------------------------------------------
// launch
namespace {

struct launch_state {
  std::mutex mu;
  std::optional<hw_error> error;
  std::atomic<std::uint32_t> next_block{0};
  std::atomic<bool> stop{false};
  // Set by a core that ran out of memory. Recording it must not allocate (the kernel may still
  // hold every byte the address-space limit allows), so it is a flag; launch() turns it into an
  // hw_error once the cores have stopped.
  std::atomic<bool> out_of_memory{false};
  detail::launch_barrier barrier;
  detail::launch_warnings warnings;
};

void note_out_of_memory(launch_state& st) noexcept {
  st.out_of_memory = true;
  st.stop = true;
  std::lock_guard lk(st.barrier.mu);
  st.barrier.aborted = true;
  st.barrier.cv.notify_all();
}

void record_error(launch_state& st, hw_error e) {
  {
    std::lock_guard lk(st.mu);
    if (!st.error) st.error = std::move(e);
  }
  st.stop = true;
  std::lock_guard lk(st.barrier.mu);
  st.barrier.aborted = true;
  st.barrier.cv.notify_all();
}

std::atomic<std::uint64_t> next_core_serial{0};

// Paints stack_paint_bytes of the stack below the caller's frame with detail::stack_paint, so a
// kernel called right after it finds the same bytes in what it never initialised.
[[gnu::noinline]] void paint_stack_below() {
  auto* p = static_cast<unsigned char*>(__builtin_alloca(detail::stack_paint_bytes));
  std::memset(p, detail::stack_paint, detail::stack_paint_bytes);
  asm volatile("" : : "r"(p) : "memory");  // the stores are the point: keep them
}

void run_blocks(const launch_options& opts, const std::function<void()>& body, launch_state& st,
                launch_result& out) {
  // Twice the UB: a kernel writing through a raw pointer into a buffer InitBuffer placed past
  // the end of UB lands in slack, not in the emulator's heap (checked accesses fail first).
  // The Cube's buffers follow in the same allocation (detail::layout_local_memory).
  const std::size_t ub_host_bytes = std::size_t{opts.ub_bytes} * 2;
  std::unique_ptr<std::byte[]> ub(new std::byte[detail::local_host_bytes(opts)]);
  for (;;) {
    if (st.stop) return;
    const std::uint32_t b = st.next_block.fetch_add(1);
    if (b >= out.cores.size()) return;
    std::memset(ub.get(), detail::ub_poison, ub_host_bytes);
    detail::core_context ctx;
    detail::place_core(opts, b, ctx);
    ctx.block_num = opts.block_dim;
    ctx.core_count = ctx.kind == core_kind::aic ? opts.aic_count : opts.core_count;
    ctx.ub_bytes = opts.ub_bytes;
    ctx.ub = ub.get();
    detail::layout_local_memory(opts, ctx);
    ctx.trace = &out.cores[b];
    ctx.trace->block_idx = ctx.block_idx;
    ctx.trace->kind = ctx.kind;
    ctx.trace->group = ctx.group;
    ctx.trace->sub_block = ctx.sub_block;
    ctx.record = opts.record_trace;
    ctx.tiling_key = opts.tiling_key;
    ctx.serial = next_core_serial.fetch_add(1) + 1;
    ctx.barrier = &st.barrier;
    ctx.warnings = &st.warnings;
    ctx.gm_ranges = detail::gm_snapshot();
    detail::current_core() = &ctx;
    paint_stack_below();
    try {
      body();
    } catch (const hw_fault& f) {
      record_error(st, f.error);
    } catch (const detail::launch_aborted&) {
      // another core failed first
    } catch (const std::bad_alloc&) {
      note_out_of_memory(st);
    } catch (const std::exception& ex) {
      hw_error e;
      e.kind = hw_error_kind::invalid_use;
      e.message = std::string("the kernel threw a C++ exception: ") + ex.what();
      e.block_idx = b;
      record_error(st, std::move(e));
    } catch (...) {
      hw_error e;
      e.kind = hw_error_kind::invalid_use;
      e.message = "the kernel threw a non-standard C++ exception";
      e.block_idx = b;
      record_error(st, std::move(e));
    }
    detail::current_core() = nullptr;
    {
      std::lock_guard lk(st.barrier.mu);
      ++st.barrier.finished[static_cast<int>(ctx.kind)];
      st.barrier.cv.notify_all();
    }
  }
}

// A thread leaves the launch: when every thread left is waiting, none can wake the others.
void leave_launch(launch_state& st) noexcept {
  std::lock_guard lk(st.barrier.mu);
  if (st.barrier.active > 0) --st.barrier.active;
  detail::check_deadlock(st.barrier);
  st.barrier.cv.notify_all();
}

// A worker thread's whole life: whatever escapes run_blocks (an allocation failing inside an
// error handler, the UB itself not fitting) stops the launch instead of terminating the process.
void run_blocks_guarded(const launch_options& opts, const std::function<void()>& body, launch_state& st,
                        launch_result& out) noexcept {
  try {
    run_blocks(opts, body, st, out);
  } catch (const std::bad_alloc&) {
    note_out_of_memory(st);
  } catch (...) {
    try {
      hw_error e;
      e.kind = hw_error_kind::invalid_use;
      e.message = "an emulated core failed outside the kernel body";
      record_error(st, std::move(e));
    } catch (...) {
      note_out_of_memory(st);
    }
  }
  detail::current_core() = nullptr;
  leave_launch(st);
}

}  // namespace

launch_result launch(const launch_options& opts, const std::function<void()>& body) {
  if (opts.block_dim == 0) {
    throw std::invalid_argument("launch: block_dim is 0; a kernel needs at least one block");
  }
  if (opts.ub_bytes == 0) throw std::invalid_argument("launch: ub_bytes is 0");
  launch_result out;
  const std::uint32_t per_block = detail::cores_per_block(opts.kernel);
  out.cores.resize(std::size_t{opts.block_dim} * per_block);
  launch_state st;
  detail::prepare_launch_barrier(opts, st.barrier);
  // Every core gets its own thread when they can all be resident (SyncAll and the cross-core
  // flags then work); larger grids are served by a bounded pool pulling core indices from a
  // counter, whole blocks at a time (a mixed kernel's AIC and AIVs start together).
  const std::uint32_t physical = per_block > 1 ? opts.aic_count : opts.core_count;
  const std::uint32_t cap = per_block * std::max<std::uint32_t>(1, 2 * std::max<std::uint32_t>(1, physical));
  const auto nthreads = static_cast<std::uint32_t>(std::min<std::size_t>(out.cores.size(), cap));
  st.barrier.active = nthreads;
  if (nthreads == 1) {
    run_blocks_guarded(opts, body, st, out);
  } else {
    std::vector<std::thread> threads;
    threads.reserve(nthreads);
    std::string spawn_failure;
    for (std::uint32_t i = 0; i < nthreads; ++i) {
      try {
        threads.emplace_back([&] { run_blocks_guarded(opts, body, st, out); });
      } catch (const std::system_error& e) {
        // No thread for this core (memory or thread limit): stop the others, then report.
        for (std::uint32_t k = i; k < nthreads; ++k) leave_launch(st);
        note_out_of_memory(st);
        spawn_failure = "cannot start the thread of emulated core " + std::to_string(i) + " of " +
                        std::to_string(nthreads) + " (" + e.what() + "): out of memory or thread limit";
        break;
      }
    }
    for (auto& t : threads) t.join();
    if (!spawn_failure.empty() && !st.error) throw std::runtime_error("launch: " + spawn_failure);
  }
  if (!st.error && st.out_of_memory) {
    // The kernel may still hold its memory: if even this message cannot be built, the
    // bad_alloc propagates to the harness, which reports it without allocating.
    hw_error e;
    e.kind = hw_error_kind::invalid_use;
    e.message = "the kernel ran out of memory (std::bad_alloc): allocation without end, or more than the "
                "evaluator's memory limit allows";
    st.error = std::move(e);
  }
  out.error = std::move(st.error);
  out.warnings = std::move(st.warnings.list);
  return out;
}

}  // namespace aopt::sim
