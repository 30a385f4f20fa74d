#include "aopt/storage/experience_bank.h"

#include <algorithm>
#include <fstream>
#include <iterator>
#include <thread>
#include <cstdlib>
#include <ostream>
#include <set>

#include <rocksdb/db.h>
#include <rocksdb/options.h>
#include <rocksdb/write_batch.h>

#include "aopt/common/error.h"
#include "aopt/storage/kv_store.h"

namespace aopt::storage {

namespace fs = std::filesystem;
using search::experience;

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

std::string explain_rocksdb_error(const std::string& msg, const fs::path& dir, const std::string& action) {
  static const store_names bank{"experience bank",
                                "wait for it to finish (AOPT_BANK_LOCK_WAIT=SECONDS sets how long a writer waits), "
                                "stop it, or use another bank directory with --bank; reading (list, search, show, "
                                "export) works meanwhile",
                                "share the open experience_bank object instead of opening the directory twice",
                                "move the directory away and re-import from an export (aopt bank export / import)"};
  return explain_store_error(msg, dir, bank, action);
}

void experience_bank::check_status(const void* status, const std::string& action) const {
  const auto& s = *static_cast<const rocksdb::Status*>(status);
  if (!s.ok()) throw aopt::error(ec::io_error, explain_rocksdb_error(s.ToString(), dir_, action));
}

experience_bank::experience_bank(const fs::path& dir, bank_options options)
    : dir_(dir), options_(options) {
  if (dir_.empty())
    throw aopt::error(ec::invalid_argument, "experience bank: empty directory name; pass --bank DIR");
  std::error_code fec;
  const bool exists = fs::exists(dir_ / "CURRENT", fec);
  if (!exists) {
    if (!options_.create_if_missing || options_.read_only)
      throw aopt::error(ec::not_found, "no experience bank at " + dir_.string() +
                                           " (no RocksDB CURRENT file); import or rewind into it "
                                           "first, or pass --bank with the right directory");
    fs::create_directories(dir_, fec);
    if (fec)
      throw aopt::error(ec::io_error, "cannot create the experience bank directory " +
                                          dir_.string() + ": " + fec.message());
  }

  rocksdb::DBOptions dbo;
  dbo.create_if_missing = options_.create_if_missing && !options_.read_only;
  // A reader opens every table file now: a file the writer deletes later stays readable.
  if (options_.read_only) dbo.max_open_files = -1;
  dbo.create_missing_column_families = true;
  dbo.keep_log_file_num = 4;
  dbo.max_manifest_file_size = 16 << 20;

  std::vector<std::string> names;
  if (exists) {
    const rocksdb::Status s = rocksdb::DB::ListColumnFamilies(dbo, dir_.string(), &names);
    check_status(&s, "list the column families of");
  }
  for (const char* n : {rocksdb::kDefaultColumnFamilyName.c_str(), k_tuples, k_index, k_meta}) {
    if (std::find(names.begin(), names.end(), n) != names.end()) continue;
    if (options_.read_only)
      throw aopt::error(ec::invalid_spec, "experience bank " + dir_.string() + " has no column family '" + n +
                                              "'; the bank is damaged or was not made by aopt: open it once "
                                              "for writing (aopt bank import) or move it away");
    names.emplace_back(n);
  }
  std::vector<rocksdb::ColumnFamilyDescriptor> descs;
  for (const auto& n : names) descs.emplace_back(n, rocksdb::ColumnFamilyOptions());

  rocksdb::Status s;
  if (options_.read_only) {
    s = rocksdb::DB::OpenForReadOnly(dbo, dir_.string(), descs, &handles_, &db_);
  } else {
    // Another process holding the lock: retry with backoff until lock_wait has passed.
    const auto start = std::chrono::steady_clock::now();
    auto delay = std::chrono::milliseconds(20);
    for (;;) {
      s = rocksdb::DB::Open(dbo, dir_.string(), descs, &handles_, &db_);
      const auto waited = std::chrono::steady_clock::now() - start;
      if (s.ok() || !locked_by_other_process(s.ToString()) || waited >= options_.lock_wait) break;
      handles_.clear();
      std::this_thread::sleep_for(std::min<std::chrono::steady_clock::duration>(
          delay, options_.lock_wait - waited));
      delay = std::min(delay * 2, std::chrono::milliseconds(500));
    }
  }
  if (!s.ok()) {
    db_ = nullptr;
    handles_.clear();
    const std::string msg = s.ToString();
    const std::string waited =
        locked_by_other_process(msg) && !options_.read_only
            ? " (waited " + std::to_string(options_.lock_wait.count()) + " ms for the lock)"
            : std::string();
    throw aopt::error(ec::io_error, explain_rocksdb_error(msg, dir_, "open") + waited);
  }
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (names[i] == k_tuples) tuples_cf_ = handles_[i];
    else if (names[i] == k_index) index_cf_ = handles_[i];
    else if (names[i] == k_meta) meta_cf_ = handles_[i];
  }

