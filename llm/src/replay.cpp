#include "aopt/llm/replay.h"

#include <algorithm>
#include <cstdio>
#include <memory>

#include <rocksdb/db.h>
#include <rocksdb/options.h>
#include <rocksdb/write_batch.h>

#include "aopt/common/error.h"
#include "aopt/common/sha256.h"
#include "aopt/llm/http_client.h"

namespace aopt::llm {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

constexpr const char* k_schema_key = "meta/schema_version";

std::string slot_key(const std::string& hash, std::size_t n) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "%06zu", n);
  return "res/" + hash + "/" + buf;
}

std::string dumps(const json& j) { return j.dump(-1, ' ', false, json::error_handler_t::replace); }

bool has(const std::string& s, const char* needle) { return s.find(needle) != std::string::npos; }

// RocksDB's status text plus what the user can do about the usual causes.
std::string explain(const std::string& status, const fs::path& dir, const std::string& action) {
  std::string advice;
  if (has(status, "lock hold by current process"))
    advice = "it is already open in this process; share one replay_store";
  else if (has(status, "LOCK"))
    advice = "another aopt process is using it; wait for that job or use another replay directory";
  else if (has(status, "Corruption"))
    advice = "the store is damaged; move the directory away and record again";
  else if (has(status, "Permission denied"))
    advice = "check the owner and mode of the directory";
  else if (has(status, "No space left"))
    advice = "the disk is full";
  std::string msg = "cannot " + action + " the LLM replay store " + dir.string();
  if (!advice.empty()) msg += ": " + advice;
  return msg + " (RocksDB: " + status + ")";
}

}  // namespace

std::string request_hash(const json& body) {
  // nlohmann::json keeps object keys sorted, so dump() is canonical for a given body. Invalid
  // UTF-8 is replaced exactly as http_client does when it sends the body.
  return common::sha256_hex(dumps(body));
}

// ---------------------------------------------------------------------------------------------
// replay_store

void replay_store::check(const void* status, const std::string& action) const {
  const auto& s = *static_cast<const rocksdb::Status*>(status);
  if (!s.ok()) throw aopt::error(ec::io_error, explain(s.ToString(), dir_, action));
}

replay_store::replay_store(const fs::path& dir, bool create_if_missing) : dir_(dir) {
  if (dir_.empty()) throw aopt::error(ec::invalid_argument, "LLM replay store: empty directory name");
  std::error_code fec;
  if (!fs::exists(dir_ / "CURRENT", fec)) {
    if (!create_if_missing)
      throw aopt::error(ec::not_found, "no LLM replay store at " + dir_.string() +
                                           "; record a run into it first, or check the path");
    fs::create_directories(dir_, fec);
    if (fec)
      throw aopt::error(ec::io_error, "cannot create the LLM replay store directory " + dir_.string() +
                                          ": " + fec.message());
  }
  rocksdb::Options options;
  options.create_if_missing = create_if_missing;
  options.keep_log_file_num = 4;
  const rocksdb::Status s = rocksdb::DB::Open(options, dir_.string(), &db_);
  if (!s.ok()) {
    db_ = nullptr;
    check(&s, "open");
  }
  std::string version;
  const rocksdb::Status g = db_->Get(rocksdb::ReadOptions(), k_schema_key, &version);
  if (g.IsNotFound()) {
    rocksdb::WriteOptions wo;
    wo.sync = true;
    const rocksdb::Status w = db_->Put(wo, k_schema_key, std::to_string(replay_schema_version));
    if (!w.ok()) {
      const std::string msg = explain(w.ToString(), dir_, "initialise");
      close();
      throw aopt::error(ec::io_error, msg);
    }
  } else if (!g.ok() || version != std::to_string(replay_schema_version)) {
    const std::string msg = g.ok() ? "LLM replay store " + dir_.string() + " has schema version '" + version +
                                         "', this aopt reads " + std::to_string(replay_schema_version) +
                                         "; record again with this version"
                                   : explain(g.ToString(), dir_, "read");
    close();
    throw aopt::error(g.ok() ? ec::invalid_spec : ec::io_error, msg);
  }
}

replay_store::~replay_store() {
  try {
    close();
  } catch (...) {  // a destructor must not throw; close() released what it could
  }
}

