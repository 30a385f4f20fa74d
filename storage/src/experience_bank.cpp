#include "aopt/storage/experience_bank.h"

#include <algorithm>
#include <fstream>
#include <iterator>
#include <thread>
#include <cstdlib>
#include <ostream>
#include <set>

#include "aopt/common/error.h"
#include "aopt/storage/kv_store.h"

namespace aopt::storage {

namespace fs = std::filesystem;
using vocab::experience;

namespace {

constexpr const char* k_tuples = "tuples";
constexpr const char* k_index = "by_bottleneck";
constexpr const char* k_meta = "meta";
constexpr const char* k_schema_key = "schema_version";
constexpr const char* k_other = "other";

}  // namespace

std::chrono::milliseconds default_bank_lock_wait() {
  if (const char* v = std::getenv("AOPT_BANK_LOCK_WAIT"); v != nullptr && *v != '\0') {
    char* end = nullptr;
    const double s = std::strtod(v, &end);
    if (end != v && *end == '\0' && s >= 0 && s < 1e6) return std::chrono::milliseconds(static_cast<long long>(s * 1000));
  }
  return std::chrono::seconds(10);
}

namespace {
store_names bank_names() {
  return {"experience bank",
          "wait for it to finish (AOPT_BANK_LOCK_WAIT=SECONDS sets how long a writer waits), "
          "stop it, or use another bank directory with --bank; reading (list, search, show, "
          "export) works meanwhile",
          "share the open experience_bank object instead of opening the directory twice",
          "move the directory away and re-import from an export (aopt bank export / import)"};
}
}  // namespace

std::string explain_rocksdb_error(const std::string& msg, const fs::path& dir, const std::string& action) {
  return explain_store_error(msg, dir, bank_names(), action);
}


experience_bank::experience_bank(const fs::path& dir, bank_options options)
    : dir_(dir), options_(options) {
  if (dir_.empty())
    throw aopt::error(ec::invalid_argument, "experience bank: empty directory name; pass --bank DIR");
  kv_store::options o;
  o.names = bank_names();
  o.create_if_missing = options_.create_if_missing;
  o.missing_hint = "no RocksDB CURRENT file; import or rewind into it first, or pass --bank with the right directory";
  o.keep_log_file_num = 4;
  o.max_manifest_file_size = 16 << 20;
  o.families = {k_tuples, k_index, k_meta};
  o.read_only = options_.read_only;
  o.lock_wait = options_.lock_wait;
  kv_ = std::make_unique<kv_store>(dir_, std::move(o));
  tuples_ = kv_->family(k_tuples);
  index_ = kv_->family(k_index);
  meta_ = kv_->family(k_meta);
  try {
    read_schema();
  } catch (...) {
    kv_.reset();
    throw;
  }
}

// meta/schema_version: written on creation; a bank of an older version is read as it is, a
// newer one refused.
void experience_bank::read_schema() {
  const auto version = kv_->get(meta_, k_schema_key);
  if (!version) {
    if (!options_.read_only)
      kv_->write({{kv_write::kind::put, k_schema_key, std::to_string(experience_bank_schema_version), meta_}},
                 options_.sync_writes);
    schema_version_ = experience_bank_schema_version;  // read-only: made but never written, as new
    return;
  }
  char* end = nullptr;
  const long v = std::strtol(version->c_str(), &end, 10);
  if (version->empty() || *end != '\0' || v <= 0) {
    throw aopt::error(ec::invalid_spec, "experience bank " + dir_.string() + ": meta/schema_version is '" + *version +
                                            "', not a positive integer; the bank is damaged");
  }
  if (v > experience_bank_schema_version) {
    throw aopt::error(ec::invalid_spec,
                      "experience bank " + dir_.string() + " has schema version " + std::to_string(v) +
                          ", newer than this aopt understands (" + std::to_string(experience_bank_schema_version) +
                          "); upgrade aopt, or export with the newer version and import here");
  }
  schema_version_ = static_cast<int>(v);
}

experience_bank::~experience_bank() {
  try {
    close();
  } catch (...) {  // never throw from a destructor; close() already released what it could
  }
}

void experience_bank::close() {
  if (!kv_) return;
  auto kv = std::move(kv_);
  kv->close();
}

void experience_bank::require_open(const char* what) const {
  if (!is_open())
    throw aopt::error(ec::invalid_argument, std::string("experience bank ") + dir_.string() +
                                                ": " + what + " after close()");
}

void experience_bank::require_writable(const char* what) const {
  require_open(what);
  if (options_.read_only)
    throw aopt::error(ec::invalid_argument, std::string("experience bank ") + dir_.string() + ": " + what +
                                                " on a bank opened read-only; open it without read_only to write");
}

int experience_bank::schema_version() const {
  require_open("schema_version");
  return schema_version_;
}

std::vector<std::string> experience_bank::index_keys(const experience& e) const {
  std::vector<std::string> keys;
  const auto classes = vocab::classify_bottleneck(e.bottleneck);
  if (classes.empty()) keys.push_back(std::string(k_other) + '\0' + e.id);
  for (auto c : classes) keys.push_back(std::string(vocab::to_string(c)) + '\0' + e.id);
  return keys;
}

namespace {
void add_tuple(std::vector<kv_write>& batch, const experience& e, const std::vector<std::string>& index_keys,
               kv_family tuples, kv_family index) {
  batch.push_back({kv_write::kind::put, e.id, vocab::to_json(e).dump(), tuples});
  for (const auto& k : index_keys) batch.push_back({kv_write::kind::put, k, "", index});
}
}  // namespace

void experience_bank::write_tuple(const experience& e, const std::optional<experience>& old) {
  std::vector<kv_write> batch;
  if (old) {
    for (const auto& k : index_keys(*old)) batch.push_back({kv_write::kind::erase, k, "", index_});
  }
  add_tuple(batch, e, index_keys(e), tuples_, index_);
  kv_->write(batch, options_.sync_writes);
}

namespace {
void finalize_and_validate(experience& e) {
  vocab::finalize(e);
  const auto problems = vocab::validate(e);
  if (!problems.empty()) {
    std::string msg = "experience tuple '" + e.title + "' is invalid:";
    for (const auto& p : problems) msg += " " + p + ";";
    throw aopt::error(ec::invalid_spec, msg);
  }
}
}  // namespace

put_result experience_bank::put(experience e) {
  require_writable("put");
  finalize_and_validate(e);
  std::lock_guard lock(write_mu_);
  if (get(e.id)) return {e.id, false};
  write_tuple(e, std::nullopt);
  return {e.id, true};
}

bool experience_bank::update(experience e) {
  require_writable("update");
  finalize_and_validate(e);
  std::lock_guard lock(write_mu_);
  auto old = get(e.id);
  if (!old) return false;
  write_tuple(e, old);
  return true;
}

std::optional<experience> experience_bank::get(const std::string& id) const {
  require_open("get");
  const auto value = kv_->get(tuples_, id);
  if (!value) return std::nullopt;
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(*value);
  } catch (const nlohmann::json::parse_error& e) {
    throw aopt::error(ec::parse_error, "experience bank " + dir_.string() + ": tuple " + id +
                                           " is not valid JSON (" + e.what() +
                                           "); erase it with `aopt bank` or re-import");
  }
  return vocab::experience_from_json(j, "experience bank " + dir_.string() + ": tuple " + id);
}

