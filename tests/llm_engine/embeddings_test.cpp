// Embeddings: embed_missing brings tuples up to the client's model (and only those), and the
// dense and hybrid rankers rank a planted relevant tuple first among distractors.
#include <gtest/gtest.h>

#include <cstdio>
#include <random>

#include "aopt/common/error.h"
#include "aopt/llm/embeddings.h"
#include "fake_client.h"

namespace aopt::llm {
namespace {

using testing::fake_client;

std::vector<search::experience> corpus(std::uint64_t seed) {
  static const std::vector<std::string> words = {"tile", "copy", "vector", "scalar", "core", "queue", "mask", "reduce",
                                                 "cast", "align", "block", "loop", "sync", "event", "buffer", "workspace",
                                                 "gather", "scatter", "broadcast", "transpose"};
  std::mt19937_64 rng(seed);
  std::vector<search::experience> out;
  for (int i = 0; i < 20; ++i) {
    search::experience e;
    e.title = "Distractor " + std::to_string(i) + " " + words[rng() % words.size()] + " " + words[rng() % words.size()];
    e.description = words[rng() % words.size()] + " " + words[rng() % words.size()] + " " + words[rng() % words.size()];
    e.bottleneck = "vector_bound";
    e.code_diff = "-a\n+b\n";
    search::finalize(e);
    out.push_back(e);
  }
  search::experience planted;
  planted.title = "Double buffer the input queue so MTE2 copies overlap compute";
  planted.description = "With BUFFER_NUM 2 the DataCopy of the next tile runs while the vector pipe works";
  planted.bottleneck = "serialized_pipes";
  planted.code_diff = "-constexpr int32_t BUFFER_NUM = 1;\n+constexpr int32_t BUFFER_NUM = 2;\n";
  search::finalize(planted);
  out.insert(out.begin() + static_cast<std::ptrdiff_t>(rng() % out.size()), planted);
  return out;
}

TEST(Embeddings, EmbedMissingOnlyWhatIsStale) {
  const std::uint64_t seed = 20250131;
  std::printf("seed %llu\n", static_cast<unsigned long long>(seed));
  fake_client c;
  auto tuples = corpus(seed);
  tuples[3].embedding = search::experience_embedding{"fake-embed-1", std::vector<float>(64, 0.125f)};
  tuples[5].embedding = search::experience_embedding{"old-model", std::vector<float>(8, 1.0f)};
  auto changed = embed_missing(tuples, c, 4);
  ASSERT_TRUE(changed.ok()) << changed.reason();
  EXPECT_EQ(changed.value().size(), tuples.size() - 1);
  EXPECT_EQ(std::count(changed.value().begin(), changed.value().end(), 3u), 0);
  EXPECT_EQ(std::count(changed.value().begin(), changed.value().end(), 5u), 1);
  for (const auto& t : tuples) {
    ASSERT_TRUE(t.embedding);
    EXPECT_EQ(t.embedding->model, "fake-embed-1");
  }
  EXPECT_EQ(c.embed_calls, 5);  // 20 stale tuples in batches of 4
  // Nothing left to do; a model change re-embeds everything.
  changed = embed_missing(tuples, c);
  ASSERT_TRUE(changed.ok());
  EXPECT_TRUE(changed.value().empty());
  c.set_embedding_model("fake-embed-2");
  changed = embed_missing(tuples, c);
  ASSERT_TRUE(changed.ok());
  EXPECT_EQ(changed.value().size(), tuples.size());
  c.set_embedding_model("");
  EXPECT_FALSE(embed_missing(tuples, c).ok());
}

TEST(Embeddings, PlantedTupleRanksFirstDenseAndHybrid) {
  const std::uint64_t seed = 7;
  std::printf("seed %llu\n", static_cast<unsigned long long>(seed));
  fake_client c;
  auto tuples = corpus(seed);
  ASSERT_TRUE(embed_missing(tuples, c).ok());
  std::string planted_id;
  for (const auto& t : tuples) {
    if (t.title.starts_with("Double buffer")) planted_id = t.id;
  }
  const std::string query = "serialized pipes: the MTE2 copy of the input queue does not overlap compute, single buffer";
  for (int mode = 0; mode < 2; ++mode) {
    auto ranker = mode == 0 ? make_dense_ranker(c) : make_hybrid_ranker(c, 0.5);
    search::retriever r(tuples, std::move(ranker));
    const auto hits = r.top_k(query, std::nullopt, 3);
    ASSERT_FALSE(hits.empty()) << mode;
    EXPECT_EQ(hits[0].id, planted_id) << r.active_ranker().name();
    EXPECT_GT(hits[0].score, 0.0);
  }
  // A query the endpoint fails to embed scores nothing densely (no crash, no exception).
  c.fail_embeddings = true;
  search::retriever r(tuples, make_dense_ranker(c));
  EXPECT_TRUE(r.top_k(query, std::nullopt, 3).empty());
  // No embeddings model at all is a configuration error, said at construction.
  c.set_embedding_model("");
  EXPECT_THROW((void)make_dense_ranker(c), aopt::error);
}

}  // namespace
}  // namespace aopt::llm
