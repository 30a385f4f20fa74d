// Tokeniser cases, BM25 exact scores against a hand computation, ranking, filters, tie-breaks,
// the dense and hybrid rankers.
#include <cmath>
#include <random>

#include <gtest/gtest.h>

#include "aopt/common/error.h"
#include "aopt/search/retrieve.h"

namespace aopt::search {
namespace {

using strings = std::vector<std::string>;

experience make(const std::string& bottleneck, const std::string& title, const std::string& desc,
                const std::string& diff = "diff") {
  experience e;
  e.title = title;
  e.description = desc;
  e.bottleneck = bottleneck;
  e.code_diff = diff;
  e.created_ms = 1;
  finalize(e);
  return e;
}

TEST(Tokenize, CamelCaseApiNamesKeepParts) {
  EXPECT_EQ(tokenize("DataCopyPad"), (strings{"data", "copy", "pad", "datacopypad"}));
  EXPECT_EQ(tokenize("PipeBarrier<PIPE_ALL>"),
            (strings{"pipe", "barrier", "pipebarrier", "pipe", "all"}));
  EXPECT_EQ(tokenize("SetFlag<HardEvent::MTE2_V>"),
            (strings{"set", "flag", "setflag", "hard", "event", "hardevent", "mte2", "v"}));
}

TEST(Tokenize, AcronymsAndDigits) {
  EXPECT_EQ(tokenize("UBBuffer"), (strings{"ub", "buffer", "ubbuffer"}));
  EXPECT_EQ(tokenize("fp16 MTE2 bfloat16_t"), (strings{"fp16", "mte2", "bfloat16", "t"}));
  EXPECT_EQ(tokenize("910B4"), (strings{"910", "b4", "910b4"}));
}

TEST(Tokenize, SnakeCaseStopWordsAndPunctuation) {
  EXPECT_EQ(tokenize("copy_in_queue"), (strings{"copy", "queue"}));
  EXPECT_EQ(tokenize("The vector of the copy, and THE scalar."), (strings{"vector", "copy", "scalar"}));
  tokenizer_options keep;
  keep.drop_stop_words = false;
  keep.keep_compounds = false;
  EXPECT_EQ(tokenize("Use the DataCopy", keep), (strings{"use", "the", "data", "copy"}));
  EXPECT_TRUE(tokenize("  ,;:  ").empty());
  EXPECT_TRUE(tokenize("").empty());
}

TEST(Tokenize, Utf8WordsSurviveWhole) {
  EXPECT_EQ(tokenize("\xE5\x8F\x8C\xE7\xBC\x93\xE5\x86\xB2 buffer"),
            (strings{"\xE5\x8F\x8C\xE7\xBC\x93\xE5\x86\xB2", "buffer"}));
}

// A: 16 tokens, B: 14, C: 13, D: 15 (counted by hand below), avgdl 14.5.
std::vector<experience> corpus() {
  return {
      // serialized pipes | double buffer copy queue | set buffer num 2 data copy datacopy
      // overlaps vector compute
      make("serialized_pipes", "Double buffer the copy-in queue",
           "Set BUFFER_NUM to 2 so DataCopy overlaps vector compute."),
      // mte2 bound | larger copies | copy 32 kb per data copy datacopy instead 8 kb
      make("mte2_bound", "Larger copies", "Copy 32 KB per DataCopy instead of 8 KB."),
      // vector bound | batch repeats | issue one add many repeats instead one per repeat
      make("vector_bound", "Batch repeats", "Issue one Add with many repeats instead of one per repeat."),
      // bank conflict | offset one input buffer | shift second buffer 256 bytes avoid bank
      // group conflicts
      make("bank_conflict", "Offset one input buffer",
           "Shift the second buffer by 256 bytes to avoid bank group conflicts."),
  };
}

TEST(Bm25, DocumentStatisticsMatchTheHandCount) {
  bm25_ranker r;
  r.index(corpus());
  ASSERT_EQ(r.size(), 4u);
  EXPECT_EQ(r.document_length(0), 16u);
  EXPECT_EQ(r.document_length(1), 14u);
  EXPECT_EQ(r.document_length(2), 13u);
  EXPECT_EQ(r.document_length(3), 15u);
  EXPECT_DOUBLE_EQ(r.average_length(), 14.5);
  EXPECT_EQ(r.document_frequency("buffer"), 2u);
  EXPECT_EQ(r.document_frequency("double"), 1u);
  EXPECT_EQ(r.document_frequency("copy"), 2u);
  EXPECT_EQ(r.document_frequency("overlap"), 0u);  // no stemming
}

TEST(Bm25, ExactScoresAgainstHandComputation) {
  bm25_ranker r;  // k1 1.2, b 0.75
  r.index(corpus());
  const auto s = r.score("double buffer overlap");
  ASSERT_EQ(s.size(), 4u);
  // idf(double) = ln(1 + 3.5/1.5), idf(buffer) = ln(1 + 2.5/2.5); overlap matches nothing.
  const double idf_double = std::log(1.0 + 3.5 / 1.5);
  const double idf_buffer = std::log(2.0);
  const double norm_a = 1.2 * (0.25 + 0.75 * 16.0 / 14.5);
  const double norm_d = 1.2 * (0.25 + 0.75 * 15.0 / 14.5);
  const double expect_a = idf_double * 1.0 * 2.2 / (1.0 + norm_a) + idf_buffer * 2.0 * 2.2 / (2.0 + norm_a);
  const double expect_d = idf_buffer * 2.0 * 2.2 / (2.0 + norm_d);
  EXPECT_NEAR(s[0], expect_a, 1e-9);
  EXPECT_NEAR(s[1], 0.0, 1e-12);
  EXPECT_NEAR(s[2], 0.0, 1e-12);
  EXPECT_NEAR(s[3], expect_d, 1e-9);
  // Numeric values written out once as well, so a change of formula is noticed.
  EXPECT_NEAR(expect_a, 2.0812214, 1e-6);
  EXPECT_NEAR(expect_d, 0.9439229, 1e-6);
}

TEST(Bm25, ParametersChangeScoresAsTheFormulaSays) {
  bm25_ranker flat({.k1 = 1.2, .b = 0.0});
  flat.index(corpus());
  const auto s = flat.score("buffer");
  // b = 0: length does not matter; A and D both have tf 2.
  EXPECT_NEAR(s[0], s[3], 1e-12);
  EXPECT_NEAR(s[0], std::log(2.0) * 2.0 * 2.2 / (2.0 + 1.2), 1e-9);
  EXPECT_THROW(bm25_ranker({.k1 = -1, .b = 0.5}), aopt::error);
  EXPECT_THROW(bm25_ranker({.k1 = 1.2, .b = 1.5}), aopt::error);
}

TEST(Retriever, PlantedRelevantTupleComesFirst) {
  const std::uint32_t seed = 20240611;
  std::printf("seed %u\n", seed);
  std::mt19937 rng(seed);
  const strings words = {"tile", "length", "cores", "loop", "cast", "reduce", "mask", "align",
                         "workspace", "tiling", "key", "scalar", "vector", "queue", "copy"};
  std::vector<experience> docs;
  for (int i = 0; i < 40; ++i) {
    std::string desc;
    for (int w = 0; w < 12; ++w) desc += words[rng() % words.size()] + " ";
    docs.push_back(make("vector_bound", "Noise " + std::to_string(i), desc));
  }
  const experience planted = make("serialized_pipes", "Remove PipeBarrier<PIPE_ALL> from the loop",
                                  "The PIPE_ALL barrier serialises copy-in and compute.");
  docs.insert(docs.begin() + static_cast<long>(rng() % docs.size()), planted);
  retriever r(docs);
  const auto hits = r.top_k("PIPE_ALL barrier serialises the pipes", std::nullopt, 5);
  ASSERT_FALSE(hits.empty());
  EXPECT_EQ(hits[0].id, planted.id);
  EXPECT_GT(hits[0].score, 0.0);
  for (std::size_t i = 1; i < hits.size(); ++i) EXPECT_GE(hits[i - 1].score, hits[i].score);
}

TEST(Retriever, FilterKeepsOnlyTheClassAndReturnsZeroScoreMatches) {
  retriever r(corpus());
  const auto hits = r.top_k("nothing matches this", bottleneck_class::bank_conflict, 5);
  ASSERT_EQ(hits.size(), 1u);
  EXPECT_EQ(hits[0].index, 3u);
  EXPECT_EQ(hits[0].score, 0.0);
  EXPECT_TRUE(r.top_k("nothing matches this", std::nullopt, 5).empty());
  const auto v = r.top_k("copy", bottleneck_class::mte2_bound, 5);
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].index, 1u);
  EXPECT_GT(v[0].score, 0.0);
}

