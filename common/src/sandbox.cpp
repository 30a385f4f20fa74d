// The isolated spawn (see sandbox.h). The sandbox init S is PID 1 of fresh user, PID, mount,
// network, IPC and UTS namespaces: it builds an empty root from the request's mounts (bwrap's
// pivot sequence: a tmpfs base holding newroot/ and oldroot/), forks the child T that execs the
// candidate, reports T's end on a pipe and exits, which kills every process left in the
// namespace. Between clone() and exec only system calls: no allocation.
#include "sandbox.h"

#include <dirent.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <linux/close_range.h>
#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <fstream>
#include <sstream>

namespace aopt::common::detail {

namespace {

enum step : int {
  st_exec = 0, st_chdir, st_private, st_base, st_newroot, st_pivot, st_mount_point, st_bind, st_remount,
  st_tmpfs, st_dev, st_detach, st_final_pivot, st_root_ro, st_fork, st_sync, st_session,
};

[[noreturn]] void fail(int fd, int step_code, int index = -1) {
  child_report r{errno, step_code, index};
  ssize_t ignored = ::write(fd, &r, sizeof r);
  (void)ignored;
  ::_exit(127);
}

// mkdir -p for `path` (a char buffer of our own; restored on return).
bool mkdir_p(char* path, mode_t mode = 0755) {
  for (char* p = path + 1; *p; ++p) {
    if (*p != '/') continue;
    *p = '\0';
    const int r = ::mkdir(path, mode);
    *p = '/';
    if (r != 0 && errno != EEXIST) return false;
  }
  return ::mkdir(path, mode) == 0 || errno == EEXIST;
}

bool mkdir_parent(const char* path) {
  char buf[4096];
  const std::size_t n = std::strlen(path);
  if (n >= sizeof buf) {
    errno = ENAMETOOLONG;
    return false;
  }
  std::memcpy(buf, path, n + 1);
  char* slash = std::strrchr(buf, '/');
  if (slash == nullptr || slash == buf) return true;
  *slash = '\0';
  return mkdir_p(buf);
}

// Flags a remount of a bind must keep (the kernel refuses to drop locked ones in a user namespace).
unsigned long locked_flags(const char* path) {
  struct statvfs sv {};
  if (::statvfs(path, &sv) != 0) return 0;
  unsigned long f = 0;
  if (sv.f_flag & ST_NOSUID) f |= MS_NOSUID;
  if (sv.f_flag & ST_NODEV) f |= MS_NODEV;
  if (sv.f_flag & ST_NOEXEC) f |= MS_NOEXEC;
  if (sv.f_flag & ST_NOATIME) f |= MS_NOATIME;
  if (sv.f_flag & ST_NODIRATIME) f |= MS_NODIRATIME;
  if (sv.f_flag & ST_RELATIME) f |= MS_RELATIME;
  if (sv.f_flag & ST_RDONLY) f |= MS_RDONLY;
  return f;
}

// One mount of the root: `src` is the bind source (a tmpfs: its options), `dst` the target.
void apply_mount(mount_entry::kind what, const char* src, const char* dst_path, bool optional, int index, int report) {
  char dst[4096];
  const std::size_t dst_len = std::strlen(dst_path);
  if (dst_len >= sizeof dst) {
    errno = ENAMETOOLONG;
    fail(report, st_mount_point, index);
  }
  std::memcpy(dst, dst_path, dst_len + 1);
  if (what == mount_entry::kind::tmpfs) {
    if (!mkdir_p(dst)) fail(report, st_mount_point, index);
    if (::mount("tmpfs", dst, "tmpfs", MS_NOSUID | MS_NODEV, src) != 0) fail(report, st_tmpfs, index);
    return;
  }
  struct stat st {};
  if (::lstat(src, &st) != 0) {
    if (optional && errno == ENOENT) return;
    fail(report, st_bind, index);
  }
  if (!mkdir_parent(dst)) fail(report, st_mount_point, index);
  if (S_ISLNK(st.st_mode)) {
    char target[4096];
    const ssize_t n = ::readlink(src, target, sizeof target - 1);
    if (n < 0) fail(report, st_bind, index);
    target[n] = '\0';
    if (::symlink(target, dst) != 0 && errno != EEXIST) fail(report, st_mount_point, index);
    return;
  }
  if (S_ISDIR(st.st_mode)) {
    if (!mkdir_p(dst)) fail(report, st_mount_point, index);
  } else {
    const int fd = ::open(dst, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
    if (fd >= 0) ::close(fd);
    else if (errno != EEXIST && errno != EROFS) fail(report, st_mount_point, index);
  }
  if (::mount(src, dst, nullptr, MS_BIND | MS_REC, nullptr) != 0) fail(report, st_bind, index);
  unsigned long flags = MS_BIND | MS_REMOUNT | MS_NOSUID | locked_flags(dst);
  if (what == mount_entry::kind::read_only) flags |= MS_RDONLY;
  else flags &= ~static_cast<unsigned long>(MS_RDONLY);
  if (::mount(nullptr, dst, nullptr, flags, nullptr) != 0) fail(report, st_remount, index);
}

void apply_mount(const prepared_mount& m, int index, int report) {
  apply_mount(m.what, m.what == mount_entry::kind::tmpfs ? m.opts.c_str() : m.src.c_str(), m.dst.c_str(), m.optional,
              index, report);
}

// A fresh /proc is refused where the outer one is partly masked (some containers): not fatal.
void mount_proc() {
  char proc[] = "/newroot/proc";
  if (mkdir_p(proc)) (void)::mount("proc", proc, "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, nullptr);
}

bool fresh_shm() {
  char shm[] = "/newroot/dev/shm";
  return mkdir_p(shm) && ::mount("tmpfs", shm, "tmpfs", MS_NOSUID | MS_NODEV, "size=16m,mode=1777") == 0;
}

void minimal_dev(int report) {
  char dev[] = "/newroot/dev";
  if (!mkdir_p(dev) || ::mount("tmpfs", dev, "tmpfs", MS_NOSUID | MS_NOEXEC, "size=64k,mode=0755") != 0) {
    fail(report, st_dev);
  }
  for (const char* name : {"null", "zero", "full", "random", "urandom"}) {
    char src[64] = "/oldroot/dev/", dst[64] = "/newroot/dev/";  // no snprintf: no locks after clone
    std::strcat(src, name);
    std::strcat(dst, name);
    const int fd = ::open(dst, O_WRONLY | O_CREAT | O_CLOEXEC, 0666);
    if (fd >= 0) ::close(fd);
    if (::mount(src, dst, nullptr, MS_BIND, nullptr) != 0) fail(report, st_dev);
  }
  (void)::symlink("/proc/self/fd", "/newroot/dev/fd");
  (void)::symlink("/proc/self/fd/0", "/newroot/dev/stdin");
  (void)::symlink("/proc/self/fd/1", "/newroot/dev/stdout");
  (void)::symlink("/proc/self/fd/2", "/newroot/dev/stderr");
  if (!fresh_shm()) fail(report, st_dev);
}

// The root: a base tmpfs holding /newroot (built from the plan's mounts, /proc and /dev) and
// /oldroot (the evaluator's). A single run's init finishes it (finish_root); a session's init
// keeps /oldroot to bind each run's own mounts from, and each run finishes it in its own mount
// namespace.
void build_root(const isolated_plan& plan) {
  const int report = plan.exec.report_fd;
  if (::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0) fail(report, st_private);
  if (::mount("tmpfs", "/tmp", "tmpfs", MS_NOSUID | MS_NODEV, "size=1m,mode=0755") != 0) fail(report, st_base);
  if (::mkdir("/tmp/newroot", 0755) != 0 || ::mkdir("/tmp/oldroot", 0755) != 0) fail(report, st_base);
  if (::mount("tmpfs", "/tmp/newroot", "tmpfs", MS_NOSUID | MS_NODEV, "size=1m,mode=0755") != 0) {
    fail(report, st_newroot);
  }
  if (::syscall(SYS_pivot_root, "/tmp", "/tmp/oldroot") != 0) fail(report, st_pivot);
  if (::chdir("/") != 0) fail(report, st_pivot);
  for (std::size_t i = 0; i < plan.mounts.size(); ++i) apply_mount(plan.mounts[i], static_cast<int>(i), report);
  // A session's runs each mount a /proc of their own PID namespace (run_in_session): S, whose
  // mount namespace holds the evaluator's tree at /oldroot, is never in it.
  if (plan.session_fd >= 0) {
    char proc[] = "/newroot/proc";
    if (!mkdir_p(proc)) fail(report, st_mount_point);
  } else {
    mount_proc();
  }
  minimal_dev(report);
}

// Leaves only /newroot, read-only, as the root of the calling process's mount namespace.
void finish_root(int report) {
  if (::umount2("/oldroot", MNT_DETACH) != 0) fail(report, st_detach);
  if (::chdir("/newroot") != 0 || ::syscall(SYS_pivot_root, ".", ".") != 0) fail(report, st_final_pivot);
  if (::umount2(".", MNT_DETACH) != 0 || ::chdir("/") != 0) fail(report, st_final_pivot);
  if (::mount(nullptr, "/", nullptr, MS_BIND | MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV, nullptr) != 0) {
    fail(report, st_root_ro);
  }
}

void drop_capabilities() {
  ::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
  for (int cap = 0; cap <= 63; ++cap) ::prctl(PR_CAPBSET_DROP, cap, 0, 0, 0);
  __user_cap_header_struct hdr{_LINUX_CAPABILITY_VERSION_3, 0};
  __user_cap_data_struct data[2] = {};
  ::syscall(SYS_capset, &hdr, data);
}

int start_child(void* exec) { exec_child(*static_cast<const exec_plan*>(exec)); }


// Closes (or, with CLOSE_RANGE_CLOEXEC, marks close-on-exec) the descriptors [from, to]. The
// evaluator forks from several threads at once: a child holds, besides its own pipes, every
// descriptor the other evaluations had open at that moment (their pipes' write ends among them),
// and a pipe's reader sees EOF only when every copy of its write end is closed.
void close_fds(unsigned from, unsigned to, unsigned flags) {
  if (from > to) return;
  if (::syscall(SYS_close_range, from, to, flags) == 0) return;
  const unsigned last = std::min(to, 4095u);  // no close_range (kernel < 5.9 / 5.11): the usual table
  for (unsigned fd = from; fd <= last; ++fd) {
    if (flags != 0) {
      ::fcntl(static_cast<int>(fd), F_SETFD, FD_CLOEXEC);
    } else {
      ::close(static_cast<int>(fd));
    }
  }
}

// The end of an init's setup (a single run's S, a session run's R), PID 1 of the run's namespace
// with the root in place: starts T, reports T's end on `status_fd` and exits, which kills what T
// left in the namespace.
[[noreturn]] void run_child(const exec_plan& ep, char* stack_top, int status_fd) {
  const std::int64_t root_built = monotonic_ns();
  // Not glibc's fork(): that one takes malloc's locks for its atfork handlers, and the init may
  // have inherited one held by another thread of the evaluator (clone() copied the memory, not the
  // thread): it would wait forever. clone() with CLONE_VM | CLONE_VFORK runs T in the init's memory
  // on its own stack until T execs (the init waits meanwhile), as posix_spawn does: no second copy
  // of the evaluator's page tables. T touches only its stack and the init's (suspended)
  // thread-local errno.
  const pid_t t = ::clone(start_child, stack_top, CLONE_VM | CLONE_VFORK | SIGCHLD, const_cast<exec_plan*>(&ep));
  if (t < 0) fail(ep.report_fd, st_fork);
  // The init keeps only the status pipe: the parent sees EOF on the others when T's side closes
  // them. Nothing else either: the init never execs, so the descriptors of other evaluations it
  // inherited (close-on-exec or not) would stay open as long as this run, and an evaluation whose
  // exec report pipe it held would wait for its EOF until its deadline, its child blocked on a
  // full pipe.
  const auto keep = static_cast<unsigned>(status_fd);
  close_fds(3, keep - 1, 0);
  close_fds(keep + 1, ~0u, 0);
  for (;;) {
    child_status cs;
    const pid_t w = ::wait4(-1, &cs.status, 0, &cs.ru);
    if (w == t) {
      cs.root_built_ns = root_built;
      cs.child_ended_ns = monotonic_ns();
      ssize_t ignored = ::write(status_fd, &cs, sizeof cs);
      (void)ignored;
      ::_exit(0);  // the namespace and everything left in it go with the init
    }
    if (w < 0 && errno != EINTR) ::_exit(126);
  }
}

// A string of the request's payload at `at`: NUL-terminated within [at, end), or nullptr.
char* take_string(char*& at, char* end) {
  char* s = at;
  void* nul = std::memchr(at, '\0', static_cast<std::size_t>(end - at));
  if (nul == nullptr) return nullptr;
  at = static_cast<char*>(nul) + 1;
  return s;
}

// Fills `out` with `n` strings of the payload and a terminating nullptr; false when malformed.
bool take_strings(char*& at, char* end, char** out, std::uint32_t n) {
  for (std::uint32_t i = 0; i < n; ++i) {
    out[i] = take_string(at, end);
    if (out[i] == nullptr) return false;
  }
  out[n] = nullptr;
  return true;
}

// One run of a session, as its own init R sees it: what S parsed from the request.
struct session_run_plan {
  const exec_plan* exec = nullptr;
  int status_fd = -1;
  char* mounts = nullptr;  // the request's mount records
  char* mounts_end = nullptr;
  std::uint32_t mount_count = 0;
  char* child_stack_top = nullptr;  // T's
};

// R: PID 1 of a PID namespace of its own and in a mount namespace of its own (a copy of S's),
// sharing S's memory while S waits for it. It binds the run's mounts, gives the run a fresh /proc
// (of this PID namespace: neither S nor the evaluator's tree in it) and /dev/shm, finishes the
// root, starts T, reports T's end and exits: the kernel kills what T left, and S's wait for R
// returns only once it is all gone.
int run_in_session(void* arg) {
  const auto& rp = *static_cast<const session_run_plan*>(arg);
  const int report = rp.exec->report_fd;
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  char* at = rp.mounts;
  for (std::uint32_t i = 0; i < rp.mount_count; ++i) {
    if (rp.mounts_end - at < 2) fail(report, st_session);
    const auto what = static_cast<mount_entry::kind>(at[0]);
    const bool optional = at[1] != 0;
    at += 2;
    const char* src = take_string(at, rp.mounts_end);
    const char* dst = src == nullptr ? nullptr : take_string(at, rp.mounts_end);
    if (dst == nullptr) fail(report, st_session);
    // The index reported on failure is the request's own: the parent maps it back.
    apply_mount(what, src, dst, optional, static_cast<int>(i), report);
  }
  mount_proc();
  if (!fresh_shm()) fail(report, st_dev);
  finish_root(report);
  run_child(*rp.exec, rp.child_stack_top, rp.status_fd);
}

// The runs of a session (common::sandbox_session), one at a time: receive a request, start its
// init R (run_in_session) in new PID and mount namespaces, and wait for R, which returns only
// when everything of the run is gone; the root S prepared is as it was for the next. No
// allocation: S was cloned from a process with threads; the request lands in a buffer of S's own.
[[noreturn]] void serve_session(const isolated_plan& plan) {
  constexpr std::size_t msg_cap = std::size_t(1) << 20, ptr_cap = std::size_t(1) << 15, stack_cap = std::size_t(256) << 10;
  auto map = [](std::size_t bytes) {
    return ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
  };
  void* msg_map = map(msg_cap);
  void* ptrs_map = map(ptr_cap * sizeof(char*));
  void* r_stack = map(stack_cap);
  if (msg_map == MAP_FAILED || ptrs_map == MAP_FAILED || r_stack == MAP_FAILED) fail(plan.exec.report_fd, st_session);
  auto* msg = static_cast<char*>(msg_map);
  auto* ptrs = static_cast<char**>(ptrs_map);
  ::prctl(PR_SET_DUMPABLE, 0);  // nothing of a run may read S's memory
  const int ctl = plan.session_fd;
  {
    child_report ready{0, session_ready_step, -1};
    ssize_t ignored = ::write(plan.exec.report_fd, &ready, sizeof ready);
    (void)ignored;
  }
  close_fds(3, static_cast<unsigned>(ctl) - 1, 0);
  close_fds(static_cast<unsigned>(ctl) + 1, ~0u, 0);
  // 0-2 stay taken (by the evaluator's, or /dev/null): a run's descriptors then arrive at 3 and
  // up, and T's dup2s onto 0-2 never overwrite one it still needs.
  for (int fd = 0; fd < 3; ++fd) {
    if (::fcntl(fd, F_GETFD) < 0) (void)::open("/newroot/dev/null", O_RDWR);
  }
  for (;;) {
    struct iovec iov = {msg, msg_cap};
    alignas(struct cmsghdr) char cbuf[CMSG_SPACE(sizeof(int) * sfd_count)];
    struct msghdr mh {};
    mh.msg_iov = &iov;
    mh.msg_iovlen = 1;
    mh.msg_control = cbuf;
    mh.msg_controllen = sizeof cbuf;
    const ssize_t n = ::recvmsg(ctl, &mh, MSG_CMSG_CLOEXEC);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) ::_exit(0);  // the evaluator closed the session (or died)
    int fds[sfd_count];
    int nfds = 0;
    for (struct cmsghdr* c = CMSG_FIRSTHDR(&mh); c != nullptr; c = CMSG_NXTHDR(&mh, c)) {
      if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS) continue;
      const int k = static_cast<int>((c->cmsg_len - CMSG_LEN(0)) / sizeof(int));
      for (int i = 0; i < k; ++i) {
        int fd;
        std::memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof fd);
        if (nfds < sfd_count) fds[nfds++] = fd;
        else ::close(fd);
      }
    }
    session_request rq;
    const bool framed = nfds >= sfd_in + 1 && static_cast<std::size_t>(n) >= sizeof rq && (mh.msg_flags & (MSG_TRUNC | MSG_CTRUNC)) == 0;
    if (framed) std::memcpy(&rq, msg, sizeof rq);
    char* at = msg + sizeof rq;
    char* const end = msg + n;
    char **argv = ptrs, **envp = nullptr, **exe = nullptr;
    char* cwd = nullptr;
    bool ok = framed && (rq.has_channel == 0 || nfds == sfd_count) &&
              std::size_t(rq.argc) + rq.envc + rq.exe_count + 3 <= ptr_cap && take_strings(at, end, argv, rq.argc);
    if (ok) {
      envp = argv + rq.argc + 1;
      ok = take_strings(at, end, envp, rq.envc);
    }
    if (ok && rq.has_cwd) ok = (cwd = take_string(at, end)) != nullptr;
    if (ok) {
      exe = envp + rq.envc + 1;
      ok = take_strings(at, end, exe, rq.exe_count);
    }
    if (!ok) {  // not from our evaluator: refuse it, and say so if it can be said
      if (nfds > sfd_report) fail(fds[sfd_report], st_session);
      ::_exit(125);
    }
    exec_plan ep;
    ep.in_fd = fds[sfd_in];
    ep.out_fd = fds[sfd_out];
    ep.err_fd = fds[sfd_err];
    ep.channel_src = rq.has_channel ? fds[sfd_channel] : -1;
    ep.channel_dst = rq.has_channel ? rq.channel_dst : -1;
    ep.report_fd = fds[sfd_report];
    ep.cwd = cwd;
    ep.limits = &rq.limits;
    ep.nproc_limit = rq.nproc_limit;
    ep.drop_caps = true;
    ep.argv = argv;
    ep.envp = envp;
    ep.exe_candidates = exe;
    session_run_plan rp;
    rp.exec = &ep;
    rp.status_fd = fds[sfd_status];
    rp.mounts = at;
    rp.mounts_end = end;
    rp.mount_count = rq.mount_count;
    rp.child_stack_top = plan.child_stack + plan.child_stack_bytes;
    // R shares S's memory (S only waits meanwhile) and has its own copy of the descriptors.
    const pid_t r = ::clone(run_in_session, static_cast<char*>(r_stack) + stack_cap,
                            CLONE_NEWPID | CLONE_NEWNS | CLONE_VM | SIGCHLD, &rp);
    if (r < 0) fail(ep.report_fd, st_fork);
    for (int i = 0; i < nfds; ++i) ::close(fds[i]);
    for (;;) {
      const pid_t w = ::wait4(r, nullptr, __WALL, nullptr);
      if (w == r || (w < 0 && errno != EINTR)) break;
    }
  }
}

[[noreturn]] void sandbox_init(const isolated_plan& plan) {
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  // The evaluator may have died before the line above: then only EOF on the sync pipe tells.
  if (plan.sync_write_fd >= 0) ::close(plan.sync_write_fd);
  char go = 0;
  ssize_t n;
  do {
    n = ::read(plan.sync_fd, &go, 1);
  } while (n < 0 && errno == EINTR);
  if (n != 1) fail(plan.exec.report_fd, st_sync);
  ::close(plan.sync_fd);
  ::sethostname("aopt-sandbox", 12);
  build_root(plan);
  if (plan.session_fd >= 0) serve_session(plan);
  finish_root(plan.exec.report_fd);
  run_child(plan.exec, plan.child_stack + plan.child_stack_bytes, plan.status_fd);
}

bool write_file(const std::string& path, const std::string& text, std::string& why) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) {
    why = path + ": " + std::strerror(errno);
    return false;
  }
  const ssize_t n = ::write(fd, text.data(), text.size());
  const int err = errno;
  ::close(fd);
  if (n != static_cast<ssize_t>(text.size())) {
    why = path + ": " + std::strerror(err);
    return false;
  }
  return true;
}

