// Embeddings for retrieval: bring a bank's tuples up to date with the configured embeddings
// model, and rankers that embed the query through the client. Ranking itself reuses
// search::dense_ranker and search::hybrid_ranker (aopt/search/retrieve.h).
#pragma once

#include <cstddef>
#include <memory>
#include <vector>

#include "aopt/llm/client.h"
#include "aopt/search/experience.h"
#include "aopt/search/retrieve.h"

namespace aopt::llm {

// Embeds (search::indexed_text of) every tuple without an embedding, or with one from another
// model than client.embedding_model(), `batch` texts per request, and stores model + vector.
// Returns the indices changed (ascending) so the caller writes exactly those back to the bank,
// or the client's failure (tuples embedded before the failing batch keep their new vectors).
// A failure too when no embeddings model is configured.
outcome<std::vector<std::size_t>> embed_missing(std::vector<search::experience>& tuples, client& c,
                                                        std::size_t batch = 32);

// A dense ranker over the stored embeddings of client.embedding_model(); the query is embedded
// through the client (a failed query embedding scores every tuple 0, so retrieval falls back
// to the bottleneck filter). Throws aopt::error(invalid_argument) when the client has no
// embeddings model (a configuration error: rank with BM25 instead).
std::unique_ptr<search::ranker> make_dense_ranker(client& c);
// BM25 and dense, weighted: lexical_weight * bm25 + (1 - lexical_weight) * dense (each scaled
// to [0, 1]).
std::unique_ptr<search::ranker> make_hybrid_ranker(client& c, double lexical_weight = 0.5);

}  // namespace aopt::llm
