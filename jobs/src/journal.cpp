#include "aopt/jobs/journal.h"

#include <utility>

namespace aopt::jobs {

std::string journal_key(const optimize::eval_request& r) {
  std::string key = optimize::files_key(r.files) + "-" + (r.input_seed ? std::to_string(*r.input_seed) : std::string("d"));
  // A screen answers another question than an evaluation of the same files, and a search-form
  // screen another than a plain one (it says which tunables it read). An evaluation in its
  // search form is the candidate's evaluation: the same key.
  if (r.stage == optimize::eval_stage::screen) key += "-screen" + (r.search_form.empty() ? std::string() : "-" + optimize::files_key(r.search_form));
  return key;
}

journaled_runner::journaled_runner(optimize::runner& inner, eval_journal& journal,
                                       std::function<std::optional<std::string>()> should_stop)
    : inner_(inner), journal_(journal), should_stop_(std::move(should_stop)) {}

std::vector<optimize::eval_report> journaled_runner::evaluate(const std::vector<optimize::eval_request>& batch) {
  if (should_stop_) {
    if (auto why = should_stop_()) throw job_stopped(*why);
  }
  std::vector<optimize::eval_report> out(batch.size());
  std::vector<optimize::eval_request> fresh;
  std::vector<std::size_t> where;
  std::vector<std::string> keys;
  for (std::size_t i = 0; i < batch.size(); ++i) {
    auto key = journal_key(batch[i]);
    if (auto r = journal_.find(key)) {
      out[i] = std::move(*r);
      ++replayed_;
    } else {
      fresh.push_back(batch[i]);
      where.push_back(i);
      keys.push_back(std::move(key));
    }
  }
  if (!fresh.empty()) {
    auto reports = inner_.evaluate(fresh);
    for (std::size_t j = 0; j < reports.size() && j < where.size(); ++j) {
      journal_.record(keys[j], reports[j]);
      out[where[j]] = std::move(reports[j]);
      ++evaluated_;
    }
  }
  return out;
}

}  // namespace aopt::jobs
