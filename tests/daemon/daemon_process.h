// Test helpers: the real aoptd as a child process on a socket in a short temporary directory,
// and a raw HTTP/1.1 client over the Unix socket (so malformed requests can be sent as bytes).
#pragma once

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include <fcntl.h>
#include <poll.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "aopt/common/fs.h"
#include "aopt/common/tar.h"

namespace aopt::testing {

namespace fs = std::filesystem;

// The source tree (examples, the dashboard): AOPT_SOURCE_DIR from ctest, else the configured one.
inline fs::path source_dir() {
  const char* s = std::getenv("AOPT_SOURCE_DIR");
  return s != nullptr ? fs::path(s) : fs::path(AOPT_DAEMON_SOURCE_DIR);
}

// The add_custom example as the tar a client uploads.
inline std::string add_custom_tar() {
  return common::tar_write(common::read_tree(source_dir() / "examples" / "ops" / "add_custom"));
}

// A fresh directory under /tmp (short: socket paths have a 107-byte limit), removed at the end.
struct temp_dir {
  fs::path path;
  explicit temp_dir(const std::string& prefix = "aoptd-t") : path(common::make_unique_dir("/tmp", prefix)) {}
  ~temp_dir() {
    std::error_code e;
    fs::remove_all(path, e);
  }
  temp_dir(const temp_dir&) = delete;
  temp_dir& operator=(const temp_dir&) = delete;
};

struct http_reply {
  int status = 0;  // 0: no answer (connection refused, closed or timed out)
  std::string head;
  std::string body;
  nlohmann::json json() const { return nlohmann::json::parse(body); }
};

// Sends `bytes` and reads until the server closes (or `timeout_ms` passes).
inline http_reply raw_request(const fs::path& socket, const std::string& bytes, int timeout_ms = 20000) {
  http_reply r;
  const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::strncpy(addr.sun_path, socket.c_str(), sizeof addr.sun_path - 1);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    ::close(fd);
    return r;
  }
  std::size_t off = 0;
  while (off < bytes.size()) {
    const ssize_t n = ::send(fd, bytes.data() + off, bytes.size() - off, MSG_NOSIGNAL);
    if (n <= 0) break;  // the server may answer (413) and close before reading everything
    off += static_cast<std::size_t>(n);
  }
  std::string in;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  while (true) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now()).count();
    if (left <= 0) break;
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, static_cast<int>(left)) <= 0) break;
    char buf[65536];
    const ssize_t n = ::recv(fd, buf, sizeof buf, 0);
    if (n <= 0) break;
    in.append(buf, static_cast<std::size_t>(n));
  }
  ::close(fd);
  // Skip interim 100 Continue responses.
  while (in.starts_with("HTTP/1.1 100")) {
    const auto e = in.find("\r\n\r\n");
    if (e == std::string::npos) break;
    in.erase(0, e + 4);
  }
  const auto e = in.find("\r\n\r\n");
  if (e == std::string::npos || in.size() < 12) return r;
  r.head = in.substr(0, e);
  r.body = in.substr(e + 4);
  r.status = std::atoi(in.substr(9, 3).c_str());
  return r;
}

inline http_reply request(const fs::path& socket, const std::string& method, const std::string& target,
                          const std::string& body = {}, int timeout_ms = 20000) {
  std::string req = method + " " + target + " HTTP/1.1\r\nHost: localhost\r\n";
  if (!body.empty() || method == "POST") req += "Content-Length: " + std::to_string(body.size()) + "\r\n";
  req += "\r\n" + body;
  return raw_request(socket, req, timeout_ms);
}

// Polls `ready` up to 300 times, `interval` apart, while child `pid` lives: true once it answers;
// false (and pid = -1) when the child exited first, or after the last poll.
template <class Ready>
bool wait_ready(pid_t& pid, std::chrono::milliseconds interval, Ready ready) {
  for (int i = 0; i < 300; ++i) {
    if (ready()) return true;
    int st = 0;
    if (::waitpid(pid, &st, WNOHANG) == pid) {
      pid = -1;
      return false;
    }
    std::this_thread::sleep_for(interval);
  }
  return false;
}

