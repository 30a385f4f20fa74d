// The metrics library: names and help texts as Prometheus expects them, bounded label sets
// (job series dropped after the retention), busy time per device, and the exporter scraped over
// loopback with libcurl as Prometheus would.
#include <curl/curl.h>
#include <gtest/gtest.h>

#include <thread>

#include "aopt/common/error.h"
#include "aopt/monitoring/metrics.h"

namespace aopt::monitoring {
namespace {

using namespace std::chrono_literals;

// The sample value of the series whose exposition line starts with `series` (e.g.
// `aopt_jobs{state="queued"}`), or -1 when absent.
double value(const std::string& text, const std::string& series) {
  std::size_t at = 0;
  while ((at = text.find(series + " ", at)) != std::string::npos) {
    if (at == 0 || text[at - 1] == '\n') return std::stod(text.substr(at + series.size() + 1));
    at += series.size();
  }
  return -1;
}

TEST(Metrics, EveryFamilyHasHelpAndPrometheusNames) {
  metrics m;
  m.evaluation({"j1", "add", "ok", "stage1", "sim0", "sim", 0.5, 0.25, false});
  m.device_busy("sim0", true);
  m.llm_role("mutator");
  m.bank_size(41);
  const std::string t = m.text();
  for (const char* family : {"aopt_jobs", "aopt_queue_depth", "aopt_evaluations_total", "aopt_evaluation_phase_seconds",
                             "aopt_device_busy_seconds_total", "aopt_llm_requests_total", "aopt_llm_tokens_total",
                             "aopt_bank_tuples"}) {
    EXPECT_NE(t.find(std::string("# HELP ") + family + " "), std::string::npos) << family;
    EXPECT_NE(t.find(std::string("# TYPE ") + family + " "), std::string::npos) << family;
  }
  EXPECT_EQ(value(t, R"(aopt_evaluations_total{backend="sim",device="sim0",stage="stage1",status="ok"})"), 1);
  EXPECT_EQ(value(t, R"(aopt_evaluation_phase_seconds_count{phase="build"})"), 1);
  EXPECT_EQ(value(t, R"(aopt_evaluation_phase_seconds_sum{phase="run"})"), 0.25);
  EXPECT_EQ(value(t, R"(aopt_llm_requests_total{outcome="ok",role="mutator"})"), 0);  // exists before any request
  EXPECT_EQ(value(t, "aopt_bank_tuples"), 41);
}

TEST(Metrics, JobStatesAreCountedOnceEach) {
  metrics m;
  m.job_state("a", "add", "", "queued");
  m.job_state("b", "swish", "", "queued");
  m.job_state("a", "add", "queued", "running");
  m.job_state("a", "add", "running", "finished");
  m.job_state("c", "mul", "running", "queued");  // recovered at start, resumed: not a submission
  m.job_counts({{"queued", 2}, {"finished", 1}});
  const std::string t = m.text();
  EXPECT_EQ(value(t, R"(aopt_jobs{state="queued"})"), 2);
  EXPECT_EQ(value(t, R"(aopt_jobs{state="running"})"), 0);
  EXPECT_EQ(value(t, R"(aopt_jobs{state="finished"})"), 1);
  EXPECT_EQ(value(t, "aopt_jobs_submitted_total"), 2);
  EXPECT_EQ(value(t, R"(aopt_jobs_ended_total{state="finished"})"), 1);
  EXPECT_EQ(value(t, R"(aopt_job_running{job_id="a",operator="add"})"), 0);
  // The counts are the store's: a deleted job is gone from them, and its series at once.
  m.job_removed("a");
  m.job_counts({{"queued", 2}});
  const std::string after = m.text();
  EXPECT_EQ(value(after, R"(aopt_jobs{state="finished"})"), 0);
  EXPECT_EQ(after.find("job_id=\"a\""), std::string::npos) << after;
}

TEST(Metrics, JobsThatEndedBeforeAStartComeBackForTheRestOfTheRetention) {
  using std::chrono::system_clock;
  metrics m(100s);
  m.restore_job({"j1", "swish", "finished", system_clock::now() - 30s, 1.413, 12, 2});
  m.restore_job({"j2", "add", "failed", system_clock::now() - 20s, std::nullopt, 3, 0});
  m.restore_job({"j3", "mul", "finished", system_clock::now() - 150s, 1.2, 9, 1});  // past the retention
  std::string t = m.text();
  EXPECT_DOUBLE_EQ(value(t, R"(aopt_job_best_speedup{job_id="j1",operator="swish"})"), 1.413);
  EXPECT_EQ(value(t, R"(aopt_job_evaluations{job_id="j1",operator="swish"})"), 12);
  EXPECT_EQ(value(t, R"(aopt_job_accepted_changes{job_id="j1",operator="swish"})"), 2);
  EXPECT_EQ(value(t, R"(aopt_job_running{job_id="j1",operator="swish"})"), 0);
  EXPECT_EQ(value(t, R"(aopt_job_best_speedup{job_id="j2",operator="add"})"), -1);  // no speedup: none
  EXPECT_EQ(value(t, R"(aopt_job_evaluations{job_id="j2",operator="add"})"), 3);
  EXPECT_EQ(t.find("job_id=\"j3\""), std::string::npos) << t;
  EXPECT_LE(value(t, "aopt_jobs_submitted_total"), 0);  // none: restored jobs are no submissions
  // The retention counts from when the job ended, not from the restart: j1 goes 70 s later.
  m.expire(std::chrono::steady_clock::now() + 65s);
  EXPECT_DOUBLE_EQ(value(m.text(), R"(aopt_job_best_speedup{job_id="j1",operator="swish"})"), 1.413);
  m.expire(std::chrono::steady_clock::now() + 75s);
  t = m.text();
  EXPECT_EQ(t.find("job_id=\"j1\""), std::string::npos) << t;
  EXPECT_NE(t.find("job_id=\"j2\""), std::string::npos) << t;
}

TEST(Metrics, AReplayedAcceptanceCountsForItsJobOnly) {
  metrics m;
  m.accepted_change("j1", "add", "tiling", /*replayed=*/true);
  m.accepted_change("j1", "add", "kernel");
  const std::string t = m.text();
  EXPECT_EQ(value(t, R"(aopt_job_accepted_changes{job_id="j1",operator="add"})"), 2);
  EXPECT_EQ(value(t, R"(aopt_accepted_changes_total{stage="tiling"})"), 0);
  EXPECT_EQ(value(t, R"(aopt_accepted_changes_total{stage="kernel"})"), 1);
}

TEST(Metrics, JobSeriesGoAfterTheRetentionAndLabelsStayBounded) {
  metrics m(10s);
  m.job_state("j1", "add", "", "queued");
  m.job_state("j1", "add", "queued", "running");
  m.best_speedup("j1", "add", 1.25);
  m.budget_spent("j1", "add", 7);
  m.accepted_change("j1", "add", "stage1");
  m.best_speedup("j2 \"evil\"\n", std::string(500, 'x'), 1.5);
  std::string t = m.text();
  EXPECT_EQ(value(t, R"(aopt_job_best_speedup{job_id="j1",operator="add"})"), 1.25);
  EXPECT_EQ(value(t, R"(aopt_job_evaluations{job_id="j1",operator="add"})"), 7);
  EXPECT_EQ(value(t, R"(aopt_job_accepted_changes{job_id="j1",operator="add"})"), 1);
  EXPECT_EQ(value(t, R"(aopt_job_best_speedup{job_id="j2__evil__",operator=")" + std::string(64, 'x') + "\"}"), 1.5);
  m.job_state("j1", "add", "running", "finished");
  m.expire(std::chrono::steady_clock::now() + 5s);
  EXPECT_EQ(value(m.text(), R"(aopt_job_best_speedup{job_id="j1",operator="add"})"), 1.25);  // recent: kept
  m.expire(std::chrono::steady_clock::now() + 11s);
  t = m.text();
  EXPECT_EQ(t.find("job_id=\"j1\""), std::string::npos) << t;
  EXPECT_NE(t.find("job_id=\"j2__evil__\""), std::string::npos);  // not ended: kept
  EXPECT_EQ(value(t, R"(aopt_accepted_changes_total{stage="stage1"})"), 1);  // totals stay
}

TEST(Metrics, BusyTimeAccumulatesPerDeviceWhileRunning) {
  metrics m;
  m.device_up("sim0", true);
  m.device_busy("sim0", true);
  std::this_thread::sleep_for(50ms);
  const double during = value(m.text(), R"(aopt_device_busy_seconds_total{device="sim0"})");
  EXPECT_GE(during, 0.04);  // counted up to the scrape, before the evaluation ends
  m.device_busy("sim0", false);
  const double at_stop = value(m.text(), R"(aopt_device_busy_seconds_total{device="sim0"})");
  EXPECT_GE(at_stop, during);
  std::this_thread::sleep_for(50ms);
  const std::string t = m.text();
  EXPECT_EQ(value(t, R"(aopt_device_busy_seconds_total{device="sim0"})"), at_stop);  // idle time is not busy time
  EXPECT_EQ(value(t, R"(aopt_device_busy{device="sim0"})"), 0);
  EXPECT_EQ(value(t, R"(aopt_device_up{device="sim0"})"), 1);
}

std::size_t append(char* data, std::size_t size, std::size_t n, void* out) {
  static_cast<std::string*>(out)->append(data, size * n);
  return size * n;
}

TEST(Exporter, ServesTheTextFormatOnLoopback) {
  auto m = std::make_shared<metrics>();
  m->queue_depth(3);
  exporter e(m, "127.0.0.1:0");
  ASSERT_GT(e.port(), 0);
  std::string body;
  CURL* c = curl_easy_init();
  const std::string url = "http://" + e.address() + "/metrics";
  curl_easy_setopt(c, CURLOPT_URL, url.c_str());
  curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, append);
  curl_easy_setopt(c, CURLOPT_WRITEDATA, &body);
  curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, 10000L);
  curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
  const CURLcode rc = curl_easy_perform(c);
  long status = 0;
  curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
  curl_easy_cleanup(c);
  ASSERT_EQ(rc, CURLE_OK) << curl_easy_strerror(rc);
  EXPECT_EQ(status, 200);
  EXPECT_EQ(value(body, "aopt_queue_depth"), 3) << body;

  // The same port again: a clear error naming the address.
  try {
    exporter second(m, e.address());
    FAIL() << "a busy port was accepted";
  } catch (const error& err) {
    EXPECT_NE(std::string(err.what()).find(e.address()), std::string::npos) << err.what();
  }
}

TEST(Exporter, RejectsMalformedAddresses) {
  auto m = std::make_shared<metrics>();
  for (const char* bad : {"9464", "localhost", ":9464", "127.0.0.1:99999", "127.0.0.1:http"}) {
    EXPECT_FALSE(check_address(bad).empty()) << bad;
    EXPECT_THROW(exporter(m, bad), error) << bad;
  }
  EXPECT_TRUE(check_address("127.0.0.1:9464").empty());
  EXPECT_TRUE(check_address("[::1]:0").empty());
}

}  // namespace
}  // namespace aopt::monitoring
