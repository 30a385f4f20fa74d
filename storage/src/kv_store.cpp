#include "aopt/storage/kv_store.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <iterator>
#include <memory>

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
    if (!o_.create_if_missing) {
      throw aopt::error(ec::not_found, "no " + o_.names.what + " at " + dir_.string() +
                                           (o_.missing_hint.empty() ? std::string() : "; " + o_.missing_hint));
    }
    fs::create_directories(dir_, fec);
    if (fec) {
      throw aopt::error(ec::io_error, "cannot create the " + o_.names.what + " directory " + dir_.string() + ": " +
                                          fec.message());
    }
  }
  rocksdb::Options ro;
  ro.create_if_missing = o_.create_if_missing;
  if (o_.keep_log_file_num > 0) ro.keep_log_file_num = static_cast<std::size_t>(o_.keep_log_file_num);
  const rocksdb::Status s = rocksdb::DB::Open(ro, dir_.string(), &db_);
  if (!s.ok()) {
    db_ = nullptr;
    fail(s.ToString(), "open");
  }
  if (o_.schema_key.empty()) return;
  std::string version;
  const rocksdb::Status g = db_->Get(rocksdb::ReadOptions(), o_.schema_key, &version);
  if (g.IsNotFound()) {
    const rocksdb::Status w = db_->Put(synced(true), o_.schema_key, o_.schema_version);
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
  const rocksdb::Status s = db_->Close();
  delete db_;
  db_ = nullptr;
  if (!s.ok() && !s.IsNotSupported()) fail(s.ToString(), "close");
}

void kv_store::put(const std::string& key, const std::string& value, bool durable) {
  if (db_ == nullptr) throw aopt::error(ec::invalid_argument, "the " + o_.names.what + " " + dir_.string() + " is closed");
  const auto s = db_->Put(synced(durable), key, value);
  if (!s.ok()) fail(s.ToString(), "write " + key + " to");
}

void kv_store::write(const std::vector<kv_write>& batch, bool durable) {
  if (db_ == nullptr) throw aopt::error(ec::invalid_argument, "the " + o_.names.what + " " + dir_.string() + " is closed");
  rocksdb::WriteBatch b;
  for (const auto& w : batch) {
    if (w.op == kv_write::kind::put) b.Put(w.key, w.value);
    else if (w.op == kv_write::kind::erase) b.Delete(w.key);
    else b.DeleteRange(w.key, w.value);
  }
  const auto s = db_->Write(synced(durable), &b);
  if (!s.ok()) fail(s.ToString(), "write to");
}

std::optional<std::string> kv_store::get(const std::string& key) const {
  if (db_ == nullptr) return std::nullopt;
  std::string v;
  const auto s = db_->Get(rocksdb::ReadOptions(), key, &v);
  if (s.IsNotFound()) return std::nullopt;
  if (!s.ok()) fail(s.ToString(), "read " + key + " from");
  return v;
}

std::vector<std::pair<std::string, std::string>> kv_store::scan(const std::string& prefix, const std::string& from,
                                                                std::size_t limit) const {
  std::vector<std::pair<std::string, std::string>> out;
  if (db_ == nullptr) return out;
  std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(rocksdb::ReadOptions()));
  for (it->Seek(prefix + from); it->Valid() && out.size() < limit; it->Next()) {
    if (!it->key().starts_with(prefix)) break;
    out.emplace_back(it->key().ToString(), it->value().ToString());
  }
  if (!it->status().ok()) fail(it->status().ToString(), "scan " + prefix + " in");
  return out;
}

std::size_t kv_store::count(const std::string& prefix) const {
  if (db_ == nullptr) return 0;
  std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(rocksdb::ReadOptions()));
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
