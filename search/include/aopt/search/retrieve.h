// Retrieval of experience tuples (Stage II): a tokeniser for prose mixed with AscendC API
// names, the `ranker` interface (one score per tuple), BM25 over bottleneck + title +
// description, a dense ranker over stored embeddings and a hybrid of two rankers, and the
// `retriever` that filters by bottleneck class and returns a deterministic top-k.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "aopt/search/diagnose.h"
#include "aopt/search/experience.h"

namespace aopt::search {

struct tokenizer_options {
  bool drop_stop_words = true;  // English function words (see is_stop_word)
  bool keep_compounds = true;   // "DataCopyPad" also yields "datacopypad" besides its parts
};

// Splits on anything that is not an ASCII letter or digit (bytes >= 0x80 count as letters, so
// UTF-8 words survive whole), splits camelCase and acronym boundaries ("UBBuffer" -> ub,
// buffer), never between a letter and the digits after it ("MTE2", "fp16" stay whole),
// lower-cases, and optionally adds the compound of a camelCase word and drops stop words.
// "SetFlag<MTE2_V>" -> set, flag, setflag, mte2, v.
std::vector<std::string> tokenize(std::string_view text, const tokenizer_options& opt = {});
bool is_stop_word(std::string_view lower_token);

// The text a ranker indexes for a tuple: bottleneck, title, description (not the diff).
std::string indexed_text(const experience& e);

class ranker {
 public:
  virtual ~ranker() = default;
  virtual std::string name() const = 0;
  // (Re)builds the index over `corpus`. Later score() calls refer to this corpus by position.
  virtual void index(const std::vector<experience>& corpus) = 0;
  // One score per indexed tuple, same order; higher is more relevant, 0 means no evidence.
  virtual std::vector<double> score(std::string_view query) const = 0;
};

struct bm25_params {
  double k1 = 1.2;   // term-frequency saturation; Default: 1.2
  double b = 0.75;   // length normalisation in [0, 1]; Default: 0.75
  void validate() const;  // throws aopt::error(invalid_argument)
};

// Okapi BM25. For the unique query terms t:
//   score(D) = sum_t idf(t) * tf(t,D) * (k1 + 1) / (tf(t,D) + k1 * (1 - b + b * |D| / avgdl))
//   idf(t)   = ln(1 + (N - df(t) + 0.5) / (df(t) + 0.5))      (never negative)
// |D| is the number of tokens of indexed_text(D), avgdl their mean over the corpus.
class bm25_ranker final : public ranker {
 public:
  explicit bm25_ranker(bm25_params params = {}, tokenizer_options tokens = {});
  std::string name() const override { return "bm25"; }
  void index(const std::vector<experience>& corpus) override;
  std::vector<double> score(std::string_view query) const override;

  double idf(std::string_view term) const;
  std::size_t document_frequency(std::string_view term) const;
  std::size_t document_length(std::size_t i) const { return docs_.at(i).length; }
  double average_length() const { return avgdl_; }
  std::size_t size() const { return docs_.size(); }

 private:
  struct doc {
    std::unordered_map<std::string, std::uint32_t> tf;
    std::size_t length = 0;
  };
  bm25_params params_;
  tokenizer_options tokens_;
  std::vector<doc> docs_;
  std::unordered_map<std::string, std::size_t> df_;
  double avgdl_ = 0;
};

// Cosine similarity between the query's embedding and each tuple's stored embedding of the
// same model (tuples without one, of another model or another dimension score 0; negative
// similarities are clamped to 0). `embed` computes the query embedding (an llm/ client, or a
// test double).
class dense_ranker final : public ranker {
 public:
  using embed_fn = std::function<std::vector<float>(std::string_view)>;
  dense_ranker(std::string model, embed_fn embed);
  std::string name() const override { return "dense:" + model_; }
  void index(const std::vector<experience>& corpus) override;
  std::vector<double> score(std::string_view query) const override;

 private:
  std::string model_;
  embed_fn embed_;
  std::vector<std::vector<float>> vectors_;  // empty where the tuple has no usable embedding
};

// weight * a/max(a) + (1 - weight) * b/max(b): each ranker's scores scaled to [0, 1] first.
class hybrid_ranker final : public ranker {
 public:
  hybrid_ranker(std::unique_ptr<ranker> a, std::unique_ptr<ranker> b, double weight_a);
  std::string name() const override;
  void index(const std::vector<experience>& corpus) override;
  std::vector<double> score(std::string_view query) const override;

 private:
  std::unique_ptr<ranker> a_, b_;
  double weight_a_;
};

struct retrieval_hit {
  std::size_t index = 0;  // position in the retriever's corpus
  std::string id;
  double score = 0;
};

class retriever {
 public:
  // Indexes `corpus` with `r` (default: BM25 with default parameters).
  explicit retriever(std::vector<experience> corpus, std::unique_ptr<ranker> r = nullptr);

  // The k best tuples for `query`, highest score first, ties broken by id (ascending).
  // Without a filter only tuples with a positive score are returned. With a filter, only tuples
  // whose bottleneck field classifies as `bottleneck` (classify_bottleneck) are considered, and
  // they are returned even at score 0 (ranked by bottleneck alone), so a diagnosis always
  // retrieves the bank's entries for its class.
  std::vector<retrieval_hit> top_k(std::string_view query,
                                   std::optional<bottleneck_class> bottleneck,
                                   std::size_t k) const;

  const experience& at(std::size_t i) const { return corpus_.at(i); }
  std::size_t size() const { return corpus_.size(); }
  const ranker& active_ranker() const { return *ranker_; }

 private:
  std::vector<experience> corpus_;
  std::vector<std::vector<bottleneck_class>> classes_;
  std::unique_ptr<ranker> ranker_;
};

// Stage II retrieval for a diagnosis: the query is retrieval_query_text(d); hits of the first
// finding's class come first (top_k with that filter), then those of the next findings, without
// repeats, until k. A diagnosis without findings retrieves by query text alone.
std::vector<retrieval_hit> top_k_for(const retriever& r, const diagnosis& d, std::size_t k);

}  // namespace aopt::search
