// Host-only helpers next to the shared tiling struct (as cann-ops' tiling headers include
// tiling/tiling_base.h): the real build never compiles them into a kernel, whose tiling header
// it generates from the struct alone. A kernel build that includes this file fails.
#ifndef FIXTURE_SHARED_SCALE_HOST_ONLY_H
#define FIXTURE_SHARED_SCALE_HOST_ONLY_H
#if defined(__CCE_AICORE__)
#error "scale_host_only.h is host-only: a kernel build must not include it"
#endif
#include <string>
#include "register/op_impl_registry.h"

namespace optiling {
inline std::string FixtureScaleName() { return "SharedScale"; }
}  // namespace optiling
#endif
