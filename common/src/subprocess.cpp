#include "aopt/common/subprocess.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>

#include "aopt/common/error.h"
#include "sandbox.h"

extern char** environ;

namespace aopt::common {

std::string signal_name(int sig) {
  switch (sig) {
    case SIGSEGV: return "SIGSEGV";
    case SIGABRT: return "SIGABRT";
    case SIGBUS: return "SIGBUS";
    case SIGFPE: return "SIGFPE";
    case SIGILL: return "SIGILL";
    case SIGKILL: return "SIGKILL";
    case SIGTERM: return "SIGTERM";
    case SIGXCPU: return "SIGXCPU";
    case SIGXFSZ: return "SIGXFSZ";
    case SIGPIPE: return "SIGPIPE";
    case SIGTRAP: return "SIGTRAP";
    case SIGINT: return "SIGINT";
    case SIGHUP: return "SIGHUP";
    case SIGALRM: return "SIGALRM";
    case SIGSYS: return "SIGSYS";
    default: return "signal " + std::to_string(sig);
  }
}

std::string seconds_text(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", s);
  return buf;
}

bool process_outcome::cpu_limit_hit() const {
  return end == process_end::signaled && term_signal == SIGXCPU;
}

bool process_outcome::file_limit_hit() const {
  return end == process_end::signaled && term_signal == SIGXFSZ;
}

bool process_outcome::memory_exhausted() const {
  if (end == process_end::exited && exit_code == 0) return false;
  if (end == process_end::timed_out || end == process_end::spawn_failed) return false;
  if (address_space_limit > 0 && max_rss_bytes * 2 >= address_space_limit) return true;
  for (const char* needle : {"std::bad_alloc", "Cannot allocate memory", "out of memory",
                             "memory exhausted", "mmap failed"}) {
    if (err.find(needle) != std::string::npos || out.find(needle) != std::string::npos) return true;
  }
  return false;
}

std::string process_outcome::describe() const {
  switch (end) {
    case process_end::exited: return "exited with code " + std::to_string(exit_code);
    case process_end::signaled: return "killed by " + signal_name(term_signal);
    case process_end::timed_out:
      return "timed out after " + seconds_text(wall_seconds) + " s (process group killed)";
    case process_end::spawn_failed: return "could not start: " + error;
  }
  return "unknown";
}

namespace {

struct fd_guard {
  int fd = -1;
  fd_guard() = default;
  fd_guard(const fd_guard&) = delete;
  fd_guard& operator=(const fd_guard&) = delete;
  ~fd_guard() { reset(); }
  void reset() {
    if (fd >= 0) ::close(fd);
    fd = -1;
  }
};

void make_pipe(fd_guard& r, fd_guard& w) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) {
    throw error(ec::subprocess_error, std::string("pipe2 failed: ") + std::strerror(errno) +
                                          " (too many open files? raise `ulimit -n`)");
  }
  r.fd = detail::high_fd(fds[0]);
  w.fd = detail::high_fd(fds[1]);
}

bool exists(const char* p) {
  struct stat st {};
  return ::lstat(p, &st) == 0;
}

// A run inside a sandbox_session: its state (locked by the caller), the indices of the request's
// mounts the run binds itself, and whether the request never reached the init: it was gone
// (then the caller starts a new init and tries again) or the request was too large for the
// session's socket (then the run goes unshared and the session stays).
struct session_run {
  sandbox_session::state* st = nullptr;
  std::vector<std::size_t> mounts;
  bool not_sent = false;
  bool too_large = false;
};

process_outcome run_impl(const process_request& req, bool isolate, const std::string& note, session_run* sr = nullptr);

}  // namespace

std::vector<mount_entry> system_mounts(std::uint64_t tmp_bytes) {
  std::vector<mount_entry> m;
  for (const char* d : {"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"}) {
    m.push_back({mount_entry::kind::read_only, d, "", 0, true});
  }
  for (const char* e : {"/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/alternatives",
                        "/etc/localtime"}) {
    m.push_back({mount_entry::kind::read_only, e, "", 0, true});
  }
  m.push_back({mount_entry::kind::tmpfs, "", "/tmp", tmp_bytes, false});
  return m;
}

