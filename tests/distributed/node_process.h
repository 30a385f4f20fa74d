// Test helper: one aopt-node process joining a daemon (tests/distributed, tests/cann).
#pragma once

#include <fcntl.h>
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

  void start(const std::string& join, const std::vector<std::string>& extra = {}) {
    std::vector<std::string> args{"aopt-node", "--join", join, "--name", name_, "--devices", "2",
                                  "--state-dir", (dir_ / "state").string(), "--cache-dir",
                                  daemon_process::shared_cache().string(), "--heartbeat-ms", "200"};
    args.insert(args.end(), extra.begin(), extra.end());
    pid_ = ::fork();
    if (pid_ == 0) {
      const int fd = ::open((dir_ / "node.log").c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
      ::dup2(fd, 2);
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
  void signal(int sig) const { ::kill(pid_, sig); }

 private:
  fs::path dir_;
  std::string name_;
  pid_t pid_ = -1;
};

}  // namespace aopt::testing
