// Per-core emulation context: the seam between the kernel API headers and the runtime.
// Every AscendC API call reaches the runtime only through the functions declared here.
// Implementation: sim/runtime/core_context.cpp.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "aopt_sim/runtime.h"
#include "aopt_sim/trace.h"

// Emulator code that touches GM on the kernel's behalf (copies, GetValue/SetValue): a kernel built
// with the raw __gm__ access hooks (-fsanitize=kernel-address, docs/sim.md) must not see these
// accesses as its own scalar loads and stores. Such functions are not inlined into that kernel.
#define AOPT_SIM_UNTRACED __attribute__((no_sanitize_address))

namespace aopt::sim {

// Call site of an API call. Kernels compile as C++17 (as CANN does), so this is built on GCC's
// builtins rather than std::source_location; use as a defaulted last parameter:
//   void DataCopy(..., aopt::sim::src_loc loc = aopt::sim::src_loc::current());
struct src_loc {
  const char* file = "";
  unsigned line = 0;
  const char* func = "";
  static constexpr src_loc current(const char* f = __builtin_FILE(), unsigned l = __builtin_LINE(),
                                   const char* fn = __builtin_FUNCTION()) {
    return src_loc{f, l, fn};
  }
};

// UB of the current core (throws hw_fault if called outside a launched core).
std::byte* ub_base();
std::uint32_t ub_capacity();

// The on-chip buffers of the core. A LocalTensor's address is a byte offset from ub_base() in
// one address space: UB from 0, the Cube's buffers (L1, L0A, L0B, L0C, the bias table BT and the
// fixpipe buffer FB) each from their local_base(), beyond UB; capacities from the device profile.
enum class local_mem : std::uint8_t { ub, l1, l0a, l0b, l0c, bt, fb, count_ };
inline const char* local_mem_name(local_mem m) {
  switch (m) {
    case local_mem::ub: return "UB";
    case local_mem::l1: return "L1";
    case local_mem::l0a: return "L0A";
    case local_mem::l0b: return "L0B";
    case local_mem::l0c: return "L0C";
    case local_mem::bt: return "BT (bias table)";
    case local_mem::fb: return "FB (fixpipe buffer)";
    case local_mem::count_: break;
  }
  return "?";
}
std::uint32_t local_base(local_mem m);
std::uint32_t local_capacity(local_mem m);
// The buffer an address lies in (an address past every buffer counts as UB's).
local_mem local_mem_of(std::uint64_t addr);
// Fills the Cube's buffers with junk once per block, on their first allocation (InitBuffer).
void prepare_cube_memory();
std::uint32_t block_idx();
std::uint32_t block_num();
// Mixed kernels (aopt_sim/kernel/mix.h; sim/runtime/mix.cpp): the current core's kind, the
// launch's kernel type, GetSubBlockIdx / GetSubBlockNum, and the cross-core flags (`mode` 0, 1, 2;
// the set fires on pipe `p` once its earlier work is done).
core_kind current_core_kind();
kernel_type current_kernel_type();
std::uint32_t sub_block_idx();
std::uint32_t sub_block_num();
void cross_core_set(std::uint8_t mode, std::uint16_t flag, pipe p, const src_loc& loc, const char* api);
void cross_core_wait(std::uint8_t mode, std::uint16_t flag, const src_loc& loc, const char* api);

// Interns the call site and returns its index into core_trace::sites.
std::uint32_t site_of(const src_loc& loc, const char* api);
// Appends one record to the current core's trace (no-op when tracing is off).
void record(const trace_rec& r);
// Adds scalar-pipe work: `elem_accesses` GetValue/SetValue-class accesses (priced by the
// profile) plus `raw_cycles` fixed cycles (mask sets, ...). Merged into the previous scalar
// record when adjacent, so element loops stay one record.
void record_scalar(std::uint64_t elem_accesses, std::uint64_t raw_cycles, const src_loc& loc,
                   const char* api);
// One scalar element access of `bytes` at UB address `addr` (GetValue/SetValue, operator()),
// classified by pattern (scalar_access) and merged into the current scalar record with the UB
// range it touches (read, write or both), so the timing model can make it wait for the pipe that
// last wrote that range.
void record_ub_access(std::uint32_t addr, std::uint32_t bytes, bool read, bool write, const src_loc& loc,
                      const char* api);
// One scalar element access of GM at host address `p` (GlobalTensor::GetValue/SetValue, a raw
// `__gm__` load or store): a hit or a miss of the core's scalar DataCache (64 B lines).
void record_gm_access(const void* p, const src_loc& loc, const char* api);
// Raises a hardware error at `loc`: never returns.
[[noreturn]] void fail(hw_error_kind kind, const std::string& message, const src_loc& loc,
                       const char* api);
// What the chip does silently but a kernel author should know (a DataCopy whose tail bytes the
// hardware drops): recorded once per call site and kind, reported beside the result.
void warn(hw_error_kind kind, const std::string& message, const src_loc& loc, const char* api);

// Checks an access of `bytes` from UB address `addr` whose buffer holds `buffer_bytes` from
// there. The chip checks no buffer bounds: running past the buffer inside UB reaches the next
// buffer (a warning); reaching past the end of UB (a buffer InitBuffer placed beyond it) is an
// error, ub_overflow.
void check_ub_access(std::uint64_t addr, std::uint64_t bytes, std::uint64_t buffer_bytes, const char* what,
                      const src_loc& loc, const char* api);

// ---- Additions for the kernel-core layer (queues, TPipe, copies, sync); implemented in
// sim/runtime/core_context.cpp. ----

// Current core's TPipe (GetTPipePtr): set by the TPipe constructor, cleared by its destructor.
void set_current_pipe(void* pipe);
void* current_pipe();
// Records the end of a TPipe allocation (UB byte offset) into core_trace::ub_peak_bytes.
void note_ub_usage(std::uint32_t end_bytes);
// A fresh queue-internal event id (64 and up) for the pipe pair {a, b}; unique on this core.
std::uint16_t next_queue_event(pipe a, pipe b);

// Atomic accumulation mode of UB->GM copies (SetAtomicAdd/Max/Min/None), per core.
enum class atomic_op : std::uint8_t { none, add, max, min };
atomic_op atomic_mode();
void set_atomic_mode(atomic_op op);
// Serialises atomic read-modify-write of GM across cores.
void gm_atomic_lock();
void gm_atomic_unlock();

// SyncAll(): a true barrier across every block of the launch. Raises sync_all_missing_core
// when a block finishes without arriving, or when block_dim exceeds the physical core count.
void sync_all(const src_loc& loc, const char* api);

// System workspace pointer (SetSysWorkspace / GetSysWorkSpacePtr), per core.
void set_sys_workspace(std::uint8_t* p);
std::uint8_t* sys_workspace();
// Size in bytes (as requested) of the GM allocation starting at `base`; 0 if none starts there.
std::size_t gm_alloc_bytes(const void* base);
// Bytes mapped for the allocation starting at `base` (whole 4 KiB pages); 0 if none starts there.
std::size_t gm_mapped_bytes(const void* base);
// The tiling key the launch was given (TILING_KEY_IS).
std::uint64_t tiling_key();
// Unique per block execution (process-wide, never reused): per-core state kept by the API
// headers in thread_locals (mask registers, ...) resets when it changes.
std::uint64_t core_serial();

}  // namespace aopt::sim
