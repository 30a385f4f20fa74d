// The daemon's jobs: accepted (persisted before the client hears "queued"), queued by priority
// (FIFO within one) in the job supervisor actor (actors/supervisor.hpp), run several at once on
// its workers and one actors::runtime whose evaluators they share round-robin, every change
// persisted in the job store, and resumed after a crash or a restart by replaying the search
// through the job's evaluation journal (jobs/journal.h). No thread is started per job.
//
// States: queued -> running -> finished | failed | cancelled; queued -> cancelled. A running
// job interrupted by a shutdown or a crash goes back to queued (resume first) when aoptd starts.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "aopt/actors/config.hpp"
#include "aopt/evaluation/artifacts.h"
#include "aopt/llm/session.h"
#include "aopt/optimize/optimizer.h"
#include "aopt/search/experience.h"
#include "config.h"
#include "observer.h"

namespace aopt::actors {
class runtime;
class job_supervisor;
}
namespace aopt::storage {
class job_store;
}
namespace aopt::jobs {
struct sim_package;
}

namespace aopt::daemon {

// An error the API returns as {"error": {code, message, field}} with `status`.
class api_error : public std::runtime_error {
 public:
  api_error(int status, std::string code, const std::string& message, std::string field = "")
      : std::runtime_error(message), status(status), code(std::move(code)), field(std::move(field)) {}
  int status;
  std::string code;
  std::string field;
};

struct submit_options {
  std::size_t budget = 0;  // 0 = config default_budget
  std::string engine = "offline";
  std::uint64_t seed = 1;
  std::string profile;     // "" = config profile
  int priority = 0;        // higher runs first; -100..100
  std::string name;        // shown in listings; "" = the package's kernel name
};

class job_manager {
 public:
  job_manager(daemon_config cfg, std::vector<job_observer*> observers = {});
  ~job_manager();
  job_manager(const job_manager&) = delete;
  job_manager& operator=(const job_manager&) = delete;

  // Recovers the jobs of the store (interrupted ones queued to resume first) and starts running.
  void start();

  nlohmann::json submit(const std::string& tar, const submit_options& o, std::int64_t uid);
  std::vector<nlohmann::json> list() const;
  nlohmann::json get(const std::string& id) const;
  nlohmann::json cancel(const std::string& id, std::int64_t uid);
  void erase(const std::string& id, std::int64_t uid);
  std::string result_tar(const std::string& id) const;
  std::string report(const std::string& id, const std::string& file) const;  // "report.md" or "report.json"
  // Events n >= from (at most 1000); when there are none and the job is not over, waits up to
  // `wait` for one. `over`: the job is in a final state and every event was returned.
  std::vector<nlohmann::json> events(const std::string& id, std::uint64_t from, std::chrono::milliseconds wait,
                                     bool& over) const;
  nlohmann::json health() const;
  // The engines a job may ask for: "offline", and "llm" when the config has an [llm] table.
  nlohmann::json engines() const;
  // The evaluation backends of the devices it has now (its own and joined nodes'): "sim", "cann".
  nlohmann::json backends() const;
  // The evaluators ("devices") with their state (idle, busy), evaluations done and failed.
  nlohmann::json devices() const;
  // The experience bank the jobs retrieve from and learn into.
  std::filesystem::path bank_dir() const;

  // Stops starting jobs, asks running ones to stop at their next evaluation (they stay
  // resumable) and waits up to `grace` for them. False when some did not stop in time.
  bool shutdown(std::chrono::milliseconds grace);
  // The first half of shutdown: refuse submissions, end event streams, start no job.
  void request_stop();
  bool stopping() const { return stopping_; }

 private:
  struct job_entry {
    nlohmann::json record;
    std::uint64_t next_event = 0;
    bool cancel = false;
  };

  // The evaluator pool's device events, to the observers (on the pool's or registry's thread).
  void on_device_event(const actors::device_event& e);

  // Under mu_: queues job `e` in the supervisor.
  void enqueue(const job_entry& e);
  // A job's whole life, on a supervisor's worker: starts it unless it was cancelled, deleted or
  // aoptd is stopping, runs run_job_body, records how it ended.
  void run_job(const std::string& id);
  void run_job_body(const std::string& id);
  // The job's retrieval corpus: its record's snapshot of the bank (taken now for older records).
  std::vector<search::experience> job_corpus(const std::string& id, const nlohmann::json& record);
  // The job's progress events, as events of the store (what a resumed job replays is not stored
  // twice) and to the observers.
  optimize::progress_fn progress_recorder(const std::string& id);
  // Under mu_: persist the record, append a "state" event, tell the observers.
  void set_state(job_entry& e, const std::string& state, nlohmann::json extra = nlohmann::json::object());
  nlohmann::json state_counts() const;  // under mu_: the jobs by state (GET /v1/health's "jobs")
  void tell_counts();                   // under mu_: state_counts() to the observers
  // Under mu_. `durable`: false for search events (replay writes them again), see job_store.
  void append_event(const std::string& id, job_entry& e, nlohmann::json event, bool durable = true);
  job_entry& entry(const std::string& id);  // under mu_; api_error 404
  const job_entry& entry(const std::string& id) const;
  std::filesystem::path job_dir(const std::string& id) const;
  std::shared_ptr<const jobs::sim_package> find_package(const std::string& id) const;
  // The llm session of job `id` ([llm] of the config): recorded into its directory, resumed from it.
  llm::session_options llm_session_options(const std::string& id);

  daemon_config cfg_;
  std::set<std::string> local_classes_;  // the profiles of this host's devices
  std::unique_ptr<evaluation::artifact_store> node_artifacts_;  // what nodes built (shared builds)
  // npu device classes (their command profiles' [cann] names) -> the sim profile of their chip
  std::map<std::string, std::string> npu_classes_;
  // What a job's "profile" names: a device class, and the sim profile its search estimates with
  // (the same for sim; for an npu class, the sim profile of its devices' chip).
  struct resolved_profile {
    std::string device_class, sim_profile;
    std::string backend;  // what measures the class: "sim" or "cann"
  };
  // `profile` as the config or a job's record holds it: a name, a profile file's path, a class.
  resolved_profile resolve_profile(const std::string& profile) const;
  // A submission's profile: only a name, of a device class of this aoptd (or a joined node's) or
  // of a profile in the profile directory; never a path. api_error 400 listing the known names.
  resolved_profile resolve_requested_profile(const std::string& name) const;
  std::set<std::string> known_profiles() const;
  std::map<std::string, std::string> sim_classes_;  // sim device classes -> their profile as configured
  std::map<std::string, std::string> profile_sources_;  // local device id -> its profile as configured
  std::string nodes_address_;            // where nodes join ("" = no nodes)
  std::vector<job_observer*> observers_;
  std::unique_ptr<storage::job_store> store_;
  std::unique_ptr<actors::runtime> runtime_;
  std::unique_ptr<actors::job_supervisor> supervisor_;  // the queue and the jobs' workers

  mutable std::mutex mu_;  // the records (jobs_), the packages of running jobs, running_
  mutable std::condition_variable changed_;  // any job change or event; event waiters
  std::map<std::string, job_entry> jobs_;
  std::map<std::string, std::shared_ptr<const jobs::sim_package>> packages_;  // running jobs
  std::uint64_t next_seq_ = 0;
  std::size_t running_ = 0;
  std::atomic<bool> stopping_{false};
  std::mutex bank_mu_;  // one bank writer per process at a time (RocksDB's lock)
};

}  // namespace aopt::daemon