void replay_store::close() {
  if (db_ == nullptr) return;
  const rocksdb::Status s = db_->Close();
  delete db_;
  db_ = nullptr;
  if (!s.ok() && !s.IsNotSupported()) throw aopt::error(ec::io_error, explain(s.ToString(), dir_, "close"));
}

void replay_store::put(const json& body, std::size_t n, const json& answer) {
  if (db_ == nullptr) throw aopt::error(ec::invalid_argument, "LLM replay store " + dir_.string() + ": put after close()");
  const std::string hash = request_hash(body);
  rocksdb::WriteOptions wo;
  wo.sync = true;  // ~200 us, nothing next to a model call; a crash keeps what was recorded
  rocksdb::WriteBatch batch;
  batch.Put("req/" + hash, dumps(body));
  batch.Put(slot_key(hash, n), dumps(answer));
  const rocksdb::Status s = db_->Write(wo, &batch);
  check(&s, "write to");
}

std::optional<json> replay_store::get(const std::string& hash, std::size_t n) const {
  if (db_ == nullptr) return std::nullopt;
  // The slot itself, or the closest recorded one before it (fewer asks were recorded).
  std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(rocksdb::ReadOptions()));
  const std::string prefix = "res/" + hash + "/";
  it->SeekForPrev(slot_key(hash, n));
  if (!it->Valid() || !it->key().starts_with(prefix)) return std::nullopt;
  try {
    return json::parse(it->value().ToString());
  } catch (const json::parse_error& e) {
    throw aopt::error(ec::io_error, "LLM replay store " + dir_.string() + ": entry " + it->key().ToString() +
                                        " is not JSON (" + e.what() + "); record again");
  }
}

std::size_t replay_store::occurrences(const std::string& hash) const {
  if (db_ == nullptr) return 0;
  std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(rocksdb::ReadOptions()));
  const std::string prefix = "res/" + hash + "/";
  std::size_t n = 0;
  for (it->Seek(prefix); it->Valid() && it->key().starts_with(prefix); it->Next()) ++n;
  return n;
}

std::optional<json> replay_store::request(const std::string& hash) const {
  if (db_ == nullptr) return std::nullopt;
  std::string value;
  const rocksdb::Status s = db_->Get(rocksdb::ReadOptions(), "req/" + hash, &value);
  if (s.IsNotFound()) return std::nullopt;
  check(&s, "read");
  try {
    return json::parse(value);
  } catch (const json::parse_error& e) {
    throw aopt::error(ec::io_error, "LLM replay store " + dir_.string() + ": request " + hash.substr(0, 12) +
                                        " is not JSON (" + e.what() + "); record again");
  }
}

std::size_t replay_store::size() const {
  if (db_ == nullptr) return 0;
  std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(rocksdb::ReadOptions()));
  std::size_t n = 0;
  for (it->Seek("req/"); it->Valid() && it->key().starts_with("req/"); it->Next()) ++n;
  return n;
}

std::size_t occurrence_counter::next(const std::string& hash) {
  std::lock_guard lock(mutex_);
  return seen_[hash]++;
}

// ---------------------------------------------------------------------------------------------
// Answers as stored. A failed call is stored too (as {"failure": reason}), so a replayed job
// sees the same failures at the same asks and takes the same path: "identical results".

namespace {

json usage_json(const token_usage& t) {
  return {{"prompt_tokens", t.prompt_tokens}, {"completion_tokens", t.completion_tokens}};
}

token_usage usage_of(const json& answer) {
  token_usage t;
  if (auto u = answer.find("usage"); u != answer.end() && u->is_object()) {
    t.prompt_tokens = u->value("prompt_tokens", std::uint64_t{0});
    t.completion_tokens = u->value("completion_tokens", std::uint64_t{0});
  }
  return t;
}

std::string miss_reason(const char* role_name, const std::string& hash, const fs::path& dir) {
  return std::string("no recorded response for ") + role_name + " request " + hash.substr(0, 12) +
         "; record it first: run the same job against a live endpoint with recording into " + dir.string() +
         " (the model, prompts, temperature and max_tokens must match the recording)";
}

// A stored chat answer as the caller would have had it (replayed).
search::outcome<chat_response> chat_answer(const json& answer) {
  if (answer.contains("failure")) return search::engine_failure{answer.value("failure", std::string())};
  chat_response r;
  r.content = answer.value("content", std::string());
  r.model = answer.value("model", std::string());
  r.finish_reason = answer.value("finish_reason", std::string());
  r.tokens = usage_of(answer);
  r.replayed = true;
  return r;
}

// A stored embeddings answer; a damaged entry is a failure naming the store.
search::outcome<std::vector<std::vector<float>>> embed_answer(const json& answer, const std::string& hash,
                                                              const fs::path& dir) {
  if (answer.contains("failure")) return search::engine_failure{answer.value("failure", std::string())};
  try {
    return answer.at("vectors").get<std::vector<std::vector<float>>>();
  } catch (const json::exception& e) {
    return search::engine_failure{"LLM replay store " + dir.string() + ": embeddings entry " + hash.substr(0, 12) +
                                  " is damaged (" + e.what() + "); record again"};
  }
}

}  // namespace