const char* pids_root() { return "/sys/fs/cgroup/pids"; }

}  // namespace

std::int64_t monotonic_ns() {
  struct timespec ts {};
  ::clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<std::int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

std::string step_name(int s) {
  switch (s) {
    case st_exec: return "exec";
    case st_chdir: return "chdir to the working directory";
    case st_private: return "make the mount tree private";
    case st_base: return "mount the base tmpfs";
    case st_newroot: return "mount the new root";
    case st_pivot: return "pivot_root";
    case st_mount_point: return "create a mount point";
    case st_bind: return "bind mount";
    case st_remount: return "remount a bind";
    case st_tmpfs: return "mount a tmpfs";
    case st_dev: return "populate /dev";
    case st_detach: return "detach the old root";
    case st_final_pivot: return "enter the new root";
    case st_root_ro: return "make the root read-only";
    case st_fork: return "fork the child";
    case st_sync: return "wait for the evaluator";
    case st_session: return "read the session's request";
    default: return "step " + std::to_string(s);
  }
}

void exec_child(const exec_plan& p) {
  ::setpgid(0, 0);
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);  // the evaluator's death ends the run
  // No handler of the evaluator's may run here (this process may share its memory until exec),
  // and the program starts with the default dispositions of the signals that end it.
  for (int s = 1; s < NSIG; ++s) {
    struct sigaction sa {};
    if (::sigaction(s, nullptr, &sa) == 0 && sa.sa_handler != SIG_DFL && sa.sa_handler != SIG_IGN) ::signal(s, SIG_DFL);
  }
  for (int s : {SIGPIPE, SIGINT, SIGTERM, SIGCHLD, SIGXCPU, SIGXFSZ, SIGHUP}) ::signal(s, SIG_DFL);
  sigset_t none;
  sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
  if (p.in_fd >= 0) ::dup2(p.in_fd, 0);
  ::dup2(p.out_fd, 1);
  ::dup2(p.err_fd, 2);
  // Only 0-2 and the channel reach the program: whatever else this process inherited closes at
  // exec (the report pipe stays usable until then).
  close_fds(3, ~0u, CLOSE_RANGE_CLOEXEC);
  if (p.channel_src >= 0 && p.channel_dst >= 0) {
    if (p.channel_src == p.channel_dst) ::fcntl(p.channel_dst, F_SETFD, 0);  // dup2 onto itself keeps close-on-exec
    else ::dup2(p.channel_src, p.channel_dst);
  }
  if (p.cwd != nullptr && ::chdir(p.cwd) != 0) fail(p.report_fd, st_chdir);
  struct rlimit no_core {0, 0};
  ::setrlimit(RLIMIT_CORE, &no_core);
  const auto& lim = *p.limits;
  auto set = [](int resource, std::uint64_t cur, std::uint64_t max) {
    if (cur == 0) return;
    struct rlimit rl;
    rl.rlim_cur = cur;
    rl.rlim_max = max;
    ::setrlimit(resource, &rl);
  };
  set(RLIMIT_CPU, lim.cpu_seconds, lim.cpu_seconds + 1);  // SIGXCPU, then SIGKILL a second later
  set(RLIMIT_AS, lim.address_space_bytes, lim.address_space_bytes);
  set(RLIMIT_FSIZE, lim.file_size_bytes, lim.file_size_bytes);
  set(RLIMIT_NPROC, p.nproc_limit, p.nproc_limit);
  if (p.drop_caps) drop_capabilities();
  errno = ENOENT;
  int last_err = ENOENT;
  for (char* const* c = p.exe_candidates; c != nullptr && *c != nullptr; ++c) {
    ::execve(*c, p.argv, p.envp);
    if (errno != ENOENT) last_err = errno;
  }
  errno = last_err;
  fail(p.report_fd, st_exec);
}

