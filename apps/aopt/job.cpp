#include "job.h"

#include <optional>

#include <fmt/format.h>

#include "aopt/actors/job.hpp"
#include "aopt/common/error.h"
#include "aopt/llm/config.h"
#include "aopt/llm/embeddings.h"
#include "aopt/llm/engine.h"
#include "aopt/llm/http_client.h"
#include "aopt/llm/replay.h"
#include "aopt/storage/experience_bank.h"

namespace aopt::app {

namespace {

llm::llm_config llm_config_of(const llm_options& o) {
  llm::llm_config c = o.config_file.empty() ? llm::llm_config{} : llm::load_llm_config(o.config_file);
  if (!o.base_url.empty()) c.base_url = o.base_url;
  if (!o.model.empty()) c.model = o.model;
  if (!o.embeddings_model.empty()) c.models[llm::role::embeddings] = o.embeddings_model;
  c.validate();
  return c;
}

// The LLM side of one job: the client chain (HTTP, or replay; recording on top when asked),
// the engine and, with an embeddings model, the bank brought up to date and a hybrid ranker.
struct llm_side {
  llm::llm_config config;
  std::optional<llm::replay_store> store;
  std::unique_ptr<llm::client> base;
  std::unique_ptr<llm::client> recorder;
  std::optional<llm::llm_engine> engine;

  llm::client& client() { return recorder ? *recorder : *base; }

  llm_side(const job_spec& spec) : config(llm_config_of(spec.llm)) {
    const auto& o = spec.llm;
    if (!o.replay_dir.empty() && !o.record_dir.empty()) {
      throw error(ec::invalid_argument, "--llm-replay and --llm-record exclude each other: replay reads a recording, record writes one");
    }
    if (!o.replay_dir.empty()) {
      if (!std::filesystem::is_directory(o.replay_dir)) {
        throw error(ec::not_found, fmt::format("--llm-replay {}: no recording there; record one first with --llm-record DIR",
                                               o.replay_dir.string()));
      }
      store.emplace(o.replay_dir, false);
      base = std::make_unique<llm::replay_client>(*store, config);
    } else {
      base = std::make_unique<llm::http_client>(config);
      if (!o.record_dir.empty()) {
        store.emplace(o.record_dir, true);
        recorder = std::make_unique<llm::recording_client>(*base, *store, config);
      }
    }
    llm::llm_engine_options eo;
    eo.limits.core_count = spec.offline.mutator.limits.core_count;
    eo.limits.ub_bytes = spec.offline.mutator.limits.ub_bytes;
    eo.seed = spec.offline.seed;
    eo.evidence_op = spec.package->dir.string();
    eo.evidence_profile = spec.slots.profile;
    const auto prompts = llm::prompt_library::load(o.prompts_dir.empty() ? llm::prompt_library::default_dir() : o.prompts_dir);
    engine.emplace(client(), prompts, eo);
  }
};

}  // namespace

job_outcome run_optimize_job(const job_spec& spec) {
  if (spec.engine != "offline" && spec.engine != "llm") {
    throw error(ec::invalid_argument, fmt::format("--engine {}: unknown engine; use offline (default) or llm", spec.engine));
  }
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
    lm.emplace(spec);
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
  if (lm) {
    out.engine_usage = lm->engine->usage();
    out.engine_usage["config"] = llm::to_json(lm->config);
    out.engine_usage["replayed"] = !spec.llm.replay_dir.empty();
  }
  return out;
}

}  // namespace aopt::app
