#include "job.h"

#include <fmt/format.h>

#include "aopt/actors/job.hpp"
#include "aopt/common/error.h"
#include "aopt/jobs/bank_service.h"
#include "aopt/jobs/job_setup.h"
#include "aopt/storage/experience_bank.h"

namespace aopt::app {

optimize_outcome run_optimize(const optimize_spec& spec) {
  // The engine options were checked by the command (before the package was loaded).
  // The bank is read without its lock (other jobs and `aopt bank` may write meanwhile) and
  // opened for writing only for each write, so other processes can write in between.
  const bool use_bank = !spec.bank_dir.empty();
  std::vector<search::experience> corpus;
  if (use_bank) corpus = jobs::bank_service(spec.bank_dir).all();
  jobs::engine_options eo{spec.engine == "llm", spec.offline, {}, spec.package->dir.string(), spec.slots.profile};
  if (eo.llm) eo.session = session_options(spec.llm);
  jobs::job_engine engine(eo, corpus);
  // Tuples embedded with another model (or none) were embedded now and are written back, so
  // the bank stays embedded with the configured model.
  if (use_bank && !engine.embedded().empty()) {
    storage::experience_bank bank(spec.bank_dir);
    // update(): put() leaves a stored tuple as it is, so it would drop the new embedding.
    for (auto i : engine.embedded()) {
      if (!bank.update(corpus[i])) bank.put(corpus[i]);  // erased meanwhile: stored again
    }
  }
  actors::search_spec js;
  js.engine = &engine.engine();
  js.make_ranker = engine.ranker_factory();
  js.package = spec.package->dir.string();
  js.base_files = spec.base_files;
  js.config = spec.config;
  js.bank = std::move(corpus);
  js.slots = make_sim_slots(spec.package, spec.slots);
  // The Distiller's sink: RocksDB writes happen on the Distiller's thread, one at a time.
  if (use_bank && spec.learn) js.learned = jobs::bank_sink(spec.bank_dir);
  js.progress = spec.progress;
  optimize_outcome out;
  out.result = actors::run_search(js);
  out.engine_usage = engine.usage();
  return out;
}

}  // namespace aopt::app
