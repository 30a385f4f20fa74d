#include "aopt/llm/embeddings.h"

#include <string>
#include <utility>

#include "aopt/common/error.h"

namespace aopt::llm {

outcome<std::vector<std::size_t>> embed_missing(std::vector<search::experience>& tuples, client& c,
                                                        std::size_t batch) {
  const std::string model = c.embedding_model();
  if (model.empty()) return engine_failure{"embed_missing: no embeddings model is configured"};
  if (batch == 0) batch = 1;
  std::vector<std::size_t> todo;
  for (std::size_t i = 0; i < tuples.size(); ++i) {
    const auto& e = tuples[i].embedding;
    if (!e || e->model != model || e->vector.empty()) todo.push_back(i);
  }
  std::vector<std::size_t> changed;
  for (std::size_t from = 0; from < todo.size(); from += batch) {
    const std::size_t to = std::min(todo.size(), from + batch);
    std::vector<std::string> texts;
    for (std::size_t k = from; k < to; ++k) texts.push_back(search::indexed_text(tuples[todo[k]]));
    auto got = c.embed(texts);
    if (!got.ok()) {
      return engine_failure{"embed_missing: " + got.reason() + " (" + std::to_string(changed.size()) + " of " +
                                    std::to_string(todo.size()) + " tuples embedded before the failure)"};
    }
    if (got.value().size() != texts.size()) {
      return engine_failure{"embed_missing: the endpoint returned " + std::to_string(got.value().size()) +
                                    " vectors for " + std::to_string(texts.size()) + " texts"};
    }
    for (std::size_t k = from; k < to; ++k) {
      tuples[todo[k]].embedding = search::experience_embedding{model, std::move(got.value()[k - from])};
      changed.push_back(todo[k]);
    }
  }
  return changed;
}

std::unique_ptr<search::ranker> make_dense_ranker(client& c) {
  if (c.embedding_model().empty()) {
    throw aopt::error(ec::invalid_argument,
                      "dense retrieval needs an embeddings model: configure one for the embeddings role, or rank with BM25");
  }
  client* cp = &c;
  return std::make_unique<search::dense_ranker>(c.embedding_model(), [cp](std::string_view q) {
    auto got = cp->embed({std::string(q)});
    if (!got.ok() || got.value().empty()) return std::vector<float>{};
    return std::move(got.value().front());
  });
}

std::unique_ptr<search::ranker> make_hybrid_ranker(client& c, double lexical_weight) {
  return std::make_unique<search::hybrid_ranker>(std::make_unique<search::bm25_ranker>(), make_dense_ranker(c),
                                                 lexical_weight);
}

}  // namespace aopt::llm
