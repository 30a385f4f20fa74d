// Test helpers: a real Prometheus (Debian's `prometheus`, scripts/install-deps.sh) on a free
// loopback port scraping one target every second, its HTTP API, and a plain HTTP GET over TCP.
#pragma once

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cctype>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

#include <nlohmann/json.hpp>

#include "aopt/common/fs.h"
#include "daemon_process.h"

namespace aopt::testing {

// GET http://127.0.0.1:port/target; the body ("" when it fails).
inline std::string http_get(int port, const std::string& target) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<std::uint16_t>(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  timeval tv{10, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
    ::close(fd);
    return {};
  }
  const std::string req = "GET " + target + " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n";
  (void)::send(fd, req.data(), req.size(), MSG_NOSIGNAL);
  std::string in;
  char buf[65536];
  for (ssize_t n; (n = ::recv(fd, buf, sizeof buf, 0)) > 0;) in.append(buf, static_cast<std::size_t>(n));
  ::close(fd);
  const auto e = in.find("\r\n\r\n");
  if (e == std::string::npos || in.compare(0, 12, "HTTP/1.1 200") != 0) return {};
  std::string body = in.substr(e + 4);
  if (in.substr(0, e).find("Transfer-Encoding: chunked") != std::string::npos) {  // de-chunk
    std::string plain;
    for (std::size_t at = 0;;) {
      const auto crlf = body.find("\r\n", at);
      if (crlf == std::string::npos) break;
      const std::size_t len = std::stoul(body.substr(at, crlf - at), nullptr, 16);
      if (len == 0) break;
      plain += body.substr(crlf + 2, len);
      at = crlf + 2 + len + 2;
    }
    body = plain;
  }
  return body;
}

inline std::string url_encode(const std::string& s) {
  std::string out;
  for (unsigned char c : s) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
      out.push_back(static_cast<char>(c));
    } else {
      char b[4];
      std::snprintf(b, sizeof b, "%%%02X", c);
      out += b;
    }
  }
  return out;
}

struct prometheus_server {
  using json = nlohmann::json;
  using path = std::filesystem::path;
  pid_t pid = -1;
  int port = 0;
  path dir;
  prometheus_server(const path& d, const std::string& target) : dir(d) {
    port = free_port();
    common::write_text_file(dir / "prom.yml", "global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\n"
                                              "scrape_configs:\n  - job_name: aoptd\n    static_configs:\n"
                                              "      - targets: [\"" + target + "\"]\n");
    pid = ::fork();
    if (pid == 0) {
      const int fd = ::open((dir / "prometheus.log").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      ::dup2(fd, 1);
      ::dup2(fd, 2);
      const std::string cfg = "--config.file=" + (dir / "prom.yml").string();
      const std::string data = "--storage.tsdb.path=" + (dir / "data").string();
      const std::string listen = "--web.listen-address=127.0.0.1:" + std::to_string(port);
      ::execlp("prometheus", "prometheus", cfg.c_str(), data.c_str(), listen.c_str(), static_cast<char*>(nullptr));
      std::_Exit(127);
    }
  }
  ~prometheus_server() {
    if (pid > 0) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, nullptr, 0);
    }
  }
  std::string log() const {
    std::ifstream in(dir / "prometheus.log");
    return std::string(std::istreambuf_iterator<char>(in), {});
  }
  bool ready() {
    return wait_ready(pid, std::chrono::milliseconds(100), [this] { return !http_get(port, "/-/ready").empty(); });
  }
  // The number of series the instant query returns, waiting up to 20 s for some (scrapes come
  // every second; rate() needs two in its window); -1: the query failed.
  int wait_series(const std::string& expr) {
    int n = -1;
    for (int i = 0; i < 40 && n <= 0; ++i) {
      n = series(expr);
      if (n <= 0) std::this_thread::sleep_for(std::chrono::milliseconds(500));
    }
    return n;
  }
  int series(const std::string& expr) {
    const json r = query(expr);
    return r.is_null() ? -1 : static_cast<int>(r.size());
  }
  // The instant query's result (an array of {"metric": {labels}, "value": [time, "value"]}); null
  // when the query failed.
  json query(const std::string& expr) {
    const std::string body = http_get(port, "/api/v1/query?query=" + url_encode(expr));
    if (body.empty()) return {};
    const auto j = json::parse(body, nullptr, false);
    if (j.is_discarded() || j.value("status", "") != "success") return {};
    return j["data"]["result"];
  }
};

}  // namespace aopt::testing
