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
#include <sys/mount.h>
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
  st_tmpfs, st_dev, st_detach, st_final_pivot, st_root_ro, st_fork, st_sync,
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

void apply_mount(const prepared_mount& m, int index, int report) {
  char dst[4096];
  if (m.dst.size() >= sizeof dst) {
    errno = ENAMETOOLONG;
    fail(report, st_mount_point, index);
  }
  std::memcpy(dst, m.dst.c_str(), m.dst.size() + 1);
  if (m.what == mount_entry::kind::tmpfs) {
    if (!mkdir_p(dst)) fail(report, st_mount_point, index);
    if (::mount("tmpfs", dst, "tmpfs", MS_NOSUID | MS_NODEV, m.opts.c_str()) != 0) fail(report, st_tmpfs, index);
    return;
  }
  struct stat st {};
  if (::lstat(m.src.c_str(), &st) != 0) {
    if (m.optional && errno == ENOENT) return;
    fail(report, st_bind, index);
  }
  if (!mkdir_parent(dst)) fail(report, st_mount_point, index);
  if (S_ISLNK(st.st_mode)) {
    char target[4096];
    const ssize_t n = ::readlink(m.src.c_str(), target, sizeof target - 1);
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
  if (::mount(m.src.c_str(), dst, nullptr, MS_BIND | MS_REC, nullptr) != 0) fail(report, st_bind, index);
  unsigned long flags = MS_BIND | MS_REMOUNT | MS_NOSUID | locked_flags(dst);
  if (m.what == mount_entry::kind::read_only) flags |= MS_RDONLY;
  else flags &= ~static_cast<unsigned long>(MS_RDONLY);
  if (::mount(nullptr, dst, nullptr, flags, nullptr) != 0) fail(report, st_remount, index);
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
  char shm[] = "/newroot/dev/shm";
  if (!mkdir_p(shm) || ::mount("tmpfs", shm, "tmpfs", MS_NOSUID | MS_NODEV, "size=16m,mode=1777") != 0) {
    fail(report, st_dev);
  }
}

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
  char proc[] = "/newroot/proc";
  // A fresh /proc is refused where the outer one is partly masked (some containers): not fatal.
  if (mkdir_p(proc)) (void)::mount("proc", proc, "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, nullptr);
  minimal_dev(report);
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
  const std::int64_t root_built = monotonic_ns();
  // Not glibc's fork(): that one takes malloc's locks for its atfork handlers, and S may have
  // inherited one held by another thread of the evaluator (clone() copied the memory, not the
  // thread): it would wait forever. clone() with CLONE_VM | CLONE_VFORK runs T in S's memory on
  // its own stack until T execs (S waits meanwhile), as posix_spawn does: no second copy of the
  // evaluator's page tables. T touches only its stack and S's (suspended) thread-local errno.
  const pid_t t = ::clone(start_child, plan.child_stack + plan.child_stack_bytes, CLONE_VM | CLONE_VFORK | SIGCHLD,
                          const_cast<exec_plan*>(&plan.exec));
  if (t < 0) fail(plan.exec.report_fd, st_fork);
  // S keeps only the status pipe: the parent sees EOF on the others when T's side closes them.
  // Nothing else either: S never execs, so the descriptors of other evaluations it inherited
  // (close-on-exec or not) would stay open as long as this run, and an evaluation whose exec
  // report pipe S held would wait for its EOF until its deadline, its child blocked on a full pipe.
  const auto keep = static_cast<unsigned>(plan.status_fd);
  close_fds(3, keep - 1, 0);
  close_fds(keep + 1, ~0u, 0);
  for (;;) {
    child_status cs;
    const pid_t w = ::wait4(-1, &cs.status, 0, &cs.ru);
    if (w == t) {
      cs.root_built_ns = root_built;
      cs.child_ended_ns = monotonic_ns();
      ssize_t ignored = ::write(plan.status_fd, &cs, sizeof cs);
      (void)ignored;
      ::_exit(0);  // the namespace and everything left in it go with S
    }
    if (w < 0 && errno != EINTR) ::_exit(126);
  }
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
    default: return "step " + std::to_string(s);
  }
}

void exec_child(const exec_plan& p) {
  ::setpgid(0, 0);
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);  // the evaluator's death ends the run
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
  if (p.channel_src >= 0 && p.channel_dst >= 0) ::dup2(p.channel_src, p.channel_dst);
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
  for (const auto& c : p.exe_candidates) {
    ::execve(c.c_str(), p.argv, p.envp);
    if (errno != ENOENT) last_err = errno;
  }
  errno = last_err;
  fail(p.report_fd, st_exec);
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
