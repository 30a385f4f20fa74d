#include "aopt/llm/replay.h"

#include <algorithm>
#include <cstdio>
#include <memory>

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

storage::kv_store::options store_options(bool create_if_missing) {
  storage::kv_store::options o;
  o.names = {"LLM replay store", "wait for that job or use another replay directory",
             "share one replay_store", "move the directory away and record again"};
  o.create_if_missing = create_if_missing;
  o.missing_hint = "record a run into it first, or check the path";
  o.keep_log_file_num = 4;
  o.schema_key = k_schema_key;
  o.schema_version = std::to_string(replay_schema_version);
  o.schema_hint = "record again with this version";
  return o;
}

}  // namespace

std::string request_hash(const json& body) {
  // nlohmann::json keeps object keys sorted, so dump() is canonical for a given body. Invalid
  // UTF-8 is replaced exactly as http_client does when it sends the body.
  return common::sha256_hex(dumps(body));
}

// ---------------------------------------------------------------------------------------------
// replay_store

replay_store::replay_store(const fs::path& dir, bool create_if_missing) : kv_(dir, store_options(create_if_missing)) {}

void replay_store::put(const json& body, std::size_t n, const json& answer) {
  if (!kv_.is_open()) throw aopt::error(ec::invalid_argument, "LLM replay store " + dir().string() + ": put after close()");
  const std::string hash = request_hash(body);
  // Synced (~200 us, nothing next to a model call): a crash keeps what was recorded.
  kv_.write({{storage::kv_write::kind::put, "req/" + hash, dumps(body)},
             {storage::kv_write::kind::put, slot_key(hash, n), dumps(answer)}});
}

std::optional<json> replay_store::get(const std::string& hash, std::size_t n) const {
  // The slot itself, or the closest recorded one before it (fewer asks were recorded).
  const auto hit = kv_.last_at_or_before("res/" + hash + "/", slot_key(hash, n));
  if (!hit) return std::nullopt;
  try {
    return json::parse(hit->second);
  } catch (const json::parse_error& e) {
    throw aopt::error(ec::io_error, "LLM replay store " + dir().string() + ": entry " + hit->first +
                                        " is not JSON (" + e.what() + "); record again");
  }
}

std::size_t replay_store::occurrences(const std::string& hash) const { return kv_.count("res/" + hash + "/"); }

std::optional<json> replay_store::request(const std::string& hash) const {
  const auto value = kv_.get("req/" + hash);
  if (!value) return std::nullopt;
  try {
    return json::parse(*value);
  } catch (const json::parse_error& e) {
    throw aopt::error(ec::io_error, "LLM replay store " + dir().string() + ": request " + hash.substr(0, 12) +
                                        " is not JSON (" + e.what() + "); record again");
  }
}

std::size_t replay_store::size() const { return kv_.count("req/"); }

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
outcome<chat_response> chat_answer(const json& answer) {
  if (answer.contains("failure")) return engine_failure{answer.value("failure", std::string())};
  chat_response r;
  r.content = answer.value("content", std::string());
  r.model = answer.value("model", std::string());
  r.finish_reason = answer.value("finish_reason", std::string());
  r.tokens = usage_of(answer);
  r.replayed = true;
  return r;
}

// A stored embeddings answer; a damaged entry is a failure naming the store.
outcome<std::vector<std::vector<float>>> embed_answer(const json& answer, const std::string& hash,
                                                              const fs::path& dir) {
  if (answer.contains("failure")) return engine_failure{answer.value("failure", std::string())};
  try {
    return answer.at("vectors").get<std::vector<std::vector<float>>>();
  } catch (const json::exception& e) {
    return engine_failure{"LLM replay store " + dir.string() + ": embeddings entry " + hash.substr(0, 12) +
                                  " is damaged (" + e.what() + "); record again"};
  }
}

}  // namespace

recording_client::recording_client(client& inner, replay_store& store, llm_config config, bool resume)
    : forwarding_client(inner), store_(store), config_(std::move(config)), resume_(resume) {}

outcome<chat_response> recording_client::chat(const chat_request& request) {
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

outcome<std::vector<std::vector<float>>> recording_client::embed(const std::vector<std::string>& texts) {
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

outcome<chat_response> replay_client::chat(const chat_request& request) {
  const json body = chat_request_body(request, config_);
  const std::string hash = request_hash(body);
  const auto answer = store_.get(hash, counter_.next(hash));
  if (!answer) {
    account(request.role, true, {});
    return engine_failure{miss_reason(to_string(request.role), hash, store_.dir())};
  }
  auto r = chat_answer(*answer);
  account(request.role, !r.ok(), r.ok() ? r.value().tokens : token_usage{});
  return r;
}

outcome<std::vector<std::vector<float>>> replay_client::embed(const std::vector<std::string>& texts) {
  const std::string model = embedding_model();
  if (model.empty()) {
    account(role::embeddings, true, {});
    return engine_failure{"no embeddings model configured; set [llm.models] embeddings = \"...\""};
  }
  if (texts.empty()) return std::vector<std::vector<float>>{};
  const json body = embeddings_request_body(texts, model);
  const std::string hash = request_hash(body);
  const auto answer = store_.get(hash, counter_.next(hash));
  if (!answer) {
    account(role::embeddings, true, {});
    return engine_failure{miss_reason("embeddings", hash, store_.dir())};
  }
  auto r = embed_answer(*answer, hash, store_.dir());
  account(role::embeddings, !r.ok(), {});
  return r;
}

}  // namespace aopt::llm
