// Issue 33, "Own your directories": another local user (uid 65534, as root's tests become it) can
// neither take the daemon's socket directory, nor pass for the daemon to `aopt`, nor read what
// aoptd and aopt-node keep on disk (docs/api.md, "Access").
#include <gtest/gtest.h>

#include <fcntl.h>
#include <grp.h>
#include <sys/stat.h>

#include <cerrno>
#include <functional>
#include <string>
#include <vector>

#include "../support/aopt_process.h"
#include "daemon_process.h"

namespace fs = std::filesystem;
using namespace aopt;
using namespace aopt::testing;

namespace {

constexpr uid_t kNobody = 65534;

// Runs `fn` in a child that became uid 65534 (group `gid`, and only it); its exit code (100: the
// switch failed).
int as_nobody(const std::function<int()>& fn, gid_t gid = kNobody) {
  const pid_t child = ::fork();
  if (child == 0) {
    const gid_t groups[] = {gid};
    if (::setgroups(1, groups) != 0 || ::setgid(gid) != 0 || ::setuid(kNobody) != 0) std::_Exit(100);
    std::_Exit(fn());
  }
  int st = 0;
  ::waitpid(child, &st, 0);
  return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

mode_t mode_of(const fs::path& p) {
  struct stat st {};
  return ::lstat(p.c_str(), &st) == 0 ? st.st_mode & 07777 : 0;
}

// A fake daemon: answers every connection on `listen_fd` with a job list naming "impostor".
[[noreturn]] void serve_impostor(int listen_fd) {
  const std::string body = R"({"jobs": [{"id": "j999999", "name": "impostor", "state": "finished", "priority": 0, )"
                           R"("options": {"budget": 1}, "evaluations": 0}]})";
  const std::string reply = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: " +
                            std::to_string(body.size()) + "\r\nConnection: close\r\n\r\n" + body;
  while (true) {
    const int c = ::accept(listen_fd, nullptr, nullptr);
    if (c < 0) continue;
    std::string in;
    char buf[4096];
    while (in.find("\r\n\r\n") == std::string::npos) {
      const ssize_t n = ::recv(c, buf, sizeof buf, 0);
      if (n <= 0) break;
      in.append(buf, static_cast<std::size_t>(n));
    }
    (void)!::send(c, reply.data(), reply.size(), MSG_NOSIGNAL);
    ::close(c);
  }
}

int unix_socket_bound(const fs::path& path) {
  const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::strncpy(addr.sun_path, path.c_str(), sizeof addr.sun_path - 1);
  if (fd < 0 || ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) return -1;
  return fd;
}

// Waits (up to 30 s) until `path` exists.
bool wait_exists(const fs::path& path) {
  for (int i = 0; i < 600; ++i) {
    std::error_code e;
    if (fs::exists(fs::symlink_status(path, e))) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return false;
}

// Every file and directory below `root` (and itself) whose mode has any of `bits`.
std::vector<std::string> with_bits(const fs::path& root, mode_t bits) {
  std::vector<std::string> found;
  if ((mode_of(root) & bits) != 0) found.push_back(root.string());
  std::error_code e;
  for (auto it = fs::recursive_directory_iterator(root, e); !e && it != fs::recursive_directory_iterator(); it.increment(e)) {
    if (it->is_symlink()) continue;
    const mode_t m = mode_of(it->path());
    if ((m & bits) != 0) found.push_back(it->path().string() + " " + std::to_string(m));
  }
  return found;
}

// An uploaded source the daemon keeps: the first add_custom.cpp below `root`.
fs::path uploaded_source(const fs::path& root) {
  std::error_code e;
  for (auto it = fs::recursive_directory_iterator(root, e); !e && it != fs::recursive_directory_iterator(); it.increment(e)) {
    if (it->path().filename() == "add_custom.cpp") return it->path();
  }
  return {};
}

// 0 when uid 65534 (with group `gid`) can open `file` for reading, else its errno.
int nobody_reads(const fs::path& file, gid_t gid = kNobody) {
  return as_nobody(
      [&] {
        const int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
        if (fd >= 0) return 0;
        return errno == 0 ? 99 : errno;
      },
      gid);
}

}  // namespace

// Another user made the default /tmp/aopt-<uid> first (0777): aoptd refuses to start and says
// which directory, whose it is, and what to do. Before: aoptd listened in it.
TEST(daemon_ownership, ASocketDirectoryAnotherUserMadeStopsAoptd) {
  if (::getuid() != 0) GTEST_SKIP() << "needs root to act as another uid";
  temp_dir t("aoptd-o");
  ASSERT_EQ(::chmod(t.path.c_str(), 01777), 0);  // as /tmp
  daemon_process d(t.path);
  const fs::path run = d.socket().parent_path();
  ASSERT_EQ(as_nobody([&] { return ::mkdir(run.c_str(), 0777) == 0 && ::chmod(run.c_str(), 0777) == 0 ? 0 : 1; }), 0);
  EXPECT_FALSE(d.start()) << "aoptd listened in a directory of uid 65534";
  d.kill9();  // (when it did)
  const std::string log = d.log();
  EXPECT_NE(log.find(run.string()), std::string::npos) << log;
  EXPECT_NE(log.find("uid 65534"), std::string::npos) << log;
  EXPECT_NE(log.find("0777"), std::string::npos) << log;
  EXPECT_NE(log.find("rm -r"), std::string::npos) << log;
  EXPECT_FALSE(fs::exists(d.socket())) << "no socket in another user's directory";
  // Once the directory is gone, aoptd makes its own (0700).
  fs::remove_all(run);
  ASSERT_TRUE(d.start()) << d.log();
  EXPECT_EQ(mode_of(run), 0700u);
}

// The daemon's own directory is refused too when others may write to it, or when it sits in a
// directory others may write to without the sticky bit (they could rename it away).
TEST(daemon_ownership, AWritableSocketDirectoryStopsAoptd) {
  temp_dir t("aoptd-w");
  daemon_process d(t.path);
  const fs::path run = d.socket().parent_path();
  fs::create_directories(run);
  ASSERT_EQ(::chmod(run.c_str(), 0777), 0);
  EXPECT_FALSE(d.start());
  EXPECT_NE(d.log().find("group or others may write"), std::string::npos) << d.log();

  temp_dir u("aoptd-w");
  daemon_process e(u.path);
  ASSERT_EQ(::chmod(u.path.c_str(), 0777), 0);  // the socket directory's parent, without the sticky bit
  EXPECT_FALSE(e.start());
  EXPECT_NE(e.log().find("sticky"), std::string::npos) << e.log();
}

// A socket directory of uid 65534 with its fake daemon: `aopt jobs` (as root) refuses to talk to
// it (exit 2, the path, the owner found and the one expected). With --daemon-user naming that
// user it talks. Before: root listed the impostor's job.
TEST(daemon_ownership, TheClientRefusesASocketAnotherUserOwns) {
  if (::getuid() != 0) GTEST_SKIP() << "needs root to act as another uid";
  temp_dir t("aoptd-i");
  ASSERT_EQ(::chmod(t.path.c_str(), 01777), 0);  // as /tmp
  const fs::path run = t.path / "aopt-0", sock = run / "aoptd.sock";
  const pid_t fake = ::fork();
  if (fake == 0) {
    if (::setgid(kNobody) != 0 || ::setuid(kNobody) != 0) std::_Exit(100);
    ::mkdir(run.c_str(), 0755);
    const int fd = unix_socket_bound(sock);
    if (fd < 0 || ::listen(fd, 16) != 0) std::_Exit(101);
    serve_impostor(fd);
  }
  pid_t fake_pid = fake;
  ASSERT_TRUE(wait_exists(sock));
  const auto r = run_aopt({"jobs", "--socket", sock.string()}, 60);
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_EQ(r.out.find("impostor"), std::string::npos) << r.out;
  EXPECT_NE(r.err.find(run.string()), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("uid 65534"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("expected root (uid 0)"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("--daemon-user"), std::string::npos) << r.err;
  // Told to trust that user, the client talks to it.
  const auto trusting = run_aopt({"jobs", "--socket", sock.string(), "--daemon-user", "65534"}, 60);
  EXPECT_EQ(trusting.exit_code, 0) << trusting.err;
  EXPECT_NE(trusting.out.find("impostor"), std::string::npos) << trusting.out;
  kill_and_reap(fake_pid);
}

// The socket and its directory are root's, but the process listening on it is uid 65534 (it
// called listen(2) after root bound the path): the client asks the socket who listens
// (SO_PEERCRED) before it sends anything, and refuses.
TEST(daemon_ownership, TheClientChecksWhoListens) {
  if (::getuid() != 0) GTEST_SKIP() << "needs root to act as another uid";
  temp_dir t("aoptd-p");
  const fs::path run = t.path / "run", sock = run / "aoptd.sock";
  ASSERT_EQ(::mkdir(run.c_str(), 0755), 0);
  const pid_t fake = ::fork();
  if (fake == 0) {
    const int fd = unix_socket_bound(sock);
    if (fd < 0 || ::setgid(kNobody) != 0 || ::setuid(kNobody) != 0 || ::listen(fd, 16) != 0) std::_Exit(101);
    serve_impostor(fd);
  }
  pid_t fake_pid = fake;
  ASSERT_TRUE(wait_exists(sock));
  // listen() may come a moment after bind(): wait until it accepts.
  for (int i = 0; i < 200 && request(sock, "GET", "/v1/health", {}, 1000).status == 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  const auto r = run_aopt({"jobs", "--socket", sock.string()}, 60);
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_EQ(r.out.find("impostor"), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("runs as nobody (uid 65534)"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(sock.string()), std::string::npos) << r.err;
  kill_and_reap(fake_pid);
}

// After a job ran: nothing under the state directory, the evaluation cache or the bank may be
// read by others, an existing cache directory made 0755 is tightened to 0700, and uid 65534
// cannot read the uploaded source. Before: 0755 directories and 0644 files.
TEST(daemon_ownership, TheStateDirectoryIsPrivate) {
  temp_dir t("aoptd-s");
  daemon_process::options o;
  o.max_running = 1;
  o.fresh_cache = true;
  daemon_process d(t.path, o);
  fs::create_directories(t.path / "cache");
  ASSERT_EQ(::chmod((t.path / "cache").c_str(), 0755), 0);
  ASSERT_TRUE(d.start()) << d.log();
  const std::string id = submit(d, "budget=2&seed=7");
  ASSERT_TRUE(wait_final(d, {id}, 600)) << d.log();
  EXPECT_EQ(get_job(d, id).value("state", ""), "finished") << d.log();
  d.kill9();
  for (const char* dir : {"state", "cache", "bank"}) {
    if (!fs::exists(t.path / dir)) continue;  // the bank: only once a change was learnt
    const auto open = with_bits(t.path / dir, 0077);
    EXPECT_TRUE(open.empty()) << dir << ": " << open.size() << " entries open to group or others, first "
                              << (open.empty() ? "" : open.front());
  }
  EXPECT_EQ(mode_of(t.path / "state"), 0700u);
  EXPECT_EQ(mode_of(t.path / "cache"), 0700u);
  const fs::path source = uploaded_source(t.path / "state");
  ASSERT_FALSE(source.empty()) << "the uploaded add_custom.cpp is kept under the state directory";
  EXPECT_EQ(mode_of(source), 0600u) << source;
  if (::getuid() == 0) {
    EXPECT_EQ(nobody_reads(source), EACCES) << source;
  }
}

// With socket_group the state is readable by the daemon's group (directories 0750, files 0640)
// and still by no one else: a member of the group reads the uploaded source, uid 65534 outside
// it does not.
TEST(daemon_ownership, WithASocketGroupTheStateIsGroupReadable) {
  if (::getuid() != 0) GTEST_SKIP() << "needs root to act as another uid";
  temp_dir t("aoptd-r");
  const group* g = ::getgrgid(::getgid());
  ASSERT_NE(g, nullptr);
  daemon_process::options o;
  o.max_running = 1;
  o.daemon_keys = "socket_group = \"" + std::string(g->gr_name) + "\"\n";
  daemon_process d(t.path, o);
  ASSERT_TRUE(d.start()) << d.log();
  const std::string id = submit(d, "budget=1&seed=7");
  ASSERT_TRUE(wait_final(d, {id}, 600)) << d.log();
  d.kill9();
  const auto open = with_bits(t.path / "state", 0027);
  EXPECT_TRUE(open.empty()) << open.size() << " entries open to others or writable by the group, first "
                            << (open.empty() ? "" : open.front());
  EXPECT_EQ(mode_of(t.path / "state"), 0750u);
  const fs::path source = uploaded_source(t.path / "state");
  ASSERT_FALSE(source.empty());
  EXPECT_EQ(mode_of(source), 0640u) << source;
  ASSERT_EQ(::chmod(t.path.c_str(), 0711), 0);  // the test's own directory: let them reach the state
  EXPECT_EQ(nobody_reads(source, ::getgid()), 0) << "a member of the socket group reads " << source;
  EXPECT_EQ(nobody_reads(source), EACCES) << source;
}

// A state directory left 0755 (by an earlier version) is tightened at start, and one of another
// user is refused with its owner and what to do.
TEST(daemon_ownership, AnExistingStateDirectoryIsTightenedOrRefused) {
  temp_dir t("aoptd-e");
  daemon_process d(t.path);
  fs::create_directories(t.path / "state");
  ASSERT_EQ(::chmod((t.path / "state").c_str(), 0755), 0);
  ASSERT_TRUE(d.start()) << d.log();
  EXPECT_EQ(mode_of(t.path / "state"), 0700u);
  EXPECT_NE(d.log().find("had mode 0755"), std::string::npos) << d.log();
  d.kill9();
  if (::getuid() != 0) return;
  temp_dir u("aoptd-e");
  daemon_process other(u.path);
  fs::create_directories(u.path / "state");
  ASSERT_EQ(::chown((u.path / "state").c_str(), kNobody, kNobody), 0);
  EXPECT_FALSE(other.start());
  EXPECT_NE(other.log().find("state directory"), std::string::npos) << other.log();
  EXPECT_NE(other.log().find("uid 65534"), std::string::npos) << other.log();
  EXPECT_NE(other.log().find("chown"), std::string::npos) << other.log();
}

// aopt-node keeps fetched packages (operator sources) under its state directory: made private at
// start, like the daemon's.
TEST(daemon_ownership, TheNodeStateDirectoryIsPrivate) {
  temp_dir t("aoptd-n");
  const fs::path state = t.path / "node";
  fs::create_directories(state);
  ASSERT_EQ(::chmod(state.c_str(), 0755), 0);
  pid_t node = ::fork();
  if (node == 0) {
    const int fd = ::open((t.path / "node.log").c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    ::dup2(fd, 2);
    const std::string join = "127.0.0.1:" + std::to_string(free_port());
    ::execl(AOPT_NODE_BINARY, "aopt-node", "--join", join.c_str(), "--state-dir", state.c_str(), "--devices", "1",
            static_cast<char*>(nullptr));
    std::_Exit(127);
  }
  ASSERT_TRUE(wait_exists(state / "packages")) << common::read_text_file(t.path / "node.log");
  kill_and_reap(node);
  EXPECT_EQ(mode_of(state), 0700u);
  EXPECT_EQ(mode_of(state / "packages"), 0700u);
}

// The systemd unit gives aoptd directories it accepts and keeps private: a runtime directory no
// one else may write to (else aoptd refuses to start), state and cache directories 0700.
TEST(daemon_ownership, TheSystemdUnitKeepsItsDirectoriesPrivate) {
  const std::string unit = common::read_text_file(source_dir() / "config" / "systemd" / "aoptd.service");
  const auto mode = [&](const std::string& key) -> long {
    const auto at = unit.find("\n" + key + "=");
    return at == std::string::npos ? -1 : std::strtol(unit.c_str() + at + key.size() + 2, nullptr, 8);
  };
  ASSERT_NE(mode("RuntimeDirectoryMode"), -1) << "systemd's default 0755 would do, but say it";
  EXPECT_EQ(mode("RuntimeDirectoryMode") & 022, 0) << "aoptd refuses a socket directory others may write to";
  EXPECT_EQ(mode("RuntimeDirectoryMode") & 0007, 0) << "the socket group needs x; others nothing";
  EXPECT_EQ(mode("StateDirectoryMode"), 0700);
  EXPECT_EQ(mode("CacheDirectoryMode"), 0700) << "systemd's default is 0755";
}
