// Test helper: one aopt-node process joining a daemon (tests/distributed, tests/cann).
#pragma once

#include <fcntl.h>
#include <grp.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../daemon/daemon_process.h"

namespace aopt::testing {

// One aopt-node process.
class node_process {
 public:
  node_process(fs::path dir, std::string name) : dir_(std::move(dir)), name_(std::move(name)) {
    fs::create_directories(dir_);
  }
  ~node_process() { kill9(); }
  node_process(const node_process&) = delete;
  node_process& operator=(const node_process&) = delete;

  // Runs the node as `uid` (group too) instead of this process's user: its directory becomes theirs.
  void run_as(uid_t uid) {
    uid_ = static_cast<int>(uid);
    if (::chown(dir_.c_str(), uid, uid) != 0) ADD_FAILURE() << "chown " << dir_;
  }

  void start(const std::string& join, const std::vector<std::string>& extra = {}) {
    std::vector<std::string> args{"aopt-node", "--join", join, "--name", name_, "--devices", "2",
                                  "--state-dir", (dir_ / "state").string(), "--cache-dir",
                                  daemon_process::shared_cache().string(), "--heartbeat-ms", "200"};
    args.insert(args.end(), extra.begin(), extra.end());
    pid_ = ::fork();
    if (pid_ == 0) {
      const int fd = ::open((dir_ / "node.log").c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
      ::dup2(fd, 2);
      if (uid_ >= 0 && (::setgroups(0, nullptr) != 0 || ::setgid(static_cast<gid_t>(uid_)) != 0 ||
                        ::setuid(static_cast<uid_t>(uid_)) != 0)) {
        std::_Exit(126);
      }
      std::vector<char*> argv;
      for (auto& a : args) argv.push_back(a.data());
      argv.push_back(nullptr);
      ::execv(AOPT_NODE_BINARY, argv.data());
      std::_Exit(127);
    }
  }
  void kill9() { kill_and_reap(pid_); }
  bool alive() const {
    int st = 0;
    return pid_ > 0 && ::waitpid(pid_, &st, WNOHANG) == 0;
  }
  std::string log() const {
    std::ifstream in(dir_ / "node.log");
    return std::string(std::istreambuf_iterator<char>(in), {});
  }
  const std::string& name() const { return name_; }
  pid_t pid() const { return pid_; }
  void signal(int sig) const { ::kill(pid_, sig); }

 private:
  fs::path dir_;
  std::string name_;
  pid_t pid_ = -1;
  int uid_ = -1;  // run_as
};

// Where the daemon's nodes join (GET /v1/health's nodes_listen), and its devices (GET /v1/devices).
inline std::string nodes_address(const daemon_process& d) {
  return request(d.socket(), "GET", "/v1/health").json().value("nodes_listen", std::string());
}
inline nlohmann::json devices(const daemon_process& d) { return request(d.socket(), "GET", "/v1/devices").json(); }

// Waits until GET /v1/devices lists `n` devices up (not down).
inline bool wait_devices_up(const daemon_process& d, std::size_t n, double seconds = 60) {
  const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (std::chrono::steady_clock::now() < end) {
    std::size_t up = 0;
    for (const auto& dev : devices(d)) up += dev.value("state", "") != "down";
    if (up >= n) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return false;
}

// The daemon's node token as aopt-node takes it (the daemon made it at its first start), then
// `extra`.
inline std::vector<std::string> with_token(const daemon_process& d, std::vector<std::string> extra = {}) {
  extra.insert(extra.begin(), {"--token-file", (d.dir() / "state" / "node-token").string()});
  return extra;
}

}  // namespace aopt::testing
