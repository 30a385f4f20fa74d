// One RocksDB store wrapper for every store of aopt that is a plain key-value map (the daemon's
// job store, the LLM replay store): opening (with a schema version), durable writes, prefix
// scans, column families, read-only opens (no lock: they work while another process writes) and
// writers that wait for another process's lock, and RocksDB's errors turned into messages that
// name the store and say what to do. The experience bank is a kv_store with three column
// families. Target `aopt_kv`: it needs only aopt_common and RocksDB, so any room that stores
// links it.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace rocksdb {
class DB;
class ColumnFamilyHandle;
}

namespace aopt::storage {

// How a store is named in messages, and the advice its users need.
struct store_names {
  std::string what;          // "job store", "LLM replay store", "experience bank"
  std::string when_locked;   // when another process holds its LOCK: what to do
  std::string when_twice;    // when this process opened it twice
  std::string when_corrupt;  // when RocksDB reports corruption
};

// RocksDB's status text plus what happened to which store and what to do: "cannot open the job
// store DIR: it is in use by another process, process 12 (aoptd), which holds DIR/LOCK ...".
std::string explain_store_error(const std::string& rocksdb_message, const std::filesystem::path& dir,
                                const store_names& names, const std::string& action);

// Whether a RocksDB status says another process holds the store's LOCK.
bool locked_by_other_process(const std::string& rocksdb_message);

// A column family of an open store: kv_store::family(name); the default one is {}.
struct kv_family {
  std::size_t index = 0;
};

// One write of a batch: put(key, value), erase(key), or erase_range [key, value), in `family`.
struct kv_write {
  enum class kind { put, erase, erase_range } op = kind::put;
  std::string key;
  std::string value;
  kv_family family{};
};

class kv_store {
 public:
  struct options {
    store_names names;
    bool create_if_missing = true;
    std::string missing_hint;     // not_found message when absent and not to be created
    int keep_log_file_num = 0;    // 0: RocksDB's default
    std::string schema_key;       // when set, the store's schema version is kept under this key
    std::string schema_version;   // written on creation, required on open
    std::string schema_hint;      // what to do when the version differs
    // Column families besides the default one, created when missing (a read-only open of a
    // store without one of them is aopt::error(invalid_spec)).
    std::vector<std::string> families;
    // OpenForReadOnly: no lock taken, the store as it was when opened; writes throw
    // aopt::error(invalid_argument); a missing store is not_found.
    bool read_only = false;
    // A writer retries opening (20 ms doubling up to 500 ms) while another process holds the
    // lock, for at most this long; the error then says how long it waited.
    std::chrono::milliseconds lock_wait{0};
    std::uint64_t max_manifest_file_size = 0;  // 0: RocksDB's default
  };

  // Throws aopt::error: io_error (the message explains), not_found (absent, missing_hint),
  // invalid_spec (another schema version).
  kv_store(std::filesystem::path dir, options o);
  ~kv_store();
  kv_store(const kv_store&) = delete;
  kv_store& operator=(const kv_store&) = delete;

  void close();  // also done by the destructor; reads after it find nothing, writes throw
  bool is_open() const { return db_ != nullptr; }
  bool read_only() const { return o_.read_only; }
  // The family named `name` (one of options::families); throws aopt::error(invalid_argument).
  kv_family family(const std::string& name) const;

  // `durable`: synced to disk before returning.
  void put(const std::string& key, const std::string& value, bool durable = true);
  void write(const std::vector<kv_write>& batch, bool durable = true);  // atomically
  std::optional<std::string> get(const std::string& key) const;
  std::optional<std::string> get(kv_family f, const std::string& key) const;
  // Entries whose key starts with `prefix`, from prefix + `from`, in key order, at most `limit`.
  std::vector<std::pair<std::string, std::string>> scan(const std::string& prefix, const std::string& from = "",
                                                        std::size_t limit = static_cast<std::size_t>(-1)) const;
  std::vector<std::pair<std::string, std::string>> scan(kv_family f, const std::string& prefix,
                                                        const std::string& from = "",
                                                        std::size_t limit = static_cast<std::size_t>(-1)) const;
  // Keys only (values not copied), as scan().
  std::vector<std::string> keys(kv_family f, const std::string& prefix, const std::string& from = "",
                                std::size_t limit = static_cast<std::size_t>(-1)) const;
  std::size_t count(const std::string& prefix) const;
  std::size_t count(kv_family f, const std::string& prefix) const;
  // The last entry with `prefix` whose key is at most `key`.
  std::optional<std::pair<std::string, std::string>> last_at_or_before(const std::string& prefix,
                                                                       const std::string& key) const;

  const std::filesystem::path& dir() const { return dir_; }
  const store_names& names() const { return o_.names; }
  // Throws aopt::error(io_error) for `rocksdb_message` while doing `action`.
  [[noreturn]] void fail(const std::string& rocksdb_message, const std::string& action) const;

 private:
  void open_db();
  void check_schema();
  void require_writable() const;
  rocksdb::ColumnFamilyHandle* handle(kv_family f) const;

  std::filesystem::path dir_;
  options o_;
  rocksdb::DB* db_ = nullptr;
  std::vector<rocksdb::ColumnFamilyHandle*> handles_;  // [0] default, then o_.families in order
  std::vector<rocksdb::ColumnFamilyHandle*> others_;   // families on disk nobody asked for
};

}  // namespace aopt::storage
