#include "aopt/storage/kv_store.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <iterator>
#include <memory>
#include <thread>

#include <rocksdb/db.h>
#include <rocksdb/options.h>
#include <rocksdb/write_batch.h>

#include "aopt/common/error.h"

namespace aopt::storage {

namespace fs = std::filesystem;

namespace {

bool contains(const std::string& s, const char* needle) { return s.find(needle) != std::string::npos; }

// "process 1234 (aopt bank import x.json)": who holds <dir>/LOCK (RocksDB takes a POSIX record
// lock on it, which F_GETLK reports with its pid); empty when that cannot be told.
std::string lock_holder(const fs::path& dir) {
  const int fd = ::open((dir / "LOCK").c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return {};
  struct flock fl {};
  fl.l_type = F_WRLCK;
  fl.l_whence = SEEK_SET;
  const bool known = ::fcntl(fd, F_GETLK, &fl) == 0 && fl.l_type != F_UNLCK && fl.l_pid > 0;
  ::close(fd);
  if (!known) return {};
  std::ifstream in("/proc/" + std::to_string(fl.l_pid) + "/cmdline", std::ios::binary);
  std::string cmd((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::replace(cmd.begin(), cmd.end(), '\0', ' ');
  while (!cmd.empty() && cmd.back() == ' ') cmd.pop_back();
  if (cmd.size() > 200) cmd = cmd.substr(0, 200) + "...";
  return "process " + std::to_string(fl.l_pid) + (cmd.empty() ? std::string() : " (" + cmd + ")");
}

rocksdb::WriteOptions synced(bool sync) {
  rocksdb::WriteOptions wo;
  wo.sync = sync;
  return wo;
}

}  // namespace

bool locked_by_other_process(const std::string& msg) {
  return contains(msg, "While lock file") || (contains(msg, "LOCK") && contains(msg, "Resource temporarily unavailable"));
}

std::string explain_store_error(const std::string& msg, const fs::path& dir, const store_names& names,
                                const std::string& action) {
  const std::string head = "cannot " + action + " the " + names.what + " " + dir.string();
  const std::string tail = " (RocksDB: " + msg + ")";
  if (contains(msg, "lock hold by current process"))
    return head + ": it is already open in this process; " + names.when_twice + tail;
  if (locked_by_other_process(msg)) {
    const std::string holder = lock_holder(dir);
    return head + ": it is in use by another process" + (holder.empty() ? holder : ", " + holder) + ", which holds " +
           (dir / "LOCK").string() + " for writing; " + names.when_locked + tail;
  }
  if (contains(msg, "Corruption")) return head + ": the database is corrupt; " + names.when_corrupt + tail;
  if (contains(msg, "Permission denied"))
    return head + ": permission denied; check the owner and mode of the directory" + tail;
  if (contains(msg, "No space left")) return head + ": the disk is full" + tail;
  return head + tail;
}

void kv_store::fail(const std::string& msg, const std::string& action) const {
  throw aopt::error(ec::io_error, explain_store_error(msg, dir_, o_.names, action));
}

kv_store::kv_store(fs::path dir, options o) : dir_(std::move(dir)), o_(std::move(o)) {
  if (dir_.empty()) throw aopt::error(ec::invalid_argument, o_.names.what + ": empty directory name");
  std::error_code fec;
  if (!fs::exists(dir_ / "CURRENT", fec)) {
    if (!o_.create_if_missing || o_.read_only) {
      throw aopt::error(ec::not_found, "no " + o_.names.what + " at " + dir_.string() +
                                           (o_.missing_hint.empty() ? std::string() : "; " + o_.missing_hint));
    }
    fs::create_directories(dir_, fec);
    if (fec) {
      throw aopt::error(ec::io_error, "cannot create the " + o_.names.what + " directory " + dir_.string() + ": " +
                                          fec.message());
    }
  }
  open_db();
  if (!o_.schema_key.empty()) check_schema();
}

void kv_store::open_db() {
  rocksdb::DBOptions dbo;
  dbo.create_if_missing = o_.create_if_missing && !o_.read_only;
  dbo.create_missing_column_families = !o_.read_only;
  if (o_.keep_log_file_num > 0) dbo.keep_log_file_num = static_cast<std::size_t>(o_.keep_log_file_num);
  if (o_.max_manifest_file_size > 0) dbo.max_manifest_file_size = o_.max_manifest_file_size;
  // A reader opens every table file now: a file the writer deletes later stays readable.
  if (o_.read_only) dbo.max_open_files = -1;

  std::vector<std::string> wanted = {rocksdb::kDefaultColumnFamilyName};
  wanted.insert(wanted.end(), o_.families.begin(), o_.families.end());
  std::vector<std::string> on_disk;
  std::error_code fec;
  if (fs::exists(dir_ / "CURRENT", fec)) {
    const rocksdb::Status s = rocksdb::DB::ListColumnFamilies(dbo, dir_.string(), &on_disk);
    if (!s.ok()) fail(s.ToString(), "list the column families of");
  }
  for (const auto& n : wanted) {
    if (o_.read_only && n != rocksdb::kDefaultColumnFamilyName &&
        std::find(on_disk.begin(), on_disk.end(), n) == on_disk.end()) {
      throw aopt::error(ec::invalid_spec, "the " + o_.names.what + " " + dir_.string() + " has no column family '" + n +
                                              "'; it is damaged or was not made by aopt: open it once for writing "
                                              "or move it away");
    }
  }
  std::vector<rocksdb::ColumnFamilyDescriptor> descs;
  for (const auto& n : wanted) descs.emplace_back(n, rocksdb::ColumnFamilyOptions());
  for (const auto& n : on_disk) {
    if (std::find(wanted.begin(), wanted.end(), n) == wanted.end()) descs.emplace_back(n, rocksdb::ColumnFamilyOptions());
  }
  std::vector<rocksdb::ColumnFamilyHandle*> all;
  rocksdb::Status s;
  if (o_.read_only) {
    s = rocksdb::DB::OpenForReadOnly(dbo, dir_.string(), descs, &all, &db_);
  } else {
    // Another process holding the lock: retry with backoff until lock_wait has passed.
    const auto start = std::chrono::steady_clock::now();
    auto delay = std::chrono::milliseconds(20);
    for (;;) {
      s = rocksdb::DB::Open(dbo, dir_.string(), descs, &all, &db_);
      const auto waited = std::chrono::steady_clock::now() - start;
      if (s.ok() || !locked_by_other_process(s.ToString()) || waited >= o_.lock_wait) break;
      all.clear();
      std::this_thread::sleep_for(std::min<std::chrono::steady_clock::duration>(delay, o_.lock_wait - waited));
      delay = std::min(delay * 2, std::chrono::milliseconds(500));
    }
  }
  if (!s.ok()) {
    db_ = nullptr;
    const std::string msg = s.ToString();
    const std::string waited = locked_by_other_process(msg) && !o_.read_only && o_.lock_wait.count() > 0
                                   ? " (waited " + std::to_string(o_.lock_wait.count()) + " ms for the lock)"
                                   : std::string();
    throw aopt::error(ec::io_error, explain_store_error(msg, dir_, o_.names, "open") + waited);
  }
  handles_.assign(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(wanted.size()));
  others_.assign(all.begin() + static_cast<std::ptrdiff_t>(wanted.size()), all.end());
}

void kv_store::check_schema() {
  const kv_family meta{};  // the schema key lives in the default family
  std::string version;
  const rocksdb::Status g = db_->Get(rocksdb::ReadOptions(), handle(meta), o_.schema_key, &version);
  if (g.IsNotFound()) {
    if (o_.read_only) return;  // made but never written: as new
    const rocksdb::Status w = db_->Put(synced(true), handle(meta), o_.schema_key, o_.schema_version);
    if (!w.ok()) {
      const std::string msg = explain_store_error(w.ToString(), dir_, o_.names, "initialise");
      close();
      throw aopt::error(ec::io_error, msg);
    }
  } else if (!g.ok() || version != o_.schema_version) {
    const std::string msg =
        g.ok() ? "the " + o_.names.what + " " + dir_.string() + " has schema version '" + version +
                     "', this aopt reads " + o_.schema_version + (o_.schema_hint.empty() ? "" : "; " + o_.schema_hint)
               : explain_store_error(g.ToString(), dir_, o_.names, "read");
    close();
    throw aopt::error(g.ok() ? ec::invalid_spec : ec::io_error, msg);
  }
}

kv_store::~kv_store() {
  try {
    close();
  } catch (...) {  // a destructor must not throw; close() released what it could
  }
}

void kv_store::close() {
  if (db_ == nullptr) return;
  for (auto* h : handles_) db_->DestroyColumnFamilyHandle(h);
  for (auto* h : others_) db_->DestroyColumnFamilyHandle(h);
  handles_.clear();
  others_.clear();
  const rocksdb::Status s = db_->Close();
  delete db_;
  db_ = nullptr;
  if (!s.ok() && !s.IsNotSupported()) fail(s.ToString(), "close");
}

kv_family kv_store::family(const std::string& name) const {
  for (std::size_t i = 0; i < o_.families.size(); ++i) {
    if (o_.families[i] == name) return kv_family{i + 1};
  }
  throw aopt::error(ec::invalid_argument, "the " + o_.names.what + " has no column family '" + name + "'");
}

rocksdb::ColumnFamilyHandle* kv_store::handle(kv_family f) const {
  if (f.index >= handles_.size())
    throw aopt::error(ec::invalid_argument, "the " + o_.names.what + " " + dir_.string() + ": no such column family");
  return handles_[f.index];
}

void kv_store::require_writable() const {
  if (db_ == nullptr) throw aopt::error(ec::invalid_argument, "the " + o_.names.what + " " + dir_.string() + " is closed");
  if (o_.read_only)
    throw aopt::error(ec::invalid_argument, "the " + o_.names.what + " " + dir_.string() +
                                                " is open read-only; open it without read_only to write");
}

void kv_store::put(const std::string& key, const std::string& value, bool durable) {
  require_writable();
  const auto s = db_->Put(synced(durable), key, value);
  if (!s.ok()) fail(s.ToString(), "write " + key + " to");
}

void kv_store::write(const std::vector<kv_write>& batch, bool durable) {
  require_writable();
  rocksdb::WriteBatch b;
  for (const auto& w : batch) {
    auto* h = handle(w.family);
    if (w.op == kv_write::kind::put) b.Put(h, w.key, w.value);
    else if (w.op == kv_write::kind::erase) b.Delete(h, w.key);
    else b.DeleteRange(h, w.key, w.value);
  }
  const auto s = db_->Write(synced(durable), &b);
  if (!s.ok()) fail(s.ToString(), "write to");
}

std::optional<std::string> kv_store::get(const std::string& key) const { return get(kv_family{}, key); }

std::optional<std::string> kv_store::get(kv_family f, const std::string& key) const {
  if (db_ == nullptr) return std::nullopt;
  std::string v;
  const auto s = db_->Get(rocksdb::ReadOptions(), handle(f), key, &v);
  if (s.IsNotFound()) return std::nullopt;
  if (!s.ok()) fail(s.ToString(), "read " + key + " from");
  return v;
}

std::vector<std::pair<std::string, std::string>> kv_store::scan(const std::string& prefix, const std::string& from,
                                                                std::size_t limit) const {
  return scan(kv_family{}, prefix, from, limit);
}

std::vector<std::pair<std::string, std::string>> kv_store::scan(kv_family f, const std::string& prefix,
                                                                const std::string& from, std::size_t limit) const {
  std::vector<std::pair<std::string, std::string>> out;
  if (db_ == nullptr) return out;
  std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(rocksdb::ReadOptions(), handle(f)));
  for (it->Seek(prefix + from); it->Valid() && out.size() < limit; it->Next()) {
    if (!it->key().starts_with(prefix)) break;
    out.emplace_back(it->key().ToString(), it->value().ToString());
  }
  if (!it->status().ok()) fail(it->status().ToString(), "scan " + prefix + " in");
  return out;
}

std::vector<std::string> kv_store::keys(kv_family f, const std::string& prefix, const std::string& from,
                                        std::size_t limit) const {
  std::vector<std::string> out;
  if (db_ == nullptr) return out;
  std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(rocksdb::ReadOptions(), handle(f)));
  for (it->Seek(prefix + from); it->Valid() && out.size() < limit; it->Next()) {
    if (!it->key().starts_with(prefix)) break;
    out.push_back(it->key().ToString());
  }
  if (!it->status().ok()) fail(it->status().ToString(), "scan " + prefix + " in");
  return out;
}

std::size_t kv_store::count(const std::string& prefix) const { return count(kv_family{}, prefix); }

std::size_t kv_store::count(kv_family f, const std::string& prefix) const {
  if (db_ == nullptr) return 0;
  std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(rocksdb::ReadOptions(), handle(f)));
  std::size_t n = 0;
  for (it->Seek(prefix); it->Valid() && it->key().starts_with(prefix); it->Next()) ++n;
  if (!it->status().ok()) fail(it->status().ToString(), "scan " + prefix + " in");
  return n;
}

std::optional<std::pair<std::string, std::string>> kv_store::last_at_or_before(const std::string& prefix,
                                                                              const std::string& key) const {
  if (db_ == nullptr) return std::nullopt;
  std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(rocksdb::ReadOptions()));
  it->SeekForPrev(key);
  if (!it->Valid() || !it->key().starts_with(prefix)) return std::nullopt;
  return std::make_pair(it->key().ToString(), it->value().ToString());
}

}  // namespace aopt::storage