const isolation_support& probe_isolation() {
  static const isolation_support support = [] {
    isolation_support s;
    detail::remove_stale_pids_cgroups();
    process_request req;
    req.argv = {exists("/usr/bin/true") ? "/usr/bin/true" : "/bin/true"};
    req.iso.enabled = true;
    req.iso.mounts = system_mounts(1 << 20);
    req.limits.wall_timeout = std::chrono::seconds(20);
    process_outcome out;
    try {
      out = run_impl(req, true, {});
    } catch (const std::exception& e) {
      out.error = e.what();
    }
    s.namespaces = out.ok();
    if (!s.namespaces) {
      s.why = "Linux namespaces are not available to aopt here (" + (out.error.empty() ? out.describe() : out.error) +
              "): candidates and compilers run under resource limits only, without a private root, network "
              "isolation or a process limit. Allow unprivileged user namespaces (sysctl "
              "kernel.unprivileged_userns_clone=1, user.max_user_namespaces > 0; AppArmor: "
              "kernel.apparmor_restrict_unprivileged_userns=0) to isolate them";
    }
    const std::string cg = detail::make_pids_cgroup(16);
    s.pids_cgroup = !cg.empty();
    detail::remove_pids_cgroup(cg);
    return s;
  }();
  return support;
}

process_outcome run_process(const process_request& req) {
  if (!req.iso.enabled) return run_impl(req, false, {});
  const auto& support = probe_isolation();
  if (support.namespaces && req.session) {
    auto& st = req.session->internal();
    std::lock_guard<std::mutex> lock(st.mu);
    if (auto per_run = detail::session_mounts(st.base, req.iso)) {
      for (int attempt = 0; attempt < 2; ++attempt) {
        std::string why;
        if (st.init <= 0 && !detail::session_start(st, why)) break;  // the unshared run below says why
        session_run sr{&st, *per_run};
        auto out = run_impl(req, true, {}, &sr);
        if (!sr.not_sent) return out;
        if (sr.too_large) break;
        detail::session_stop(st);
      }
    }
  }
  return run_impl(req, support.namespaces, support.namespaces ? std::string() : support.why);
}

namespace detail {
// AOPT_SANDBOX_TRACE=1: one stderr line per process (and per session started) with the time of
// each phase (docs/evaluation.md, "The cost of isolation").
bool trace_phases() {
  static const bool on = [] {
    const char* v = std::getenv("AOPT_SANDBOX_TRACE");
    return v != nullptr && *v != '\0' && std::string(v) != "0";
  }();
  return on;
}
}  // namespace detail

sandbox_session::sandbox_session(isolation base) : s_(std::make_unique<state>()) { s_->base = std::move(base); }
sandbox_session::~sandbox_session() { close(); }
const isolation& sandbox_session::base() const { return s_->base; }
sandbox_session::state& sandbox_session::internal() { return *s_; }
void sandbox_session::close() {
  std::lock_guard<std::mutex> lock(s_->mu);
  detail::session_stop(*s_);
}
long sandbox_session::init_pid() const {
  std::lock_guard<std::mutex> lock(s_->mu);
  return s_->init > 0 ? s_->init : 0;
}
bool sandbox_session::running() const {
  std::lock_guard<std::mutex> lock(s_->mu);
  return s_->init > 0;
}

