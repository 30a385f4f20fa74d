#include "job.h"

#include <optional>

#include "aopt/actors/job.hpp"
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
  actors::job_spec js;
  js.package = spec.package->dir.string();
  js.base_files = spec.base_files;
  js.config = spec.config;
  js.engine = &engine;
  js.bank = std::move(corpus);
  js.slots = make_sim_slots(spec.package, spec.slots);
  // The Distiller's sink: RocksDB writes happen on the Distiller's thread, one at a time.
  if (bank && spec.learn) js.learned = [&bank](const search::experience& e) { bank->put(e); };
  js.progress = spec.progress;
  return actors::run_optimize_job(js);
}

}  // namespace aopt::app
