// Runs the real `aopt` binary of the build (AOPT_BINARY, set by the test's CMake) as a test's
// subprocess: its exit, stdout and stderr as a process_outcome. Shared by the end-to-end tests.
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "aopt/common/subprocess.h"

namespace aopt::testing {

inline common::process_outcome run_aopt(const std::vector<std::string>& args, int timeout_s = 1200) {
  common::process_request r;
  r.argv = {AOPT_BINARY};
  r.argv.insert(r.argv.end(), args.begin(), args.end());
  r.limits.wall_timeout = std::chrono::seconds(timeout_s);
  r.limits.max_output_bytes = 16 << 20;
  return common::run_process(r);
}

}  // namespace aopt::testing
