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

// One run of a child, phase by phase: prepare its command line and environment, open the pipes
// and plan the limits, spawn it (through a session's init, into a fresh sandbox, or plain), wait
// for its exec report, drain its streams, collect its end, and classify the outcome. Everything
// the child needs is prepared before the clone: after it only system calls.
class process_run {
 public:
  process_run(const process_request& req, bool isolate, const std::string& note, session_run* sr)
      : req_(req), lim_(req.limits), isolate_(isolate), sr_(sr) {
    result_.isolation_note = note;
  }

  process_outcome execute() {
    if (req_.argv.empty()) {
      result_.error = "empty command line";
      return result_;
    }
    prepare_command();
    open_pipes();
    plan_limits();
    t_cgroup_ = detail::monotonic_ns();
    prepare_spawn();
    t0_ = std::chrono::steady_clock::now();
    deadline_ = t0_ + lim_.wall_timeout;
    if (!spawn()) return result_;
    await_exec();
    t_exec_ = detail::monotonic_ns();
    drain_streams();
    t_streams_ = detail::monotonic_ns();
    read_isolated_report();
    reap();
    t_reaped_ = detail::monotonic_ns();
    finish_cleanup();
    trace();
    return classify();
  }

 private:
  // The command line, the environment (an isolated child sees none of the evaluator's variables,
  // API keys or paths of the user's files, beyond what it needs) and the executable's candidates
  // along PATH.
  void prepare_command() {
    for (const auto& a : req_.argv) argv_.push_back(const_cast<char*>(a.c_str()));
    argv_.push_back(nullptr);
    const bool clean = req_.iso.enabled && req_.iso.clean_env;
    std::map<std::string, std::string> env_map;
    for (char** e = environ; e && *e; ++e) {
      std::string kv(*e);
      const auto eq = kv.find('=');
      if (eq == std::string::npos) continue;
      const std::string k = kv.substr(0, eq);
      if (clean && k != "PATH" && k != "LANG" && k != "LC_ALL") continue;
      env_map[k] = kv.substr(eq + 1);
    }
    if (clean) {
      env_map["HOME"] = "/nonexistent";
      env_map["TMPDIR"] = "/tmp";
    }
    for (const auto& [k, v] : req_.env) env_map[k] = v;
    for (const auto& [k, v] : env_map) env_strings_.push_back(k + "=" + v);
    for (auto& s : env_strings_) envp_.push_back(s.data());
    envp_.push_back(nullptr);
    const std::string exe = req_.argv[0];
    if (exe.find('/') != std::string::npos) {
      exe_candidates_.push_back(exe);
    } else {
      const std::string path = env_map.count("PATH") ? env_map["PATH"] : "/usr/bin:/bin";
      std::size_t start = 0;
      while (start <= path.size()) {
        const auto colon = path.find(':', start);
        const auto dir = path.substr(start, colon == std::string::npos ? std::string::npos : colon - start);
        exe_candidates_.push_back((dir.empty() ? "." : dir) + "/" + exe);
        if (colon == std::string::npos) break;
        start = colon + 1;
      }
    }
    for (auto& c : exe_candidates_) exe_ptrs_.push_back(c.data());
    exe_ptrs_.push_back(nullptr);
    ep_.exe_candidates = exe_ptrs_.data();
  }

