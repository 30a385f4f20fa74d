// aoptd speaks systemd's readiness protocol (Type=notify in config/systemd/aoptd.service): READY=1
// once the socket answers, STOPPING=1 on SIGTERM, on the datagram socket $NOTIFY_SOCKET names.
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/un.h>

#include "aopt/common/fs.h"
#include "daemon_process.h"

namespace fs = std::filesystem;
using namespace aopt;
using namespace aopt::testing;

namespace {

std::string receive(int fd, int timeout_ms) {
  pollfd p{fd, POLLIN, 0};
  if (::poll(&p, 1, timeout_ms) <= 0) return {};
  char buf[4096];
  const ssize_t n = ::recv(fd, buf, sizeof buf, 0);
  return n > 0 ? std::string(buf, static_cast<std::size_t>(n)) : std::string();
}

TEST(Systemd, NotifiesReadyAndStopping) {
  const temp_dir tmp("aoptd-n");
  const fs::path& dir = tmp.path;
  const int fd = ::socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  ASSERT_GE(fd, 0);
  sockaddr_un a{};
  a.sun_family = AF_UNIX;
  const std::string path = (dir / "notify").string();
  std::memcpy(a.sun_path, path.c_str(), path.size() + 1);
  ASSERT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
  ::setenv("NOTIFY_SOCKET", path.c_str(), 1);  // inherited by the daemon the fixture forks
  daemon_process d(dir / "d");
  ASSERT_TRUE(d.start()) << d.log();
  ::unsetenv("NOTIFY_SOCKET");
  const std::string ready = receive(fd, 5000);
  EXPECT_NE(ready.find("READY=1"), std::string::npos) << ready;
  EXPECT_NE(ready.find("MAINPID=" + std::to_string(d.pid())), std::string::npos) << ready;
  double seconds = 0;
  EXPECT_EQ(d.terminate(seconds), 0) << d.log();
  EXPECT_NE(receive(fd, 5000).find("STOPPING=1"), std::string::npos);
  ::close(fd);
}

}  // namespace
