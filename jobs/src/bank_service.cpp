#include "aopt/jobs/bank_service.h"

#include <memory>
#include <ostream>

#include "aopt/common/error.h"

namespace aopt::jobs {

namespace fs = std::filesystem;

std::optional<vocab::bottleneck_class> parse_bottleneck_filter(const std::string& text, const std::string& field) {
  if (text.empty()) return std::nullopt;
  auto c = vocab::parse_bottleneck_class(text);
  if (!c) {
    std::string names;
    for (auto x : vocab::all_bottleneck_classes()) names += std::string(names.empty() ? "" : ", ") + vocab::to_string(x);
    throw aopt::error(ec::invalid_argument, field + " '" + text + "' is not a bottleneck class; use one of: " + names);
  }
  return c;
}

bool bank_service::exists() const {
  std::error_code ec;
  return fs::exists(dir_ / "CURRENT", ec);
}

storage::experience_bank bank_service::reader() const {
  return storage::experience_bank(dir_, {.create_if_missing = false, .read_only = true});
}

std::vector<vocab::experience> bank_service::all() const {
  if (!exists()) return {};
  return reader().all();
}

std::vector<vocab::experience> bank_service::tuples(const std::vector<std::string>& ids) const {
  std::vector<vocab::experience> out;
  if (!exists()) return out;
  const auto bank = reader();
  for (const auto& id : ids) {
    if (auto t = bank.get(id)) out.push_back(std::move(*t));
  }
  return out;
}

bank_listing bank_service::list(const std::string& after, std::size_t limit,
                                std::optional<vocab::bottleneck_class> filter) const {
  bank_listing out;
  if (!exists()) return out;
  const auto bank = reader();
  out.total = bank.count();
  if (filter) {
    out.tuples = bank.by_bottleneck(*filter);
    if (!after.empty()) std::erase_if(out.tuples, [&](const vocab::experience& e) { return e.id <= after; });
    if (limit > 0 && out.tuples.size() > limit) {
      out.tuples.resize(limit);
      out.next_after = out.tuples.back().id;
    }
  } else if (limit == 0) {
    out.tuples = bank.all();
  } else {
    auto page = bank.list(after, limit);
    out.tuples = std::move(page.items);
    out.next_after = page.next_after;
  }
  return out;
}

std::vector<bank_hit> bank_service::search(const std::string& query, std::optional<vocab::bottleneck_class> filter,
                                           std::size_t k, search::bm25_params params) const {
  if (k == 0) throw aopt::error(ec::invalid_argument, "bank search: k must be at least 1");
  std::vector<bank_hit> out;
  if (!exists()) return out;
  search::retriever r(reader().all(), std::make_unique<search::bm25_ranker>(params));
  for (const auto& h : r.top_k(query, filter, k)) out.push_back({r.at(h.index), h.score});
  return out;
}

std::optional<vocab::experience> bank_service::find(const std::string& id_or_prefix) const {
  if (!exists()) return std::nullopt;
  return reader().find(id_or_prefix);
}

std::size_t bank_service::export_to(std::ostream& out, vocab::file_format format, bool empty_ok) const {
  if (empty_ok && !exists()) return 0;
  return reader().export_to(out, format);
}

bank_service::import_result bank_service::import_file(const fs::path& file, vocab::file_format format,
                                                      vocab::provenance origin) const {
  storage::experience_bank bank(dir_);
  import_result r{bank.import_file(file, format, origin), 0};
  r.total = bank.count();
  return r;
}

bank_service::import_result bank_service::import_tuples(std::vector<vocab::experience> tuples,
                                                        const std::string& where) const {
  storage::experience_bank bank(dir_);
  import_result r{bank.import_tuples(std::move(tuples), where), 0};
  r.total = bank.count();
  return r;
}

}  // namespace aopt::jobs