  // stdout, stderr, the exec report, stdin (its data written now, or /dev/null), the result
  // channel and, isolated, the release and status pipes.
  void open_pipes() {
    make_pipe(out_r_, out_w_);
    make_pipe(err_r_, err_w_);
    make_pipe(exec_r_, exec_w_);
    if (!req_.stdin_data.empty()) {
      if (req_.stdin_data.size() > 16384) throw error(ec::internal, "run_process: stdin_data over 16 KiB");
      make_pipe(in_r_, in_w_);
      if (::write(in_w_.fd, req_.stdin_data.data(), req_.stdin_data.size()) != static_cast<ssize_t>(req_.stdin_data.size())) {
        throw error(ec::subprocess_error, std::string("cannot write the child's stdin: ") + std::strerror(errno));
      }
      in_w_.reset();
    } else {
      in_r_.fd = detail::high_fd(::open("/dev/null", O_RDONLY | O_CLOEXEC));
    }
    if (req_.channel_fd >= 0) {
      make_pipe(ch_r_, ch_w_);
      channel_out_.fd = ::open(req_.channel_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
      if (channel_out_.fd < 0) {
        throw error(ec::subprocess_error, req_.channel_file + ": cannot create the result channel file (" +
                                              std::strerror(errno) + ")");
      }
    }
    if (isolate_) {
      if (sr_ == nullptr) make_pipe(sync_r_, sync_w_);
      make_pipe(st_r_, st_w_);
    }
    ep_.in_fd = in_r_.fd;
    ep_.out_fd = out_w_.fd;
    ep_.err_fd = err_w_.fd;
    ep_.channel_src = ch_w_.fd;
    ep_.channel_dst = req_.channel_fd;
    ep_.report_fd = exec_w_.fd;
    ep_.cwd = req_.cwd.empty() ? nullptr : req_.cwd.c_str();
    ep_.limits = &lim_;
    ep_.argv = argv_.data();
    ep_.envp = envp_.data();
    ep_.drop_caps = isolate_;
  }

  // The process limit: a pids cgroup where one can be made, else RLIMIT_NPROC (which does not
  // bind root; the outcome says so).
  void plan_limits() {
    if (!req_.iso.enabled || req_.iso.max_processes <= 0) return;
    if (isolate_ && sr_ == nullptr && probe_isolation().pids_cgroup) cgroup_ = detail::make_pids_cgroup(req_.iso.max_processes);
    const bool limited = !cgroup_.empty() || (sr_ != nullptr && !sr_->st->cgroup.empty());
    if (!limited && ::getuid() != 0) {
      ep_.nproc_limit = detail::tasks_of_uid(::getuid()) + req_.iso.max_processes;
    } else if (!limited && result_.isolation_note.empty()) {
      result_.isolation_note = "no process limit: no writable pids cgroup, and RLIMIT_NPROC does not bind root";
    }
  }

  // The child's stack (a session's init needs none) and, for a fresh sandbox, its plan.
  void prepare_spawn() {
    if (sr_ != nullptr) return;
    child_stack_.bytes = std::size_t(256) << 10;
    child_stack_.at = ::mmap(nullptr, child_stack_.bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
    if (child_stack_.at == MAP_FAILED) {
      throw error(ec::subprocess_error, std::string("cannot map a stack for the child: ") + std::strerror(errno));
    }
    if (!isolate_) return;
    plan_.child_stack = static_cast<char*>(child_stack_.at);
    plan_.child_stack_bytes = child_stack_.bytes;
    plan_.exec = ep_;
    plan_.sync_fd = sync_r_.fd;
    plan_.sync_write_fd = sync_w_.fd;
    plan_.status_fd = st_w_.fd;
    plan_.parent = ::getpid();
    for (const auto& m : req_.iso.mounts) plan_.mounts.push_back(detail::prepare_mount(m));
  }

  // Starts the child: a session's init gets the request and the descriptors; otherwise a fresh
  // sandbox (released once its ids are mapped and it joined the cgroup) or a plain vfork-style
  // child. False when the outcome is already final.
  bool spawn() {
    if (sr_ != nullptr) {
      std::vector<detail::prepared_mount> mounts;
      for (auto i : sr_->mounts) mounts.push_back(detail::prepare_mount(req_.iso.mounts[i]));
      int fds[detail::sfd_count] = {};
      fds[detail::sfd_out] = out_w_.fd;
      fds[detail::sfd_err] = err_w_.fd;
      fds[detail::sfd_report] = exec_w_.fd;
      fds[detail::sfd_status] = st_w_.fd;
      fds[detail::sfd_in] = in_r_.fd;
      fds[detail::sfd_channel] = ch_w_.fd;
      const int sent = detail::session_send(*sr_->st, ep_, mounts, fds, ch_w_.fd >= 0 ? detail::sfd_count : detail::sfd_channel);
      if (sent != 0) {
        sr_->not_sent = true;
        sr_->too_large = sent == EMSGSIZE;
        return false;
      }
    }
    pid_ = sr_ != nullptr ? sr_->st->init
           : isolate_     ? detail::spawn_isolated(plan_)
                          : detail::spawn_plain(ep_, static_cast<char*>(child_stack_.at) + child_stack_.bytes);
    if (pid_ < 0) {
      const int err = errno;
      detail::remove_pids_cgroup(cgroup_);
      throw error(ec::subprocess_error, std::string("clone failed: ") + std::strerror(err) +
                                            " (process or memory limit of the evaluator reached)");
    }
    t_spawned_ = detail::monotonic_ns();
    if (!isolate_) ::setpgid(pid_, pid_);  // also done by the child; whichever runs first wins
    result_.isolated = isolate_;
    if (isolate_ && sr_ == nullptr) {
      sync_r_.reset();
      std::string why;
      if (!detail::release_isolated(pid_, sync_w_.fd, cgroup_, why)) {
        ::kill(pid_, SIGKILL);
        ::waitpid(pid_, nullptr, 0);
        detail::remove_pids_cgroup(cgroup_);
        result_.end = process_end::spawn_failed;
        result_.error = "cannot set up the sandbox: " + why;
        return false;
      }
      sync_w_.reset();
      t_released_ = detail::monotonic_ns();
    } else if (sr_ != nullptr) {
      t_released_ = t_spawned_;
    }
    for (fd_guard* child_end : {&in_r_, &out_w_, &err_w_, &exec_w_, &ch_w_, &st_w_}) child_end->reset();
    return true;
  }

  // Milliseconds left before the deadline (never negative), or `none` without one.
  int ms_left(int none) const {
    if (lim_.wall_timeout.count() <= 0) return none;
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline_ - std::chrono::steady_clock::now());
    return static_cast<int>(std::max<long long>(left.count(), 0));
  }
  bool past_deadline() const { return lim_.wall_timeout.count() > 0 && std::chrono::steady_clock::now() >= deadline_; }

  // The exec report: EOF once the child has exec'd, a child_report if it could not. Read under
  // the deadline: a sandbox that never gets to exec must not hang the evaluator.
  void await_exec() {
    for (;;) {
      struct pollfd pfd = {exec_r_.fd, POLLIN, 0};
      const int pr = ::poll(&pfd, 1, ms_left(-1));
      if (pr < 0 && errno == EINTR) continue;
      if (pr == 0) {
        timed_out_ = true;
        return;
      }
      ssize_t n;
      do {
        n = ::read(exec_r_.fd, &report_, sizeof report_);
      } while (n < 0 && errno == EINTR);
      exec_failed_ = n == static_cast<ssize_t>(sizeof report_);
      return;
    }
  }

  struct stream {
    int fd;
    std::string* buf;  // null: the result channel, written to its file
    bool* truncated;
    std::size_t cap;
  };

  // Appends what a stream gave, up to its cap; the channel goes to its file.
  void keep_chunk(stream& s, const char* data, std::size_t got) {
    if (s.buf == nullptr) {
      const std::uint64_t room = req_.channel_max_bytes > result_.channel_bytes ? req_.channel_max_bytes - result_.channel_bytes : 0;
      const std::size_t keep = static_cast<std::size_t>(std::min<std::uint64_t>(room, got));
      if (keep > 0 && ::write(channel_out_.fd, data, keep) != static_cast<ssize_t>(keep)) {
        channel_note_ = std::string("cannot write the result channel file: ") + std::strerror(errno);
        *s.truncated = true;
      }
      result_.channel_bytes += keep;
      if (keep < got) *s.truncated = true;
      return;
    }
    const std::size_t room = s.cap > s.buf->size() ? s.cap - s.buf->size() : 0;
    const std::size_t keep = std::min<std::size_t>(room, got);
    s.buf->append(data, keep);
    if (keep < got) *s.truncated = true;
  }

  // Reads stdout, stderr and the channel until they close or the deadline passes. A descendant
  // that escaped the process group (setsid; only possible without isolation) may hold the pipes
  // open: once the child is gone, its streams get two seconds to drain.
  void drain_streams() {
    stream streams[3] = {{out_r_.fd, &result_.out, &result_.out_truncated, lim_.max_output_bytes},
                         {err_r_.fd, &result_.err, &result_.err_truncated, lim_.max_output_bytes},
                         {ch_r_.fd, nullptr, &result_.channel_truncated, 0}};
    int open_streams = timed_out_ ? 0 : (ch_r_.fd >= 0 ? 3 : 2);
    std::vector<char> chunk(65536);
    std::chrono::steady_clock::time_point reaped_at;
    while (open_streams > 0) {
      if (reaped_ && std::chrono::steady_clock::now() - reaped_at > std::chrono::seconds(2)) break;
      struct pollfd pfds[3];
      int n = 0;
      int map[3];
      for (int i = 0; i < 3; ++i) {
        if (streams[i].fd >= 0) {
          pfds[n] = {streams[i].fd, POLLIN, 0};
          map[n++] = i;
        }
      }
      if (past_deadline()) {
        timed_out_ = true;
        break;
      }
      const int wait_ms = std::min(ms_left(200), 200);
      if (!reaped_ && sr_ == nullptr && ::wait4(pid_, &status_, WNOHANG, &ru_) == pid_) {
        // The child is gone; descendants still holding the pipes go with its group (or namespace).
        reaped_ = true;
        reaped_at = std::chrono::steady_clock::now();
        if (!isolate_) ::kill(-pid_, SIGKILL);
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
          keep_chunk(s, chunk.data(), static_cast<std::size_t>(got));
        } else if (got == 0 || (got < 0 && errno != EINTR && errno != EAGAIN)) {
          s.fd = -1;
          --open_streams;
        }
      }
    }
  }