pid_t spawn_plain(const exec_plan& ep, char* stack_top) {
  // As posix_spawn: every signal blocked across the clone, so none is handled in the child while it
  // shares this process's memory; exec_child resets the handlers before it unblocks them.
  sigset_t all, old;
  sigfillset(&all);
  ::pthread_sigmask(SIG_SETMASK, &all, &old);
  const pid_t pid = ::clone(start_child, stack_top, CLONE_VM | CLONE_VFORK | SIGCHLD, const_cast<exec_plan*>(&ep));
  const int err = errno;
  ::pthread_sigmask(SIG_SETMASK, &old, nullptr);
  errno = err;
  return pid;
}

pid_t spawn_isolated(const isolated_plan& plan) {
  const long flags = CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWNET | CLONE_NEWIPC | CLONE_NEWUTS | SIGCHLD;
  const long r = ::syscall(SYS_clone, flags, nullptr, nullptr, nullptr, nullptr);
  if (r != 0) return static_cast<pid_t>(r);
  sandbox_init(plan);
}

bool release_isolated(pid_t s, int sync_w, const std::string& cgroup_dir, std::string& why) {
  const std::string proc = "/proc/" + std::to_string(s);
  if (!write_file(proc + "/setgroups", "deny", why)) return false;
  if (!write_file(proc + "/uid_map", "0 " + std::to_string(::getuid()) + " 1\n", why)) return false;
  if (!write_file(proc + "/gid_map", "0 " + std::to_string(::getgid()) + " 1\n", why)) return false;
  if (!cgroup_dir.empty() && !write_file(cgroup_dir + "/cgroup.procs", std::to_string(s), why)) return false;
  const char go = 1;
  if (::write(sync_w, &go, 1) != 1) {
    why = std::string("cannot release the sandbox: ") + std::strerror(errno);
    return false;
  }
  return true;
}

