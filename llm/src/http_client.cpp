#include "aopt/llm/http_client.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <chrono>
#include <cmath>
#include <mutex>
#include <stdexcept>
#include <thread>

#include <curl/curl.h>

#include "aopt/common/error.h"

namespace aopt::llm {

using clock_type = std::chrono::steady_clock;
using nlohmann::json;

// ---------------------------------------------------------------------------------------------
// Request bodies and response parsing

json chat_request_body(const chat_request& request, const llm_config& config) {
  json messages = json::array();
  for (const auto& m : request.messages) messages.push_back({{"role", m.role}, {"content", m.content}});
  return {{"model", config.model_for(request.role)},
          {"messages", std::move(messages)},
          {"temperature", request.temperature.value_or(config.temperature)},
          {"max_tokens", request.max_tokens.value_or(config.max_tokens)}};
}

json embeddings_request_body(const std::vector<std::string>& texts, const std::string& model) {
  return {{"model", model}, {"input", texts}};
}

namespace {

[[noreturn]] void malformed(const std::string& what) { throw std::runtime_error("malformed response: " + what); }

// The start of a body for a message: one line, short.
std::string snippet(const std::string& body, std::size_t max = 120) {
  std::string s = body.substr(0, max);
  for (char& c : s) {
    if (c == '\n' || c == '\r' || c == '\t') c = ' ';
  }
  return body.size() > max ? s + "..." : s;
}

json parse_body(const std::string& body) {
  try {
    return json::parse(body);
  } catch (const json::parse_error&) {
    malformed("not JSON (" + std::to_string(body.size()) + " bytes, starts '" + snippet(body, 60) + "')");
  }
}

void read_usage(const json& doc, token_usage& t) {
  const auto u = doc.find("usage");
  if (u == doc.end() || !u->is_object()) return;
  if (auto p = u->find("prompt_tokens"); p != u->end() && p->is_number_unsigned()) t.prompt_tokens = p->get<std::uint64_t>();
  if (auto c = u->find("completion_tokens"); c != u->end() && c->is_number_unsigned())
    t.completion_tokens = c->get<std::uint64_t>();
}

}  // namespace

chat_response parse_chat_response(const std::string& body) {
  const json doc = parse_body(body);
  if (!doc.is_object()) malformed("the body is not a JSON object");
  const auto choices = doc.find("choices");
  if (choices == doc.end() || !choices->is_array() || choices->empty()) malformed("no choices");
  const json& choice = (*choices)[0];
  if (!choice.is_object() || !choice.contains("message") || !choice["message"].is_object())
    malformed("no choices[0].message");
  const json& message = choice["message"];
  const auto content = message.find("content");
  if (content == message.end() || !content->is_string()) malformed("no choices[0].message.content string");
  chat_response r;
  r.content = content->get<std::string>();
  if (auto m = doc.find("model"); m != doc.end() && m->is_string()) r.model = m->get<std::string>();
  if (auto f = choice.find("finish_reason"); f != choice.end() && f->is_string()) r.finish_reason = f->get<std::string>();
  read_usage(doc, r.tokens);
  return r;
}

std::vector<std::vector<float>> parse_embeddings_response(const std::string& body, std::size_t expected,
                                                         token_usage& tokens) {
  const json doc = parse_body(body);
  if (!doc.is_object()) malformed("the body is not a JSON object");
  const auto data = doc.find("data");
  if (data == doc.end() || !data->is_array()) malformed("no data array");
  if (data->size() != expected)
    malformed(std::to_string(data->size()) + " embeddings for " + std::to_string(expected) + " inputs");
  std::vector<std::vector<float>> out(expected);
  std::vector<bool> seen(expected, false);
  for (std::size_t i = 0; i < data->size(); ++i) {
    const json& item = (*data)[i];
    if (!item.is_object()) malformed("data[" + std::to_string(i) + "] is not an object");
    // Servers may answer out of order: "index" says which input a vector belongs to.
    std::size_t index = i;
    if (auto ix = item.find("index"); ix != item.end()) {
      if (!ix->is_number_unsigned()) malformed("data[" + std::to_string(i) + "].index is not an unsigned integer");
      index = ix->get<std::size_t>();
    }
    if (index >= expected || seen[index]) malformed("data[" + std::to_string(i) + "].index " + std::to_string(index) + " is out of range or repeated");
    const auto e = item.find("embedding");
    if (e == item.end() || !e->is_array() || e->empty()) malformed("data[" + std::to_string(i) + "].embedding is not a non-empty array");
    auto& v = out[index];
    v.reserve(e->size());
    for (const auto& x : *e) {
      if (!x.is_number()) malformed("data[" + std::to_string(i) + "].embedding has a non-number");
      v.push_back(x.get<float>());
    }
    seen[index] = true;
  }
  read_usage(doc, tokens);
  return out;
}

// ---------------------------------------------------------------------------------------------
// Transport

struct http_client::attempt_result {
  CURLcode curl = CURLE_OK;
  std::string curl_error;
  long status = 0;
  std::string body;
  std::optional<int> retry_after_s;
};

struct http_client::call_result {
  bool ok = false;
  std::string body;
  int attempts = 0;
  std::string reason;
};

namespace {

std::once_flag g_curl_once;

std::size_t on_body(char* data, std::size_t size, std::size_t n, void* user) {
  static_cast<std::string*>(user)->append(data, size * n);
  return size * n;
}

std::size_t on_header(char* data, std::size_t size, std::size_t n, void* user) {
  auto* retry_after = static_cast<std::optional<int>*>(user);
  const std::string line(data, size * n);
  constexpr std::string_view name = "retry-after:";
  if (line.size() > name.size()) {
    bool match = true;
    for (std::size_t i = 0; i < name.size() && match; ++i)
      match = std::tolower(static_cast<unsigned char>(line[i])) == name[i];
    if (match) {
      // Only the delay-seconds form; an HTTP date is rare from API servers and falls back
      // to our own backoff.
      try {
        const int s = std::stoi(line.substr(name.size()));
        if (s >= 0) *retry_after = s;
      } catch (const std::exception&) {
      }
    }
  } else if (line.rfind("HTTP/", 0) == 0) {
    retry_after->reset();  // a new response (after 100-continue): forget the previous headers
  }
  return size * n;
}

bool retryable_curl(CURLcode c) {
  switch (c) {
    case CURLE_OPERATION_TIMEDOUT:
    case CURLE_COULDNT_CONNECT:
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_COULDNT_RESOLVE_PROXY:
    case CURLE_GOT_NOTHING:
    case CURLE_SEND_ERROR:
    case CURLE_RECV_ERROR:
    case CURLE_PARTIAL_FILE:
    case CURLE_SSL_CONNECT_ERROR:
      return true;
    default:
      return false;
  }
}

// The error message of an OpenAI-style error body ({"error": {"message": ...}}), else its start.
std::string error_text(const std::string& body) {
  try {
    const json doc = json::parse(body);
    if (doc.is_object() && doc.contains("error")) {
      const json& e = doc["error"];
      if (e.is_object() && e.contains("message") && e["message"].is_string()) return snippet(e["message"].get<std::string>(), 200);
      if (e.is_string()) return snippet(e.get<std::string>(), 200);
    }
  } catch (const json::parse_error&) {
  }
  return body.empty() ? "empty body" : snippet(body, 200);
}

std::string endpoint_root(std::string url) {
  while (!url.empty() && url.back() == '/') url.pop_back();
  // Users often copy "https://host/v1" from provider docs; we append /v1/... ourselves.
  if (url.size() >= 3 && url.compare(url.size() - 3, 3, "/v1") == 0) url.resize(url.size() - 3);
  return url;
}

}  // namespace

http_client::http_client(llm_config config) : config_(std::move(config)), rng_(config_.seed) {
  config_.validate();
  for (std::size_t i = 0; i < role_count; ++i) {
    const auto r = static_cast<role>(i);
    if (r != role::embeddings && config_.model_for(r).empty())
      throw aopt::error(ec::invalid_spec, std::string("[llm] no model for role '") + to_string(r) +
                                              "': set [llm] model = \"...\" (the default of every role) or "
                                              "[llm.models] " + to_string(r) + " = \"...\"");
  }
  if (!config_.api_key_env.empty()) {
    if (const char* key = std::getenv(config_.api_key_env.c_str()); key != nullptr) api_key_ = key;
  }
  std::call_once(g_curl_once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

http_client::~http_client() = default;

std::string http_client::redact(std::string s) const {
  if (!api_key_.empty()) {
    for (std::size_t p = s.find(api_key_); p != std::string::npos; p = s.find(api_key_, p))
      s.replace(p, api_key_.size(), "<redacted>");
  }
  for (char& c : s) {
    if (c == '\n' || c == '\r') c = ' ';
  }
  if (s.size() > 500) s = s.substr(0, 500) + "...";
  return s;
}

void http_client::acquire_slot() {
  std::unique_lock lock(mutex_);
  slot_free_.wait(lock, [&] { return in_flight_ < config_.max_concurrency; });
  ++in_flight_;
}

void http_client::release_slot() {
  {
    std::lock_guard lock(mutex_);
    --in_flight_;
  }
  slot_free_.notify_one();
}

int http_client::backoff_ms(int retry) {
  const double base = std::min<double>(config_.backoff_max_ms,
                                       config_.backoff_initial_ms * std::pow(2.0, std::max(0, retry - 1)));
  double factor = 1.0;
  if (config_.jitter > 0) {
    std::lock_guard lock(mutex_);
    factor = std::uniform_real_distribution<double>(1.0 - config_.jitter, 1.0 + config_.jitter)(rng_);
  }
  return static_cast<int>(std::min<double>(config_.backoff_max_ms, base * factor));
}

http_client::attempt_result http_client::post_once(const std::string& url, const std::string& body) {
  attempt_result r;
  CURL* h = curl_easy_init();
  if (h == nullptr) {
    r.curl = CURLE_FAILED_INIT;
    r.curl_error = "curl_easy_init failed";
    return r;
  }
  char errbuf[CURL_ERROR_SIZE] = {0};
  curl_slist* headers = nullptr;
  headers = curl_slist_append(headers, "Content-Type: application/json");
  headers = curl_slist_append(headers, "Accept: application/json");
  headers = curl_slist_append(headers, "Expect:");  // no 100-continue round trip on large prompts
  if (!api_key_.empty()) headers = curl_slist_append(headers, ("Authorization: Bearer " + api_key_).c_str());

  curl_easy_setopt(h, CURLOPT_URL, url.c_str());
  curl_easy_setopt(h, CURLOPT_POST, 1L);
  curl_easy_setopt(h, CURLOPT_POSTFIELDS, body.data());
  curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(body.size()));
  curl_easy_setopt(h, CURLOPT_HTTPHEADER, headers);
  curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_body);
  curl_easy_setopt(h, CURLOPT_WRITEDATA, &r.body);
  curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, on_header);
  curl_easy_setopt(h, CURLOPT_HEADERDATA, &r.retry_after_s);
  curl_easy_setopt(h, CURLOPT_ERRORBUFFER, errbuf);
  curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);  // threads: no SIGALRM-based DNS timeouts
  curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, static_cast<long>(config_.request_timeout_ms));
  curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(config_.connect_timeout_ms));
  curl_easy_setopt(h, CURLOPT_ACCEPT_ENCODING, "");

  r.curl = curl_easy_perform(h);
  if (r.curl != CURLE_OK) {
    r.curl_error = errbuf[0] != '\0' ? std::string(errbuf) : std::string(curl_easy_strerror(r.curl));
  } else {
    curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &r.status);
  }
  curl_slist_free_all(headers);
  curl_easy_cleanup(h);
  return r;
}