  // Reads a child_status from the status pipe within the deadline; false if the writer ended or
  // the deadline passed first.
  bool read_status(detail::child_status& cs) {
    std::size_t got = 0;
    while (got < sizeof cs) {
      if (past_deadline()) return false;
      struct pollfd pfd = {st_r_.fd, POLLIN, 0};
      const int pr = ::poll(&pfd, 1, ms_left(-1));
      if (pr < 0 && errno == EINTR) continue;
      if (pr <= 0) return false;
      const ssize_t n = ::read(st_r_.fd, reinterpret_cast<char*>(&cs) + got, sizeof cs - got);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return false;  // S ended without a report: it is waited for below
      got += static_cast<std::size_t>(n);
    }
    return true;
  }

  // An isolated run: S reports T's end as soon as it sees it, then exits, which tears down the
  // namespaces and kills what T left in them. Its report ends the run; the background reaper
  // waits out the teardown and removes the pids cgroup. A session's init that did not report
  // (the run timed out, or the init ended) goes; the next run starts another.
  void read_isolated_report() {
    if (isolate_ && !timed_out_ && !reaped_) {
      detail::child_status cs;
      if (read_status(cs)) {
        reported_ = true;
        status_ = cs.status;
        ru_ = cs.ru;
        traced_ = cs;
        if (sr_ == nullptr) detail::reap_later(pid_, cgroup_);
        cgroup_.clear();
        reaped_ = true;
      }
    }
    if (sr_ != nullptr && !reported_) {
      init_lost_ = !timed_out_ && !exec_failed_;
      detail::session_stop(*sr_->st);
      reaped_ = true;
    }
  }

