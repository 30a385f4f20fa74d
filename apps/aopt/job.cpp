#include "job.h"

#include <optional>

#include <fmt/format.h>

#include "aopt/actors/job.hpp"
#include "aopt/common/error.h"
#include "aopt/jobs/llm_options.h"
#include "aopt/storage/experience_bank.h"

namespace aopt::app {

job_outcome run_optimize_job(const job_spec& spec) {
  // The engine options were checked by the command (before the package was loaded).
  // The bank is read without its lock (other jobs and `aopt bank` may write meanwhile) and
  // opened for writing only for each write, so other processes can write in between.
  const bool use_bank = !spec.bank_dir.empty();
  std::vector<search::experience> corpus;
  std::error_code exists_error;
  if (use_bank && std::filesystem::exists(spec.bank_dir / "CURRENT", exists_error)) {
    corpus = storage::experience_bank(spec.bank_dir, {.create_if_missing = false, .read_only = true}).all();
  }
  std::optional<optimize::offline_engine> offline;
  std::optional<llm::session> lm;
  actors::job_spec js;
  if (spec.engine == "llm") {
    lm.emplace(session_options(spec.llm), jobs::llm_engine_options_for(spec.offline, spec.package->dir.string(), spec.slots.profile));
    js.engine = &lm->engine();
    if (lm->has_embeddings()) {
      // Tuples embedded with another model (or none) are embedded now and written back, so
      // the bank stays embedded with the configured model.
      const auto changed = lm->embed_corpus(corpus);
      if (use_bank && !changed.empty()) {
        storage::experience_bank bank(spec.bank_dir);
        for (auto i : changed) bank.put(corpus[i]);
      }
      js.make_ranker = [&lm] { return lm->make_ranker(); };
    }
  } else {
    offline.emplace(spec.offline);
    js.engine = &*offline;
  }
  js.package = spec.package->dir.string();
  js.base_files = spec.base_files;
  js.config = spec.config;
  js.bank = std::move(corpus);
  js.slots = make_sim_slots(spec.package, spec.slots);
  // The Distiller's sink: RocksDB writes happen on the Distiller's thread, one at a time.
  if (use_bank && spec.learn) {
    js.learned = [dir = spec.bank_dir](const search::experience& e) { storage::experience_bank(dir).put(e); };
  }
  js.progress = spec.progress;
  job_outcome out;
  out.result = actors::run_optimize_job(js);
  if (lm) out.engine_usage = lm->usage();
  return out;
}

}  // namespace aopt::app
