#include "aopt/common/subprocess.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <map>

#include "aopt/common/error.h"

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
  r.fd = fds[0];
  w.fd = fds[1];
}

void set_limit(int resource, std::uint64_t value) {
  if (value == 0) return;
  struct rlimit rl;
  rl.rlim_cur = value;
  rl.rlim_max = value;
  ::setrlimit(resource, &rl);
}

[[noreturn]] void child_fail(int fd, int err) {
  ssize_t ignored = ::write(fd, &err, sizeof err);
  (void)ignored;
  ::_exit(127);
}

}  // namespace

process_outcome run_process(const process_request& req) {
  process_outcome result;
  if (req.argv.empty()) {
    result.error = "empty command line";
    return result;
  }
  // Everything the child needs is prepared before fork: after it only async-signal-safe calls.
  std::vector<char*> argv;
  for (const auto& a : req.argv) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  std::map<std::string, std::string> env_map;
  for (char** e = environ; e && *e; ++e) {
    std::string kv(*e);
    const auto eq = kv.find('=');
    if (eq != std::string::npos) env_map[kv.substr(0, eq)] = kv.substr(eq + 1);
  }
  for (const auto& [k, v] : req.env) env_map[k] = v;
  std::vector<std::string> env_strings;
  for (const auto& [k, v] : env_map) env_strings.push_back(k + "=" + v);
  std::vector<char*> envp;
  for (auto& s : env_strings) envp.push_back(s.data());
  envp.push_back(nullptr);
  std::string exe = req.argv[0];
  std::vector<std::string> candidates;
  if (exe.find('/') != std::string::npos) {
    candidates.push_back(exe);
  } else {
    std::string path = env_map.count("PATH") ? env_map["PATH"] : "/usr/bin:/bin";
    std::size_t start = 0;
    while (start <= path.size()) {
      const auto colon = path.find(':', start);
      const auto dir = path.substr(start, colon == std::string::npos ? std::string::npos : colon - start);
      candidates.push_back((dir.empty() ? "." : dir) + "/" + exe);
      if (colon == std::string::npos) break;
      start = colon + 1;
    }
  }
  const auto& lim = req.limits;

  fd_guard out_r, out_w, err_r, err_w, exec_r, exec_w;
  make_pipe(out_r, out_w);
  make_pipe(err_r, err_w);
  make_pipe(exec_r, exec_w);
  int null_fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC);

  const auto t0 = std::chrono::steady_clock::now();
  const pid_t pid = ::fork();
  if (pid < 0) {
    if (null_fd >= 0) ::close(null_fd);
    throw error(ec::subprocess_error, std::string("fork failed: ") + std::strerror(errno) +
                                          " (process or memory limit of the evaluator reached)");
  }
  if (pid == 0) {
    ::setpgid(0, 0);
    // Default signal dispositions (the parent may ignore SIGPIPE etc.).
    for (int s : {SIGPIPE, SIGINT, SIGTERM, SIGCHLD, SIGXCPU, SIGXFSZ}) ::signal(s, SIG_DFL);
    sigset_t none;
    sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
    if (null_fd >= 0) ::dup2(null_fd, 0);
    ::dup2(out_w.fd, 1);
    ::dup2(err_w.fd, 2);
    if (!req.cwd.empty() && ::chdir(req.cwd.c_str()) != 0) child_fail(exec_w.fd, errno);
    struct rlimit no_core {0, 0};
    ::setrlimit(RLIMIT_CORE, &no_core);
    if (lim.cpu_seconds > 0) {
      struct rlimit rl;
      rl.rlim_cur = lim.cpu_seconds;       // SIGXCPU at the soft limit,
      rl.rlim_max = lim.cpu_seconds + 1;   // SIGKILL one second later
      ::setrlimit(RLIMIT_CPU, &rl);
    }
    set_limit(RLIMIT_AS, lim.address_space_bytes);
    set_limit(RLIMIT_FSIZE, lim.file_size_bytes);
    int last_err = ENOENT;
    for (const auto& c : candidates) {
      ::execve(c.c_str(), argv.data(), envp.data());
      if (errno != ENOENT) last_err = errno;
    }
    child_fail(exec_w.fd, last_err);
  }
  // Parent.
  ::setpgid(pid, pid);  // also done by the child; whichever runs first wins, both are fine
  if (null_fd >= 0) ::close(null_fd);
  out_w.reset();
  err_w.reset();
  exec_w.reset();

  int exec_errno = 0;
  {
    ssize_t n;
    do {
      n = ::read(exec_r.fd, &exec_errno, sizeof exec_errno);
    } while (n < 0 && errno == EINTR);
    if (n != static_cast<ssize_t>(sizeof exec_errno)) exec_errno = 0;
  }

  bool timed_out = false;
  const bool has_deadline = lim.wall_timeout.count() > 0;
  const auto deadline = t0 + lim.wall_timeout;
  struct stream {
    int fd;
    std::string* buf;
    bool* truncated;
  };
  stream streams[2] = {{out_r.fd, &result.out, &result.out_truncated},
                       {err_r.fd, &result.err, &result.err_truncated}};
  int open_streams = 2;
  char chunk[65536];
  int status = 0;
  struct rusage ru {};
  bool reaped = false;
  while (open_streams > 0) {
    struct pollfd pfds[2];
    int n = 0;
    int map[2];
    for (int i = 0; i < 2; ++i) {
      if (streams[i].fd >= 0) {
        pfds[n] = {streams[i].fd, POLLIN, 0};
        map[n++] = i;
      }
    }
    int wait_ms = -1;
    if (has_deadline) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0) {
        timed_out = true;
        break;
      }
      wait_ms = static_cast<int>(std::min<long long>(left.count(), 200));
    } else {
      wait_ms = 200;
    }
    if (!reaped && ::wait4(pid, &status, WNOHANG, &ru) == pid) {
      // The child is gone; descendants still holding the pipes go with its group.
      reaped = true;
      ::kill(-pid, SIGKILL);
    }
    const int pr = ::poll(pfds, static_cast<nfds_t>(n), wait_ms);
    if (pr < 0) {
      if (errno == EINTR) continue;
      break;
    }
    for (int j = 0; j < n; ++j) {
      if (pfds[j].revents == 0) continue;
      auto& s = streams[map[j]];
      const ssize_t got = ::read(s.fd, chunk, sizeof chunk);
      if (got > 0) {
        const std::size_t room = lim.max_output_bytes > s.buf->size() ? lim.max_output_bytes - s.buf->size() : 0;
        const std::size_t keep = std::min<std::size_t>(room, static_cast<std::size_t>(got));
        s.buf->append(chunk, keep);
        if (keep < static_cast<std::size_t>(got)) *s.truncated = true;
      } else if (got == 0 || (got < 0 && errno != EINTR && errno != EAGAIN)) {
        s.fd = -1;
        --open_streams;
      }
    }
  }
  // Both pipes closed (or timeout): wait for the child, still honouring the deadline (a child
  // may close its streams and keep running).
  for (; !reaped;) {
    if (timed_out) {
      ::kill(-pid, SIGKILL);
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
      ::usleep(2000);
    }
  }
  // Whatever the child left behind in its group goes too.
  ::kill(-pid, SIGKILL);

  result.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  result.cpu_seconds = static_cast<double>(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
                       static_cast<double>(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1e-6;
  result.max_rss_bytes = static_cast<std::uint64_t>(ru.ru_maxrss) * 1024;
  result.address_space_limit = lim.address_space_bytes;
  if (exec_errno != 0) {
    result.end = process_end::spawn_failed;
    result.error = req.argv[0] + ": " + std::strerror(exec_errno);
    if (!req.cwd.empty()) result.error += " (cwd " + req.cwd + ")";
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

}  // namespace aopt::common