namespace {

// The background reaper of reap_later: one thread for the process, started on first use.
struct reaper {
  std::mutex mu;
  std::condition_variable cv;
  std::deque<std::pair<pid_t, std::string>> queue;

  reaper() {
    std::thread([this] { run(); }).detach();
  }
  [[noreturn]] void run() {
    for (;;) {
      std::unique_lock<std::mutex> lock(mu);
      cv.wait(lock, [this] { return !queue.empty(); });
      auto [pid, cgroup] = std::move(queue.front());
      queue.pop_front();
      lock.unlock();
      while (::waitpid(pid, nullptr, 0) < 0 && errno == EINTR) {
      }
      remove_pids_cgroup(cgroup);
    }
  }
};

}  // namespace

void reap_later(pid_t s, std::string cgroup_dir) {
  static auto* r = new reaper();  // never destroyed: its thread runs until the process ends
  {
    std::lock_guard<std::mutex> lock(r->mu);
    r->queue.emplace_back(s, std::move(cgroup_dir));
  }
  r->cv.notify_one();
}

std::string make_pids_cgroup(std::uint32_t max) {
  static std::atomic<std::uint64_t> counter{0};
  const std::string dir = std::string(pids_root()) + "/aopt-" + std::to_string(::getpid()) + "-" +
                          std::to_string(counter.fetch_add(1));
  if (::mkdir(dir.c_str(), 0755) != 0) return {};
  std::string why;
  if (!write_file(dir + "/pids.max", std::to_string(max), why)) {
    ::rmdir(dir.c_str());
    return {};
  }
  return dir;
}

