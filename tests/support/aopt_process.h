// Runs the real `aopt` binary of the build (AOPT_BINARY, set by the test's CMake) as a test's
// subprocess: its exit, stdout and stderr as a process_outcome. Shared by the end-to-end tests.
#pragma once

#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

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

#ifdef AOPT_TEST_SOURCE_DIR
// `aopt eval --json` of a package of this source tree (`rel`, relative to it) with a result cache of
// its own, removed after: the report (discarded when stdout was not JSON; `o` has the process).
inline nlohmann::json eval_package(const std::string& rel, common::process_outcome& o, int timeout_s = 580) {
  const auto cache = std::filesystem::temp_directory_path() / ("aopt-it-eval-" + std::to_string(::getpid()));
  o = run_aopt({"eval", std::string(AOPT_TEST_SOURCE_DIR) + "/" + rel, "--json", "--cache-dir", cache.string()}, timeout_s);
  std::error_code e;
  std::filesystem::remove_all(cache, e);
  return nlohmann::json::parse(o.out, nullptr, false);
}
#endif

}  // namespace aopt::testing
