// Internal to aopt_common: the isolated spawn behind run_process (namespaces, an empty root
// built from the request's mounts, a pids cgroup). Everything the child needs is prepared in the
// parent as plain strings: after clone() the child may not allocate (the parent has threads).
#pragma once

#include <sys/resource.h>
#include <sys/types.h>

#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "aopt/common/subprocess.h"

namespace aopt::common::detail {

// What the exec'ing child does once it runs where it should: stdio, cwd, limits, execve.
struct exec_plan {
  int in_fd = -1, out_fd = -1, err_fd = -1;  // become 0, 1, 2
  int channel_src = -1, channel_dst = -1;     // becomes channel_dst
  int report_fd = -1;                         // the exec-error pipe (CLOEXEC)
  const char* cwd = nullptr;
  const sandbox_limits* limits = nullptr;
  std::uint64_t nproc_limit = 0;              // RLIMIT_NPROC (0 = leave)
  bool drop_caps = false;                     // isolated: no capabilities, no new privileges
  char* const* argv = nullptr;
  char* const* envp = nullptr;
  char* const* exe_candidates = nullptr;      // tried in order; null-terminated
};

// What the failing child reports on the exec-error pipe.
struct child_report {
  int err = 0;    // errno
  int step = 0;   // 0 = exec; otherwise a setup step (see step_name)
  int index = -1; // mount index for mount steps
};
std::string step_name(int step);

[[noreturn]] void exec_child(const exec_plan& p);

struct prepared_mount {
  mount_entry::kind what;
  std::string src;   // "/oldroot" + source
  std::string dst;   // "/newroot" + target
  std::string opts;  // tmpfs options
  bool optional;
};
prepared_mount prepare_mount(const mount_entry& m);

struct isolated_plan {
  exec_plan exec;
  std::vector<prepared_mount> mounts;
  // The stack T starts on: S spawns T vfork-style (shared memory, S suspended until T execs), so
  // S's copy of the evaluator's memory is not copied a second time. Mapped by the caller.
  char* child_stack = nullptr;
  std::size_t child_stack_bytes = 0;
  int sync_fd = -1;    // S reads one byte: maps and cgroup are in place
  // The pipe's write end, which S closes first: its own copy would keep the read from ever
  // seeing EOF, and an evaluator killed before it wrote the byte would leave S (holding every
  // descriptor of the evaluator, a daemon's listening socket among them) waiting forever.
  int sync_write_fd = -1;
  int status_fd = -1;  // S writes the exec'd child's wait status and rusage
  // A session's init (common::sandbox_session): S builds the root from `mounts`, reports
  // st_ready on exec.report_fd, then serves the runs it receives on this socket (session_request)
  // instead of starting one child.
  int session_fd = -1;
  pid_t parent = 0;
};

// One run of a session, sent to its init on the session socket with the run's descriptors
// (SCM_RIGHTS, in session_fd_index order). The payload follows the header: argv, envp, cwd (when
// has_cwd), the executable candidates, then per mount its kind and optional flag (one byte each),
// its source ("/oldroot/..."; a tmpfs: its options) and its target ("/newroot/..."), every string
// NUL-terminated. The init parses it without allocating.
struct session_request {
  std::uint32_t argc = 0, envc = 0, exe_count = 0, mount_count = 0;
  std::uint32_t has_cwd = 0, has_channel = 0;
  std::int32_t channel_dst = -1;
  std::uint64_t nproc_limit = 0;
  sandbox_limits limits;
};
enum session_fd_index : int { sfd_out, sfd_err, sfd_report, sfd_status, sfd_in, sfd_channel, sfd_count };
// The step a session's init reports on exec.report_fd once its root is ready.
constexpr int session_ready_step = 100;

struct child_status {
  int status = 0;
  struct rusage ru {};
  std::int64_t root_built_ns = 0;  // CLOCK_MONOTONIC when S had built the root (AOPT_SANDBOX_TRACE)
  std::int64_t child_ended_ns = 0; // ... and when it saw T end
};
// CLOCK_MONOTONIC in nanoseconds (async-signal-safe; the same clock inside the namespaces).
std::int64_t monotonic_ns();

// Starts the child of a run without isolation vfork-style on `stack_top` (it shares this
// process's memory until it execs: no copy of the page tables, which fork() makes and which costs
// more the larger the evaluator). Returns its pid or -1 (errno set).
pid_t spawn_plain(const exec_plan& ep, char* stack_top);

// clone()s the sandbox init S (PID 1 of its namespaces), which builds the root and forks the
// child that exec_child()s. Returns S's pid (or -1, errno set). The caller then calls
// release_isolated() to map ids and join the cgroup.
pid_t spawn_isolated(const isolated_plan& plan);
// Writes uid/gid maps for S, joins `cgroup_dir` when non-empty, releases S. false + why on failure.
bool release_isolated(pid_t s, int sync_w, const std::string& cgroup_dir, std::string& why);

// Hands a sandbox init whose child has ended to a background thread that waits for it (the
// namespaces' teardown takes milliseconds the caller need not wait for) and then removes its
// pids cgroup (when not empty).
void reap_later(pid_t s, std::string cgroup_dir);

// A fresh pids cgroup limited to `max` tasks ("" when unsupported), and its removal.
std::string make_pids_cgroup(std::uint32_t max);
void remove_pids_cgroup(const std::string& dir);
void remove_stale_pids_cgroups();
// Tasks (threads) this real uid has now, for an RLIMIT_NPROC headroom.
std::uint64_t tasks_of_uid(uid_t uid);

bool trace_phases();  // AOPT_SANDBOX_TRACE set

// `fd` moved to a number of 10 or above, close-on-exec: descriptors a child inherits live there, so
// the dup2s onto 0, 1, 2 and the channel's number never overwrite one still needed.
int high_fd(int fd);

// The parent's side of a sandbox_session (sandbox_session.cpp).
// The indices of `req`'s mounts a run in a session on `base` binds itself (a tmpfs, a bind the
// base lacks, a base bind that a run's own mount earlier in the list would cover), or nullopt
// when the run does not extend the base (a bind of the base it lacks, another process limit).
std::optional<std::vector<std::size_t>> session_mounts(const isolation& base, const isolation& req);
// Starts the init (namespaces, cgroup, the base's binds) and waits until its root is ready.
bool session_start(sandbox_session::state& st, std::string& why);
// Ends the init, if any: killed, then reaped (and its cgroup removed) in the background.
void session_stop(sandbox_session::state& st);
// Sends one run to the init: 0, or the errno of the failure (EMSGSIZE: the request is larger than
// the socket takes; anything else: the init is gone).
int session_send(sandbox_session::state& st, const exec_plan& ep, const std::vector<prepared_mount>& mounts,
                  const int* fds, int nfds);

}  // namespace aopt::common::detail

namespace aopt::common {
struct sandbox_session::state {
  isolation base;
  mutable std::mutex mu;  // one run at a time
  pid_t init = -1;
  int ctl = -1;           // the session socket (SOCK_SEQPACKET)
  std::string cgroup;     // the pids cgroup of every run of this init
};
}  // namespace aopt::common
