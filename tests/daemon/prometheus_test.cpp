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
#include "prometheus_server.h"

namespace fs = std::filesystem;
using namespace aopt;
using namespace aopt::testing;
using nlohmann::json;

namespace {

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
  const std::string token = (d.dir() / "state" / "node-token").string();  // nodes authenticate (docs/deploy.md)
  const pid_t node = start_node(join, "n1", dir / "node", dir / "d" / "cache", token, dir / "node.log");
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
