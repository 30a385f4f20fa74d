// How the evaluator isolates what it runs for a candidate: its compilers, `host --signature`, its
// runs and a C++ reference. Each gets its own namespaces (common::isolation) with a root holding
// the system directories and the toolchain read-only, plus only what that step needs; see
// docs/evaluation.md, "The sandbox", for what this guarantees and what it does not.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "aopt/common/fs.h"
#include "aopt/common/subprocess.h"

namespace aopt::evaluation {

// Isolation on unless the environment sets AOPT_SANDBOX=0.
bool isolation_default();
// Device nodes runs may use, from AOPT_SANDBOX_DEVICES (colon-separated paths; default none).
std::vector<std::string> devices_default();

struct sandbox_policy {
  bool isolate = isolation_default();                    // false: resource limits only (--no-sandbox)
  std::uint64_t disk_bytes = std::uint64_t(512) << 20;   // a run's writable space: /tmp and its cwd, half each
  std::uint32_t max_processes = 1024;                    // tasks (processes + threads) of one run
  std::uint32_t max_compile_processes = 256;
  std::vector<std::string> devices = devices_default();  // device nodes passed through (an NPU's /dev/davinci*)
};

// A compiler step: the toolchain read-only, `build_dir` (its sources and outputs) and the ccache
// directory writable.
common::isolation compile_isolation(const sandbox_policy& p, const std::filesystem::path& build_dir);
// A run: the toolchain's runtime library (not its headers or static libraries) and `read_only`
// (built artifacts, input files, the request) read-only; the
// working directory `run_dir` a private tmpfs into which each of `files_in_run_dir` is bound
// read-only; nothing writable outside it.
common::isolation run_isolation(const sandbox_policy& p, const std::vector<std::filesystem::path>& read_only,
                                const std::filesystem::path& run_dir,
                                const std::vector<std::filesystem::path>& files_in_run_dir);
// What every run of one build shares: run_isolation's mounts without the run directory, the
// base of the sandbox_session those runs use (runs given the same `read_only` first extend it).
common::isolation run_session_base(const sandbox_policy& p, const std::vector<std::filesystem::path>& read_only);
// A user script that only reads (an msOpST fuzz function, evaluation/fuzz.h): the system
// directories and `read_only` read-only, a private /tmp, no toolchain, nothing else writable.
common::isolation script_isolation(const sandbox_policy& p, const std::vector<std::filesystem::path>& read_only);
using common::path_under;  // common/fs.h
// The warning every result carries when isolation was asked for and this machine cannot give it
// (empty otherwise); logged once per process.
std::string isolation_warning(const sandbox_policy& p);

}  // namespace aopt::evaluation
