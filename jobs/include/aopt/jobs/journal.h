// What lets a job survive a crash: every evaluation result is written to a journal before the
// search sees it, and a resumed job replays the search from its start with the same seed,
// answering each evaluation the journal holds from the journal (no device time, the same
// report) and evaluating only what it lacks. With a deterministic engine (offline, fixed seed)
// and the same bank corpus, the replay takes the same path, so an interrupted job ends with the
// best an uninterrupted one finds, and no evaluation is counted twice: the budget counts
// journal answers exactly as it counted the first time.
#pragma once

#include <atomic>
#include <cstddef>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "aopt/optimize/services.h"

namespace aopt::jobs {

// Where evaluation results are kept, by journal key. `record` must be durable when it returns.
class eval_journal {
 public:
  virtual ~eval_journal() = default;
  virtual std::optional<optimize::eval_report> find(const std::string& key) = 0;
  virtual void record(const std::string& key, const optimize::eval_report& report) = 0;
};

// The journal key of a request: the candidate's files and its input seed.
std::string journal_key(const optimize::eval_request& r);

// Thrown out of the search when the job was asked to stop (cancel, or the daemon shutting down).
class job_stopped : public std::runtime_error {
 public:
  explicit job_stopped(const std::string& why) : std::runtime_error(why) {}
};

// A runner that journals `inner`'s evaluations. `should_stop` is checked before every evaluate
// call; when it returns a reason, job_stopped(reason) is thrown (results already journaled stay).
class journaled_runner final : public optimize::runner {
 public:
  journaled_runner(optimize::runner& inner, eval_journal& journal,
                   std::function<std::optional<std::string>()> should_stop = {});

  std::size_t replayed() const { return replayed_; }    // answered from the journal
  std::size_t evaluated() const { return evaluated_; }  // sent to `inner`

  std::size_t parallelism() const override { return inner_.parallelism(); }
  std::vector<optimize::eval_report> evaluate(const std::vector<optimize::eval_request>& batch) override;

 private:
  optimize::runner& inner_;
  eval_journal& journal_;
  std::function<std::optional<std::string>()> should_stop_;
  std::size_t replayed_ = 0;
  std::size_t evaluated_ = 0;
};

}  // namespace aopt::jobs
