// Every metric aoptd exports, declared here and nowhere else (docs/monitoring.md lists them).
// Naming follows Prometheus's conventions: the aopt_ prefix, base units (seconds), _total for
// counters, and label sets bounded (see metrics.h).
#include "aopt/monitoring/metrics.h"

#include <prometheus/collectable.h>
#include <prometheus/counter.h>
#include <prometheus/exposer.h>
#include <prometheus/family.h>
#include <prometheus/gauge.h>
#include <prometheus/histogram.h>
#include <prometheus/registry.h>
#include <prometheus/text_serializer.h>

#include <algorithm>
#include <charconv>
#include <map>
#include <mutex>
#include <optional>

#include "aopt/common/error.h"

namespace aopt::monitoring {

namespace {

using clock = std::chrono::steady_clock;
using prometheus::Counter;
using prometheus::Family;
using prometheus::Gauge;
using prometheus::Histogram;

// A label value as Prometheus and Grafana handle it well: printable, short, never empty.
std::string label(std::string_view v) {
  std::string out;
  for (char c : v.substr(0, 64)) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
                    c == '-' || c == '.' || c == ':' || c == '/';
    out.push_back(ok ? c : '_');
  }
  return out.empty() ? "none" : out;
}

bool terminal(std::string_view state) { return state == "finished" || state == "failed" || state == "cancelled"; }

const char* const job_states[] = {"queued", "running", "finished", "failed", "cancelled"};

Histogram::BucketBoundaries buckets(const double* b, std::size_t n) { return {b, b + n}; }

}  // namespace

struct metrics::impl {
  std::chrono::seconds retention;
  std::shared_ptr<prometheus::Registry> reg = std::make_shared<prometheus::Registry>();
  std::mutex mu;

  Family<Gauge>& jobs = prometheus::BuildGauge()
                            .Name("aopt_jobs")
                            .Help("Jobs in the daemon's store, by state (queued, running, finished, failed, cancelled), as GET /v1/health counts them")
                            .Register(*reg);
  Family<Counter>& job_ends = prometheus::BuildCounter()
                                  .Name("aopt_jobs_ended_total")
                                  .Help("Jobs that reached a final state since the daemon started, by state")
                                  .Register(*reg);
  Family<Counter>& submitted = prometheus::BuildCounter()
                                   .Name("aopt_jobs_submitted_total")
                                   .Help("Jobs accepted by the daemon since it started")
                                   .Register(*reg);
  Family<Gauge>& queue = prometheus::BuildGauge()
                             .Name("aopt_queue_depth")
                             .Help("Jobs waiting in the queue for an evaluator")
                             .Register(*reg);
  Family<Counter>& evaluations = prometheus::BuildCounter()
                                     .Name("aopt_evaluations_total")
                                     .Help("Evaluations of candidates, by status, stage, device and backend (cached ones included)")
                                     .Register(*reg);
  Family<Counter>& cached = prometheus::BuildCounter()
                                .Name("aopt_evaluations_cached_total")
                                .Help("Evaluations answered by the result cache (no build, no run), by backend")
                                .Register(*reg);
  Family<Histogram>& phase = prometheus::BuildHistogram()
                                 .Name("aopt_evaluation_phase_seconds")
                                 .Help("Wall time of an evaluation's phases (build: compiling; run: the rest, running every case and storing the result), cached evaluations excluded")
                                 .Register(*reg);
  Family<Gauge>& best = prometheus::BuildGauge()
                            .Name("aopt_job_best_speedup")
                            .Help("Best speedup over the baseline found so far, per running or recent job and operator")
                            .Register(*reg);
  Family<Gauge>& job_evals = prometheus::BuildGauge()
                                 .Name("aopt_job_evaluations")
                                 .Help("Evaluations spent from the budget, per running or recent job and operator")
                                 .Register(*reg);
  Family<Gauge>& job_running = prometheus::BuildGauge()
                                   .Name("aopt_job_running")
                                   .Help("1 while the job runs, 0 once it has ended (kept for the retention), per job and operator")
                                   .Register(*reg);
  Family<Counter>& accepted = prometheus::BuildCounter()
                                  .Name("aopt_accepted_changes_total")
                                  .Help("Changes accepted into a champion, by stage")
                                  .Register(*reg);
  Family<Gauge>& job_accepted = prometheus::BuildGauge()
                                    .Name("aopt_job_accepted_changes")
                                    .Help("Changes accepted so far, per running or recent job and operator")
                                    .Register(*reg);
  Family<Counter>& busy_seconds = prometheus::BuildCounter()
                                      .Name("aopt_device_busy_seconds_total")
                                      .Help("Time each device (evaluator) spent evaluating; its rate is the busy ratio")
                                      .Register(*reg);
  Family<Gauge>& busy = prometheus::BuildGauge()
                            .Name("aopt_device_busy")
                            .Help("1 while the device (evaluator) is evaluating, else 0")
                            .Register(*reg);
  Family<Gauge>& up = prometheus::BuildGauge()
                          .Name("aopt_device_up")
                          .Help("1 while the device (evaluator) is available, 0 when it is down")
                          .Register(*reg);
  Family<Gauge>& class_queue = prometheus::BuildGauge()
                                   .Name("aopt_device_class_queue")
                                   .Help("Evaluation requests waiting for a device, by device class (profile)")
                                   .Register(*reg);
  Family<Gauge>& node_up = prometheus::BuildGauge()
                               .Name("aopt_node_up")
                               .Help("1 while the remote evaluator node is joined, 0 once it is lost")
                               .Register(*reg);
  Family<Counter>& node_losses = prometheus::BuildCounter()
                                     .Name("aopt_node_disconnects_total")
                                     .Help("Times a remote evaluator node was lost (disconnected or silent), by node")
                                     .Register(*reg);
  Family<Gauge>& bank = prometheus::BuildGauge()
                            .Name("aopt_bank_tuples")
                            .Help("Experience tuples in the bank")
                            .Register(*reg);
  Family<Counter>& llm_requests = prometheus::BuildCounter()
                                      .Name("aopt_llm_requests_total")
                                      .Help("Requests to the language model, by role and outcome")
                                      .Register(*reg);
  Family<Counter>& llm_tokens = prometheus::BuildCounter()
                                    .Name("aopt_llm_tokens_total")
                                    .Help("Tokens exchanged with the language model, by role and kind (prompt, completion)")
                                    .Register(*reg);
  Family<Histogram>& llm_seconds = prometheus::BuildHistogram()
                                       .Name("aopt_llm_request_seconds")
                                       .Help("Wall time of a request to the language model, by role")
                                       .Register(*reg);