  std::string version;
  const rocksdb::Status g = db_->Get(rocksdb::ReadOptions(), meta_cf_, k_schema_key, &version);
  if (g.IsNotFound() && options_.read_only) {
    schema_version_ = experience_bank_schema_version;  // made but never written: as new
  } else if (g.IsNotFound()) {
    rocksdb::WriteOptions wo;
    wo.sync = options_.sync_writes;
    const rocksdb::Status w = db_->Put(wo, meta_cf_, k_schema_key,
                                       std::to_string(experience_bank_schema_version));
    if (!w.ok()) {
      close();
      throw aopt::error(ec::io_error, explain_rocksdb_error(w.ToString(), dir_, "initialise"));
    }
    schema_version_ = experience_bank_schema_version;
  } else if (!g.ok()) {
    const std::string msg = g.ToString();
    close();
    throw aopt::error(ec::io_error, explain_rocksdb_error(msg, dir_, "read the schema version of"));
  } else {
    char* end = nullptr;
    const long v = std::strtol(version.c_str(), &end, 10);
    if (version.empty() || *end != '\0' || v <= 0) {
      close();
      throw aopt::error(ec::invalid_spec, "experience bank " + dir_.string() +
                                              ": meta/schema_version is '" + version +
                                              "', not a positive integer; the bank is damaged");
    }
    if (v > experience_bank_schema_version) {
      close();
      throw aopt::error(ec::invalid_spec,
                        "experience bank " + dir_.string() + " has schema version " +
                            std::to_string(v) + ", newer than this aopt understands (" +
                            std::to_string(experience_bank_schema_version) +
                            "); upgrade aopt, or export with the newer version and import here");
    }
    schema_version_ = static_cast<int>(v);
  }
}

experience_bank::~experience_bank() {
  try {
    close();
  } catch (...) {  // never throw from a destructor; close() already released what it could
  }
}

void experience_bank::close() {
  if (db_ == nullptr) return;
  for (auto* h : handles_) db_->DestroyColumnFamilyHandle(h);
  handles_.clear();
  tuples_cf_ = index_cf_ = meta_cf_ = nullptr;
  const rocksdb::Status s = db_->Close();
  delete db_;
  db_ = nullptr;
  if (!s.ok() && !s.IsNotSupported())
    throw aopt::error(ec::io_error, explain_rocksdb_error(s.ToString(), dir_, "close"));
}

void experience_bank::require_open(const char* what) const {
  if (db_ == nullptr)
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
  const auto classes = search::classify_bottleneck(e.bottleneck);
  if (classes.empty()) keys.push_back(std::string(k_other) + '\0' + e.id);
  for (auto c : classes) keys.push_back(std::string(search::to_string(c)) + '\0' + e.id);
  return keys;
}

void experience_bank::write_tuple(const experience& e, const std::optional<experience>& old) {
  rocksdb::WriteBatch batch;
  if (old) {
    for (const auto& k : index_keys(*old)) batch.Delete(index_cf_, k);
  }
  batch.Put(tuples_cf_, e.id, search::to_json(e).dump());
  for (const auto& k : index_keys(e)) batch.Put(index_cf_, k, "");
  rocksdb::WriteOptions wo;
  wo.sync = options_.sync_writes;
  const rocksdb::Status s = db_->Write(wo, &batch);
  check_status(&s, "write tuple " + e.id + " to");
}

namespace {
void finalize_and_validate(experience& e) {
  search::finalize(e);
  const auto problems = search::validate(e);
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
  std::string value;
  const rocksdb::Status s = db_->Get(rocksdb::ReadOptions(), tuples_cf_, id, &value);
  if (s.IsNotFound()) return std::nullopt;
  check_status(&s, "read tuple " + id + " from");
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(value);
  } catch (const nlohmann::json::parse_error& e) {
    throw aopt::error(ec::parse_error, "experience bank " + dir_.string() + ": tuple " + id +
                                           " is not valid JSON (" + e.what() +
                                           "); erase it with `aopt bank` or re-import");
  }
  return search::experience_from_json(j, "experience bank " + dir_.string() + ": tuple " + id);
}

