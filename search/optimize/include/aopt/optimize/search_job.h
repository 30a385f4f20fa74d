// The rules every search method follows, in one place (Algorithm 1 and the bench baselines):
// the budget counts every evaluation, failures included; a candidate whose file set the job has
// already evaluated is answered from the job's memory for free (also a repeat within a batch);
// requests beyond the budget are dropped; a result faster than the roofline bound is held as
// suspect and never accepted; a new best must beat the best by min_gain; every accepted change
// is recorded with its diff and profiles; the trajectory has one point per answered candidate;
// and the winner is re-checked on fresh inputs, walking back through the accepted states until
// one passes. Methods only decide what to propose and which answers to offer.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "aopt/optimize/optimizer.h"
#include "aopt/optimize/services.h"

namespace aopt::optimize {

struct job_rules {
  std::size_t budget = 40;
  double min_gain = 0.001;              // a new best: latency < best * (1 - min_gain)
  bool verify = true;                   // the fresh-input check of the winner
  std::uint64_t verify_seed = 0x5eed;   // its input seed
};

class search_job {
 public:
  // One evaluated candidate (the base is entry 0).
  struct entry {
    std::string key;  // files_key(files)
    file_map files;
    eval_report report;
    std::string stage;
    std::size_t round = 0;
    std::string proposal;
    bool passing() const { return report.ok && !report.suspect; }
  };
  // The answer to one request: its entry, whether it came from memory, its trajectory point.
  struct answer {
    std::size_t entry = 0;
    bool memo = false;
    std::size_t point = 0;
  };

  search_job(const services& svc, job_rules rules, progress_fn progress);

  // Evaluates the base (one budget unit). False when it failed: result().stop_reason says why.
  bool start(const file_map& base);

  std::size_t remaining() const { return rules_.budget - std::min(rules_.budget, res_.evaluations); }
  bool exhausted() const { return remaining() == 0; }
  bool tried(const file_map& files) const;
  // Requests per evaluate call the evaluator runs at once (its parallelism).
  std::size_t batch_size() const { return batch_; }

  // Answers each request (nullopt: dropped, over budget). Fresh ones are evaluated in calls of
  // batch_size() requests. One trajectory point per answer, reported to the progress callback.
  std::vector<std::optional<answer>> evaluate(const std::vector<eval_request>& requests);

  // Makes the answer's candidate the best when it passes and beats the best by min_gain;
  // records the change. Returns whether it did.
  bool offer(const answer& a, const std::string& title, const std::string& rationale,
             const std::vector<std::string>& experience_ids = {});

  const entry& at(std::size_t i) const { return entries_.at(i); }
  std::size_t entry_count() const { return entries_.size(); }
  const entry& best() const { return entries_.at(accepted_.back()); }
  const file_map& best_files() const { return best().files; }

  void say(const std::string& kind, const std::string& message, const trajectory_point* p = nullptr) const;

  // The fresh-input check (when the rules ask for it and something was accepted), the speedup,
  // the stop reason, the "done" event. The job is spent afterwards.
  optimize_result finish(const std::string& stop_reason);

  // The result being built (engine name, rounds and other method-specific fields are the
  // caller's to fill).
  optimize_result& result() { return res_; }
  const optimize_result& result() const { return res_; }

 private:
  void mark_suspect(eval_report& r) const;
  // A passing candidate that reserves more UB than a kernel may use by default (the case's
  // `ub_usable`, GetCoreMemSize(UB)) and more than the base did becomes a failure (runtime_error,
  // "ub_overflow: ..."): the emulator enforces the whole UB, the chip keeps the rest for itself.
  void limit_ub(eval_report& r) const;
  // A passing candidate that reads GM past an allocation's padding at a site where the base does
  // not (sim's gm_out_of_bounds warning: the chip reads junk there without a fault, and only a
  // page boundary stops it) becomes a failure (runtime_error, "gm_over_read: ..."): the original
  // operator may rely on such a read; a drop-in replacement does not add one.
  void limit_gm_reads(eval_report& r) const;
  std::set<std::string> base_over_reads_;  // the base's sites of such reads (limit_gm_reads)
  void point(const entry& e, const eval_request& req, bool memo);
  void verify();

  services svc_;
  job_rules rules_;
  progress_fn progress_;
  std::size_t batch_ = 1;
  std::vector<entry> entries_;
  std::map<std::string, std::size_t> by_key_;  // files_key -> entry
  std::vector<std::size_t> accepted_;          // the base, then each accepted entry (res_.changes)
  optimize_result res_;
};

// Every file of `base` with `changed` on top.
file_map merged(const file_map& base, const std::map<std::string, std::string>& changed);
// Whether an op_kernel/ file differs between the two sets (added, removed or edited).
bool changes_kernel(const file_map& before, const file_map& after);

}  // namespace aopt::optimize
