#include "aopt/storage/job_store.h"

#include <cstdio>
#include <memory>

#include "aopt/common/error.h"

namespace aopt::storage {

namespace {

std::string padded(std::uint64_t n) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%012llu", static_cast<unsigned long long>(n));
  return buf;
}

kv_store::options store_options() {
  kv_store::options o;
  o.names = {"job store", "another aoptd uses this state directory: stop it, or give this one another --state-dir",
             "it is opened once per aoptd", "move the state directory away (its jobs are lost) and start again"};
  return o;
}

}  // namespace

job_store::job_store(const std::filesystem::path& dir) : kv_(dir, store_options()) {}

std::string job_store::next_id() {
  std::uint64_t n = 1;
  if (auto v = kv_.get("m/next_id")) n = std::stoull(*v);
  kv_.put("m/next_id", std::to_string(n + 1));
  std::string id = std::to_string(n);
  if (id.size() < 6) id.insert(0, 6 - id.size(), '0');
  return "j" + id;
}

void job_store::put_job(const std::string& id, const nlohmann::json& record) { kv_.put("j/" + id, record.dump()); }

std::optional<nlohmann::json> job_store::get_job(const std::string& id) const {
  auto v = kv_.get("j/" + id);
  if (!v) return std::nullopt;
  return nlohmann::json::parse(*v);
}

std::vector<nlohmann::json> job_store::jobs() const {
  std::vector<nlohmann::json> out;
  for (const auto& [k, v] : kv_.scan("j/")) out.push_back(nlohmann::json::parse(v));
  return out;
}

void job_store::erase_job(const std::string& id) {
  std::vector<kv_write> batch{{kv_write::kind::erase, "j/" + id, {}}};
  for (const char* p : {"e/", "v/"}) {
    const std::string prefix = std::string(p) + id + "/";
    batch.push_back({kv_write::kind::erase_range, prefix, prefix + "\xff"});
  }
  kv_.write(batch);
}

void job_store::put_event(const std::string& id, std::uint64_t n, const nlohmann::json& event, bool durable) {
  kv_.put("e/" + id + "/" + padded(n), event.dump(), durable);
}

std::vector<nlohmann::json> job_store::events(const std::string& id, std::uint64_t from, std::size_t limit) const {
  std::vector<nlohmann::json> out;
  for (const auto& [k, v] : kv_.scan("e/" + id + "/", padded(from), limit)) out.push_back(nlohmann::json::parse(v));
  return out;
}

std::uint64_t job_store::event_count(const std::string& id) const {
  // Events are written densely from 0, so the count is one past the last key.
  const std::string prefix = "e/" + id + "/";
  const auto last = kv_.last_at_or_before(prefix, prefix + "\xff");
  if (!last) return 0;
  return std::stoull(last->first.substr(prefix.size())) + 1;
}

void job_store::put_evaluation(const std::string& id, const std::string& key, const nlohmann::json& report) {
  kv_.put("v/" + id + "/" + key, report.dump());
}

std::optional<nlohmann::json> job_store::get_evaluation(const std::string& id, const std::string& key) const {
  auto v = kv_.get("v/" + id + "/" + key);
  if (!v) return std::nullopt;
  return nlohmann::json::parse(*v);
}

std::size_t job_store::evaluation_count(const std::string& id) const {
  return kv_.count("v/" + id + "/");
}

}  // namespace aopt::storage
