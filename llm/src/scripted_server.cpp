#include "aopt/llm/scripted_server.h"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>

#include <httplib.h>

#include "aopt/common/error.h"
#include "aopt/common/json.h"

namespace aopt::llm {

using nlohmann::json;

std::vector<float> hash_embedding(const std::string& text, std::size_t dim) {
  std::vector<float> v(std::max<std::size_t>(dim, 1), 0.0f);
  std::uint64_t h = 0;
  bool in_token = false;
  auto flush = [&] {
    if (in_token) v[h % v.size()] += 1.0f;
    in_token = false;
  };
  for (char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    if (std::isalnum(c) || c == '_') {
      if (!in_token) h = 1469598103934665603ULL;  // FNV-1a offset basis
      in_token = true;
      h = (h ^ static_cast<std::uint64_t>(std::tolower(c))) * 1099511628211ULL;
    } else {
      flush();
    }
  }
  flush();
  double norm = 0;
  for (float x : v) norm += static_cast<double>(x) * x;
  if (norm > 0) {
    const auto inv = static_cast<float>(1.0 / std::sqrt(norm));
    for (float& x : v) x *= inv;
  }
  return v;
}

// ---------------------------------------------------------------------------------------------
// Script parsing

namespace {

[[noreturn]] void bad(const std::string& where, const std::string& what) {
  throw aopt::error(ec::invalid_spec, where + ": " + what);
}

int int_field(const json& v, const std::string& where, const char* key, int lo) {
  if (!v.is_number_integer() || v.get<long long>() < lo || v.get<long long>() > 1'000'000'000)
    bad(where, std::string("'") + key + "' must be an integer >= " + std::to_string(lo));
  return v.get<int>();
}

std::string str_field(const json& v, const std::string& where, const char* key) {
  if (!v.is_string()) bad(where, std::string("'") + key + "' must be a string");
  return v.get<std::string>();
}

script_fault parse_fault(const json& f, const std::string& where) {
  if (!f.is_object()) bad(where, "'fault' must be an object such as {\"status\": 500}");
  script_fault out;
  for (const auto& [k, v] : f.items()) {
    if (k == "delay_ms") out.delay_ms = int_field(v, where, "fault.delay_ms", 0);
    else if (k == "status") out.status = int_field(v, where, "fault.status", 400);
    else if (k == "retry_after") out.retry_after = int_field(v, where, "fault.retry_after", 0);
    else if (k == "malformed" || k == "truncated") {
      if (!v.is_boolean()) bad(where, "'fault." + k + "' must be true or false");
      (k == "malformed" ? out.malformed : out.truncated) = v.get<bool>();
    } else {
      bad(where, "unknown fault key '" + k + "'; known: delay_ms, status, retry_after, malformed, truncated");
    }
  }
  if (out.status > 599) bad(where, "'fault.status' must be an HTTP error status (400-599)");
  if (out.retry_after && out.status == 0) bad(where, "'fault.retry_after' needs a 'fault.status' (429 or 503)");
  return out;
}

script_rule parse_rule(const json& r, const std::string& where) {
  if (!r.is_object()) bad(where, "a rule must be a JSON object");
  script_rule out;
  bool has_reply = false;
  for (const auto& [k, v] : r.items()) {
    if (k == "model") out.model = str_field(v, where, "model");
    else if (k == "contains") out.contains = str_field(v, where, "contains");
    else if (k == "times") out.times = int_field(v, where, "times", 1);
    else if (k == "reply") {
      out.reply = str_field(v, where, "reply");
      has_reply = true;
    } else if (k == "embedding") {
      out.is_embedding = true;
      if (v.is_string() && v.get<std::string>() == "hash") out.hash_embedding = true;
      else if (v.is_array() && !v.empty() && std::all_of(v.begin(), v.end(), [](const json& x) { return x.is_number(); }))
        out.embedding = v.get<std::vector<float>>();
      else bad(where, "'embedding' must be \"hash\" or a non-empty array of numbers");
    } else if (k == "usage") {
      if (!v.is_object()) bad(where, "'usage' must be an object {\"prompt_tokens\": P, \"completion_tokens\": C}");
      for (const auto& [uk, uv] : v.items()) {
        if (uk == "prompt_tokens") out.prompt_tokens = static_cast<std::uint64_t>(int_field(uv, where, "usage.prompt_tokens", 0));
        else if (uk == "completion_tokens")
          out.completion_tokens = static_cast<std::uint64_t>(int_field(uv, where, "usage.completion_tokens", 0));
        else bad(where, "unknown usage key '" + uk + "'; known: prompt_tokens, completion_tokens");
      }
    } else if (k == "fault") {
      out.fault = parse_fault(v, where);
    } else {
      bad(where, "unknown key '" + k + "'; known: model, contains, times, reply, embedding, usage, fault");
    }
  }
  if (has_reply && out.is_embedding) bad(where, "a rule answers chat ('reply') or embeddings ('embedding'), not both");
  const bool pure_fault = out.fault.status != 0 || out.fault.malformed;
  if (!has_reply && !out.is_embedding && !pure_fault)
    bad(where, "the rule needs a 'reply', an 'embedding' or a failing 'fault' (status or malformed)");
  out.any_kind = !has_reply && !out.is_embedding;  // a pure fault hits chat and embeddings alike
  return out;
}

}  // namespace

std::vector<script_rule> parse_script(const json& script, const std::string& source) {
  const json* rules = &script;
  if (script.is_object() && script.contains("rules")) rules = &script["rules"];
  if (!rules->is_array()) bad(source, "a script is a JSON array of rules (or {\"rules\": [...]})");
  std::vector<script_rule> out;
  for (std::size_t i = 0; i < rules->size(); ++i)
    out.push_back(parse_rule((*rules)[i], source + ": rule " + std::to_string(i)));
  return out;
}

std::vector<script_rule> load_script(const std::filesystem::path& file) {
  return parse_script(common::read_json_file(file), file.string());
}

// ---------------------------------------------------------------------------------------------
// Server

struct scripted_server::impl {
  httplib::Server server;
  std::thread thread;
  std::mutex mutex;  // rules (times) and requests
  std::vector<script_rule> rules;
  std::vector<recorded_request> requests;
  std::mutex stop_mutex;
  std::condition_variable stop_cv;
  bool stopping = false;
  bool started = false;
};

namespace {

json error_body(const std::string& message, const char* type) {
  return {{"error", {{"message", message}, {"type", type}}}};
}

// Cutting text (truncated replies, message starts) can split a UTF-8 sequence: replace, never throw.
std::string dumps(const json& j) { return j.dump(-1, ' ', false, json::error_handler_t::replace); }

struct in_flight_guard {
  std::atomic<int>& n;
  ~in_flight_guard() { --n; }
};

std::uint64_t approx_tokens(std::size_t chars) { return (chars + 3) / 4; }

// The reply cut in the middle of its first code block (or in the middle when it has none),
// like an answer that hit max_tokens.
std::string truncate_reply(const std::string& reply) {
  const auto open = reply.find("```");
  if (open == std::string::npos) return reply.substr(0, reply.size() / 2);
  auto body = reply.find('\n', open);
  body = body == std::string::npos ? open + 3 : body + 1;
  auto close = reply.find("```", body);
  if (close == std::string::npos) close = reply.size();
  return reply.substr(0, body + (close - body) / 2);
}

bool matches(const script_rule& r, bool embeddings, const std::string& model, const std::vector<std::string>& texts) {
  if (!r.any_kind && r.is_embedding != embeddings) return false;
  if (r.times && *r.times <= 0) return false;
  if (r.model && *r.model != model) return false;
  if (r.contains) {
    return std::any_of(texts.begin(), texts.end(),
                       [&](const std::string& t) { return t.find(*r.contains) != std::string::npos; });
  }
  return true;
}

}  // namespace

scripted_server::scripted_server(std::vector<script_rule> rules) : impl_(std::make_unique<impl>()) {
  impl_->rules = std::move(rules);
  // Enough workers that a concurrency test measures the client's limit, not ours.
  impl_->server.new_task_queue = [] { return new httplib::ThreadPool(16); };

  auto handle = [this](bool embeddings, const httplib::Request& req, httplib::Response& res) {
    const int now = ++in_flight_;
    const in_flight_guard guard{in_flight_};
    for (int seen = max_in_flight_.load(); now > seen && !max_in_flight_.compare_exchange_weak(seen, now);) {
    }
    std::size_t index = 0;
    {
      std::lock_guard lock(impl_->mutex);
      index = impl_->requests.size();
      impl_->requests.push_back({req.path, req.body, req.get_header_value("Authorization"), 0});
    }
    auto reply = [&](int status, const std::string& body) {
      res.status = status;
      res.set_content(body, "application/json");
      std::lock_guard lock(impl_->mutex);
      impl_->requests[index].status = status;
    };

    json doc;
    try {
      doc = json::parse(req.body);
    } catch (const json::parse_error&) {
      reply(400, dumps(error_body("request body is not JSON", "invalid_request_error")));
      return;
    }
    const std::string model = doc.is_object() ? doc.value("model", std::string()) : std::string();
    std::vector<std::string> texts;  // what "contains" looks at
    std::size_t prompt_chars = 0;
    if (embeddings) {
      const json input = doc.is_object() ? doc.value("input", json()) : json();
      if (input.is_string()) texts.push_back(input.get<std::string>());
      else if (input.is_array())
        for (const auto& t : input) texts.push_back(t.is_string() ? t.get<std::string>() : t.dump());
      for (const auto& t : texts) prompt_chars += t.size();
    } else if (doc.is_object() && doc.contains("messages") && doc["messages"].is_array()) {
      std::string last_user;
      for (const auto& m : doc["messages"]) {
        const std::string content = m.is_object() ? m.value("content", std::string()) : std::string();
        prompt_chars += content.size();
        if (m.is_object() && m.value("role", std::string()) == "user") last_user = content;
      }
      texts.push_back(last_user);
    }

    std::optional<script_rule> rule;
    {
      std::lock_guard lock(impl_->mutex);
      for (auto& r : impl_->rules) {
        if (!matches(r, embeddings, model, texts)) continue;
        if (r.times) --*r.times;
        rule = r;
        break;
      }
    }
    if (!rule) {
      const std::string start = texts.empty() ? std::string() : texts.front().substr(0, 60);
      reply(404, dumps(error_body("scripted endpoint: no rule matches this " +
                                std::string(embeddings ? "embeddings" : "chat") + " request (model '" + model +
                                "', text starts '" + start + "'); add a rule to the script",
                            "invalid_request_error")));
      return;
    }
    const script_fault& f = rule->fault;
    if (f.delay_ms > 0) {
      std::unique_lock lock(impl_->stop_mutex);
      impl_->stop_cv.wait_for(lock, std::chrono::milliseconds(f.delay_ms), [&] { return impl_->stopping; });
    }
    if (f.status != 0) {
      if (f.retry_after) res.set_header("Retry-After", std::to_string(*f.retry_after));
      reply(f.status, error_body("scripted fault: HTTP " + std::to_string(f.status), "server_error").dump());
    } else if (f.malformed) {
      reply(200, "{\"choices\": [ {\"message\": this is not JSON");
    } else if (embeddings) {
      json data = json::array();
      for (std::size_t i = 0; i < texts.size(); ++i) {
        data.push_back({{"object", "embedding"},
                        {"index", i},
                        {"embedding", rule->hash_embedding ? hash_embedding(texts[i]) : rule->embedding}});
      }
      const std::uint64_t p = rule->prompt_tokens.value_or(approx_tokens(prompt_chars));
      reply(200, json{{"object", "list"}, {"model", model}, {"data", data},
                      {"usage", {{"prompt_tokens", p}, {"total_tokens", p}}}}.dump());
    } else {
      const std::string content = f.truncated ? truncate_reply(rule->reply) : rule->reply;
      const std::uint64_t p = rule->prompt_tokens.value_or(approx_tokens(prompt_chars));
      const std::uint64_t c = rule->completion_tokens.value_or(approx_tokens(content.size()));
      json body = {{"id", "scripted-" + std::to_string(index)},
                   {"object", "chat.completion"},
                   {"model", model},
                   {"choices", json::array({{{"index", 0},
                                             {"message", {{"role", "assistant"}, {"content", content}}},
                                             {"finish_reason", f.truncated ? "length" : "stop"}}})},
                   {"usage", {{"prompt_tokens", p}, {"completion_tokens", c}, {"total_tokens", p + c}}}};
      reply(200, dumps(body));
    }
  };
  impl_->server.Post("/v1/chat/completions",
                     [handle](const httplib::Request& req, httplib::Response& res) { handle(false, req, res); });
  impl_->server.Post("/v1/embeddings",
                     [handle](const httplib::Request& req, httplib::Response& res) { handle(true, req, res); });
}

scripted_server::~scripted_server() { stop(); }

void scripted_server::start(int port) {
  if (impl_->started) return;
  const std::string host = "127.0.0.1";  // loopback only: a test endpoint must not be reachable
  if (port == 0) {
    port_ = impl_->server.bind_to_any_port(host);
  } else {
    port_ = impl_->server.bind_to_port(host, port) ? port : -1;
  }
  if (port_ <= 0)
    throw aopt::error(ec::io_error, "scripted endpoint: cannot bind " + host + ":" + std::to_string(port) +
                                        "; choose another --port (0 = any free port)");
  impl_->started = true;
  impl_->thread = std::thread([this] { impl_->server.listen_after_bind(); });
  // stop() before the accept loop runs would be lost (httplib only stops a running server).
  while (!impl_->server.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
}

void scripted_server::stop() {
  if (!impl_ || !impl_->started) return;
  {
    std::lock_guard lock(impl_->stop_mutex);
    impl_->stopping = true;
  }
  impl_->stop_cv.notify_all();
  impl_->server.stop();
  if (impl_->thread.joinable()) impl_->thread.join();
  impl_->started = false;
}

std::string scripted_server::base_url() const { return "http://127.0.0.1:" + std::to_string(port_); }

std::size_t scripted_server::request_count() const {
  std::lock_guard lock(impl_->mutex);
  return impl_->requests.size();
}

std::vector<recorded_request> scripted_server::requests() const {
  std::lock_guard lock(impl_->mutex);
  return impl_->requests;
}

recorded_request scripted_server::last_request() const {
  std::lock_guard lock(impl_->mutex);
  return impl_->requests.empty() ? recorded_request{} : impl_->requests.back();
}

}  // namespace aopt::llm