TEST(Retriever, TiesBrokenByIdAndKRespected) {
  std::vector<experience> docs;
  for (int i = 0; i < 6; ++i) docs.push_back(make("mte2_bound", "Same title", "same words", "diff " + std::to_string(i)));
  retriever r(docs);
  const auto hits = r.top_k("same title", std::nullopt, 4);
  ASSERT_EQ(hits.size(), 4u);
  for (std::size_t i = 1; i < hits.size(); ++i) {
    EXPECT_EQ(hits[i - 1].score, hits[i].score);
    EXPECT_LT(hits[i - 1].id, hits[i].id);
  }
  std::vector<std::string> ids;
  for (const auto& d : docs) ids.push_back(d.id);
  std::sort(ids.begin(), ids.end());
  EXPECT_EQ(hits[0].id, ids[0]);
  EXPECT_TRUE(r.top_k("same", std::nullopt, 0).empty());
}

TEST(DenseRanker, CosineOverStoredEmbeddingsOfTheSameModel) {
  auto docs = corpus();
  docs[0].embedding = experience_embedding{"m", {1.0f, 0.0f}};
  docs[1].embedding = experience_embedding{"m", {0.6f, 0.8f}};
  docs[2].embedding = experience_embedding{"other", {1.0f, 0.0f}};  // another model: ignored
  docs[3].embedding = experience_embedding{"m", {1.0f, 0.0f, 0.0f}};  // wrong dimension
  auto embed = [](std::string_view) { return std::vector<float>{0.0f, 2.0f}; };
  retriever r(docs, std::make_unique<dense_ranker>("m", embed));
  const auto s = r.active_ranker().score("anything");
  EXPECT_NEAR(s[0], 0.0, 1e-12);
  EXPECT_NEAR(s[1], 0.8, 1e-6);
  EXPECT_EQ(s[2], 0.0);
  EXPECT_EQ(s[3], 0.0);
  const auto hits = r.top_k("anything", std::nullopt, 3);
  ASSERT_EQ(hits.size(), 1u);
  EXPECT_EQ(hits[0].index, 1u);
}

