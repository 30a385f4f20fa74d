// A real Prometheus (Debian's `prometheus`, scripts/install-deps.sh) scrapes a real aoptd on
// loopback while a small job runs; then every query of the Grafana dashboard
// (monitoring/grafana/dashboards/aopt.json) must return data through Prometheus's HTTP API.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <fcntl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <regex>
#include <thread>

#include "aopt/common/fs.h"
#include "aopt/common/tar.h"
#include "daemon_process.h"

namespace fs = std::filesystem;
using namespace aopt;
using namespace aopt::testing;
using nlohmann::json;

namespace {

// GET http://127.0.0.1:port/target; the body ("" when it fails).
std::string http_get(int port, const std::string& target) {
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

std::string url_encode(const std::string& s) {
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
  pid_t pid = -1;
  int port = 0;
  fs::path dir;
  prometheus_server(const fs::path& d, const std::string& target) : dir(d) {
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
    const std::string body = http_get(port, "/api/v1/query?query=" + url_encode(expr));
    if (body.empty()) return -1;
    const auto j = json::parse(body, nullptr, false);
    if (j.is_discarded() || j.value("status", "") != "success") return -1;
    return static_cast<int>(j["data"]["result"].size());
  }
};

TEST(Prometheus, ScrapesTheDaemonAndEveryDashboardQueryHasData) {
  const temp_dir tmp("aoptd-p");
  const fs::path& dir = tmp.path;
  daemon_process::options o;
  o.max_running = 1;
  o.learn = false;
  o.metrics_address = "127.0.0.1:0";
  o.fresh_cache = true;
  // A remote evaluator node too, so the node panels have data.
  o.tables = "[nodes]\nlisten = \"127.0.0.1:0\"\n";
  daemon_process d(dir / "d", o);
  ASSERT_TRUE(d.start()) << d.log();
  const std::string join = request(d.socket(), "GET", "/v1/health").json().value("nodes_listen", "");
  ASSERT_FALSE(join.empty()) << d.log();
  const pid_t node = ::fork();
  if (node == 0) {
    const int fd = ::open((dir / "node.log").c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    ::dup2(fd, 2);
    ::execl(AOPT_NODE_BINARY, "aopt-node", "--join", join.c_str(), "--name", "n1", "--devices", "1", "--state-dir",
            (dir / "node").c_str(), "--cache-dir", (dir / "d" / "cache").c_str(), static_cast<char*>(nullptr));
    std::_Exit(127);
  }
  struct reaper {
    pid_t pid;
    ~reaper() { kill_and_reap(pid); }
  } reap{node};
  for (int i = 0; i < 200 && request(d.socket(), "GET", "/v1/devices").json().size() < 3; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  ASSERT_EQ(request(d.socket(), "GET", "/v1/devices").json().size(), 3u) << d.log();
  std::smatch m;
  const std::string log = d.log();
  ASSERT_TRUE(std::regex_search(log, m, std::regex("metrics on http://([0-9.]+:[0-9]+)/metrics"))) << log;
  const std::string target = m[1];

  prometheus_server prom(dir, target);
  ASSERT_TRUE(prom.ready()) << "prometheus did not start (is Debian's `prometheus` installed? scripts/install-deps.sh):\n"
                            << prom.log();

  const auto r = request(d.socket(), "POST", "/v1/jobs?budget=4&seed=3&name=add_custom", add_custom_tar());
  ASSERT_EQ(r.status, 201) << r.body;
  const std::string id = r.json().at("id");
  std::string state;
  for (int i = 0; i < 600 && state != "finished" && state != "failed"; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    const auto g = request(d.socket(), "GET", "/v1/jobs/" + id);
    if (g.status == 200) state = g.json().value("state", "");
  }
  ASSERT_EQ(state, "finished") << d.log();

  // aoptd's own series arrived through the scrape.
  ASSERT_GE(prom.wait_series("up{job=\"aoptd\"} == 1"), 1) << prom.log();
  const json dash = json::parse(std::ifstream(source_dir() / "monitoring" / "grafana" / "dashboards" / "aopt.json"));
  int queries = 0;
  for (const auto& panel : dash.at("panels")) {
    if (!panel.contains("targets")) continue;
    for (const auto& t : panel["targets"]) {
      const std::string expr = t.at("expr");
      ++queries;
      EXPECT_GT(prom.wait_series(expr), 0) << "panel '" << panel.value("title", "") << "': no data for " << expr;
    }
  }
  EXPECT_GE(queries, 10);
}

}  // namespace
