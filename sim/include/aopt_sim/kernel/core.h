// Per-core emulation context: the seam between the kernel API headers and the runtime.
// Every AscendC API call reaches the runtime only through the functions declared here.
// Implementation: sim/runtime/core_context.cpp.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "aopt_sim/runtime.h"
#include "aopt_sim/trace.h"

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
std::uint32_t block_idx();
std::uint32_t block_num();

// Interns the call site and returns its index into core_trace::sites.
std::uint32_t site_of(const src_loc& loc, const char* api);
// Appends one record to the current core's trace (no-op when tracing is off).
void record(const trace_rec& r);
// Adds scalar-pipe work: `elem_accesses` GetValue/SetValue-class accesses (priced by the
// profile) plus `raw_cycles` fixed cycles (mask sets, ...). Merged into the previous scalar
// record when adjacent, so element loops stay one record.
void record_scalar(std::uint64_t elem_accesses, std::uint64_t raw_cycles, const src_loc& loc,
                   const char* api);
// Raises a hardware error at `loc`: never returns.
[[noreturn]] void fail(hw_error_kind kind, const std::string& message, const src_loc& loc,
                       const char* api);

}  // namespace aopt::sim
