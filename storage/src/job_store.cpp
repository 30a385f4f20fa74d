#include "aopt/storage/job_store.h"

#include <cstdio>
#include <memory>

#include <rocksdb/db.h>
#include <rocksdb/write_batch.h>

#include "aopt/common/error.h"
#include "aopt/storage/experience_bank.h"

namespace aopt::storage {

namespace {

std::string padded(std::uint64_t n) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%012llu", static_cast<unsigned long long>(n));
  return buf;
}

rocksdb::WriteOptions synced(bool sync = true) {
  rocksdb::WriteOptions wo;
  wo.sync = sync;
  return wo;
}

}  // namespace

job_store::job_store(const std::filesystem::path& dir) : dir_(dir) {
  std::error_code e;
  std::filesystem::create_directories(dir, e);
  if (e) throw error(ec::io_error, dir.string() + ": cannot create the job store directory: " + e.message());
  rocksdb::Options o;
  o.create_if_missing = true;
  const rocksdb::Status s = rocksdb::DB::Open(o, dir.string(), &db_);
  if (!s.ok()) throw error(ec::io_error, explain_rocksdb_error(s.ToString(), dir, "open the job store"));
}

job_store::~job_store() {
  if (db_ != nullptr) {
    (void)db_->Close();
    delete db_;
  }
}

void job_store::put(const std::string& key, const std::string& value, bool durable) {
  const auto s = db_->Put(synced(durable), key, value);
  if (!s.ok()) throw error(ec::io_error, explain_rocksdb_error(s.ToString(), dir_, "write " + key + " to"));
}

std::optional<std::string> job_store::get(const std::string& key) const {
  std::string v;
  const auto s = db_->Get(rocksdb::ReadOptions(), key, &v);
  if (s.IsNotFound()) return std::nullopt;
  if (!s.ok()) throw error(ec::io_error, explain_rocksdb_error(s.ToString(), dir_, "read " + key + " from"));
  return v;
}

std::vector<std::pair<std::string, std::string>> job_store::scan(const std::string& prefix, const std::string& from,
                                                                 std::size_t limit) const {
  std::vector<std::pair<std::string, std::string>> out;
  std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(rocksdb::ReadOptions()));
  for (it->Seek(prefix + from); it->Valid() && out.size() < limit; it->Next()) {
    const auto k = it->key().ToString();
    if (!k.starts_with(prefix)) break;
    out.emplace_back(k, it->value().ToString());
  }
  if (!it->status().ok()) {
    throw error(ec::io_error, explain_rocksdb_error(it->status().ToString(), dir_, "scan " + prefix + " in"));
  }
  return out;
}

std::string job_store::next_id() {
  std::uint64_t n = 1;
  if (auto v = get("m/next_id")) n = std::stoull(*v);
  put("m/next_id", std::to_string(n + 1));
  std::string id = std::to_string(n);
  if (id.size() < 6) id.insert(0, 6 - id.size(), '0');
  return "j" + id;
}

void job_store::put_job(const std::string& id, const nlohmann::json& record) { put("j/" + id, record.dump()); }

std::optional<nlohmann::json> job_store::get_job(const std::string& id) const {
  auto v = get("j/" + id);
  if (!v) return std::nullopt;
  return nlohmann::json::parse(*v);
}

std::vector<nlohmann::json> job_store::jobs() const {
  std::vector<nlohmann::json> out;
  for (const auto& [k, v] : scan("j/", "", static_cast<std::size_t>(-1))) out.push_back(nlohmann::json::parse(v));
  return out;
}

void job_store::erase_job(const std::string& id) {
  rocksdb::WriteBatch b;
  b.Delete("j/" + id);
  for (const char* p : {"e/", "v/"}) {
    const std::string prefix = std::string(p) + id + "/";
    b.DeleteRange(prefix, prefix + "\xff");
  }
  const auto s = db_->Write(synced(), &b);
  if (!s.ok()) throw error(ec::io_error, explain_rocksdb_error(s.ToString(), dir_, "delete job " + id + " from"));
}

void job_store::put_event(const std::string& id, std::uint64_t n, const nlohmann::json& event, bool durable) {
  put("e/" + id + "/" + padded(n), event.dump(), durable);
}

std::vector<nlohmann::json> job_store::events(const std::string& id, std::uint64_t from, std::size_t limit) const {
  std::vector<nlohmann::json> out;
  for (const auto& [k, v] : scan("e/" + id + "/", padded(from), limit)) out.push_back(nlohmann::json::parse(v));
  return out;
}

std::uint64_t job_store::event_count(const std::string& id) const {
  // Events are written densely from 0, so the count is one past the last key.
  const std::string prefix = "e/" + id + "/";
  std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(rocksdb::ReadOptions()));
  it->SeekForPrev(prefix + "\xff");
  if (!it->Valid() || !it->key().starts_with(prefix)) return 0;
  return std::stoull(it->key().ToString().substr(prefix.size())) + 1;
}

void job_store::put_evaluation(const std::string& id, const std::string& key, const nlohmann::json& report) {
  put("v/" + id + "/" + key, report.dump());
}

std::optional<nlohmann::json> job_store::get_evaluation(const std::string& id, const std::string& key) const {
  auto v = get("v/" + id + "/" + key);
  if (!v) return std::nullopt;
  return nlohmann::json::parse(*v);
}

std::size_t job_store::evaluation_count(const std::string& id) const {
  return scan("v/" + id + "/", "", static_cast<std::size_t>(-1)).size();
}

}  // namespace aopt::storage