// The daemon under test. `dir` must be short (the socket path has a 107-byte limit).
// A TCP port on 127.0.0.1 that was free a moment ago.
inline int free_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
  socklen_t n = sizeof a;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &n);
  const int port = ntohs(a.sin_port);
  ::close(fd);
  return port;
}

// SIGKILL to a child, then waits for it; pid becomes -1 (nothing when it is not positive).
inline void kill_and_reap(pid_t& pid) {
  if (pid <= 0) return;
  ::kill(pid, SIGKILL);
  int st = 0;
  ::waitpid(pid, &st, 0);
  pid = -1;
}

#ifdef AOPT_NODE_BINARY
// Starts aopt-node joining `join` (a daemon's nodes_listen) as `name` with one sim device, the
// daemon's node token, its stderr appended to `log`; returns its pid (kill_and_reap it).
inline pid_t start_node(const std::string& join, const std::string& name, const fs::path& state, const fs::path& cache,
                        const std::string& token, const fs::path& log) {
  const pid_t pid = ::fork();
  if (pid == 0) {
    const int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    ::dup2(fd, 2);
    ::execl(AOPT_NODE_BINARY, "aopt-node", "--join", join.c_str(), "--name", name.c_str(), "--devices", "1", "--state-dir",
            state.c_str(), "--cache-dir", cache.c_str(), "--token-file", token.c_str(), static_cast<char*>(nullptr));
    std::_Exit(127);
  }
  return pid;
}
#endif

class daemon_process {
 public:
  struct options {
    int max_running = 4;
    bool learn = true;
    std::string metrics_address;  // "" = no metrics
    bool fresh_cache = false;     // a cache of its own instead of the tests' shared one
    std::string daemon_keys;      // more lines of [daemon] ("key = value\n")
    std::string tables;           // more tables at the end (e.g. "[llm]\n...")
    int evaluator_slots = 2;      // this host's sim devices (0 with nodes: none)
  };
  daemon_process(fs::path dir, options o) : dir_(std::move(dir)) {
    fs::create_directories(dir_);
    cache_ = o.fresh_cache ? dir_ / "cache" : shared_cache();
    config_ = dir_ / "aoptd.toml";
    std::string text = "[daemon]\nsocket = \"" + socket().string() + "\"\nstate_dir = \"" + (dir_ / "state").string() +
                       "\"\nmetrics_address = \"" + o.metrics_address + "\"\nlog_level = \"info\"\n" + o.daemon_keys + "[jobs]\nmax_running = " + std::to_string(o.max_running) +
                       "\nevaluator_slots = " + std::to_string(o.evaluator_slots) + "\nlearn = " + (o.learn ? "true" : "false") + "\n"
                       "default_budget = 6\ncache_dir = \"" + cache_.string() + "\"\nbank_dir = \"" +
                       (dir_ / "bank").string() + "\"\n" +
                       "[limits]\nmax_body_bytes = 1048576\nmax_header_bytes = 4096\nrequest_timeout_ms = 400\n"
                       "max_connections = 16\nshutdown_grace_ms = 5000\n" + o.tables;
    common::write_text_file(config_, text);
  }
  explicit daemon_process(fs::path dir) : daemon_process(std::move(dir), options{}) {}
  ~daemon_process() { kill9(); }

  fs::path socket() const { return dir_ / "run" / "aoptd.sock"; }
  // Adds `key = value` (value as TOML) to the config's [jobs] table; call before start().
  void set_jobs_key(const std::string& key, const std::string& value) {
    std::string text = common::read_text_file(config_);
    text.insert(text.find("[jobs]\n") + 7, key + " = " + value + "\n");
    common::write_text_file(config_, text);
  }
  fs::path dir() const { return dir_; }
  pid_t pid() const { return pid_; }
  std::string log() const {
    std::ifstream in(dir_ / "aoptd.log");
    return std::string(std::istreambuf_iterator<char>(in), {});
  }

