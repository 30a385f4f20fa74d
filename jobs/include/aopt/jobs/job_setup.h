// One optimize job's setup as `aopt optimize` (apps/aopt/job.cpp) and aoptd
// (apps/aoptd/job_manager.cpp) both do it: the engine the job asked for (the offline engine, or
// the LLM engine over an llm::session), the retrieval over its corpus (BM25, or hybrid with the
// session's embeddings, the corpus embedded first), and the Distiller's sink into the bank. The
// callers put these into actors::search_spec; what differs (the daemon's journal, progress events,
// which corpus) stays with them.
#pragma once

#include <cstddef>
#include <filesystem>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "aopt/llm/session.h"
#include "aopt/optimize/offline_engine.h"
#include "aopt/search/engine.h"
#include "aopt/search/retrieve.h"
#include "aopt/vocab/experience.h"

namespace aopt::jobs {

struct engine_options {
  bool llm = false;                          // the LLM engine (else the offline one)
  optimize::offline_engine_config offline;   // both: the device limits and the seed
  llm::session_options session;              // llm only
  std::string op;                            // llm: the operator, as tuple evidence
  std::string profile;                       // llm: the sim profile, as tuple evidence
};

// The engine of one job; lives as long as the job runs (the actors call it by address).
class job_engine {
 public:
  // Builds the engine. With an LLM session that embeds, the tuples of `corpus` not embedded with
  // its model are embedded now (their indices: embedded()).
  job_engine(const engine_options& o, std::vector<vocab::experience>& corpus);
  job_engine(const job_engine&) = delete;
  job_engine& operator=(const job_engine&) = delete;

  search::engine& engine();
  // The retrieval's ranker: empty for BM25, the session's hybrid ranker with embeddings.
  std::function<std::unique_ptr<search::ranker>()> ranker_factory();
  const std::vector<std::size_t>& embedded() const { return embedded_; }
  // The LLM engine's accounting and configuration without the key; null for the offline one.
  nlohmann::json usage() const;

 private:
  std::optional<optimize::offline_engine> offline_;
  std::optional<llm::session> lm_;
  std::vector<std::size_t> embedded_;
};

// The Distiller's sink: each tuple put into the bank at `dir`, opened for that write only (other
// processes write in between); `mu`, when given, serialises this process's writers. Idempotent:
// a tuple already there is left as it is.
std::function<void(const vocab::experience&)> bank_sink(std::filesystem::path dir, std::mutex* mu = nullptr);

}  // namespace aopt::jobs