http_client::call_result http_client::post(const std::string& path, const std::string& body) {
  const std::string url = endpoint_root(config_.base_url) + path;
  const int max_attempts = config_.max_retries + 1;
  call_result out;
  for (int attempt = 1;; ++attempt) {
    acquire_slot();
    attempt_result r;
    try {
      r = post_once(url, body);
    } catch (...) {
      release_slot();
      throw;
    }
    release_slot();
    out.attempts = attempt;

    bool retry = false;
    std::string what;
    if (r.curl != CURLE_OK) {
      retry = retryable_curl(r.curl);
      what = r.curl == CURLE_OPERATION_TIMEDOUT
                 ? "timed out after " + std::to_string(config_.request_timeout_ms) + " ms (" + r.curl_error + ")"
                 : "connection error: " + r.curl_error;
    } else if (r.status >= 200 && r.status < 300) {
      out.ok = true;
      out.body = std::move(r.body);
      return out;
    } else {
      retry = r.status == 429 || r.status >= 500;
      what = "HTTP " + std::to_string(r.status) + ": " + error_text(r.body);
    }
    if (!retry || attempt >= max_attempts) {
      out.reason = "POST " + url + " " + what;
      if (attempt > 1) out.reason += " (after " + std::to_string(attempt) + " attempts)";
      else if (!retry && r.curl == CURLE_OK)
        out.reason += " (not retried: a client error does not go away by asking again)";
      out.reason = redact(out.reason);
      return out;
    }
    int delay = backoff_ms(attempt);
    if (r.retry_after_s && (r.status == 429 || r.status == 503))
      delay = static_cast<int>(std::min<long long>(config_.backoff_max_ms, *r.retry_after_s * 1000LL));
    std::this_thread::sleep_for(std::chrono::milliseconds(delay));
  }
}

