#include "job.h"

#include <optional>

#include <fmt/format.h>

#include "aopt/actors/job.hpp"
#include "aopt/common/error.h"
#include "aopt/llm/embeddings.h"
#include "aopt/storage/experience_bank.h"

namespace aopt::app {

job_outcome run_optimize_job(const job_spec& spec) {
  // The engine options were checked by the command (before the package was loaded).
  std::optional<storage::experience_bank> bank;
  std::vector<search::experience> corpus;
  if (!spec.bank_dir.empty()) {
    bank.emplace(spec.bank_dir);
    corpus = bank->all();
  }
  std::optional<optimize::offline_engine> offline;
  std::optional<llm_side> lm;
  actors::job_spec js;
  if (spec.engine == "llm") {
    lm.emplace(spec.llm, engine_options(spec.offline, spec.package->dir.string(), spec.slots.profile));
    js.engine = &*lm->engine;
    if (!lm->client().embedding_model().empty()) {
      // Tuples embedded with another model (or none) are embedded now and written back, so
      // the bank stays embedded with the configured model.
      auto changed = llm::embed_missing(corpus, lm->client());
      if (!changed) {
        throw error(ec::io_error, "embedding the experience bank failed: " + changed.reason() +
                                         " (unset the embeddings model to rank with BM25 only)");
      }
      if (bank) {
        for (auto i : changed.value()) bank->put(corpus[i]);
      }
      js.make_ranker = [&lm] { return llm::make_hybrid_ranker(lm->client()); };
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
  if (bank && spec.learn) js.learned = [&bank](const search::experience& e) { bank->put(e); };
  js.progress = spec.progress;
  job_outcome out;
  out.result = actors::run_optimize_job(js);
  if (lm) out.engine_usage = lm->usage();
  return out;
}

}  // namespace aopt::app