void remove_pids_cgroup(const std::string& dir) {
  if (dir.empty()) return;
  for (int i = 0; i < 200; ++i) {  // tasks of a dead namespace may take a moment to be released
    if (::rmdir(dir.c_str()) == 0 || errno == ENOENT) return;
    ::usleep(1000);
  }
}

// Removes pids cgroups left by evaluators that were killed (their pid no longer runs).
void remove_stale_pids_cgroups() {
  DIR* d = ::opendir(pids_root());
  if (d == nullptr) return;
  while (const dirent* e = ::readdir(d)) {
    unsigned long pid = 0, n = 0;
    if (std::sscanf(e->d_name, "aopt-%lu-%lu", &pid, &n) != 2) continue;
    if (::kill(static_cast<pid_t>(pid), 0) == 0 || errno != ESRCH) continue;
    ::rmdir((std::string(pids_root()) + "/" + e->d_name).c_str());
  }
  ::closedir(d);
}

std::uint64_t tasks_of_uid(uid_t uid) {
  std::uint64_t tasks = 0;
  DIR* d = ::opendir("/proc");
  if (d == nullptr) return 0;
  while (const dirent* e = ::readdir(d)) {
    if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
    std::ifstream in(std::string("/proc/") + e->d_name + "/status");
    bool mine = false;
    for (std::string line; std::getline(in, line);) {
      if (line.rfind("Uid:", 0) == 0) {
        std::istringstream f(line.substr(4));
        unsigned long real = 0;
        f >> real;
        mine = real == uid;
      } else if (line.rfind("Threads:", 0) == 0 && mine) {
        tasks += std::stoull(line.substr(8));
      }
    }
  }
  ::closedir(d);
  return tasks;
}

}  // namespace aopt::common::detail
