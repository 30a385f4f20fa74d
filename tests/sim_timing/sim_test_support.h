// Shared by the kernel-level timing tests: emulated GM buffers and parsed device profiles.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "aopt_sim/profile.h"
#include "aopt_sim/runtime.h"
#include "aopt_sim/timing_params.h"

namespace aopt::sim::test {

// One emulated GM allocation, freed with the test.
struct gm {
  explicit gm(std::size_t bytes, const char* name) : p(static_cast<std::uint8_t*>(gm_alloc(bytes, name))) {}
  ~gm() { gm_free(p); }
  gm(const gm&) = delete;
  gm& operator=(const gm&) = delete;
  std::uint8_t* p;
};

// The timing constants of a shipped profile ("a2", "910b4"), parsed once.
inline const timing_params& params_of(const std::string& name) {
  static const timing_params a2 = parse_timing_params(load_profile("a2").raw, "a2");
  static const timing_params b4 = parse_timing_params(load_profile("910b4").raw, "910b4");
  return name == "a2" ? a2 : b4;
}

}  // namespace aopt::sim::test
