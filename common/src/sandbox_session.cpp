// The parent's side of a sandbox_session (subprocess.h): starting and ending the init that keeps a
// prepared root, deciding which mounts a run binds itself, and handing it a run. The init's side
// is serve_session() in sandbox.cpp.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <set>
#include <tuple>

#include "aopt/common/fs.h"
#include "sandbox.h"

namespace aopt::common::detail {

namespace {

std::string target_of(const mount_entry& m) { return m.target.empty() ? m.source : m.target; }

using bind_key = std::tuple<mount_entry::kind, std::string, std::string, bool>;
bind_key key_of(const mount_entry& m) { return {m.what, m.source, target_of(m), m.optional}; }

void close_fd(int& fd) {
  if (fd >= 0) ::close(fd);
  fd = -1;
}

}  // namespace

int high_fd(int fd) {
  if (fd < 0 || fd >= 10) return fd;
  const int moved = ::fcntl(fd, F_DUPFD_CLOEXEC, 10);
  ::close(fd);
  return moved;
}

prepared_mount prepare_mount(const mount_entry& m) {
  prepared_mount pm{m.what, {}, "/newroot" + target_of(m), {}, m.optional};
  if (m.what == mount_entry::kind::tmpfs) {
    pm.opts = "size=" + std::to_string(std::max<std::uint64_t>(m.tmpfs_bytes, 4096)) + ",mode=1777";
  } else {
    pm.src = "/oldroot" + m.source;
  }
  return pm;
}

std::optional<std::vector<std::size_t>> session_mounts(const isolation& base, const isolation& req) {
  if (!req.enabled || req.max_processes != base.max_processes) return std::nullopt;
  std::set<bind_key> prepared;
  for (const auto& m : base.mounts) {
    if (m.what != mount_entry::kind::tmpfs) prepared.insert(key_of(m));
  }
  std::set<bind_key> seen;
  std::vector<std::string> own_targets;  // targets the run mounts itself, so far
  std::vector<std::size_t> out;
  for (std::size_t i = 0; i < req.mounts.size(); ++i) {
    const auto& m = req.mounts[i];
    const std::string t = target_of(m);
    const bool covered = std::any_of(own_targets.begin(), own_targets.end(), [&](const std::string& d) { return path_under(t, d); });
    if (m.what != mount_entry::kind::tmpfs && prepared.count(key_of(m))) {
      seen.insert(key_of(m));
      if (!covered) continue;  // in the prepared root, visible as it is
    }
    out.push_back(i);
    own_targets.push_back(t);
  }
  if (seen.size() != prepared.size()) return std::nullopt;  // the run would see a bind it did not ask for
  return out;
}

bool session_start(sandbox_session::state& st, std::string& why) {
  session_stop(st);
  const std::int64_t t_begin = monotonic_ns();
  int sv[2];
  if (::socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) != 0) {
    why = std::string("socketpair: ") + std::strerror(errno);
    return false;
  }
  int ctl = high_fd(sv[0]), child_ctl = high_fd(sv[1]);
  int p_sync[2], p_ready[2];
  if (::pipe2(p_sync, O_CLOEXEC) != 0) {
    why = std::string("pipe2: ") + std::strerror(errno);
    close_fd(ctl);
    close_fd(child_ctl);
    return false;
  }
  if (::pipe2(p_ready, O_CLOEXEC) != 0) {
    why = std::string("pipe2: ") + std::strerror(errno);
    for (int* fd : {&ctl, &child_ctl, &p_sync[0], &p_sync[1]}) close_fd(*fd);
    return false;
  }
  int sync_r = high_fd(p_sync[0]), sync_w = high_fd(p_sync[1]), ready_r = high_fd(p_ready[0]), ready_w = high_fd(p_ready[1]);
  isolated_plan plan;
  for (const auto& m : st.base.mounts) {
    if (m.what != mount_entry::kind::tmpfs) plan.mounts.push_back(prepare_mount(m));
  }
  plan.exec.report_fd = ready_w;
  plan.sync_fd = sync_r;
  plan.sync_write_fd = sync_w;
  plan.session_fd = child_ctl;
  plan.parent = ::getpid();
  const std::size_t stack_bytes = std::size_t(256) << 10;
  void* stack = ::mmap(nullptr, stack_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
  auto cleanup = [&] {
    for (int* fd : {&ctl, &child_ctl, &sync_r, &sync_w, &ready_r, &ready_w}) close_fd(*fd);
    if (stack != MAP_FAILED) ::munmap(stack, stack_bytes);
  };
  if (stack == MAP_FAILED) {
    why = std::string("cannot map a stack for the sandbox: ") + std::strerror(errno);
    cleanup();
    return false;
  }
  plan.child_stack = static_cast<char*>(stack);  // S's copy of it: T's stack in every run
  plan.child_stack_bytes = stack_bytes;
  std::string cgroup;
  if (st.base.max_processes > 0 && probe_isolation().pids_cgroup) cgroup = make_pids_cgroup(st.base.max_processes);
  const std::int64_t t_cgroup = monotonic_ns();
  const pid_t s = spawn_isolated(plan);
  const std::int64_t t_spawned = monotonic_ns();
  if (s < 0) {
    why = std::string("clone failed: ") + std::strerror(errno);
    remove_pids_cgroup(cgroup);
    cleanup();
    return false;
  }
  close_fd(sync_r);
  close_fd(child_ctl);
  close_fd(ready_w);
  if (!release_isolated(s, sync_w, cgroup, why)) {
    ::kill(s, SIGKILL);
    reap_later(s, cgroup);
    cleanup();
    return false;
  }
  close_fd(sync_w);
  const std::int64_t t_released = monotonic_ns();
  // The init reports once its root is built (or which step failed).
  child_report r{};
  std::size_t got = 0;
  while (got < sizeof r) {
    struct pollfd pfd = {ready_r, POLLIN, 0};
    const int pr = ::poll(&pfd, 1, 20000);
    if (pr < 0 && errno == EINTR) continue;
    if (pr <= 0) break;
    const ssize_t n = ::read(ready_r, reinterpret_cast<char*>(&r) + got, sizeof r - got);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    got += static_cast<std::size_t>(n);
  }
  if (got != sizeof r || r.step != session_ready_step) {
    why = got == sizeof r ? "sandbox setup failed (" + step_name(r.step) + "): " + std::strerror(r.err)
                          : "the sandbox's init did not get ready";
    ::kill(s, SIGKILL);
    reap_later(s, cgroup);
    cleanup();
    return false;
  }
  close_fd(ready_r);
  ::munmap(stack, stack_bytes);
  if (trace_phases()) {
    const std::int64_t t_end = monotonic_ns();
    auto ms = [](std::int64_t a, std::int64_t b) { return static_cast<double>(b - a) * 1e-6; };
    std::fprintf(stderr, "aopt-sandbox-trace session-start mounts=%zu cgroup=%.2f clone=%.2f release=%.2f root=%.2f total=%.2f ms\n",
                 plan.mounts.size(), ms(t_begin, t_cgroup), ms(t_cgroup, t_spawned), ms(t_spawned, t_released),
                 ms(t_released, t_end), ms(t_begin, t_end));
  }
  st.init = s;
  st.ctl = ctl;
  st.cgroup = cgroup;
  return true;
}

void session_stop(sandbox_session::state& st) {
  if (st.ctl >= 0) ::close(st.ctl);
  st.ctl = -1;
  if (st.init > 0) {
    ::kill(st.init, SIGKILL);
    reap_later(st.init, st.cgroup);
  }
  st.init = -1;
  st.cgroup.clear();
}

int session_send(sandbox_session::state& st, const exec_plan& ep, const std::vector<prepared_mount>& mounts,
                  const int* fds, int nfds) {
  if (st.ctl < 0) return EPIPE;
  session_request rq;
  std::string payload;
  auto add = [&payload](const char* s) { payload.append(s).push_back('\0'); };
  for (char* const* a = ep.argv; *a != nullptr; ++a, ++rq.argc) add(*a);
  for (char* const* e = ep.envp; *e != nullptr; ++e, ++rq.envc) add(*e);
  if (ep.cwd != nullptr) {
    rq.has_cwd = 1;
    add(ep.cwd);
  }
  for (char* const* c = ep.exe_candidates; *c != nullptr; ++c, ++rq.exe_count) add(*c);
  for (const auto& m : mounts) {
    payload.push_back(static_cast<char>(m.what));
    payload.push_back(m.optional ? 1 : 0);
    add(m.what == mount_entry::kind::tmpfs ? m.opts.c_str() : m.src.c_str());
    add(m.dst.c_str());
    ++rq.mount_count;
  }
  rq.has_channel = nfds > sfd_channel ? 1 : 0;
  rq.channel_dst = ep.channel_dst;
  rq.nproc_limit = ep.nproc_limit;
  rq.limits = *ep.limits;
  std::string msg(reinterpret_cast<const char*>(&rq), sizeof rq);
  msg += payload;
  struct iovec iov = {msg.data(), msg.size()};
  alignas(struct cmsghdr) char cbuf[CMSG_SPACE(sizeof(int) * sfd_count)] = {};
  struct msghdr mh {};
  mh.msg_iov = &iov;
  mh.msg_iovlen = 1;
  mh.msg_control = cbuf;
  mh.msg_controllen = CMSG_SPACE(sizeof(int) * static_cast<std::size_t>(nfds));
  struct cmsghdr* c = CMSG_FIRSTHDR(&mh);
  c->cmsg_level = SOL_SOCKET;
  c->cmsg_type = SCM_RIGHTS;
  c->cmsg_len = CMSG_LEN(sizeof(int) * static_cast<std::size_t>(nfds));
  std::memcpy(CMSG_DATA(c), fds, sizeof(int) * static_cast<std::size_t>(nfds));
  if (msg.size() > (std::size_t(1) << 20)) return EMSGSIZE;  // the init's buffer
  for (;;) {
    const ssize_t n = ::sendmsg(st.ctl, &mh, MSG_NOSIGNAL);
    if (n == static_cast<ssize_t>(msg.size())) return 0;
    if (n < 0 && errno == EINTR) continue;
    return n < 0 ? errno : EPIPE;  // EPIPE, ECONNRESET: the init is gone; EMSGSIZE: too large
  }
}

}  // namespace aopt::common::detail
