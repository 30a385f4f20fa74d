// The bookkeeping every baseline shares (internal to aopt_bench): the job's memory of evaluated
// candidates (files_key -> report), the budget, batching by svc.parallelism(), acceptance of a
// new best, the trajectory, accepted changes with their diffs, and the final verification on
// fresh inputs. The baselines only decide which candidates to propose.
#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "aopt/bench/baselines.h"

namespace aopt::bench::detail {

struct candidate {
  file_map files;          // the complete source set
  std::string stage;       // "tiling", "kernel", "tiling+kernel"
  std::size_t round = 0;   // batch / generation index
  std::string proposal;    // one line
  std::string rationale;   // where it came from (for accepted changes)
};

struct entry {
  std::string key;
  file_map files;
  optimize::eval_report report;
  std::string stage;
  std::size_t round = 0;
  std::string proposal;
  std::string rationale;
  bool passing() const { return report.ok && !report.suspect; }
};

class job {
 public:
  job(services& svc, const baseline_config& cfg, const progress_fn& progress);

  // Evaluates the base (one budget unit). False when it failed: the result then says why.
  bool start(const file_map& base);

  std::size_t remaining() const { return cfg_.budget - result_.evaluations; }
  bool exhausted() const { return remaining() == 0; }
  bool known(const file_map& files) const;
  // The number of candidates one batch should hold (the evaluator's parallelism).
  std::size_t batch_size() const { return batch_; }

  // Evaluates candidates in order: the ones already known are answered from memory (free), the
  // rest are sent in batches of parallelism(); fresh candidates beyond the remaining budget are
  // dropped. Returns, per candidate, the index of its entry (nullopt when dropped).
  std::vector<std::optional<std::size_t>> submit(const std::vector<candidate>& batch);

  const entry& at(std::size_t i) const { return entries_.at(i); }
  const entry& best() const { return entries_.at(best_); }
  std::size_t draws() const { return draws_; }
  void count_draw(std::size_t n = 1) { draws_ += n; }
  void stage(const std::string& message);

  // Verification, final fields and the stop reason. `stop` is used unless the budget ran out.
  optimize_result finish(const std::string& stop);
  // For a job whose base failed (start() returned false).
  optimize_result finish_failed();

 private:
  void add_point(const entry& e, bool memo, bool accepted, std::size_t round);
  bool accept(std::size_t index);
  void verify();
  static void mark_suspect(optimize::eval_report& r);

  services& svc_;
  baseline_config cfg_;
  const progress_fn& progress_;
  std::size_t batch_ = 1;
  std::vector<entry> entries_;
  std::map<std::string, std::size_t> by_key_;
  std::size_t best_ = 0;  // entries_[0] is the base
  std::vector<std::size_t> accepted_{0};  // the base, then each accepted entry (result_.changes)
  std::size_t draws_ = 0;
  optimize_result result_;
};

// Merges replaced files into a complete set: every file of `base`, with `changed` on top.
file_map overlay(const file_map& base, const file_map& changed);

}  // namespace aopt::bench::detail