namespace {

process_outcome run_impl(const process_request& req, bool isolate, const std::string& note, session_run* sr) {
  const std::int64_t t_begin = detail::monotonic_ns();
  std::int64_t t_cgroup = 0, t_spawned = 0, t_released = 0, t_exec = 0, t_streams = 0, t_reaped = 0;
  detail::child_status traced{};
  process_outcome result;
  result.isolation_note = note;
  if (req.argv.empty()) {
    result.error = "empty command line";
    return result;
  }
  // Everything the child needs is prepared before fork/clone: after it only system calls.
  std::vector<char*> argv;
  for (const auto& a : req.argv) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  std::map<std::string, std::string> env_map;
  for (char** e = environ; e && *e; ++e) {
    std::string kv(*e);
    const auto eq = kv.find('=');
    if (eq == std::string::npos) continue;
    const std::string k = kv.substr(0, eq);
    // An isolated child sees none of the evaluator's variables (API keys, paths of the user's
    // files) beyond what it needs to run.
    if (req.iso.enabled && req.iso.clean_env && k != "PATH" && k != "LANG" && k != "LC_ALL") continue;
    env_map[k] = kv.substr(eq + 1);
  }
  if (req.iso.enabled && req.iso.clean_env) {
    env_map["HOME"] = "/nonexistent";
    env_map["TMPDIR"] = "/tmp";
  }
  for (const auto& [k, v] : req.env) env_map[k] = v;
  std::vector<std::string> env_strings;
  for (const auto& [k, v] : env_map) env_strings.push_back(k + "=" + v);
  std::vector<char*> envp;
  for (auto& s : env_strings) envp.push_back(s.data());
  envp.push_back(nullptr);
  detail::exec_plan ep;
  const std::string exe = req.argv[0];
  std::vector<std::string> exe_candidates;
  if (exe.find('/') != std::string::npos) {
    exe_candidates.push_back(exe);
  } else {
    const std::string path = env_map.count("PATH") ? env_map["PATH"] : "/usr/bin:/bin";
    std::size_t start = 0;
    while (start <= path.size()) {
      const auto colon = path.find(':', start);
      const auto dir = path.substr(start, colon == std::string::npos ? std::string::npos : colon - start);
      exe_candidates.push_back((dir.empty() ? "." : dir) + "/" + exe);
      if (colon == std::string::npos) break;
      start = colon + 1;
    }
  }
  std::vector<char*> exe_ptrs;
  for (auto& c : exe_candidates) exe_ptrs.push_back(c.data());
  exe_ptrs.push_back(nullptr);
  ep.exe_candidates = exe_ptrs.data();
  const auto& lim = req.limits;

  fd_guard out_r, out_w, err_r, err_w, exec_r, exec_w, in_r, in_w, ch_r, ch_w, sync_r, sync_w, st_r, st_w;
  make_pipe(out_r, out_w);
  make_pipe(err_r, err_w);
  make_pipe(exec_r, exec_w);
  if (!req.stdin_data.empty()) {
    if (req.stdin_data.size() > 16384) throw error(ec::internal, "run_process: stdin_data over 16 KiB");
    make_pipe(in_r, in_w);
    if (::write(in_w.fd, req.stdin_data.data(), req.stdin_data.size()) != static_cast<ssize_t>(req.stdin_data.size())) {
      throw error(ec::subprocess_error, std::string("cannot write the child's stdin: ") + std::strerror(errno));
    }
    in_w.reset();
  } else {
    in_r.fd = detail::high_fd(::open("/dev/null", O_RDONLY | O_CLOEXEC));
  }
  fd_guard channel_out;
  if (req.channel_fd >= 0) {
    make_pipe(ch_r, ch_w);
    channel_out.fd = ::open(req.channel_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (channel_out.fd < 0) {
      throw error(ec::subprocess_error, req.channel_file + ": cannot create the result channel file (" +
                                            std::strerror(errno) + ")");
    }
  }
  if (isolate) {
    if (sr == nullptr) make_pipe(sync_r, sync_w);
    make_pipe(st_r, st_w);
  }
  ep.in_fd = in_r.fd;
  ep.out_fd = out_w.fd;
  ep.err_fd = err_w.fd;
  ep.channel_src = ch_w.fd;
  ep.channel_dst = req.channel_fd;
  ep.report_fd = exec_w.fd;
  ep.cwd = req.cwd.empty() ? nullptr : req.cwd.c_str();
  ep.limits = &lim;
  ep.argv = argv.data();
  ep.envp = envp.data();
  ep.drop_caps = isolate;
  std::string cgroup;
  if (req.iso.enabled && req.iso.max_processes > 0) {
    if (isolate && sr == nullptr && probe_isolation().pids_cgroup) cgroup = detail::make_pids_cgroup(req.iso.max_processes);
    const bool limited = !cgroup.empty() || (sr != nullptr && !sr->st->cgroup.empty());
    if (!limited && ::getuid() != 0) {
      ep.nproc_limit = detail::tasks_of_uid(::getuid()) + req.iso.max_processes;
    } else if (!limited && result.isolation_note.empty()) {
      result.isolation_note = "no process limit: no writable pids cgroup, and RLIMIT_NPROC does not bind root";
    }
  }
  t_cgroup = detail::monotonic_ns();
  detail::isolated_plan plan;
  struct stack_guard {
    void* at = MAP_FAILED;
    std::size_t bytes = 0;
    ~stack_guard() {
      if (at != MAP_FAILED) ::munmap(at, bytes);
    }
  } child_stack;
  if (sr == nullptr) {
    child_stack.bytes = std::size_t(256) << 10;
    child_stack.at = ::mmap(nullptr, child_stack.bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
    if (child_stack.at == MAP_FAILED) {
      throw error(ec::subprocess_error, std::string("cannot map a stack for the child: ") + std::strerror(errno));
    }
  }
  if (isolate && sr == nullptr) {
    plan.child_stack = static_cast<char*>(child_stack.at);
    plan.child_stack_bytes = child_stack.bytes;
    plan.exec = ep;
    plan.sync_fd = sync_r.fd;
    plan.sync_write_fd = sync_w.fd;
    plan.status_fd = st_w.fd;
    plan.parent = ::getpid();
    for (const auto& m : req.iso.mounts) plan.mounts.push_back(detail::prepare_mount(m));
  }

  const auto t0 = std::chrono::steady_clock::now();
  if (sr != nullptr) {
    // The prepared sandbox: the run's request and descriptors go to its init, which starts it.
    std::vector<detail::prepared_mount> mounts;
    for (auto i : sr->mounts) mounts.push_back(detail::prepare_mount(req.iso.mounts[i]));
    int fds[detail::sfd_count] = {};
    fds[detail::sfd_out] = out_w.fd;
    fds[detail::sfd_err] = err_w.fd;
    fds[detail::sfd_report] = exec_w.fd;
    fds[detail::sfd_status] = st_w.fd;
    fds[detail::sfd_in] = in_r.fd;
    fds[detail::sfd_channel] = ch_w.fd;
    const int sent = detail::session_send(*sr->st, ep, mounts, fds, ch_w.fd >= 0 ? detail::sfd_count : detail::sfd_channel);
    if (sent != 0) {
      sr->not_sent = true;
      sr->too_large = sent == EMSGSIZE;
      return result;
    }
  }
  const pid_t pid = sr != nullptr ? sr->st->init
                    : isolate     ? detail::spawn_isolated(plan)
                                  : detail::spawn_plain(ep, static_cast<char*>(child_stack.at) + child_stack.bytes);
  if (pid < 0) {
    const int err = errno;
    detail::remove_pids_cgroup(cgroup);
    throw error(ec::subprocess_error, std::string("clone failed: ") + std::strerror(err) +
                                          " (process or memory limit of the evaluator reached)");
  }
  t_spawned = detail::monotonic_ns();
  if (!isolate) ::setpgid(pid, pid);     // also done by the child; whichever runs first wins
  result.isolated = isolate;
  if (isolate && sr == nullptr) {
    sync_r.reset();
    std::string why;
    if (!detail::release_isolated(pid, sync_w.fd, cgroup, why)) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, nullptr, 0);
      detail::remove_pids_cgroup(cgroup);
      result.end = process_end::spawn_failed;
      result.error = "cannot set up the sandbox: " + why;
      return result;
    }
    sync_w.reset();
    t_released = detail::monotonic_ns();
  } else if (sr != nullptr) {
    t_released = t_spawned;
  }
  in_r.reset();
  out_w.reset();
  err_w.reset();
  exec_w.reset();
  ch_w.reset();
  st_w.reset();

  // The exec report: EOF once the child has exec'd, a child_report if it could not. Read under
  // the deadline: a sandbox that never gets to exec must not hang the evaluator.
  bool timed_out = false;
  const bool has_deadline = lim.wall_timeout.count() > 0;
  const auto deadline = t0 + lim.wall_timeout;
  detail::child_report report;
  bool exec_failed = false;
  for (;;) {
    int wait_ms = -1;
    if (has_deadline) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
      wait_ms = static_cast<int>(std::max<long long>(left.count(), 0));
    }
    struct pollfd pfd = {exec_r.fd, POLLIN, 0};
    const int pr = ::poll(&pfd, 1, wait_ms);
    if (pr < 0 && errno == EINTR) continue;
    if (pr == 0) {
      timed_out = true;
      break;
    }
    ssize_t n;
    do {
      n = ::read(exec_r.fd, &report, sizeof report);
    } while (n < 0 && errno == EINTR);
    exec_failed = n == static_cast<ssize_t>(sizeof report);
    break;
  }
  t_exec = detail::monotonic_ns();
  struct stream {
    int fd;
    std::string* buf;
    bool* truncated;
    std::size_t cap;
  };
  std::string channel_note;
  stream streams[3] = {{out_r.fd, &result.out, &result.out_truncated, lim.max_output_bytes},
                       {err_r.fd, &result.err, &result.err_truncated, lim.max_output_bytes},
                       {ch_r.fd, nullptr, &result.channel_truncated, 0}};
  int open_streams = timed_out ? 0 : (ch_r.fd >= 0 ? 3 : 2);
  std::vector<char> chunk(65536);
  int status = 0;
  struct rusage ru {};
  bool reaped = false;
  std::chrono::steady_clock::time_point reaped_at;
  while (open_streams > 0) {
    // A descendant that escaped the process group (setsid; only possible without isolation) may
    // hold the pipes open: once the child is gone, its streams get two seconds to drain.
    if (reaped && std::chrono::steady_clock::now() - reaped_at > std::chrono::seconds(2)) break;
    struct pollfd pfds[3];
    int n = 0;
    int map[3];
    for (int i = 0; i < 3; ++i) {
      if (streams[i].fd >= 0) {
        pfds[n] = {streams[i].fd, POLLIN, 0};
        map[n++] = i;
      }
    }
    int wait_ms = 200;
    if (has_deadline) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0) {
        timed_out = true;
        break;
      }
      wait_ms = static_cast<int>(std::min<long long>(left.count(), 200));
    }
    if (!reaped && sr == nullptr && ::wait4(pid, &status, WNOHANG, &ru) == pid) {
      // The child is gone; descendants still holding the pipes go with its group (or namespace).
      reaped = true;
      reaped_at = std::chrono::steady_clock::now();
      if (!isolate) ::kill(-pid, SIGKILL);
    }
    const int pr = ::poll(pfds, static_cast<nfds_t>(n), wait_ms);
    if (pr < 0) {
      if (errno == EINTR) continue;
      break;
    }
    for (int j = 0; j < n; ++j) {
      if (pfds[j].revents == 0) continue;
      auto& s = streams[map[j]];
      const ssize_t got = ::read(s.fd, chunk.data(), chunk.size());
      if (got > 0) {
        if (s.buf == nullptr) {  // the channel: to its file, up to its cap
          const std::uint64_t room = req.channel_max_bytes > result.channel_bytes ? req.channel_max_bytes - result.channel_bytes : 0;
          const std::size_t keep = static_cast<std::size_t>(std::min<std::uint64_t>(room, static_cast<std::uint64_t>(got)));
          if (keep > 0 && ::write(channel_out.fd, chunk.data(), keep) != static_cast<ssize_t>(keep)) {
            channel_note = std::string("cannot write the result channel file: ") + std::strerror(errno);
            *s.truncated = true;
          }
          result.channel_bytes += keep;
          if (keep < static_cast<std::size_t>(got)) *s.truncated = true;
          continue;
        }
        const std::size_t room = s.cap > s.buf->size() ? s.cap - s.buf->size() : 0;
        const std::size_t keep = std::min<std::size_t>(room, static_cast<std::size_t>(got));
        s.buf->append(chunk.data(), keep);
        if (keep < static_cast<std::size_t>(got)) *s.truncated = true;
      } else if (got == 0 || (got < 0 && errno != EINTR && errno != EAGAIN)) {
        s.fd = -1;
        --open_streams;
      }
    }
  }
  t_streams = detail::monotonic_ns();
  // An isolated run: S reports T's end as soon as it sees it, then exits, which tears down the
  // namespaces and kills what T left in them. Its report ends the run; the background reaper
  // waits out the teardown and removes the pids cgroup.
  bool reported = false;
  if (isolate && !timed_out && !reaped) {
    detail::child_status cs;
    std::size_t got = 0;
    while (got < sizeof cs) {
      int wait_ms = -1;
      if (has_deadline) {
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
        if (left.count() <= 0) break;
        wait_ms = static_cast<int>(left.count());
      }
      struct pollfd pfd = {st_r.fd, POLLIN, 0};
      const int pr = ::poll(&pfd, 1, wait_ms);
      if (pr < 0 && errno == EINTR) continue;
      if (pr <= 0) break;
      const ssize_t n = ::read(st_r.fd, reinterpret_cast<char*>(&cs) + got, sizeof cs - got);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;  // S ended without a report: wait for it below
      got += static_cast<std::size_t>(n);
    }
    if (got == sizeof cs) {
      reported = true;
      status = cs.status;
      ru = cs.ru;
      traced = cs;
      if (sr == nullptr) detail::reap_later(pid, cgroup);
      cgroup.clear();
      reaped = true;
    }
  }
  // A session's init that did not report (the run timed out, or the init ended) goes; the next
  // run starts another.
  bool init_lost = false;
  if (sr != nullptr && !reported) {
    init_lost = !timed_out && !exec_failed;
    detail::session_stop(*sr->st);
    reaped = true;
  }
  // Streams closed (or timeout): wait for the child, still honouring the deadline (a child may
  // close its streams and keep running).
  // Polled with a growing pause: a child whose streams just closed is usually a zombie within
  // microseconds (a fixed 2 ms pause was most of a short plain run's cost).
  for (useconds_t pause = 50; !reaped; pause = std::min<useconds_t>(pause * 2, 2000)) {
    if (timed_out) {
      if (!isolate) ::kill(-pid, SIGKILL);
      ::kill(pid, SIGKILL);
    }
    const pid_t w = ::wait4(pid, &status, timed_out ? 0 : WNOHANG, &ru);
    if (w == pid) break;
    if (w < 0 && errno != EINTR) break;
    if (w == 0) {
      if (has_deadline && std::chrono::steady_clock::now() >= deadline) {
        timed_out = true;
        continue;
      }
      ::usleep(pause);
    }
  }
  t_reaped = detail::monotonic_ns();
  // Whatever the child left behind in its group goes too (an isolated run's namespace already
  // went with its init).
  if (!isolate) ::kill(-pid, SIGKILL);
  if (isolate && !reported && sr == nullptr) {
    detail::child_status cs;
    const ssize_t n = ::read(st_r.fd, &cs, sizeof cs);
    if (n == static_cast<ssize_t>(sizeof cs)) {  // the init reported its child's end
      status = cs.status;
      ru = cs.ru;
      traced = cs;
    }
  }
  detail::remove_pids_cgroup(cgroup);
  if (detail::trace_phases()) {
    const std::int64_t t_end = detail::monotonic_ns();
    auto ms = [](std::int64_t a, std::int64_t b) { return a > 0 && b > 0 ? static_cast<double>(b - a) * 1e-6 : -1.0; };
    std::fprintf(stderr,
                 "aopt-sandbox-trace %s isolated=%d mounts=%zu prepare=%.2f clone=%.2f release=%.2f root=%.2f exec=%.2f "
                 "streams=%.2f child_end=%.2f reap=%.2f cleanup=%.2f total=%.2f ms\n",
                 req.argv[0].c_str(), isolate ? 1 : 0, req.iso.mounts.size(), ms(t_begin, t_cgroup), ms(t_cgroup, t_spawned),
                 ms(t_spawned, t_released), ms(t_released, traced.root_built_ns), ms(t_released, t_exec),
                 ms(t_exec, t_streams), ms(traced.child_ended_ns, t_streams) , ms(t_streams, t_reaped), ms(t_reaped, t_end),
                 ms(t_begin, t_end));
  }
  if (!channel_note.empty()) result.error = channel_note;

  result.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  result.cpu_seconds = static_cast<double>(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
                       static_cast<double>(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1e-6;
  result.max_rss_bytes = static_cast<std::uint64_t>(ru.ru_maxrss) * 1024;
  result.address_space_limit = lim.address_space_bytes;
  if (sr != nullptr && exec_failed && report.step != 0) detail::session_stop(*sr->st);  // a failed setup ends the init
  if (init_lost) {
    result.end = process_end::spawn_failed;
    result.error = "the sandbox's init ended during the run (the evaluator's thread that started it ended?)";
    return result;
  }
  if (exec_failed) {
    result.end = process_end::spawn_failed;
    if (report.step == 0) {
      result.error = req.argv[0] + ": " + std::strerror(report.err);
      if (!req.cwd.empty()) result.error += " (cwd " + req.cwd + ")";
    } else {
      std::string where;
      std::size_t index = report.index >= 0 ? static_cast<std::size_t>(report.index) : req.iso.mounts.size();
      if (sr != nullptr) index = index < sr->mounts.size() ? sr->mounts[index] : req.iso.mounts.size();
      if (index < req.iso.mounts.size()) {
        const auto& m = req.iso.mounts[index];
        where = " of " + (m.target.empty() ? m.source : m.target);
      }
      result.error = "sandbox setup failed (" + detail::step_name(report.step) + where + "): " + std::strerror(report.err);
      if (report.step == 1) result.error += " (cwd " + req.cwd + " is not visible in the sandbox?)";
    }
    return result;
  }
  if (timed_out) {
    result.end = process_end::timed_out;
  } else if (WIFEXITED(status)) {
    result.end = process_end::exited;
    result.exit_code = WEXITSTATUS(status);
  } else if (WIFSIGNALED(status)) {
    result.end = process_end::signaled;
    result.term_signal = WTERMSIG(status);
    // The CPU hard limit ends in SIGKILL; report it as the CPU limit it is.
    if (result.term_signal == SIGKILL && lim.cpu_seconds > 0 &&
        result.cpu_seconds >= static_cast<double>(lim.cpu_seconds)) {
      result.term_signal = SIGXCPU;
    }
  }
  return result;
}

}  // namespace

}  // namespace aopt::common
