// The experience bank's operations as `aopt bank` (apps/aopt/bank_command.cpp) and aoptd's
// /v1/bank endpoints (apps/aoptd/api.cpp) both run them: list (paged, by bottleneck class),
// search (BM25 over every tuple), show (an id or a unique prefix), export, import. Readers open
// the bank read-only (they work while a job or another process writes); an absent bank reads as
// empty. The callers only format: text for the command line, JSON for the API.
#pragma once

#include <cstddef>
#include <filesystem>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "aopt/search/retrieve.h"
#include "aopt/storage/experience_bank.h"
#include "aopt/vocab/experience.h"

namespace aopt::jobs {

// A bottleneck class filter: nullopt for "" ; aopt::error(invalid_argument) naming `field` and
// every class for text that is not one.
std::optional<vocab::bottleneck_class> parse_bottleneck_filter(const std::string& text, const std::string& field);

struct bank_listing {
  std::vector<vocab::experience> tuples;
  std::size_t total = 0;   // tuples in the bank
  std::string next_after;  // the `after` of the next page; empty on the last
};

struct bank_hit {
  vocab::experience tuple;
  double score = 0;
};

class bank_service {
 public:
  explicit bank_service(std::filesystem::path dir) : dir_(std::move(dir)) {}
  const std::filesystem::path& dir() const { return dir_; }
  bool exists() const;  // a bank has been written there

  // Every tuple, in id order (none without a bank): a job's retrieval corpus.
  std::vector<vocab::experience> all() const;
  // The tuples of `ids` that are still there, in that order (a job's corpus as it was taken).
  std::vector<vocab::experience> tuples(const std::vector<std::string>& ids) const;
  // Tuples in id order after `after`, at most `limit` (0: all), of class `filter` when given.
  bank_listing list(const std::string& after, std::size_t limit,
                    std::optional<vocab::bottleneck_class> filter = std::nullopt) const;
  // The k best tuples for `query` (BM25 with `params`), of class `filter` when given.
  std::vector<bank_hit> search(const std::string& query, std::optional<vocab::bottleneck_class> filter,
                               std::size_t k, search::bm25_params params = {}) const;
  // The tuple with this id or unique prefix (>= 4 characters); nullopt when none (or no bank).
  // An ambiguous prefix is aopt::error(invalid_argument).
  std::optional<vocab::experience> find(const std::string& id_or_prefix) const;
  // Every tuple as JSONL or a JSON array; returns how many (0, nothing written, without a bank
  // when `empty_ok`; else aopt::error(not_found)).
  std::size_t export_to(std::ostream& out, vocab::file_format format, bool empty_ok) const;
  // Puts the tuples of a file or of a text (`where` names it); all validated before the first
  // write. The count after the import is in `total`.
  struct import_result {
    storage::import_report report;
    std::size_t total = 0;
  };
  import_result import_file(const std::filesystem::path& file, vocab::file_format format,
                            vocab::provenance origin) const;
  import_result import_tuples(std::vector<vocab::experience> tuples, const std::string& where) const;

 private:
  storage::experience_bank reader() const;
  std::filesystem::path dir_;
};

}  // namespace aopt::jobs
