// The command line's entry points into the actor system (CAF-free header): each builds an
// actor_system, spawns one Evaluator actor per slot and the actors the job needs, runs one job,
// flushes the Distiller and the progress listener, stops every actor and waits for them.
// run_search is a one-job actors::runtime (runtime.hpp), the daemon's code path.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "aopt/actors/config.hpp"
#include "aopt/motifs/source.h"
#include "aopt/optimize/optimizer.h"
#include "aopt/optimize/services.h"
#include "aopt/search/engine.h"
#include "aopt/search/experience.h"
#include "aopt/search/retrieve.h"
#include "aopt/search/rewind.h"

namespace aopt::actors {

struct search_spec {
  std::string package;            // operator id, sent with each evaluation request
  std::string device_class;       // the profile of the devices that evaluate it; "" = any
  optimize::file_map base_files;  // the operator's sources
  optimize::optimizer_config config;
  search::engine* engine = nullptr;          // required; must outlive the call
  std::vector<search::experience> bank;      // the retrieval corpus
  // Makes the Retriever's ranker (e.g. embeddings through the LLM client); empty = BM25.
  std::function<std::unique_ptr<search::ranker>()> make_ranker;
  std::vector<optimize::evaluate_fn> slots;  // one Evaluator actor per slot; at least one
  std::function<void(const search::experience&)> learned;  // Distiller sink; optional
  optimize::progress_fn progress;  // called in order on the listener's thread; optional
  actor_timeouts timeouts;
  runner_decorator decorate;  // wraps the job's runner (journal, stop checks); optional
};

// Runs Algorithm 1 on actors. Throws what run_optimizer throws (aopt::error), and
// aopt::error(internal) when an actor stops answering.
optimize::optimize_result run_search(const search_spec& spec);

struct rewind_spec {
  std::string package;
  optimize::file_map seed_files;
  search::rewind_config config;
  motifs::parse_options parse;
  std::vector<optimize::evaluate_fn> slots;                // at least one
  std::function<void(const search::experience&)> learned;  // Distiller sink; optional
  actor_timeouts timeouts;
  search::engine* engine = nullptr;  // proposes the steps when set (else inverse motifs); must outlive the call
};

// One rewind chain on actors (Rewinder -> evaluator pool -> Distiller).
search::rewind_result run_rewind_job(const rewind_spec& spec);

}  // namespace aopt::actors
