// The persistent experience bank: experience tuples (vocab/experience.h) in a kv_store with
// three column families:
//   tuples        id -> tuple JSON (vocab::to_json)
//   by_bottleneck "<class>\0<id>" -> "" for every class vocab::classify_bottleneck finds in
//                 the tuple's bottleneck field ("other\0<id>" when none)
//   meta          "schema_version" -> "1"
// Writes are WriteBatches (tuple + index together), synced by default. Thread-safe: RocksDB
// handles concurrency; one writable experience_bank object per directory per process.
// Many processes: one writer at a time holds <dir>/LOCK; readers (read_only) take no lock and
// work while another process writes (they see the bank as it was when they opened it). A writer
// that finds the lock held retries with backoff for lock_wait, then fails naming the holder.
#pragma once

#include <chrono>
#include <cstddef>
#include <filesystem>
#include <iosfwd>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "aopt/storage/kv_store.h"
#include "aopt/vocab/experience.h"

namespace aopt::storage {

inline constexpr int experience_bank_schema_version = 1;

// How long a writer waits for another process's lock: AOPT_BANK_LOCK_WAIT (seconds, may be
// fractional) when set, else 10 s.
std::chrono::milliseconds default_bank_lock_wait();

struct bank_options {
  bool create_if_missing = true;  // Default: true (false: a missing bank is aopt::error(not_found))
  bool sync_writes = true;        // Default: true (fsync per write batch; ~200 us)
  // Default: false. true: DB::OpenForReadOnly, no lock taken (works while another process
  // writes); a missing bank is aopt::error(not_found); put/update/erase/import throw
  // aopt::error(invalid_argument).
  bool read_only = false;
  // Default: default_bank_lock_wait(). A writer retries opening (20 ms doubling up to 500 ms)
  // while another process holds the lock, for at most this long.
  std::chrono::milliseconds lock_wait = default_bank_lock_wait();
};

struct put_result {
  std::string id;
  bool inserted = false;  // false: a tuple with this id was already there (left unchanged)
};

struct bank_page {
  std::vector<vocab::experience> items;
  std::string next_after;  // pass as `after` for the next page; empty when this is the last
};

struct import_report {
  std::size_t read = 0;        // entries in the file
  std::size_t inserted = 0;    // new tuples
  std::size_t duplicates = 0;  // already in the bank (or twice in the file)
};

// Turns a RocksDB status message into a message that says what happened to which bank and what
// to do: locked by another process, opened twice in this process, corruption, ... `dir` names
// the bank. Exposed for tests.
std::string explain_rocksdb_error(const std::string& rocksdb_message, const std::filesystem::path& dir,
                                  const std::string& action);

class experience_bank {
 public:
  // Opens (creating when allowed) the bank in directory `dir`. Throws aopt::error:
  // io_error (locked, unreadable, corrupt: the message explains), not_found, invalid_spec
  // (schema version newer than this build).
  explicit experience_bank(const std::filesystem::path& dir, bank_options options = {});
  ~experience_bank();
  experience_bank(const experience_bank&) = delete;
  experience_bank& operator=(const experience_bank&) = delete;

  // Closes the database (column-family handles, then Close()); idempotent. Any other call
  // afterwards throws aopt::error(invalid_argument).
  void close();
  bool is_open() const { return kv_ && kv_->is_open(); }
  const std::filesystem::path& dir() const { return dir_; }
  int schema_version() const;

  // Stores the tuple under its content id (the id is recomputed, created_ms set when 0).
  // Idempotent: an existing tuple with the same id is left as is. Throws
  // aopt::error(invalid_spec) listing vocab::validate()'s problems.
  put_result put(vocab::experience e);
  // Replaces the stored tuple with the same id (embedding, evidence, ...); false if absent.
  bool update(vocab::experience e);
  std::optional<vocab::experience> get(const std::string& id) const;
  // Exact id, or a unique prefix of at least 4 hex characters. Throws aopt::error(
  // invalid_argument) when the prefix is ambiguous.
  std::optional<vocab::experience> find(const std::string& id_or_prefix) const;
  bool erase(const std::string& id);
  std::size_t count() const;

  // Tuples in id order, starting after `after` (empty = from the start), at most `limit`.
  bank_page list(const std::string& after = {}, std::size_t limit = 100) const;
  std::vector<vocab::experience> all() const;
  // Tuples indexed under `cls`, in id order.
  std::vector<vocab::experience> by_bottleneck(vocab::bottleneck_class cls) const;
  // Ids indexed under the "other" key (bottleneck text matching no class).
  std::vector<std::string> unclassified_ids() const;

  // Reads a file (the paper's JSON, or JSONL; see vocab::read_experience_file) and puts every
  // entry. All entries are validated before the first write: a malformed file changes nothing.
  import_report import_file(const std::filesystem::path& file,
                            vocab::file_format format = vocab::file_format::automatic,
                            vocab::provenance origin = vocab::provenance::import);
  // Puts `entries` in one write; `where` names their source in messages ("entry 3" follows it).
  // All are validated first: an invalid entry changes nothing (aopt::error(invalid_spec)).
  import_report import_tuples(std::vector<vocab::experience> entries, const std::string& where);
  // Writes every tuple in id order as JSONL or as a JSON array; returns how many.
  std::size_t export_to(std::ostream& out, vocab::file_format format) const;

 private:
  void require_open(const char* what) const;
  void require_writable(const char* what) const;
  void read_schema();
  std::vector<std::string> index_keys(const vocab::experience& e) const;
  void write_tuple(const vocab::experience& e, const std::optional<vocab::experience>& old);

  std::filesystem::path dir_;
  bank_options options_;
  std::unique_ptr<kv_store> kv_;
  kv_family tuples_, index_, meta_;
  int schema_version_ = 0;
  std::mutex write_mu_;  // put/update/erase: check-then-write is atomic per bank object
};

// $XDG_DATA_HOME/aopt/bank, else $HOME/.local/share/aopt/bank, else ./aopt-bank.
std::filesystem::path default_bank_dir();

}  // namespace aopt::storage
