// The metrics across a restart, through a real Prometheus (as prometheus_test.cpp): accepted
// changes are counted when accepted; after aoptd restarts, the dashboard's speedup per operator
// still has every job that finished before, the jobs by state are the store's (what GET
// /v1/health says, a deleted job gone), and a job resumed after the restart is not a submission.
// And aoptd starts with every key of config/aoptd.example.toml set (its [metrics] table too).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <sstream>
#include <fstream>
#include <regex>
#include <thread>

#include "aopt/common/fs.h"
#include "daemon_process.h"
#include "example_config.h"
#include "prometheus_server.h"

namespace fs = std::filesystem;
using namespace aopt;
using namespace aopt::testing;
using nlohmann::json;

namespace {

// The sample of the series whose exposition line starts with `series` (a name and its labels as
// prometheus-cpp writes them, sorted), or -1 when absent.
double sample(const std::string& text, const std::string& series) {
  std::size_t at = 0;
  while ((at = text.find(series + " ", at)) != std::string::npos) {
    if (at == 0 || text[at - 1] == '\n') return std::stod(text.substr(at + series.size() + 1));
    at += series.size();
  }
  return -1;
}

// The sum of every sample of family `name` (-1 when it has none).
double family_sum(const std::string& text, const std::string& name) {
  double sum = -1;
  const std::regex line("^" + name + R"((\{[^}]*\})? ([-+0-9.eEinfNa]+)$)");
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) {
    std::smatch m;
    if (std::regex_match(l, m, line)) sum = std::max(sum, 0.0) + std::stod(m[2]);
  }
  return sum;
}

// The expression of the dashboard's panel `title`.
std::string panel_query(const std::string& title) {
  const json dash = json::parse(std::ifstream(source_dir() / "monitoring" / "grafana" / "dashboards" / "aopt.json"));
  for (const auto& p : dash.at("panels")) {
    if (p.value("title", "") == title) return p.at("targets").at(0).at("expr");
  }
  ADD_FAILURE() << "no panel '" << title << "' in the dashboard";
  return {};
}

double seconds_since_epoch() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

// Jobs by state as GET /v1/health says.
std::map<std::string, int> health_counts(const daemon_process& d) {
  std::map<std::string, int> out;
  const json h = request(d.socket(), "GET", "/v1/health").json();
  for (const auto& [s, n] : h.at("jobs").items()) out[s] = n.get<int>();
  return out;
}

// The dashboard's "Jobs by state" through Prometheus (states at 0 left out).
std::map<std::string, int> prometheus_counts(prometheus_server& prom, const std::string& expr) {
  std::map<std::string, int> out;
  const json r = prom.query(expr);
  if (!r.is_array()) return {{"query failed", 1}};
  for (const auto& s : r) {
    const int n = static_cast<int>(std::lround(std::stod(s.at("value").at(1).get<std::string>())));
    if (n != 0) out[s.at("metric").value("state", "")] = n;
  }
  return out;
}