// ---------------------------------------------------------------------------------------------
// Accounting

bool http_client::budget_spent() const {
  std::lock_guard lock(mutex_);
  return config_.token_budget > 0 && tokens_used_ >= config_.token_budget;
}

std::uint64_t http_client::tokens_used() const {
  std::lock_guard lock(mutex_);
  return tokens_used_;
}

void http_client::account(role r, bool failed, int attempts, const token_usage& t, double seconds) {
  std::lock_guard lock(mutex_);
  auto& u = usage_[to_string(r)];
  ++u.requests;
  if (failed) ++u.failures;
  if (attempts > 1) u.retries += static_cast<std::uint64_t>(attempts - 1);
  u.prompt_tokens += t.prompt_tokens;
  u.completion_tokens += t.completion_tokens;
  u.seconds += seconds;
  tokens_used_ += t.prompt_tokens + t.completion_tokens;
}

usage_by_role http_client::usage() const {
  std::lock_guard lock(mutex_);
  return usage_;
}

std::string http_client::model_for(role r) const { return config_.model_for(r); }
std::string http_client::embedding_model() const { return config_.model_for(role::embeddings); }

namespace {
double since(clock_type::time_point t0) {
  return std::chrono::duration<double>(clock_type::now() - t0).count();
}
// When a server reports no usage, estimate (about 4 characters a token) so the budget still binds.
std::uint64_t estimate_tokens(std::size_t chars) { return (chars + 3) / 4; }
}  // namespace