TEST(HybridRanker, WeightedSumOfMaxNormalisedScores) {
  auto docs = corpus();
  for (auto& d : docs) d.embedding = experience_embedding{"m", {1.0f, 0.0f}};
  docs[3].embedding = experience_embedding{"m", {0.0f, 1.0f}};
  auto embed = [](std::string_view) { return std::vector<float>{0.0f, 1.0f}; };
  auto hybrid = std::make_unique<hybrid_ranker>(std::make_unique<bm25_ranker>(),
                                                std::make_unique<dense_ranker>("m", embed), 0.5);
  EXPECT_EQ(hybrid->name(), "hybrid(bm25,dense:m)");
  retriever r(docs, std::move(hybrid));
  const auto s = r.active_ranker().score("double buffer");
  // bm25: A is the max (1.0 after scaling), D = bm25(D)/bm25(A); dense: only D (1.0).
  bm25_ranker plain;
  plain.index(docs);
  const auto b = plain.score("double buffer");
  EXPECT_NEAR(s[0], 0.5, 1e-12);
  EXPECT_NEAR(s[3], 0.5 * b[3] / b[0] + 0.5, 1e-12);
  EXPECT_EQ(r.top_k("double buffer", std::nullopt, 1)[0].index, 3u);
  EXPECT_THROW(hybrid_ranker(std::make_unique<bm25_ranker>(), nullptr, 0.5), aopt::error);
}

}  // namespace
}  // namespace aopt::search

namespace aopt::search {
namespace {

TEST(Retriever, TopKForDiagnosisOrdersByFindingClass) {
  retriever r(corpus());
  diagnosis d;
  d.findings.push_back({bottleneck_class::bank_conflict, 0.9, "bank-group conflicts stall 45% of vector time"});
  d.findings.push_back({bottleneck_class::mte2_bound, 0.7, "the copy-in pipe is busy 70%"});
  const auto hits = top_k_for(r, d, 5);
  ASSERT_EQ(hits.size(), 2u);
  EXPECT_EQ(hits[0].index, 3u);  // bank_conflict tuple first
  EXPECT_EQ(hits[1].index, 1u);  // then the mte2_bound tuple
  EXPECT_EQ(top_k_for(r, d, 1).size(), 1u);
  const auto none = top_k_for(r, diagnosis{}, 5);
  EXPECT_TRUE(none.empty());  // empty query, no filter: nothing scores
}

}  // namespace
}  // namespace aopt::search