std::optional<experience> experience_bank::find(const std::string& id_or_prefix) const {
  require_open("find");
  if (auto e = get(id_or_prefix)) return e;
  if (id_or_prefix.size() < 4) return std::nullopt;
  const auto matches = kv_->keys(tuples_, id_or_prefix, "", 6);
  if (matches.empty()) return std::nullopt;
  if (matches.size() > 1) {
    std::string msg = "id prefix '" + id_or_prefix + "' is ambiguous in experience bank " +
                      dir_.string() + "; it matches";
    for (const auto& m : matches) msg += " " + m.substr(0, 16);
    throw aopt::error(ec::invalid_argument, msg + " ...; give more characters");
  }
  return get(matches.front());
}

bool experience_bank::erase(const std::string& id) {
  require_writable("erase");
  std::lock_guard lock(write_mu_);
  auto old = get(id);
  if (!old) return false;
  std::vector<kv_write> batch = {{kv_write::kind::erase, id, "", tuples_}};
  for (const auto& k : index_keys(*old)) batch.push_back({kv_write::kind::erase, k, "", index_});
  kv_->write(batch, options_.sync_writes);
  return true;
}

std::size_t experience_bank::count() const {
  require_open("count");
  return kv_->count(tuples_, "");
}

bank_page experience_bank::list(const std::string& after, std::size_t limit) const {
  require_open("list");
  if (limit == 0) throw aopt::error(ec::invalid_argument, "experience bank list: limit must be > 0");
  // Keys after `after`: from `after` itself, skipped when present, one more to know if more follow.
  auto ids = kv_->keys(tuples_, "", after, limit + 2);
  if (!after.empty() && !ids.empty() && ids.front() <= after) ids.erase(ids.begin());
  bank_page page;
  const bool more = ids.size() > limit;
  if (more) ids.resize(limit);
  for (const auto& id : ids) {
    if (auto e = get(id)) page.items.push_back(std::move(*e));
  }
  if (more && !ids.empty()) page.next_after = ids.back();
  return page;
}

