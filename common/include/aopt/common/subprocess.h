// Running a child process in a sandbox: own process group, working directory, wall-clock
// timeout that kills the whole group, CPU/address-space/file-size limits, no core dumps,
// stdout/stderr captured into bounded buffers. Every way the child can end is reported as data;
// only a failure of the evaluator itself (pipe, fork) throws aopt::error(subprocess_error).
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace aopt::common {

struct sandbox_limits {
  std::chrono::milliseconds wall_timeout{60'000};  // 0 = none
  std::uint64_t cpu_seconds = 0;                   // RLIMIT_CPU; 0 = unlimited
  std::uint64_t address_space_bytes = 0;           // RLIMIT_AS; 0 = unlimited
  std::uint64_t file_size_bytes = 0;               // RLIMIT_FSIZE; 0 = unlimited
  std::size_t max_output_bytes = 1 << 20;          // kept per stream (head); the rest is dropped
};

struct process_request {
  std::vector<std::string> argv;  // argv[0] is looked up in PATH when it has no '/'
  std::string cwd;                // empty = the parent's
  std::vector<std::pair<std::string, std::string>> env;  // added to / overriding the parent's
  sandbox_limits limits;
};

enum class process_end : std::uint8_t {
  exited,         // normal exit, see exit_code
  signaled,       // killed by a signal, see term_signal
  timed_out,      // wall-clock timeout: the whole group was killed
  spawn_failed,   // exec failed (not found, not executable): see error
};

struct process_outcome {
  process_end end = process_end::spawn_failed;
  int exit_code = -1;
  int term_signal = 0;
  std::string out, err;
  bool out_truncated = false, err_truncated = false;
  double wall_seconds = 0;
  double cpu_seconds = 0;           // user + system of the child
  std::uint64_t max_rss_bytes = 0;
  std::uint64_t address_space_limit = 0;  // the RLIMIT_AS it ran under (0 = none)
  std::string error;                // spawn_failed: why

  bool ok() const { return end == process_end::exited && exit_code == 0; }
  bool cpu_limit_hit() const;       // SIGXCPU or SIGKILL after the CPU hard limit
  bool file_limit_hit() const;      // SIGXFSZ
  // Heuristic: allocation failure under RLIMIT_AS: an abnormal end with the peak RSS at half the
  // limit or more, or an allocation-failure message (bad_alloc, "Cannot allocate memory", ...).
  bool memory_exhausted() const;
  std::string describe() const;     // "exited with code 2", "killed by SIGSEGV", ...
};

// Runs the process to completion (or timeout). Thread-safe: several may run at once.
process_outcome run_process(const process_request& req);

std::string signal_name(int sig);   // "SIGSEGV"
std::string seconds_text(double s); // "2.5", "60"

}  // namespace aopt::common
