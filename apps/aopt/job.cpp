#include "job.h"

#include <optional>

#include "aopt/storage/experience_bank.h"

namespace aopt::app {

optimize::optimize_result run_optimize_job(const job_spec& spec) {
  std::optional<storage::experience_bank> bank;
  std::vector<search::experience> corpus;
  if (!spec.bank_dir.empty()) {
    bank.emplace(spec.bank_dir);
    corpus = bank->all();
  }
  optimize::offline_engine engine(spec.engine);
  std::function<void(const search::experience&)> learned;
  if (bank && spec.learn) learned = [&bank](const search::experience& e) { bank->put(e); };
  optimize::local_services svc(engine, std::move(corpus), make_sim_slots(spec.package, spec.slots), learned);
  return optimize::run_optimizer(spec.base_files, svc, spec.config, spec.progress);
}

}  // namespace aopt::app