  // Streams closed (or timeout): wait for the child, still honouring the deadline (a child may
  // close its streams and keep running). Polled with a growing pause: a child whose streams just
  // closed is usually a zombie within microseconds (a fixed 2 ms pause was most of a short plain
  // run's cost).
  void reap() {
    for (useconds_t pause = 50; !reaped_; pause = std::min<useconds_t>(pause * 2, 2000)) {
      if (timed_out_) {
        if (!isolate_) ::kill(-pid_, SIGKILL);
        ::kill(pid_, SIGKILL);
      }
      const pid_t w = ::wait4(pid_, &status_, timed_out_ ? 0 : WNOHANG, &ru_);
      if (w == pid_) break;
      if (w < 0 && errno != EINTR) break;
      if (w == 0) {
        if (past_deadline()) {
          timed_out_ = true;
          continue;
        }
        ::usleep(pause);
      }
    }
  }

  // Whatever the child left behind in its group goes too (an isolated run's namespace already
  // went with its init); a fresh sandbox's init may have reported its child's end meanwhile.
  void finish_cleanup() {
    if (!isolate_) ::kill(-pid_, SIGKILL);
    if (isolate_ && !reported_ && sr_ == nullptr) {
      detail::child_status cs;
      const ssize_t n = ::read(st_r_.fd, &cs, sizeof cs);
      if (n == static_cast<ssize_t>(sizeof cs)) {
        status_ = cs.status;
        ru_ = cs.ru;
        traced_ = cs;
      }
    }
    detail::remove_pids_cgroup(cgroup_);
  }

