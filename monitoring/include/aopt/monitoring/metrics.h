// The daemon's Prometheus metrics, declared once (src/metrics.cpp holds every name, help text,
// label set and bucket list; docs/monitoring.md lists them). Callers speak in events ("a job
// changed state", "an evaluation ended"); how those become series is this file's business.
// Per-job series are labelled job_id (not "job", which Prometheus reserves for the scrape job).
// Label values are bounded: job series are dropped a retention after the job ends, and free-form
// values (status, stage, device, ...) are cut to a fixed set of characters and length.
// Thread-safe: every method may be called from any thread.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace prometheus {
class Collectable;
}

namespace aopt::monitoring {

// The histogram buckets of evaluation phases, in seconds (documented in docs/monitoring.md):
// from a cached build (milliseconds) to a long compile or a hung run cut at its timeout.
inline constexpr double phase_buckets[] = {0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300};

// How long the series of a job stay after it ended, unless configured otherwise.
inline constexpr std::chrono::seconds default_job_retention{3600};

struct evaluation_event {
  std::string_view job;      // job id ("" when the evaluation belongs to no job, e.g. `aopt eval`)
  std::string_view op;       // operator name
  std::string_view status;   // ok, compile_error, precision_error, ... (evaluation/result.h)
  std::string_view stage;    // stage1, stage2, rewind, verify, baseline ...
  std::string_view device;   // the device (evaluator slot) that ran it
  std::string_view backend;  // sim, cann
  double build_seconds = 0;  // compile time (0 when reused from the cache)
  double run_seconds = 0;    // run time of all cases
  bool cached = false;       // taken from the result cache: no build and no run happened
};

// A job that ended before this process started (read from the daemon's job store at start).
struct ended_job {
  std::string_view job, op;
  std::string_view state;                        // finished, failed or cancelled
  std::chrono::system_clock::time_point ended;  // when it reached that state
  std::optional<double> speedup;                 // a finished job's
  std::uint64_t evaluations = 0;
  std::uint64_t accepted_changes = 0;
};

class metrics {
 public:
  // `job_retention`: how long a job's series stay after it ended ([metrics] job_retention_seconds).
  explicit metrics(std::chrono::seconds job_retention = default_job_retention);
  ~metrics();
  metrics(const metrics&) = delete;
  metrics& operator=(const metrics&) = delete;

  // A job entered `state` (queued, running, finished, failed, cancelled); `previous` is "" for a
  // new job, which counts as a submission (a job recovered at start-up has its stored state as
  // `previous`). A job that reaches a final state keeps its series for the retention, then they go.
  void job_state(std::string_view job, std::string_view op, std::string_view previous, std::string_view state);
  // The jobs the daemon holds, by state (aopt_jobs, a gauge: what its store and GET /v1/health
  // say); a state not named has none.
  void job_counts(const std::map<std::string, std::size_t>& by_state);
  // A job that ended before the daemon started: its series (best speedup, evaluations, accepted
  // changes, running 0) come back for what is left of the retention; nothing once it is over.
  void restore_job(const ended_job& j);
  void job_removed(std::string_view job);  // deleted through the API: its series go at once
  void queue_depth(std::size_t jobs);
  void evaluation(const evaluation_event& e);
  void best_speedup(std::string_view job, std::string_view op, double speedup);
  // A change was accepted into the job's champion. `replayed`: a resumed job accepting again what
  // it accepted before a restart; only its per-job series counts it (the total counted it then).
  void accepted_change(std::string_view job, std::string_view op, std::string_view stage, bool replayed = false);
  void budget_spent(std::string_view job, std::string_view op, std::uint64_t evaluations);
  // A device (evaluator slot) started or stopped an evaluation; busy time accumulates per device.
  void device_busy(std::string_view device, bool busy);
  void device_up(std::string_view device, bool up);
  // Requests waiting for a device of a class (a profile: "any" for jobs of any class).
  void class_queue(std::string_view device_class, std::size_t requests);
  // A remote evaluator node joined (up) or was lost (counted in aopt_node_disconnects_total).
  void node_up(std::string_view node, bool up);
  void bank_size(std::uint64_t tuples);
  // A role that may call the language model: its series exist (at zero) before the first request.
  void llm_role(std::string_view role);
  void llm_request(std::string_view role, std::string_view outcome, std::uint64_t prompt_tokens,
                   std::uint64_t completion_tokens, double seconds);

  // Drops the series of jobs that ended more than the retention ago (also done on every job_state).
  void expire(std::chrono::steady_clock::time_point now = std::chrono::steady_clock::now());
  // What an exporter serves (prometheus-cpp keeps a weak pointer: keep `metrics` alive).
  std::shared_ptr<prometheus::Collectable> collectable() const;
  // The text exposition format of everything registered (what /metrics serves); for tests and
  // `aoptd --print-metrics`.
  std::string text() const;

 private:
  struct impl;
  std::unique_ptr<impl> impl_;
};

// Serves `m` at http://ADDRESS/metrics (prometheus-cpp's civetweb). Throws aopt::error
// (ec::usage) naming the address when it cannot listen.
class exporter {
 public:
  exporter(std::shared_ptr<metrics> m, const std::string& address);
  ~exporter();
  exporter(const exporter&) = delete;
  exporter& operator=(const exporter&) = delete;
  std::uint16_t port() const;   // the bound port (useful with port 0)
  std::string address() const;  // HOST:PORT as bound

 private:
  struct impl;
  std::unique_ptr<impl> impl_;
};

// "HOST:PORT" checked: a host and a port 0-65535; returns "" when valid, otherwise what is wrong.
std::string check_address(std::string_view address);

}  // namespace aopt::monitoring
