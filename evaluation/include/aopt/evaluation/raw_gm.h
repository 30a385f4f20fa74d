// Kernels that load and store GM through raw `__gm__` pointers (not GlobalTensor, not DataCopy):
// sim sees those accesses only when the kernel is built with GCC's call-form address-sanitizer
// instrumentation, whose hooks the sim runtime defines (docs/sim.md). The instrumentation slows
// the emulation, so the sim backend adds it only to kernels whose sources dereference one.
#pragma once

#include <string>
#include <vector>

namespace aopt::evaluation {

// True when `source` declares a `__gm__` pointer (or a GM_ADDR) and dereferences it by name:
// `p[i]`, `*p`, `*(p + i)` or `p->f`. A heuristic: a false positive only costs emulation speed.
bool dereferences_raw_gm(const std::string& source);

// The compiler flags that make every load and store of a translation unit call the hooks.
const std::vector<std::string>& raw_gm_trace_flags();

}  // namespace aopt::evaluation
