#include "aopt/search/retrieve.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <set>
#include <unordered_set>

#include "aopt/common/error.h"

namespace aopt::search {

namespace {

bool is_upper(unsigned char c) { return c >= 'A' && c <= 'Z'; }
bool is_lower(unsigned char c) { return c >= 'a' && c <= 'z'; }
bool is_digit(unsigned char c) { return c >= '0' && c <= '9'; }
bool is_word(unsigned char c) { return is_upper(c) || is_lower(c) || is_digit(c) || c >= 0x80; }

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (is_upper(static_cast<unsigned char>(c))) c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

// Splits one run of word characters at camelCase and acronym boundaries.
std::vector<std::string_view> camel_parts(std::string_view w) {
  std::vector<std::string_view> parts;
  std::size_t start = 0;
  for (std::size_t i = 1; i < w.size(); ++i) {
    const auto prev = static_cast<unsigned char>(w[i - 1]);
    const auto cur = static_cast<unsigned char>(w[i]);
    bool cut = false;
    if (is_upper(cur) && (is_lower(prev) || is_digit(prev))) cut = true;
    if (is_upper(cur) && is_upper(prev) && i + 1 < w.size() &&
        is_lower(static_cast<unsigned char>(w[i + 1])))
      cut = true;
    if (cut) {
      parts.push_back(w.substr(start, i - start));
      start = i;
    }
  }
  parts.push_back(w.substr(start));
  return parts;
}

}  // namespace

bool is_stop_word(std::string_view t) {
  static const std::unordered_set<std::string_view> words = {
      "a",     "an",    "and",   "are",   "as",    "at",    "be",     "been",  "but",
      "by",    "can",   "could", "did",   "do",    "does",  "each",   "for",   "from",
      "had",   "has",   "have",  "he",    "her",   "his",   "i",      "if",    "in",
      "into",  "is",    "it",    "its",   "may",   "me",    "might",  "my",    "of",
      "on",    "or",    "our",   "she",   "should","so",    "such",   "than",  "that",
      "the",   "their", "them",  "then",  "there", "these", "they",   "this",  "those",
      "to",    "was",   "we",    "were",  "what",  "when",  "where",  "which", "while",
      "who",   "will",  "with",  "would", "you",   "your",  "also",   "via",   "very"};
  return words.count(t) != 0;
}

std::vector<std::string> tokenize(std::string_view text, const tokenizer_options& opt) {
  std::vector<std::string> out;
  auto emit = [&](std::string tok) {
    if (tok.empty()) return;
    if (opt.drop_stop_words && is_stop_word(tok)) return;
    out.push_back(std::move(tok));
  };
  std::size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && !is_word(static_cast<unsigned char>(text[i]))) ++i;
    const std::size_t start = i;
    while (i < text.size() && is_word(static_cast<unsigned char>(text[i]))) ++i;
    if (start == i) continue;
    const std::string_view word = text.substr(start, i - start);
    const auto parts = camel_parts(word);
    for (auto p : parts) emit(lower(p));
    if (opt.keep_compounds && parts.size() > 1) emit(lower(word));
  }
  return out;
}

std::string indexed_text(const experience& e) {
  return e.bottleneck + "\n" + e.title + "\n" + e.description;
}

// ---------------------------------------------------------------------------------------- bm25

void bm25_params::validate() const {
  if (!std::isfinite(k1) || k1 < 0)
    throw aopt::error(ec::invalid_argument,
                      "bm25 k1 = " + std::to_string(k1) + " must be a finite number >= 0 (typical: 1.2)");
  if (!std::isfinite(b) || b < 0 || b > 1)
    throw aopt::error(ec::invalid_argument,
                      "bm25 b = " + std::to_string(b) + " must be in [0, 1] (typical: 0.75)");
}

bm25_ranker::bm25_ranker(bm25_params params, tokenizer_options tokens)
    : params_(params), tokens_(tokens) {
  params_.validate();
}

void bm25_ranker::index(const std::vector<experience>& corpus) {
  docs_.clear();
  df_.clear();
  docs_.reserve(corpus.size());
  std::size_t total = 0;
  for (const auto& e : corpus) {
    doc d;
    for (auto& t : tokenize(indexed_text(e), tokens_)) {
      ++d.tf[t];
      ++d.length;
    }
    for (const auto& [term, n] : d.tf) ++df_[term];
    total += d.length;
    docs_.push_back(std::move(d));
  }
  avgdl_ = docs_.empty() ? 0.0 : static_cast<double>(total) / static_cast<double>(docs_.size());
}

std::size_t bm25_ranker::document_frequency(std::string_view term) const {
  auto it = df_.find(std::string(term));
  return it == df_.end() ? 0 : it->second;
}

double bm25_ranker::idf(std::string_view term) const {
  const double n = static_cast<double>(docs_.size());
  const double df = static_cast<double>(document_frequency(term));
  return std::log(1.0 + (n - df + 0.5) / (df + 0.5));
}

std::vector<double> bm25_ranker::score(std::string_view query) const {
  std::vector<double> scores(docs_.size(), 0.0);
  if (docs_.empty()) return scores;
  const auto q = tokenize(query, tokens_);
  std::vector<std::string> terms;
  std::set<std::string> seen;
  for (const auto& t : q) {
    if (seen.insert(t).second) terms.push_back(t);  // unique, in query order (stable sums)
  }
  for (const auto& t : terms) {
    if (document_frequency(t) == 0) continue;
    const double w = idf(t);
    for (std::size_t i = 0; i < docs_.size(); ++i) {
      auto it = docs_[i].tf.find(t);
      if (it == docs_[i].tf.end()) continue;
      const double tf = it->second;
      const double len_norm =
          avgdl_ > 0 ? static_cast<double>(docs_[i].length) / avgdl_ : 1.0;
      const double denom = tf + params_.k1 * (1.0 - params_.b + params_.b * len_norm);
      scores[i] += w * tf * (params_.k1 + 1.0) / denom;
    }
  }
  return scores;
}