recording_client::recording_client(client& inner, replay_store& store, llm_config config, bool resume)
    : forwarding_client(inner), store_(store), config_(std::move(config)), resume_(resume) {}

search::outcome<chat_response> recording_client::chat(const chat_request& request) {
  const json body = chat_request_body(request, config_);
  const std::string hash = request_hash(body);
  const std::size_t n = counter_.next(hash);
  if (resume_ && store_.occurrences(hash) > n) return chat_answer(*store_.get(hash, n));
  auto result = inner_.chat(request);
  json answer = {{"kind", "chat"}, {"role", to_string(request.role)}};
  if (result.ok()) {
    const chat_response& r = result.value();
    answer["content"] = r.content;
    answer["model"] = r.model;
    answer["finish_reason"] = r.finish_reason;
    answer["usage"] = usage_json(r.tokens);
  } else {
    answer["failure"] = result.reason();
  }
  store_.put(body, n, answer);
  return result;
}

search::outcome<std::vector<std::vector<float>>> recording_client::embed(const std::vector<std::string>& texts) {
  const json body = embeddings_request_body(texts, inner_.embedding_model());
  const std::string hash = request_hash(body);
  const std::size_t n = counter_.next(hash);
  if (resume_ && store_.occurrences(hash) > n) return embed_answer(*store_.get(hash, n), hash, store_.dir());
  auto result = inner_.embed(texts);
  json answer = {{"kind", "embeddings"}, {"model", inner_.embedding_model()}};
  if (result.ok()) answer["vectors"] = result.value();
  else answer["failure"] = result.reason();
  store_.put(body, n, answer);
  return result;
}

replay_client::replay_client(replay_store& store, llm_config config) : store_(store), config_(std::move(config)) {}

void replay_client::account(role r, bool failed, const token_usage& t) {
  std::lock_guard lock(mutex_);
  auto& u = usage_[to_string(r)];
  ++u.requests;
  if (failed) ++u.failures;
  u.prompt_tokens += t.prompt_tokens;
  u.completion_tokens += t.completion_tokens;
}

usage_by_role replay_client::usage() const {
  std::lock_guard lock(mutex_);
  return usage_;
}

search::outcome<chat_response> replay_client::chat(const chat_request& request) {
  const json body = chat_request_body(request, config_);
  const std::string hash = request_hash(body);
  const auto answer = store_.get(hash, counter_.next(hash));
  if (!answer) {
    account(request.role, true, {});
    return search::engine_failure{miss_reason(to_string(request.role), hash, store_.dir())};
  }
  auto r = chat_answer(*answer);
  account(request.role, !r.ok(), r.ok() ? r.value().tokens : token_usage{});
  return r;
}

search::outcome<std::vector<std::vector<float>>> replay_client::embed(const std::vector<std::string>& texts) {
  const std::string model = embedding_model();
  if (model.empty()) {
    account(role::embeddings, true, {});
    return search::engine_failure{"no embeddings model configured; set [llm.models] embeddings = \"...\""};
  }
  if (texts.empty()) return std::vector<std::vector<float>>{};
  const json body = embeddings_request_body(texts, model);
  const std::string hash = request_hash(body);
  const auto answer = store_.get(hash, counter_.next(hash));
  if (!answer) {
    account(role::embeddings, true, {});
    return search::engine_failure{miss_reason("embeddings", hash, store_.dir())};
  }
  auto r = embed_answer(*answer, hash, store_.dir());
  account(role::embeddings, !r.ok(), {});
  return r;
}

}  // namespace aopt::llm
