// The bookkeeping every baseline shares (internal to aopt_bench): optimize::search_job (budget,
// job memory, suspects, acceptance, trajectory, changes, fresh-input check: the same rules as
// run_optimizer) with the baselines' candidate type and draw counting. The baselines only
// decide which candidates to propose.
#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "aopt/bench/baselines.h"
#include "aopt/optimize/search_job.h"

namespace aopt::bench::detail {

struct candidate {
  file_map files;          // the complete source set
  optimize::eval_stage stage = optimize::eval_stage::kernel;  // tiling, kernel or tiling_kernel
  std::size_t round = 0;   // batch / generation index
  std::string proposal;    // one line
  std::string rationale;   // where it came from (for accepted changes)
};

using entry = optimize::search_job::entry;

// A baseline's view of optimize::search_job (the rules every method shares): candidates carry
// their rationale, each fresh passing candidate is offered in order (the first to beat the best
// wins), and the draws a method made are counted for its give-up rule.
class job {
 public:
  job(const services& svc, const baseline_config& cfg, const progress_fn& progress);
  // Evaluates the base (one budget unit). False when it failed: finish_failed() says why.
  bool start(const file_map& base) { return sj_.start(base); }
  std::size_t remaining() const { return sj_.remaining(); }
  bool exhausted() const { return sj_.exhausted(); }
  bool known(const file_map& files) const { return sj_.tried(files); }
  // The number of candidates one batch should hold (the evaluator's parallelism).
  std::size_t batch_size() const { return sj_.batch_size(); }
  // Evaluates candidates in order (known ones free, fresh ones beyond the budget dropped) and
  // offers each fresh one. Returns, per candidate, the index of its entry (nullopt when dropped).
  std::vector<std::optional<std::size_t>> submit(const std::vector<candidate>& batch);
  const entry& at(std::size_t i) const { return sj_.at(i); }
  const entry& best() const { return sj_.best(); }
  std::size_t draws() const { return draws_; }
  void count_draw(std::size_t n = 1) { draws_ += n; }
  void stage(const std::string& message) { sj_.say("stage", message); }
  // Verification, final fields and the stop reason. `stop` is used unless the budget ran out.
  optimize_result finish(const std::string& stop) { return sj_.finish(exhausted() ? "budget exhausted" : stop); }
  // For a job whose base failed (start() returned false).
  optimize_result finish_failed() { return sj_.finish(""); }

 private:
  optimize::search_job sj_;
  std::size_t draws_ = 0;
};


}  // namespace aopt::bench::detail
