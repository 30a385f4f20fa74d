// The daemon's persistent jobs in RocksDB (one database in <state-dir>/jobs.db, default column
// family, key prefixes):
//   j/<id>                 the job record (JSON object, the daemon's job fields)
//   e/<id>/<n, 12 digits>  event n of the job (one NDJSON line of GET /v1/jobs/{id}/events)
//   v/<id>/<key>           one evaluation result of the job (the journal a resumed job replays)
//   m/next_id, m/schema    counters
// Every write is synced before it returns (persist before acknowledging). Thread-safe (RocksDB
// is); one store object per directory per process, and a second process gets a clear error.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace rocksdb {
class DB;
}  // namespace rocksdb

namespace aopt::storage {

class job_store {
 public:
  // Opens or creates the store. aopt::error(io_error) explaining a lock held by another process
  // (another aoptd on this state directory) or corruption.
  explicit job_store(const std::filesystem::path& dir);
  ~job_store();
  job_store(const job_store&) = delete;
  job_store& operator=(const job_store&) = delete;

  // A new job id ("j" + 6 digits, increasing), the counter persisted.
  std::string next_id();
  void put_job(const std::string& id, const nlohmann::json& record);
  std::optional<nlohmann::json> get_job(const std::string& id) const;
  std::vector<nlohmann::json> jobs() const;  // in id order
  // Removes the record, its events and its journal.
  void erase_job(const std::string& id);

  // `durable`: synced before it returns. An event that can be derived again (a search event,
  // which a resumed job's replay writes anew when it is missing) need not be: it is on disk with
  // the next synced write, and only a power loss before that can drop it.
  void put_event(const std::string& id, std::uint64_t n, const nlohmann::json& event, bool durable = true);
  // Events n >= from, in order, at most `limit`.
  std::vector<nlohmann::json> events(const std::string& id, std::uint64_t from, std::size_t limit = 100000) const;
  std::uint64_t event_count(const std::string& id) const;

  void put_evaluation(const std::string& id, const std::string& key, const nlohmann::json& report);
  std::optional<nlohmann::json> get_evaluation(const std::string& id, const std::string& key) const;
  std::size_t evaluation_count(const std::string& id) const;

 private:
  void put(const std::string& key, const std::string& value, bool durable = true);
  std::optional<std::string> get(const std::string& key) const;
  std::vector<std::pair<std::string, std::string>> scan(const std::string& prefix, const std::string& from,
                                                        std::size_t limit) const;
  std::filesystem::path dir_;
  rocksdb::DB* db_ = nullptr;
};

}  // namespace aopt::storage