  // AOPT_SANDBOX_TRACE=1: one stderr line with the time of each phase.
  void trace() const {
    if (!detail::trace_phases()) return;
    const std::int64_t t_end = detail::monotonic_ns();
    auto ms = [](std::int64_t a, std::int64_t b) { return a > 0 && b > 0 ? static_cast<double>(b - a) * 1e-6 : -1.0; };
    std::fprintf(stderr,
                 "aopt-sandbox-trace %s isolated=%d mounts=%zu prepare=%.2f clone=%.2f release=%.2f root=%.2f exec=%.2f "
                 "streams=%.2f child_end=%.2f reap=%.2f cleanup=%.2f total=%.2f ms\n",
                 req_.argv[0].c_str(), isolate_ ? 1 : 0, req_.iso.mounts.size(), ms(t_begin_, t_cgroup_),
                 ms(t_cgroup_, t_spawned_), ms(t_spawned_, t_released_), ms(t_released_, traced_.root_built_ns),
                 ms(t_released_, t_exec_), ms(t_exec_, t_streams_), ms(traced_.child_ended_ns, t_streams_),
                 ms(t_streams_, t_reaped_), ms(t_reaped_, t_end), ms(t_begin_, t_end));
  }

  // What the child's end means: resources used, a failed start (which step, which mount), a
  // timeout, an exit code or a signal (the CPU hard limit ends in SIGKILL: reported as SIGXCPU).
  process_outcome classify() {
    if (!channel_note_.empty()) result_.error = channel_note_;
    result_.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0_).count();
    result_.cpu_seconds = static_cast<double>(ru_.ru_utime.tv_sec + ru_.ru_stime.tv_sec) +
                          static_cast<double>(ru_.ru_utime.tv_usec + ru_.ru_stime.tv_usec) * 1e-6;
    result_.max_rss_bytes = static_cast<std::uint64_t>(ru_.ru_maxrss) * 1024;
    result_.address_space_limit = lim_.address_space_bytes;
    if (sr_ != nullptr && exec_failed_ && report_.step != 0) detail::session_stop(*sr_->st);  // a failed setup ends the init
    if (init_lost_) {
      result_.end = process_end::spawn_failed;
      result_.error = "the sandbox's init ended during the run (the evaluator's thread that started it ended?)";
    } else if (exec_failed_) {
      result_.end = process_end::spawn_failed;
      result_.error = exec_failure();
    } else if (timed_out_) {
      result_.end = process_end::timed_out;
    } else if (WIFEXITED(status_)) {
      result_.end = process_end::exited;
      result_.exit_code = WEXITSTATUS(status_);
    } else if (WIFSIGNALED(status_)) {
      result_.end = process_end::signaled;
      result_.term_signal = WTERMSIG(status_);
      if (result_.term_signal == SIGKILL && lim_.cpu_seconds > 0 && result_.cpu_seconds >= static_cast<double>(lim_.cpu_seconds)) {
        result_.term_signal = SIGXCPU;
      }
    }
    return result_;
  }

  std::string exec_failure() const {
    if (report_.step == 0) {
      return req_.argv[0] + ": " + std::strerror(report_.err) + (req_.cwd.empty() ? "" : " (cwd " + req_.cwd + ")");
    }
    std::string where;
    std::size_t index = report_.index >= 0 ? static_cast<std::size_t>(report_.index) : req_.iso.mounts.size();
    if (sr_ != nullptr) index = index < sr_->mounts.size() ? sr_->mounts[index] : req_.iso.mounts.size();
    if (index < req_.iso.mounts.size()) {
      const auto& m = req_.iso.mounts[index];
      where = " of " + (m.target.empty() ? m.source : m.target);
      // Whether the source is there now, as the evaluator sees it: a source that vanished (a
      // concurrent evaluator's doing) or one the sandbox cannot reach (a mount it did not copy).
      struct stat now {};
      if (m.what != mount_entry::kind::tmpfs && !m.source.empty()) {
        where += ::lstat(m.source.c_str(), &now) == 0 ? "; the source exists now" : "; the source does not exist now";
      }
    }
    std::string e = "sandbox setup failed (" + detail::step_name(report_.step) + where + "): " + std::strerror(report_.err);
    if (report_.step == 1) e += " (cwd " + req_.cwd + " is not visible in the sandbox?)";
    return e;
  }

  struct stack_guard {
    void* at = MAP_FAILED;
    std::size_t bytes = 0;
    stack_guard() = default;
    stack_guard(const stack_guard&) = delete;
    stack_guard& operator=(const stack_guard&) = delete;
    ~stack_guard() {
      if (at != MAP_FAILED) ::munmap(at, bytes);
    }
  };

  const process_request& req_;
  const sandbox_limits& lim_;
  const bool isolate_;
  session_run* const sr_;
  process_outcome result_;
  std::vector<char*> argv_, envp_, exe_ptrs_;
  std::vector<std::string> env_strings_, exe_candidates_;
  detail::exec_plan ep_;
  detail::isolated_plan plan_;
  fd_guard out_r_, out_w_, err_r_, err_w_, exec_r_, exec_w_, in_r_, in_w_, ch_r_, ch_w_, sync_r_, sync_w_, st_r_, st_w_;
  fd_guard channel_out_;
  stack_guard child_stack_;
  std::string cgroup_, channel_note_;
  pid_t pid_ = -1;
  std::chrono::steady_clock::time_point t0_, deadline_;
  std::int64_t t_begin_ = detail::monotonic_ns(), t_cgroup_ = 0, t_spawned_ = 0, t_released_ = 0, t_exec_ = 0,
               t_streams_ = 0, t_reaped_ = 0;
  bool timed_out_ = false, exec_failed_ = false, reaped_ = false, reported_ = false, init_lost_ = false;
  detail::child_report report_;
  detail::child_status traced_{};
  int status_ = 0;
  struct rusage ru_ {};
};

process_outcome run_impl(const process_request& req, bool isolate, const std::string& note, session_run* sr) {
  return process_run(req, isolate, note, sr).execute();
}

}  // namespace

}  // namespace aopt::common