  struct job_series {
    std::string op;
    std::optional<clock::time_point> ended;
  };
  std::map<std::string, job_series> job_info;
  std::map<std::string, clock::time_point> busy_since;

  // What the exporter collects: busy time of an evaluation still running is counted up to the
  // scrape, so that a long evaluation shows in the busy ratio before it ends.
  struct collector : prometheus::Collectable {
    impl* owner;
    explicit collector(impl* o) : owner(o) {}
    std::vector<prometheus::MetricFamily> Collect() const override {
      {
        std::lock_guard<std::mutex> lock(owner->mu);
        const auto now = clock::now();
        for (auto& [d, since] : owner->busy_since) {
          owner->busy_seconds.Add({{"device", d}}).Increment(std::chrono::duration<double>(now - since).count());
          since = now;
        }
      }
      return owner->reg->Collect();
    }
  };
  std::shared_ptr<collector> self = std::make_shared<collector>(this);

  explicit impl(std::chrono::seconds r) : retention(r) {
    for (const char* s : job_states) jobs.Add({{"state", s}}).Set(0);
    queue.Add({}).Set(0);
  }

  void drop_job_series(const std::string& job, const std::string& op) {
    const prometheus::Labels l{{"job_id", job}, {"operator", op}};
    for (auto* fam : {&best, &job_evals, &job_accepted, &job_running}) {
      if (fam->Has(l)) fam->Remove(&fam->Add(l));
    }
  }

  void expire_locked(clock::time_point now) {
    for (auto it = job_info.begin(); it != job_info.end();) {
      if (it->second.ended && now - *it->second.ended >= retention) {
        drop_job_series(it->first, it->second.op);
        it = job_info.erase(it);
      } else {
        ++it;
      }
    }
  }

  job_series& job(std::string_view id, std::string_view op) {
    auto& j = job_info[label(id)];
    if (j.op.empty() || (!op.empty() && j.op == "none")) j.op = label(op);
    return j;
  }
};

metrics::metrics(std::chrono::seconds job_retention) : impl_(std::make_unique<impl>(job_retention)) {}
metrics::~metrics() = default;

void metrics::job_state(std::string_view job, std::string_view op, std::string_view previous, std::string_view state) {
  std::lock_guard<std::mutex> lock(impl_->mu);
  if (previous.empty() && state == "queued") impl_->submitted.Add({}).Increment();
  auto& j = impl_->job(job, op);
  if (state == "running" || terminal(state)) {
    impl_->job_running.Add({{"job_id", label(job)}, {"operator", j.op}}).Set(state == "running" ? 1 : 0);
  }
  if (terminal(state)) {
    impl_->job_ends.Add({{"state", label(state)}}).Increment();
    j.ended = clock::now();
  } else {
    j.ended.reset();
  }
  impl_->expire_locked(clock::now());
}