std::vector<experience> experience_bank::all() const {
  std::vector<experience> out;
  std::string after;
  for (;;) {
    auto page = list(after, 256);
    for (auto& e : page.items) out.push_back(std::move(e));
    if (page.next_after.empty()) break;
    after = page.next_after;
  }
  return out;
}

std::vector<experience> experience_bank::by_bottleneck(vocab::bottleneck_class cls) const {
  require_open("by_bottleneck");
  const std::string prefix = std::string(vocab::to_string(cls)) + '\0';
  std::vector<experience> out;
  for (const auto& key : kv_->keys(index_, prefix)) {
    if (auto e = get(key.substr(prefix.size()))) out.push_back(std::move(*e));
  }
  return out;
}

std::vector<std::string> experience_bank::unclassified_ids() const {
  require_open("unclassified_ids");
  const std::string prefix = std::string(k_other) + '\0';
  std::vector<std::string> ids;
  for (const auto& key : kv_->keys(index_, prefix)) ids.push_back(key.substr(prefix.size()));
  return ids;
}

import_report experience_bank::import_file(const fs::path& file, vocab::file_format format,
                                           vocab::provenance origin) {
  require_writable("import");
  return import_tuples(vocab::read_experience_file(file, format, origin), file.string());
}

import_report experience_bank::import_tuples(std::vector<experience> entries, const std::string& where) {
  require_writable("import");
  // Validate everything first: a malformed entry changes nothing.
  for (std::size_t i = 0; i < entries.size(); ++i) {
    vocab::finalize(entries[i]);
    const auto problems = vocab::validate(entries[i]);
    if (!problems.empty())
      throw aopt::error(ec::invalid_spec, where + ": entry " + std::to_string(i) + ": " + problems.front());
  }
  import_report report;
  report.read = entries.size();
  std::lock_guard lock(write_mu_);
  std::vector<kv_write> batch;
  std::set<std::string> in_batch;
  for (const auto& e : entries) {
    if (in_batch.count(e.id) != 0 || get(e.id)) {
      ++report.duplicates;
      continue;
    }
    in_batch.insert(e.id);
    add_tuple(batch, e, index_keys(e), tuples_, index_);
    ++report.inserted;
  }
  if (report.inserted > 0) kv_->write(batch, options_.sync_writes);
  return report;
}

std::size_t experience_bank::export_to(std::ostream& out, vocab::file_format format) const {
  const auto tuples = all();
  if (format == vocab::file_format::json) out << vocab::to_json_array(tuples);
  else out << vocab::to_jsonl(tuples);
  out.flush();
  if (!out)
    throw aopt::error(ec::io_error, "experience bank " + dir_.string() + ": writing the export failed");
  return tuples.size();
}

fs::path default_bank_dir() {
  if (const char* x = std::getenv("XDG_DATA_HOME"); x != nullptr && *x != '\0')
    return fs::path(x) / "aopt" / "bank";
  if (const char* h = std::getenv("HOME"); h != nullptr && *h != '\0')
    return fs::path(h) / ".local" / "share" / "aopt" / "bank";
  return fs::path("aopt-bank");
}

}  // namespace aopt::storage