std::optional<experience> experience_bank::find(const std::string& id_or_prefix) const {
  require_open("find");
  if (auto e = get(id_or_prefix)) return e;
  if (id_or_prefix.size() < 4) return std::nullopt;
  std::vector<std::string> matches;
  {
    std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(rocksdb::ReadOptions(), tuples_cf_));
    for (it->Seek(id_or_prefix); it->Valid(); it->Next()) {
      const std::string key = it->key().ToString();
      if (key.compare(0, id_or_prefix.size(), id_or_prefix) != 0) break;
      matches.push_back(key);
      if (matches.size() > 5) break;
    }
    const rocksdb::Status s = it->status();
    check_status(&s, "scan");
  }
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
  rocksdb::WriteBatch batch;
  batch.Delete(tuples_cf_, id);
  for (const auto& k : index_keys(*old)) batch.Delete(index_cf_, k);
  rocksdb::WriteOptions wo;
  wo.sync = options_.sync_writes;
  const rocksdb::Status s = db_->Write(wo, &batch);
  check_status(&s, "erase tuple " + id + " from");
  return true;
}

std::size_t experience_bank::count() const {
  require_open("count");
  std::size_t n = 0;
  std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(rocksdb::ReadOptions(), tuples_cf_));
  for (it->SeekToFirst(); it->Valid(); it->Next()) ++n;
  const rocksdb::Status s = it->status();
  check_status(&s, "count the tuples of");
  return n;
}

bank_page experience_bank::list(const std::string& after, std::size_t limit) const {
  require_open("list");
  if (limit == 0) throw aopt::error(ec::invalid_argument, "experience bank list: limit must be > 0");
  bank_page page;
  std::vector<std::string> ids;
  bool more = false;
  {
    std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(rocksdb::ReadOptions(), tuples_cf_));
    if (after.empty()) it->SeekToFirst();
    else it->Seek(after);
    for (; it->Valid(); it->Next()) {
      if (!after.empty() && it->key().ToString() <= after) continue;
      if (ids.size() == limit) {
        more = true;
        break;
      }
      ids.push_back(it->key().ToString());
    }
    const rocksdb::Status s = it->status();
    check_status(&s, "list");
  }
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

std::vector<experience> experience_bank::by_bottleneck(search::bottleneck_class cls) const {
  require_open("by_bottleneck");
  const std::string prefix = std::string(search::to_string(cls)) + '\0';
  std::vector<std::string> ids;
  {
    std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(rocksdb::ReadOptions(), index_cf_));
    for (it->Seek(prefix); it->Valid(); it->Next()) {
      const std::string key = it->key().ToString();
      if (key.compare(0, prefix.size(), prefix) != 0) break;
      ids.push_back(key.substr(prefix.size()));
    }
    const rocksdb::Status s = it->status();
    check_status(&s, "scan the bottleneck index of");
  }
  std::vector<experience> out;
  for (const auto& id : ids) {
    if (auto e = get(id)) out.push_back(std::move(*e));
  }
  return out;
}

std::vector<std::string> experience_bank::unclassified_ids() const {
  require_open("unclassified_ids");
  const std::string prefix = std::string(k_other) + '\0';
  std::vector<std::string> ids;
  std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(rocksdb::ReadOptions(), index_cf_));
  for (it->Seek(prefix); it->Valid(); it->Next()) {
    const std::string key = it->key().ToString();
    if (key.compare(0, prefix.size(), prefix) != 0) break;
    ids.push_back(key.substr(prefix.size()));
  }
  const rocksdb::Status s = it->status();
  check_status(&s, "scan the bottleneck index of");
  return ids;
}

import_report experience_bank::import_file(const fs::path& file, search::file_format format,
                                           search::provenance origin) {
  require_writable("import");
  // Parse and validate everything first: a malformed file changes nothing.
  std::vector<experience> entries = search::read_experience_file(file, format, origin);
  for (std::size_t i = 0; i < entries.size(); ++i) {
    const auto problems = search::validate(entries[i]);
    if (!problems.empty())
      throw aopt::error(ec::invalid_spec, file.string() + ": entry " + std::to_string(i) + ": " +
                                              problems.front());
  }
  import_report report;
  report.read = entries.size();
  std::lock_guard lock(write_mu_);
  rocksdb::WriteBatch batch;
  std::set<std::string> in_batch;
  for (const auto& e : entries) {
    if (in_batch.count(e.id) != 0 || get(e.id)) {
      ++report.duplicates;
      continue;
    }
    in_batch.insert(e.id);
    batch.Put(tuples_cf_, e.id, search::to_json(e).dump());
    for (const auto& k : index_keys(e)) batch.Put(index_cf_, k, "");
    ++report.inserted;
  }
  if (report.inserted > 0) {
    rocksdb::WriteOptions wo;
    wo.sync = options_.sync_writes;
    const rocksdb::Status s = db_->Write(wo, &batch);
    check_status(&s, "import " + file.string() + " into");
  }
  return report;
}

std::size_t experience_bank::export_to(std::ostream& out, search::file_format format) const {
  const auto tuples = all();
  if (format == search::file_format::json) out << search::to_json_array(tuples);
  else out << search::to_jsonl(tuples);
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