TEST(metrics_restart, FinishedJobsKeepTheirSeriesAndCountsMatchHealth) {
  const temp_dir tmp("aoptd-m");
  const fs::path& dir = tmp.path;
  const int metrics_port = free_port();  // the same across the restart: Prometheus scrapes one target
  const std::string target = "127.0.0.1:" + std::to_string(metrics_port);
  daemon_process::options o;
  o.max_running = 2;
  o.learn = false;
  o.metrics_address = target;
  daemon_process d(dir / "d", o);
  ASSERT_TRUE(d.start()) << d.log();
  prometheus_server prom(dir, target);
  ASSERT_TRUE(prom.ready()) << "prometheus did not start (is Debian's `prometheus` installed? scripts/install-deps.sh):\n"
                            << prom.log();
  auto scrape = [&] { return http_get(metrics_port, "/metrics"); };

  // Two operators that finish (the first accepts changes), and one job deleted afterwards.
  const std::string a = submit(d, "budget=10&seed=7&name=op_a");
  const std::string b = submit(d, "budget=3&seed=2&name=op_b");
  const std::string c = submit(d, "budget=1&seed=1&name=op_c");
  ASSERT_TRUE(wait_final(d, {a, b, c}, 300)) << d.log();
  const json ja = get_job(d, a), jb = get_job(d, b);
  ASSERT_EQ(ja.value("state", ""), "finished") << ja.dump(2) << d.log();
  ASSERT_EQ(jb.value("state", ""), "finished") << jb.dump(2) << d.log();
  ASSERT_GE(ja.value("accepted_changes", 0), 1) << "the job should accept a change: " << ja.dump(2);

  // Accepted changes are counted as they are accepted: the total and the job's own.
  std::string text = scrape();
  EXPECT_GE(family_sum(text, "aopt_accepted_changes_total"), ja.value("accepted_changes", 0)) << text;
  EXPECT_GE(sample(text, R"(aopt_job_accepted_changes{job_id=")" + a + R"(",operator="op_a"})"),
            ja.value("accepted_changes", 0))
      << text;
  std::size_t accepted_events = 0;
  for (const auto& e : all_events(d, a)) accepted_events += e.value("kind", "") == "accepted";
  EXPECT_GE(accepted_events, static_cast<std::size_t>(ja.value("accepted_changes", 0)));

  // A deleted job leaves the counts: they are the store's, as GET /v1/health says.
  ASSERT_EQ(request(d.socket(), "DELETE", "/v1/jobs/" + c).status, 200);
  text = scrape();
  EXPECT_EQ(sample(text, R"(aopt_jobs{state="finished"})"), 2) << text;
  EXPECT_EQ(text.find("job_id=\"" + c + "\""), std::string::npos) << "the deleted job's series go with it";
  EXPECT_EQ(sample(text, "aopt_jobs_submitted_total"), 3);

  // A job that runs when aoptd stops: it resumes after the restart.
  const std::string r = submit(d, "budget=8&seed=3&name=op_r");
  for (int i = 0; i < 1200 && get_job(d, r).value("evaluations", 0) == 0 && !is_final(get_job(d, r)); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  const bool interrupted = !is_final(get_job(d, r));
  std::cout << "job " << r << (interrupted ? " runs" : " already ended") << " at the restart\n";
  ASSERT_GT(prom.wait_series("aopt_job_best_speedup{job_id=\"" + b + "\"}"), 0) << prom.log();
  double took = 0;
  ASSERT_EQ(d.terminate(took), 0) << d.log();
  ASSERT_TRUE(d.start()) << d.log();
  const double restarted = seconds_since_epoch();

  text = scrape();
  EXPECT_LE(sample(text, "aopt_jobs_submitted_total"), 0) << "a job resumed after a restart is no submission\n" << text;
  EXPECT_NEAR(sample(text, R"(aopt_job_best_speedup{job_id=")" + a + R"(",operator="op_a"})"), ja.at("speedup").get<double>(),
              1e-9)
      << text;
  EXPECT_EQ(sample(text, R"(aopt_job_accepted_changes{job_id=")" + a + R"(",operator="op_a"})"),
            ja.value("accepted_changes", 0))
      << text;
  EXPECT_EQ(sample(text, R"(aopt_job_running{job_id=")" + b + R"(",operator="op_b"})"), 0) << text;

  // Prometheus scraped the new process (its `up` sample is newer than the restart) ...
  bool scraped = false;
  for (int i = 0; i < 60 && !scraped; ++i) {
    const json up = prom.query("timestamp(up{job=\"aoptd\"} == 1)");  // the time of the last good scrape
    scraped = up.is_array() && up.size() == 1 && std::stod(up[0]["value"][1].get<std::string>()) > restarted;
    if (!scraped) std::this_thread::sleep_for(std::chrono::milliseconds(500));
  }
  ASSERT_TRUE(scraped) << prom.log();
  // ... and the dashboard's speedup per operator has every job that finished before it.
  const json best = prom.query(panel_query("Best speedup per operator"));
  ASSERT_TRUE(best.is_array()) << prom.log();
  std::map<std::string, double> by_op;
  for (const auto& s : best) by_op[s["metric"].value("operator", "")] = std::stod(s["value"][1].get<std::string>());
  EXPECT_EQ(by_op.count("op_a"), 1u) << best.dump();
  EXPECT_EQ(by_op.count("op_b"), 1u) << best.dump();
  EXPECT_EQ(by_op.count("op_c"), 0u) << "deleted: " << best.dump();
  EXPECT_NEAR(by_op["op_a"], ja.at("speedup").get<double>(), 1e-9);
  EXPECT_NEAR(by_op["op_b"], jb.at("speedup").get<double>(), 1e-9);

  // Once the resumed job is over, Prometheus's jobs by state are /v1/health's.
  ASSERT_TRUE(wait_final(d, {r}, 300)) << d.log();
  const auto health = health_counts(d);
  EXPECT_EQ(health.at("finished"), 3) << request(d.socket(), "GET", "/v1/health").body;
  std::map<std::string, int> seen;
  for (int i = 0; i < 40 && seen != health; ++i) {
    seen = prometheus_counts(prom, panel_query("Jobs by state"));
    if (seen != health) std::this_thread::sleep_for(std::chrono::milliseconds(500));
  }
  EXPECT_EQ(seen, health);
  text = scrape();
  EXPECT_LE(sample(text, "aopt_jobs_submitted_total"), 0) << text;
  EXPECT_GT(sample(text, R"(aopt_job_best_speedup{job_id=")" + r + R"(",operator="op_r"})"), 0) << text;
}

// aoptd starts with every key of the example set, commented-out ones included (its [metrics]
// table, [llm] and a sim [[devices]] table; not the npu device, which needs the cann toolchain).
TEST(metrics_restart, StartsWithEveryKeyOfTheExample) {
  const temp_dir tmp("aoptd-x");
  const fs::path& dir = tmp.path;
  const std::string text =
      example_with_every_key(source_dir() / "config" / "aoptd.example.toml",
                             {{{"daemon", "socket"}, '"' + (dir / "aoptd.sock").string() + '"'},
                              {{"daemon", "state_dir"}, '"' + (dir / "state").string() + '"'},
                              {{"jobs", "cache_dir"}, '"' + (dir / "cache").string() + '"'},
                              {{"jobs", "bank_dir"}, '"' + (dir / "bank").string() + '"'},
                              {{"metrics", "address"}, "\"127.0.0.1:0\""}},
                             /*npu=*/false);
  common::write_text_file(dir / "aoptd.toml", text);
  const pid_t pid = ::fork();
  if (pid == 0) {
    const int fd = ::open((dir / "aoptd.log").c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    ::dup2(fd, 2);
    ::execl(AOPTD_BINARY, "aoptd", "--config", (dir / "aoptd.toml").c_str(), static_cast<char*>(nullptr));
    std::_Exit(127);
  }
  pid_t child = pid;
  const bool up = wait_ready(child, std::chrono::milliseconds(50),
                             [&] { return request(dir / "aoptd.sock", "GET", "/v1/health", {}, 1000).status == 200; });
  const std::string log = common::read_text_file(dir / "aoptd.log");
  kill_and_reap(child);
  ASSERT_TRUE(up) << log << "\n" << text;
  EXPECT_NE(log.find("metrics on http://127.0.0.1:"), std::string::npos) << log;
  EXPECT_EQ(log.find("warn"), std::string::npos) << log;
}

}  // namespace
