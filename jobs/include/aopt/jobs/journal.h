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

// A `services` that journals `inner`'s evaluations. `should_stop` is checked before every
// evaluate call; when it returns a reason, job_stopped(reason) is thrown (results already
// journaled stay).
class journaled_services final : public optimize::services {
 public:
  journaled_services(optimize::services& inner, eval_journal& journal,
                     std::function<std::optional<std::string>()> should_stop = {});

  std::size_t replayed() const { return replayed_; }    // answered from the journal
  std::size_t evaluated() const { return evaluated_; }  // sent to `inner`

  std::string engine_name() const override { return inner_.engine_name(); }
  std::size_t parallelism() const override { return inner_.parallelism(); }
  search::outcome<stage1::tiling_template> synthesize_template(const stage1::synthesis_input& input) override {
    return inner_.synthesize_template(input);
  }
  search::outcome<std::vector<stage1::tiling_proposal>> propose_tiling(const stage1::tiling_template& tmpl,
                                                                       const stage1::stage1_history& history,
                                                                       std::size_t n) override {
    return inner_.propose_tiling(tmpl, history, n);
  }
  search::outcome<search::diagnosis> diagnose(const nlohmann::json& profile, const optimize::file_map& code) override {
    return inner_.diagnose(profile, code);
  }
  std::vector<search::experience> retrieve(const search::diagnosis& d, std::size_t k) override {
    return inner_.retrieve(d, k);
  }
  search::outcome<std::vector<search::kernel_rewrite>> refine(const optimize::file_map& files,
                                                              const std::vector<search::experience>& tuples) override {
    return inner_.refine(files, tuples);
  }
  std::vector<optimize::eval_report> evaluate(const std::vector<optimize::eval_request>& batch) override;
  void learn(const search::experience& accepted) override { inner_.learn(accepted); }

 private:
  optimize::services& inner_;
  eval_journal& journal_;
  std::function<std::optional<std::string>()> should_stop_;
  std::size_t replayed_ = 0;
  std::size_t evaluated_ = 0;
};

}  // namespace aopt::jobs
