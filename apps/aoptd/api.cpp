#include "api.h"

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <optional>
#include <sstream>
#include <limits>

#include "aopt/common/error.h"
#include "aopt/common/log.h"
#include "aopt/common/text.h"
#include "aopt/jobs/bank_service.h"

namespace aopt::daemon {

using nlohmann::json;
namespace fs = std::filesystem;

namespace {

http_response json_response(int status, const json& body) {
  http_response r;
  r.status = status;
  // Text is checked where it enters (require_utf8, the package's names); should a malformed byte
  // still get here, it is shown as U+FFFD rather than failing the whole answer.
  r.body = body.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
  return r;
}

// `text` (a part of the request, named by `where`) must be UTF-8: everything the API answers is
// JSON, and a request's text is echoed in it (ids, names, messages). 400 invalid_utf8 naming the
// part and the byte otherwise.
void require_utf8(std::string_view text, const std::string& where, const std::string& field) {
  const auto at = common::first_invalid_utf8(text);
  if (at == std::string_view::npos) return;
  const auto line = std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(at), '\n') + 1;
  const auto b = static_cast<unsigned char>(text[at]);
  const char* hex = "0123456789ABCDEF";
  throw api_error(400, "invalid_utf8",
                  where + " is not valid UTF-8: byte " + std::to_string(at) + (line > 1 ? " (line " + std::to_string(line) + ")" : "") +
                      " is 0x" + hex[b >> 4] + hex[b & 15] + "; send text as UTF-8",
                  field);
}

// Every text of a request: the path after percent-decoding, the query's names and values.
void require_utf8(const http_request& req) {
  require_utf8(req.path, "the path (percent-decoded)", "path");
  for (const auto& [k, v] : req.query) {
    require_utf8(k, "a query parameter's name", common::valid_utf8(k));
    require_utf8(v, "query parameter '" + k + "'", k);
  }
}

// The path split at '/': "/v1/jobs/j000001/cancel" -> {"v1", "jobs", "j000001", "cancel"}.
std::vector<std::string> segments(const std::string& path) {
  std::vector<std::string> out;
  std::size_t start = 1;
  while (start <= path.size()) {
    auto end = path.find('/', start);
    if (end == std::string::npos) end = path.size();
    if (end > start) out.push_back(path.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

template <class T>
T integer(const http_request& req, const std::string& key, T fallback, T lo, T hi) {
  auto it = req.query.find(key);
  if (it == req.query.end()) return fallback;
  T v{};
  const auto& s = it->second;
  auto [p, e] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (e != std::errc() || p != s.data() + s.size()) {
    throw api_error(400, "invalid_argument", key + " '" + s + "' is not an integer", key);
  }
  if (v < lo || v > hi) {
    throw api_error(400, "invalid_argument",
                    key + " " + s + " is outside [" + std::to_string(lo) + ", " + std::to_string(hi) + "]", key);
  }
  return v;
}

void require_method(const http_request& req, std::initializer_list<const char*> allowed) {
  for (const char* m : allowed) {
    if (req.method == m) return;
  }
  std::string list;
  for (const char* m : allowed) list += (list.empty() ? "" : ", ") + std::string(m);
  throw api_error(405, "method_not_allowed", req.method + " " + req.path + ": allowed: " + list);
}

void check_query(const http_request& req, std::initializer_list<const char*> known) {
  for (const auto& [k, v] : req.query) {
    bool ok = false;
    for (const char* n : known) ok = ok || k == n;
    if (!ok) {
      std::string list;
      for (const char* n : known) list += (list.empty() ? "" : ", ") + std::string(n);
      throw api_error(400, "invalid_argument",
                      "unknown query parameter '" + k + "'" + (list.empty() ? "" : "; known: " + list), k);
    }
  }
}

http_response submit(job_manager& jobs, const http_request& req) {
  check_query(req, {"budget", "engine", "seed", "profile", "priority", "name"});
  submit_options o;
  o.budget = integer<std::size_t>(req, "budget", 0, 1, std::numeric_limits<std::int32_t>::max());
  o.seed = integer<std::uint64_t>(req, "seed", 1, 0, std::numeric_limits<std::uint64_t>::max());
  o.priority = integer<int>(req, "priority", 0, -100, 100);
  if (auto it = req.query.find("engine"); it != req.query.end()) o.engine = it->second;
  if (auto it = req.query.find("profile"); it != req.query.end()) o.profile = it->second;
  if (auto it = req.query.find("name"); it != req.query.end()) o.name = common::bounded_text(it->second, 200, "");
  if (req.body.empty()) {
    throw api_error(400, "invalid_package", "the body must be the operator package as a tar archive (tar -cf)", "body");
  }
  return json_response(201, jobs.submit(req.body, o, req.uid));
}

http_response events(job_manager& jobs, const std::string& id, const http_request& req) {
  check_query(req, {"from", "follow"});
  const auto from = integer<std::uint64_t>(req, "from", 0, 0, std::numeric_limits<std::uint64_t>::max());
  const bool follow = req.query.count("follow") == 0 || req.query.at("follow") != "0";
  (void)jobs.get(id);  // 404 before the stream starts
  if (jobs.stopping() && follow) {
    throw api_error(503, "shutting_down", "aoptd is stopping; follow the job again (from=" + std::to_string(from) +
                                              ") once it is back: it resumes where it was");
  }
  http_response r;
  r.content_type = "application/x-ndjson";
  r.stream = [&jobs, id, from, follow](const std::function<bool(std::string_view)>& write) {
    std::uint64_t next = from;
    while (true) {
      bool over = false;
      std::vector<json> evs;
      try {
        evs = jobs.events(id, next, follow ? std::chrono::milliseconds(1000) : std::chrono::milliseconds(0), over);
      } catch (const api_error&) {
        return;  // deleted meanwhile
      }
      for (const auto& e : evs) {
        if (!write(e.dump() + "\n")) return;
        ++next;
      }
      if (over || !follow || jobs.stopping()) return;
    }
  };
  return r;
}

// The experience bank: list, show, search (BM25 over every tuple), export (JSONL) and import
// (the body: the paper's JSON or JSONL), the operations `aopt bank` runs (jobs::bank_service).
// Readers open it read-only and work while a job writes; an import waits for the writer lock.
http_response bank(job_manager& jobs, const http_request& req, const std::vector<std::string>& seg) {
  const jobs::bank_service service(jobs.bank_dir());
  if (seg.size() == 2) {
    require_method(req, {"GET"});
    auto it = req.query.find("after");
    const auto page = service.list(it == req.query.end() ? std::string() : it->second,
                                   integer<std::size_t>(req, "limit", 100, 1, 1000));
    json out = {{"tuples", json::array()}, {"count", page.total}};
    for (const auto& t : page.tuples) out["tuples"].push_back(vocab::to_json(t));
    if (!page.next_after.empty()) out["next_after"] = page.next_after;
    return json_response(200, out);
  }
  const std::string what = seg[2];
  if (seg.size() == 3 && what == "search") {
    require_method(req, {"GET"});
    const auto q = req.query.find("q");
    if (q == req.query.end() || q->second.empty()) throw api_error(400, "invalid_argument", "search needs q=TEXT", "q");
    std::optional<vocab::bottleneck_class> filter;
    if (auto f = req.query.find("bottleneck"); f != req.query.end()) {
      filter = vocab::parse_bottleneck_class(f->second);
      if (!filter) throw api_error(400, "invalid_argument", "unknown bottleneck class '" + f->second + "'", "bottleneck");
    }
    json out = json::array();
    for (const auto& h : service.search(q->second, filter, integer<std::size_t>(req, "k", 5, 1, 100))) {
      auto j = vocab::to_json(h.tuple);
      j["score"] = h.score;
      out.push_back(j);
    }
    return json_response(200, out);
  }
  if (seg.size() == 3 && what == "export") {
    require_method(req, {"GET"});
    std::ostringstream text;
    service.export_to(text, vocab::file_format::jsonl, /*empty_ok=*/true);
    http_response r;
    r.content_type = "application/x-ndjson";
    r.body = text.str();
    return r;
  }
  if (seg.size() == 3 && what == "import") {
    require_method(req, {"POST"});
    if (req.body.empty()) throw api_error(400, "invalid_argument", "the body must be tuples as JSON or JSONL", "body");
    require_utf8(req.body, "the body", "body");
    std::vector<vocab::experience> tuples;
    try {
      tuples = vocab::parse_experience_text(req.body, "request body", vocab::file_format::automatic);
    } catch (const error& e) {
      throw api_error(422, "invalid_tuples", e.what(), "body");
    }
    const auto r = service.import_tuples(std::move(tuples), "request body");
    return json_response(200, {{"read", r.report.read}, {"inserted", r.report.inserted}, {"count", r.total}});
  }
  if (seg.size() == 3) {
    require_method(req, {"GET"});
    if (!service.exists()) throw api_error(404, "not_found", "the bank is empty: no tuple " + what, "id");
    std::optional<vocab::experience> t;
    try {
      t = service.find(what);
    } catch (const error& e) {
      throw api_error(400, "invalid_argument", e.what(), "id");
    }
    if (!t) throw api_error(404, "not_found", "no tuple " + what + " in the bank", "id");
    return json_response(200, vocab::to_json(*t));
  }
  throw api_error(404, "not_found", "no such endpoint: " + req.method + " " + req.path + " (see docs/api.md)");
}

http_response route(job_manager& jobs, const http_request& req) {
  require_utf8(req);
  const auto seg = segments(req.path);
  if (seg.empty() || seg[0] != api_version) {
    throw api_error(404, "not_found", "no such endpoint: " + req.path + " (the API lives under /v1/; see docs/api.md)");
  }
  if (seg.size() == 2 && seg[1] == "health") {
    require_method(req, {"GET"});
    return json_response(200, jobs.health());
  }
  if (seg.size() == 2 && seg[1] == "version") {
    require_method(req, {"GET"});
    return json_response(200, {{"version", AOPT_VERSION}, {"api", api_version}, {"engines", jobs.engines()},
                               {"backends", jobs.backends()}});
  }
  if (seg.size() == 2 && seg[1] == "devices") {
    require_method(req, {"GET"});
    return json_response(200, jobs.devices());
  }
  if (seg.size() >= 2 && seg.size() <= 3 && seg[1] == "bank") return bank(jobs, req, seg);
  if (seg.size() >= 2 && seg[1] == "jobs") {
    if (seg.size() == 2) {
      require_method(req, {"GET", "POST"});
      if (req.method == "POST") return submit(jobs, req);
      check_query(req, {});
      return json_response(200, {{"jobs", jobs.list()}});
    }
    const std::string& id = seg[2];
    if (seg.size() == 3) {
      require_method(req, {"GET", "DELETE"});
      if (req.method == "DELETE") {
        jobs.erase(id, req.uid);
        return json_response(200, {{"deleted", id}});
      }
      return json_response(200, jobs.get(id));
    }
    if (seg.size() == 4) {
      const std::string& what = seg[3];
      if (what == "cancel") {
        require_method(req, {"POST"});
        return json_response(202, jobs.cancel(id, req.uid));
      }
      if (what == "events") {
        require_method(req, {"GET"});
        return events(jobs, id, req);
      }
      if (what == "result") {
        require_method(req, {"GET"});
        http_response r;
        r.content_type = "application/x-tar";
        r.body = jobs.result_tar(id);
        return r;
      }
      if (what == "report.md" || what == "report.json") {
        require_method(req, {"GET"});
        http_response r;
        r.content_type = what == "report.md" ? "text/markdown; charset=utf-8" : "application/json";
        r.body = jobs.report(id, what);
        return r;
      }
    }
  }
  throw api_error(404, "not_found", "no such endpoint: " + req.method + " " + req.path + " (see docs/api.md)");
}

}  // namespace

http_response handle_api(job_manager& jobs, const http_request& req) {
  try {
    auto r = route(jobs, req);
    common::logger()->debug("{} {} -> {} (uid {})", req.method, req.target, r.status, req.uid);
    return r;
  } catch (const api_error& e) {
    common::logger()->debug("{} {} -> {} {}", req.method, req.target, e.status, e.what());
    return error_response(e.status, e.code, e.what(), e.field);
  } catch (const error& e) {
    const int status = e.code() == ec::not_found ? 404 : e.code() == ec::io_error || e.code() == ec::internal ? 500 : 400;
    return error_response(status, to_string(e.code()), e.what());
  } catch (const std::exception& e) {
    common::logger()->error("{} {}: {}", req.method, req.target, e.what());
    return error_response(500, "internal", std::string("internal error: ") + e.what());
  }
}

}  // namespace aopt::daemon