void metrics::job_counts(const std::map<std::string, std::size_t>& by_state) {
  std::lock_guard<std::mutex> lock(impl_->mu);
  std::map<std::string, double> n;
  for (const char* s : job_states) n[s] = 0;
  for (const auto& [state, count] : by_state) n[label(state)] += static_cast<double>(count);
  for (const auto& [state, count] : n) impl_->jobs.Add({{"state", state}}).Set(count);
}

void metrics::restore_job(const ended_job& r) {
  std::lock_guard<std::mutex> lock(impl_->mu);
  const auto age = std::max(std::chrono::system_clock::duration::zero(), std::chrono::system_clock::now() - r.ended);
  if (age >= impl_->retention) return;
  auto& j = impl_->job(r.job, r.op);
  j.ended = clock::now() - std::chrono::duration_cast<clock::duration>(age);
  const prometheus::Labels l{{"job_id", label(r.job)}, {"operator", j.op}};
  if (r.speedup) impl_->best.Add(l).Set(*r.speedup);
  impl_->job_evals.Add(l).Set(static_cast<double>(r.evaluations));
  impl_->job_accepted.Add(l).Set(static_cast<double>(r.accepted_changes));
  impl_->job_running.Add(l).Set(0);
}

void metrics::job_removed(std::string_view job) {
  std::lock_guard<std::mutex> lock(impl_->mu);
  const auto it = impl_->job_info.find(label(job));
  if (it == impl_->job_info.end()) return;
  impl_->drop_job_series(it->first, it->second.op);
  impl_->job_info.erase(it);
}

void metrics::queue_depth(std::size_t jobs) {
  std::lock_guard<std::mutex> lock(impl_->mu);
  impl_->queue.Add({}).Set(static_cast<double>(jobs));
}

void metrics::evaluation(const evaluation_event& e) {
  std::lock_guard<std::mutex> lock(impl_->mu);
  impl_->evaluations
      .Add({{"status", label(e.status)}, {"stage", label(e.stage)}, {"device", label(e.device)}, {"backend", label(e.backend)}})
      .Increment();
  auto& cached = impl_->cached.Add({{"backend", label(e.backend)}});  // exists (at zero) from the first evaluation
  if (e.cached) {
    cached.Increment();
    return;
  }
  const auto b = buckets(phase_buckets, std::size(phase_buckets));
  if (e.build_seconds > 0) impl_->phase.Add({{"phase", "build"}}, b).Observe(e.build_seconds);
  if (e.run_seconds > 0) impl_->phase.Add({{"phase", "run"}}, b).Observe(e.run_seconds);
  if (!e.job.empty()) impl_->job(e.job, e.op);
}

void metrics::best_speedup(std::string_view job, std::string_view op, double speedup) {
  std::lock_guard<std::mutex> lock(impl_->mu);
  auto& j = impl_->job(job, op);
  impl_->best.Add({{"job_id", label(job)}, {"operator", j.op}}).Set(speedup);
}

void metrics::accepted_change(std::string_view job, std::string_view op, std::string_view stage, bool replayed) {
  std::lock_guard<std::mutex> lock(impl_->mu);
  auto& total = impl_->accepted.Add({{"stage", label(stage)}});
  if (!replayed) total.Increment();
  auto& j = impl_->job(job, op);
  impl_->job_accepted.Add({{"job_id", label(job)}, {"operator", j.op}}).Increment();
}

void metrics::budget_spent(std::string_view job, std::string_view op, std::uint64_t evaluations) {
  std::lock_guard<std::mutex> lock(impl_->mu);
  auto& j = impl_->job(job, op);
  impl_->job_evals.Add({{"job_id", label(job)}, {"operator", j.op}}).Set(static_cast<double>(evaluations));
}

void metrics::device_busy(std::string_view device, bool is_busy) {
  std::lock_guard<std::mutex> lock(impl_->mu);
  const std::string d = label(device);
  const auto now = clock::now();
  const auto it = impl_->busy_since.find(d);
  if (it != impl_->busy_since.end()) {
    impl_->busy_seconds.Add({{"device", d}}).Increment(std::chrono::duration<double>(now - it->second).count());
    impl_->busy_since.erase(it);
  } else {
    impl_->busy_seconds.Add({{"device", d}});  // the series exists from the first event
  }
  if (is_busy) impl_->busy_since[d] = now;
  impl_->busy.Add({{"device", d}}).Set(is_busy ? 1 : 0);
}