outcome<chat_response> http_client::chat(const chat_request& request) {
  const auto t0 = clock_type::now();
  auto fail = [&](std::string reason, int attempts) -> outcome<chat_response> {
    account(request.role, true, attempts, {}, since(t0));
    return engine_failure{redact(std::move(reason))};
  };
  if (budget_spent())
    return fail("token budget of " + std::to_string(config_.token_budget) +
                    " exhausted; raise [llm] token_budget (0 = unlimited) or let the job end",
                0);
  const std::string body = chat_request_body(request, config_).dump(-1, ' ', false, json::error_handler_t::replace);
  call_result res = post("/v1/chat/completions", body);
  if (!res.ok) return fail(std::string(to_string(request.role)) + " request failed: " + res.reason, res.attempts);
  chat_response out;
  try {
    out = parse_chat_response(res.body);
  } catch (const std::runtime_error& e) {
    return fail(std::string(to_string(request.role)) + " request: " + e.what(), res.attempts);
  }
  if (out.tokens.prompt_tokens == 0 && out.tokens.completion_tokens == 0) {
    out.tokens.prompt_tokens = estimate_tokens(body.size());
    out.tokens.completion_tokens = estimate_tokens(out.content.size());
  }
  out.attempts = res.attempts;
  out.seconds = since(t0);
  account(request.role, false, res.attempts, out.tokens, out.seconds);
  return out;
}

outcome<std::vector<std::vector<float>>> http_client::embed(const std::vector<std::string>& texts) {
  using result = outcome<std::vector<std::vector<float>>>;
  const auto t0 = clock_type::now();
  auto fail = [&](std::string reason, int attempts) -> result {
    account(role::embeddings, true, attempts, {}, since(t0));
    return engine_failure{redact(std::move(reason))};
  };
  const std::string model = embedding_model();
  if (model.empty())
    return fail("no embeddings model configured; set [llm.models] embeddings = \"...\" to rank by embeddings", 0);
  if (texts.empty()) return std::vector<std::vector<float>>{};
  if (budget_spent())
    return fail("token budget of " + std::to_string(config_.token_budget) +
                    " exhausted; raise [llm] token_budget (0 = unlimited) or let the job end",
                0);
  const std::string body = embeddings_request_body(texts, model).dump(-1, ' ', false, json::error_handler_t::replace);
  call_result res = post("/v1/embeddings", body);
  if (!res.ok) return fail("embeddings request failed: " + res.reason, res.attempts);
  token_usage tokens;
  std::vector<std::vector<float>> vectors;
  try {
    vectors = parse_embeddings_response(res.body, texts.size(), tokens);
  } catch (const std::runtime_error& e) {
    return fail(std::string("embeddings request: ") + e.what(), res.attempts);
  }
  if (tokens.prompt_tokens == 0) tokens.prompt_tokens = estimate_tokens(body.size());
  account(role::embeddings, false, res.attempts, tokens, since(t0));
  return vectors;
}

}  // namespace aopt::llm