  // Starts aoptd and waits until /v1/health answers; false (with the log) when it does not.
  bool start() {
    pid_ = ::fork();
    if (pid_ == 0) {
      const int fd = ::open((dir_ / "aoptd.log").c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
      ::dup2(fd, 2);
      ::execl(AOPTD_BINARY, "aoptd", "--config", config_.c_str(), static_cast<char*>(nullptr));
      std::_Exit(127);
    }
    return wait_ready(pid_, std::chrono::milliseconds(50),
                      [this] { return request(socket(), "GET", "/v1/health", {}, 1000).status == 200; });
  }
  bool alive() const {
    if (pid_ <= 0) return false;
    int st = 0;
    return ::waitpid(pid_, &st, WNOHANG) == 0;
  }
  void kill9() { kill_and_reap(pid_); }
  // SIGTERM; returns the exit status (or -1 after `limit` s, when it is killed) and the seconds taken.
  int terminate(double& seconds, double limit = 30) {
    const auto t0 = std::chrono::steady_clock::now();
    ::kill(pid_, SIGTERM);
    int st = 0;
    while (true) {
      seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      if (::waitpid(pid_, &st, WNOHANG) == pid_) break;
      if (seconds > limit) {
        kill9();
        return -1;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    pid_ = -1;
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
  }

  // One evaluation cache for every daemon of this test binary: repeated candidates are cheap.
  // Removed when the test binary exits.
  static fs::path shared_cache() {
    static const fs::path p = cache_path();
    static const bool cleanup = [] {
      std::atexit([] {
        std::error_code e;
        fs::remove_all(cache_path(), e);
      });
      return true;
    }();
    (void)cleanup;
    return p;
  }
  static fs::path cache_path() {
    return fs::temp_directory_path() / ("aopt-daemon-cache-" + std::to_string(::getpid()));
  }

 private:
  fs::path dir_, config_, cache_;
  pid_t pid_ = -1;
};

// What the daemon tests do through the socket: submit the add_custom example with a query
// ("budget=6&seed=7"), read a job, wait for final states, read every event.
inline std::string submit(const daemon_process& d, const std::string& query) {
  const auto r = request(d.socket(), "POST", "/v1/jobs?" + query, add_custom_tar());
  EXPECT_EQ(r.status, 201) << r.body;
  return r.status == 201 ? r.json().at("id").get<std::string>() : std::string();
}

inline nlohmann::json get_job(const daemon_process& d, const std::string& id) {
  const auto r = request(d.socket(), "GET", "/v1/jobs/" + id);
  return r.status == 200 ? r.json() : nlohmann::json();
}

inline bool is_final(const nlohmann::json& j) {
  const std::string s = j.is_object() ? j.value("state", "") : "";
  return s == "finished" || s == "failed" || s == "cancelled";
}

// Waits until every job is in a final state (false after `seconds`).
inline bool wait_final(const daemon_process& d, const std::vector<std::string>& ids, double seconds) {
  const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (std::chrono::steady_clock::now() < end) {
    if (std::all_of(ids.begin(), ids.end(), [&](const auto& id) { return is_final(get_job(d, id)); })) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  return false;
}

inline std::vector<nlohmann::json> all_events(const daemon_process& d, const std::string& id, std::uint64_t from = 0) {
  const auto r = request(d.socket(), "GET", "/v1/jobs/" + id + "/events?follow=0&from=" + std::to_string(from));
  std::vector<nlohmann::json> out;
  std::size_t pos = 0;
  while (pos < r.body.size()) {
    const auto nl = r.body.find('\n', pos);
    out.push_back(nlohmann::json::parse(r.body.substr(pos, nl - pos)));
    pos = nl + 1;
  }
  return out;
}

}  // namespace aopt::testing