void metrics::device_up(std::string_view device, bool is_up) {
  std::lock_guard<std::mutex> lock(impl_->mu);
  impl_->up.Add({{"device", label(device)}}).Set(is_up ? 1 : 0);
}

void metrics::class_queue(std::string_view device_class, std::size_t requests) {
  std::lock_guard<std::mutex> lock(impl_->mu);
  impl_->class_queue.Add({{"device_class", label(device_class)}}).Set(static_cast<double>(requests));
}

void metrics::node_up(std::string_view node, bool is_up) {
  std::lock_guard<std::mutex> lock(impl_->mu);
  const std::string n = label(node);
  impl_->node_up.Add({{"node", n}}).Set(is_up ? 1 : 0);
  auto& lost = impl_->node_losses.Add({{"node", n}});
  if (!is_up) lost.Increment();
}

void metrics::bank_size(std::uint64_t tuples) {
  std::lock_guard<std::mutex> lock(impl_->mu);
  impl_->bank.Add({}).Set(static_cast<double>(tuples));
}

void metrics::llm_role(std::string_view role) {
  std::lock_guard<std::mutex> lock(impl_->mu);
  const std::string r = label(role);
  impl_->llm_requests.Add({{"role", r}, {"outcome", "ok"}});
  impl_->llm_tokens.Add({{"role", r}, {"kind", "prompt"}});
  impl_->llm_tokens.Add({{"role", r}, {"kind", "completion"}});
}

void metrics::llm_request(std::string_view role, std::string_view outcome, std::uint64_t prompt_tokens,
                          std::uint64_t completion_tokens, double seconds) {
  std::lock_guard<std::mutex> lock(impl_->mu);
  const std::string r = label(role);
  impl_->llm_requests.Add({{"role", r}, {"outcome", label(outcome)}}).Increment();
  impl_->llm_tokens.Add({{"role", r}, {"kind", "prompt"}}).Increment(static_cast<double>(prompt_tokens));
  impl_->llm_tokens.Add({{"role", r}, {"kind", "completion"}}).Increment(static_cast<double>(completion_tokens));
  impl_->llm_seconds.Add({{"role", r}}, buckets(phase_buckets, std::size(phase_buckets))).Observe(seconds);
}

void metrics::expire(clock::time_point now) {
  std::lock_guard<std::mutex> lock(impl_->mu);
  impl_->expire_locked(now);
}

std::shared_ptr<prometheus::Collectable> metrics::collectable() const { return impl_->self; }

std::string metrics::text() const { return prometheus::TextSerializer().Serialize(impl_->self->Collect()); }

std::string check_address(std::string_view address) {
  const auto colon = address.rfind(':');
  if (colon == std::string_view::npos || colon == 0) return "expected HOST:PORT (e.g. 127.0.0.1:9464)";
  const auto port = address.substr(colon + 1);
  unsigned value = 0;
  const auto [end, ec] = std::from_chars(port.data(), port.data() + port.size(), value);
  if (port.empty() || ec != std::errc() || end != port.data() + port.size() || value > 65535) {
    return "the port '" + std::string(port) + "' is not a number from 0 to 65535";
  }
  return {};
}

struct exporter::impl {
  std::shared_ptr<metrics> m;
  std::unique_ptr<prometheus::Exposer> exposer;
  std::string host;
};

exporter::exporter(std::shared_ptr<metrics> m, const std::string& address) : impl_(std::make_unique<impl>()) {
  if (const auto why = check_address(address); !why.empty()) {
    throw error(ec::invalid_argument, "metrics address '" + address + "': " + why);
  }
  impl_->m = std::move(m);
  impl_->host = address.substr(0, address.rfind(':'));
  try {
    impl_->exposer = std::make_unique<prometheus::Exposer>(address, 2);
  } catch (const std::exception& e) {
    throw error(ec::invalid_argument, "cannot serve metrics on " + address + " (" + e.what() +
                                          "): is another process using that port? Choose another address "
                                          "(--metrics-address or [metrics] address) or turn metrics off ([metrics] enabled = false)");
  }
  impl_->exposer->RegisterCollectable(impl_->m->collectable());
}

exporter::~exporter() = default;

std::uint16_t exporter::port() const {
  const auto ports = impl_->exposer->GetListeningPorts();
  return ports.empty() ? 0 : static_cast<std::uint16_t>(ports.front());
}

std::string exporter::address() const { return impl_->host + ":" + std::to_string(port()); }

}  // namespace aopt::monitoring