// --------------------------------------------------------------------------------------- dense

dense_ranker::dense_ranker(std::string model, embed_fn embed)
    : model_(std::move(model)), embed_(std::move(embed)) {
  if (model_.empty()) throw aopt::error(ec::invalid_argument, "dense_ranker: model name is empty");
  if (!embed_) throw aopt::error(ec::invalid_argument, "dense_ranker: no embedding function given");
}

void dense_ranker::index(const std::vector<experience>& corpus) {
  vectors_.clear();
  for (const auto& e : corpus) {
    if (e.embedding && e.embedding->model == model_) vectors_.push_back(e.embedding->vector);
    else vectors_.emplace_back();
  }
}

std::vector<double> dense_ranker::score(std::string_view query) const {
  std::vector<double> scores(vectors_.size(), 0.0);
  const std::vector<float> q = embed_(query);
  double qn = 0;
  for (float f : q) qn += static_cast<double>(f) * f;
  if (qn <= 0) return scores;
  qn = std::sqrt(qn);
  for (std::size_t i = 0; i < vectors_.size(); ++i) {
    const auto& v = vectors_[i];
    if (v.size() != q.size() || v.empty()) continue;
    double dot = 0, vn = 0;
    for (std::size_t j = 0; j < v.size(); ++j) {
      dot += static_cast<double>(v[j]) * q[j];
      vn += static_cast<double>(v[j]) * v[j];
    }
    if (vn <= 0) continue;
    scores[i] = std::max(0.0, dot / (qn * std::sqrt(vn)));
  }
  return scores;
}

// -------------------------------------------------------------------------------------- hybrid

hybrid_ranker::hybrid_ranker(std::unique_ptr<ranker> a, std::unique_ptr<ranker> b, double weight_a)
    : a_(std::move(a)), b_(std::move(b)), weight_a_(weight_a) {
  if (!a_ || !b_) throw aopt::error(ec::invalid_argument, "hybrid_ranker: both rankers are required");
  if (!std::isfinite(weight_a_) || weight_a_ < 0 || weight_a_ > 1)
    throw aopt::error(ec::invalid_argument, "hybrid_ranker: weight must be in [0, 1]");
}

std::string hybrid_ranker::name() const {
  return "hybrid(" + a_->name() + "," + b_->name() + ")";
}

void hybrid_ranker::index(const std::vector<experience>& corpus) {
  a_->index(corpus);
  b_->index(corpus);
}

std::vector<double> hybrid_ranker::score(std::string_view query) const {
  auto sa = a_->score(query);
  auto sb = b_->score(query);
  auto scale = [](std::vector<double>& v) {
    const double m = v.empty() ? 0.0 : *std::max_element(v.begin(), v.end());
    if (m > 0) {
      for (double& x : v) x /= m;
    }
  };
  scale(sa);
  scale(sb);
  std::vector<double> out(sa.size(), 0.0);
  for (std::size_t i = 0; i < out.size() && i < sb.size(); ++i)
    out[i] = weight_a_ * sa[i] + (1.0 - weight_a_) * sb[i];
  return out;
}

// ----------------------------------------------------------------------------------- retriever

retriever::retriever(std::vector<experience> corpus, std::unique_ptr<ranker> r)
    : corpus_(std::move(corpus)), ranker_(std::move(r)) {
  if (!ranker_) ranker_ = std::make_unique<bm25_ranker>();
  classes_.reserve(corpus_.size());
  for (const auto& e : corpus_) classes_.push_back(classify_bottleneck(e.bottleneck));
  ranker_->index(corpus_);
}

std::vector<retrieval_hit> retriever::top_k(std::string_view query,
                                            std::optional<bottleneck_class> bottleneck,
                                            std::size_t k) const {
  const std::vector<double> scores = ranker_->score(query);
  if (scores.size() != corpus_.size())
    throw aopt::error(ec::internal, "ranker '" + ranker_->name() + "' returned " +
                                        std::to_string(scores.size()) + " scores for " +
                                        std::to_string(corpus_.size()) + " tuples");
  std::vector<retrieval_hit> hits;
  for (std::size_t i = 0; i < corpus_.size(); ++i) {
    if (bottleneck) {
      const auto& c = classes_[i];
      if (std::find(c.begin(), c.end(), *bottleneck) == c.end()) continue;
    } else if (!(scores[i] > 0)) {
      continue;
    }
    hits.push_back({i, corpus_[i].id, scores[i]});
  }
  std::sort(hits.begin(), hits.end(), [](const retrieval_hit& x, const retrieval_hit& y) {
    if (x.score != y.score) return x.score > y.score;
    if (x.id != y.id) return x.id < y.id;
    return x.index < y.index;
  });
  if (hits.size() > k) hits.resize(k);
  return hits;
}

std::vector<retrieval_hit> top_k_for(const retriever& r, const diagnosis& d, std::size_t k) {
  const std::string query = retrieval_query_text(d);
  if (d.findings.empty()) return r.top_k(query, std::nullopt, k);
  std::vector<retrieval_hit> out;
  std::set<std::size_t> taken;
  for (const auto& f : d.findings) {
    if (out.size() >= k) break;
    for (auto& h : r.top_k(query, f.kind, k)) {
      if (out.size() >= k) break;
      if (taken.insert(h.index).second) out.push_back(std::move(h));
    }
  }
  return out;
}

}  // namespace aopt::search
