// Running a child process in a sandbox: own process group, working directory, wall-clock
// timeout that kills the whole group, CPU/address-space/file-size limits, no core dumps,
// stdout/stderr captured into bounded buffers. With `isolation::enabled` the child also gets its
// own user, PID, mount, network, IPC and UTS namespaces: a root of its own holding only the
// mounts the request lists, no network, a process limit, and every descendant killed with it
// (and with the evaluator: PR_SET_PDEATHSIG). docs/evaluation.md says what that guarantees.
// Every way the child can end is reported as data; only a failure of the evaluator itself
// (pipe, fork) throws aopt::error(subprocess_error).
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
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

// One mount of an isolated child's root, which starts empty. Paths are absolute; a bind keeps
// the source's path (`target` empty) or names another. A source that is a symbolic link is
// recreated as that link (Debian's /bin -> usr/bin), not followed.
struct mount_entry {
  enum class kind : std::uint8_t { read_only, writable, tmpfs };
  kind what = kind::read_only;
  std::string source;              // bind source (unused for tmpfs)
  std::string target;              // empty = source
  std::uint64_t tmpfs_bytes = 0;   // tmpfs size limit
  bool optional = false;           // a missing source is skipped instead of failing the run
};

struct isolation {
  bool enabled = false;
  std::vector<mount_entry> mounts;  // applied in order; /proc and a minimal /dev are added
  std::uint32_t max_processes = 0;  // tasks (processes and threads) of the whole run; 0 = none
  bool clean_env = true;            // only PATH, LANG, LC_ALL, HOME, TMPDIR plus the request's env
};

// What this machine allows, probed once: namespaces (clone with CLONE_NEWUSER and the rest) and
// a pids cgroup for the process limit.
struct isolation_support {
  bool namespaces = false;
  bool pids_cgroup = false;
  std::string why;  // when something is missing: what and what to do
};
const isolation_support& probe_isolation();
// The read-only system part of an isolated root: /usr and the /bin, /lib... links, the dynamic
// loader's configuration and /etc/alternatives (never /etc as a whole: no passwd, shadow, keys),
// plus a private /tmp of `tmp_bytes`.
std::vector<mount_entry> system_mounts(std::uint64_t tmp_bytes = std::uint64_t(64) << 20);

// A sandbox prepared once for several isolated runs in a row (the runs of one evaluation): the
// namespaces, the pids cgroup and the binds of `base` (its tmpfs entries excepted) are set up by
// the first run that uses it, by an init process that then stays. Each run gets PID and mount
// namespaces of its own, binds what it lists beyond the base (its working directory, inputs) and
// a fresh tmpfs for every tmpfs it lists, so it has the same root as an unshared run would have,
// and leaves nothing: what it left dies with its PID namespace before the next run starts. A run
// whose mounts do not extend the base (it lacks one of the base's binds) runs unshared. A timeout or a failed setup ends the init; the next run
// starts a new one. One run at a time (runs wait for each other); close() or the destructor
// ends the init. docs/evaluation.md, "The sandbox".
class sandbox_session {
 public:
  explicit sandbox_session(isolation base);
  ~sandbox_session();
  sandbox_session(const sandbox_session&) = delete;
  sandbox_session& operator=(const sandbox_session&) = delete;
  const isolation& base() const;
  void close();          // ends the init now (a later run starts a new one)
  bool running() const;  // an init is up
  long init_pid() const; // its pid (0 when none), for diagnostics and tests
  struct state;
  state& internal();

 private:
  std::unique_ptr<state> s_;
};

struct process_request {
  std::vector<std::string> argv;  // argv[0] is looked up in PATH when it has no '/'
  std::string cwd;                // empty = the parent's
  std::vector<std::pair<std::string, std::string>> env;  // added to / overriding the parent's
  sandbox_limits limits;
  isolation iso;
  std::string stdin_data;         // written to the child's stdin (then EOF); empty = /dev/null
  // A private channel: the child's descriptor `channel_fd` is a pipe whose bytes the parent
  // writes to `channel_file` (at most channel_max_bytes; the rest is dropped and flagged).
  int channel_fd = -1;
  std::string channel_file;
  std::uint64_t channel_max_bytes = std::uint64_t(1) << 32;
  // Run in this prepared sandbox when `iso` extends its base (see sandbox_session); null = unshared.
  std::shared_ptr<sandbox_session> session;
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
  bool isolated = false;            // ran in its own namespaces
  std::string isolation_note;       // isolation was asked for and is (partly) missing: why
  std::uint64_t channel_bytes = 0;
  bool channel_truncated = false;

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
