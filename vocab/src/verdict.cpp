// The one JSON form of an evaluation's request and report (verdict.h), and the report's facts.
#include "aopt/vocab/verdict.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <type_traits>
#include <utility>

#include "aopt/common/text.h"

namespace aopt::vocab {

namespace {

using nlohmann::json;

constexpr std::array<std::pair<eval_stage, std::string_view>, 9> stage_names = {{
    {eval_stage::base, "base"},
    {eval_stage::tiling, "tiling"},
    {eval_stage::kernel, "kernel"},
    {eval_stage::tiling_kernel, "tiling+kernel"},
    {eval_stage::random, "random"},
    {eval_stage::verify, "verify"},
    {eval_stage::remeasure, "remeasure"},
    {eval_stage::screen, "screen"},
    {eval_stage::rewind, "rewind"},
}};

constexpr std::array<std::pair<eval_status, std::string_view>, 9> status_names = {{
    {eval_status::ok, "ok"},
    {eval_status::compile_error, "compile_error"},
    {eval_status::tiling_error, "tiling_error"},
    {eval_status::runtime_error, "runtime_error"},
    {eval_status::timeout, "timeout"},
    {eval_status::precision_error, "precision_error"},
    {eval_status::resource_error, "resource_error"},
    {eval_status::unsupported, "unsupported"},
    {eval_status::built, "built"},
}};

constexpr std::array<std::pair<warning_kind, std::string_view>, 3> warning_names = {{
    {warning_kind::gm_over_read, "gm_over_read"},
    {warning_kind::truncated_copy, "truncated_copy"},
    {warning_kind::other, "other"},
}};

template <class E, std::size_t N>
std::string_view name_of(const std::array<std::pair<E, std::string_view>, N>& names, E v) {
  for (const auto& [e, n] : names) {
    if (e == v) return n;
  }
  return "?";
}

template <class E, std::size_t N>
std::optional<E> parse_name(const std::array<std::pair<E, std::string_view>, N>& names,
                            std::string_view s) {
  for (const auto& [e, n] : names) {
    if (n == s) return e;
  }
  return std::nullopt;
}

// An enum's JSON: its name; an unknown name throws as a mistyped field does.
template <class E, std::size_t N>
E read_name(const std::array<std::pair<E, std::string_view>, N>& names, const json& j,
            const char* what) {
  const auto s = j.get<std::string>();
  if (auto v = parse_name(names, s)) return *v;
  throw json::other_error::create(501, std::string("unknown ") + what + " '" + s + "'", &j);
}

template <class T>
json opt(const std::optional<T>& v) {
  return v ? json(*v) : json();
}

template <class T>
std::optional<T> read_opt(const json& j, const char* key) {
  const auto& v = j.at(key);
  if (v.is_null()) return std::nullopt;
  return v.get<T>();
}

// Source files as JSON: text as a string; bytes that are not UTF-8 (a random or binary file is a
// candidate too) as {"base64": ...}, so every file reads back byte-exact.
json files_to_json(const file_map& files) {
  json out = json::object();
  for (const auto& [path, content] : files) {
    out[common::valid_utf8(path)] = common::is_valid_utf8(content)
                                        ? json(content)
                                        : json{{"base64", common::base64_encode(content)}};
  }
  return out;
}

file_map files_from_json(const json& j) {
  file_map out;
  for (const auto& [path, content] : j.items()) {
    out[path] = content.is_string()
                    ? content.get<std::string>()
                    : common::base64_decode(content.at("base64").get<std::string>());
  }
  return out;
}

json to_json(const case_facts& c) {
  return {{"name", c.name},
          {"timed", c.timed},
          {"status", c.status ? json(to_string(*c.status)) : json()},
          {"output_elements", c.output_elements},
          {"latency_us", opt(c.latency_us)},
          {"block_dim", opt(c.block_dim)},
          {"tiling_key", opt(c.tiling_key)},
          {"words", c.words},
          {"workspace_bytes", opt(c.workspace_bytes)},
          {"ub_reserved", opt(c.ub_reserved)},
          {"ub_usable", opt(c.ub_usable)},
          {"ub_capacity", opt(c.ub_capacity)},
          {"core_count", opt(c.core_count)},
          {"elements", c.elements},
          {"elem_bytes", c.elem_bytes},
          {"tunables_given", opt(c.tunables_given)}};
}

case_facts case_from_json(const json& j) {
  case_facts c;
  c.name = j.at("name").get<std::string>();
  c.timed = j.at("timed").get<bool>();
  if (!j.at("status").is_null()) c.status = read_name(status_names, j.at("status"), "status");
  c.output_elements = j.at("output_elements").get<std::uint64_t>();
  c.latency_us = read_opt<double>(j, "latency_us");
  c.block_dim = read_opt<std::uint32_t>(j, "block_dim");
  c.tiling_key = read_opt<std::int64_t>(j, "tiling_key");
  c.words = j.at("words").get<std::vector<std::int64_t>>();
  c.workspace_bytes = read_opt<std::uint64_t>(j, "workspace_bytes");
  c.ub_reserved = read_opt<std::uint64_t>(j, "ub_reserved");
  c.ub_usable = read_opt<std::uint64_t>(j, "ub_usable");
  c.ub_capacity = read_opt<std::uint64_t>(j, "ub_capacity");
  c.core_count = read_opt<std::uint32_t>(j, "core_count");
  c.elements = j.at("elements").get<std::uint64_t>();
  c.elem_bytes = j.at("elem_bytes").get<std::uint64_t>();
  c.tunables_given = read_opt<std::uint32_t>(j, "tunables_given");
  return c;
}

// --- records of version 1 (before reports were typed) ---------------------------------------
// Their facts are in the evaluator's result record ("result": an evaluation's, DESIGN.md §4, or
// a screen's), read here and nowhere else. A fact of the wrong type is absent, as it was to the
// readers of that time.

template <class T>
std::optional<T> number_at(const json& j, const char* key) {
  if (!j.is_object() || !j.contains(key)) return std::nullopt;
  const auto& v = j[key];
  if constexpr (std::is_floating_point_v<T>) {
    if (v.is_number()) return v.get<T>();
  } else if constexpr (std::is_signed_v<T>) {
    if (v.is_number_integer()) return v.get<T>();
  } else {
    if (v.is_number_integer() && v.get<std::int64_t>() >= 0) return v.get<T>();
  }
  return std::nullopt;
}

case_facts legacy_case(const json& c) {
  case_facts f;
  if (!c.is_object()) return f;
  f.name = c.value("name", std::string());
  f.timed = c.value("timed", false);
  if (c.contains("status") && c["status"].is_string())
    f.status = parse_eval_status(c["status"].get<std::string>());
  const auto outputs = c.value("outputs", json::array());
  const bool any_output = std::any_of(outputs.begin(), outputs.end(), [](const json& o) { return o.is_object() && !o.value("input", false); });
  for (const auto& o : outputs) {
    if (o.is_object() && (!o.value("input", false) || !any_output))
      f.output_elements += number_at<std::uint64_t>(o, "elements").value_or(0);
  }
  f.latency_us = number_at<double>(c, "latency_us");
  f.block_dim = number_at<std::uint32_t>(c, "block_dim");
  f.tiling_key = number_at<std::int64_t>(c, "tiling_key");
  if (c.contains("words") && c["words"].is_array()) {
    for (const auto& w : c["words"]) {
      if (w.is_number_integer()) f.words.push_back(w.get<std::int64_t>());
    }
  }
  f.workspace_bytes = number_at<std::uint64_t>(c, "workspace_bytes");
  f.ub_reserved = number_at<std::uint64_t>(c, "ub_bytes");
  f.ub_usable = number_at<std::uint64_t>(c, "ub_usable");
  f.ub_capacity = number_at<std::uint64_t>(c, "ub_capacity");
  f.core_count = number_at<std::uint32_t>(c, "core_count");
  f.elements = number_at<std::uint64_t>(c, "elements").value_or(0);
  f.elem_bytes = number_at<std::uint64_t>(c, "elem_bytes").value_or(0);
  f.tunables_given = number_at<std::uint32_t>(c, "tunables_given");
  return f;
}

void read_legacy_result(const json& result, eval_report& r) {
  if (!result.is_object()) return;
  if (const auto k = result.value("kernel", json()); k.is_string()) r.kernel = k.get<std::string>();
  for (const auto& c : result.value("cases", json::array())) r.cases.push_back(legacy_case(c));
  const json m = result.value("measurement", json());
  if (m.is_object()) {
    for (const auto& v : m.value("samples_us", json::array())) {
      if (v.is_number()) r.samples_us.push_back(v.get<double>());
    }
  }
  for (const auto& w : result.value("warnings", json::array())) {
    if (w.is_string()) r.warnings.push_back(warning_from_text(w.get<std::string>()));
  }
  const json build = result.value("build", json());
  r.build_seconds = number_at<double>(build, "seconds").value_or(0);
  r.host_reused = build.is_object() && build.value("host_reused", false);
  r.kernel_reused = build.is_object() && build.value("kernel_reused", false);
}

}  // namespace

std::string_view to_string(eval_stage s) {
  return name_of(stage_names, s);
}
std::optional<eval_stage> parse_eval_stage(std::string_view s) {
  return parse_name(stage_names, s);
}
std::string_view to_string(eval_status s) {
  return name_of(status_names, s);
}
std::optional<eval_status> parse_eval_status(std::string_view s) {
  return parse_name(status_names, s);
}
std::string_view to_string(warning_kind k) {
  return name_of(warning_names, k);
}

eval_warning harness_warning(const std::string& case_name, const std::string& kind,
                             const std::string& file, int line, const std::string& message) {
  eval_warning w;
  w.site = file + ":" + std::to_string(line);
  w.text = "case '" + case_name + "': " + kind + " at " + w.site + ": " + message;
  // sim warns gm_out_of_bounds for a read past an allocation's padding within its last page
  // (sim/include/aopt_sim/kernel/global_tensor.h); its other GM faults are errors.
  if (kind == "gm_out_of_bounds" && message.find("past it and its padding") != std::string::npos) {
    w.kind = warning_kind::gm_over_read;
  } else if (kind == "truncated_copy") {
    w.kind = warning_kind::truncated_copy;
  }
  return w;
}

eval_warning warning_from_text(const std::string& text) {
  // "case 'C': KIND at FILE:LINE: MESSAGE"
  const std::string head = "case '";
  const auto name_end = text.find("': ");
  if (!text.starts_with(head) || name_end == std::string::npos)
    return {warning_kind::other, {}, text};
  const auto kind_begin = name_end + 3;
  const auto at = text.find(" at ", kind_begin);
  if (at == std::string::npos) return {warning_kind::other, {}, text};
  const auto site_begin = at + 4;
  const auto site_end = text.find(": ", site_begin);
  const auto colon =
      text.rfind(':', site_end == std::string::npos ? std::string::npos : site_end - 1);
  if (site_end == std::string::npos || colon == std::string::npos || colon < site_begin)
    return {warning_kind::other, {}, text};
  const std::string file = text.substr(site_begin, colon - site_begin);
  const std::string line = text.substr(colon + 1, site_end - colon - 1);
  if (line.empty() || !std::all_of(line.begin(), line.end(),
                                   [](unsigned char c) { return std::isdigit(c) != 0; })) {
    return {warning_kind::other, {}, text};
  }
  auto w = harness_warning(text.substr(head.size(), name_end - head.size()),
                           text.substr(kind_begin, at - kind_begin), file, std::stoi(line),
                           text.substr(site_end + 2));
  w.text = text;  // as written
  return w;
}

bool eval_report::out_of_ub() const {
  if (ok) return false;
  std::string d;
  for (char c : diagnostic)
    d.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  // sim: "hardware error ub_overflow ..."; the CANN runtime's wording names the UB overflow too.
  return d.find("ub_overflow") != std::string::npos || d.find("ub overflow") != std::string::npos;
}

std::uint64_t eval_report::ub_reserved(const std::string& name) const {
  std::uint64_t most = 0;
  for (const auto& c : cases) {
    if (!c.ub_reserved || (!name.empty() && c.name != name)) continue;
    most = std::max(most, *c.ub_reserved);
  }
  return most;
}

std::vector<double> eval_report::samples() const {
  if (!samples_us.empty()) return samples_us;
  return {latency_us};
}

std::set<std::string> eval_report::over_read_sites() const {
  std::set<std::string> out;
  for (const auto& w : warnings) {
    if (w.kind == warning_kind::gm_over_read) out.insert(w.site);
  }
  return out;
}

eval_report failure_report(eval_status status, const std::string& diagnostic) {
  eval_report r;
  r.status = status;
  r.diagnostic = diagnostic;
  return r;
}

json to_json(const eval_request& r) {
  return {{"package", r.package},        {"files", files_to_json(r.files)},
          {"stage", to_string(r.stage)}, {"round", r.round},
          {"proposal", r.proposal},      {"input_seed", opt(r.input_seed)},
          {"device", r.device},          {"search_form", files_to_json(r.search_form)}};
}

void from_json(const json& j, eval_request& r) {
  r.package = j.at("package").get<std::string>();
  r.files = files_from_json(j.at("files"));
  r.stage = read_name(stage_names, j.at("stage"), "stage");
  r.round = j.at("round").get<int>();
  r.proposal = j.at("proposal").get<std::string>();
  r.input_seed = read_opt<std::uint64_t>(j, "input_seed");
  r.device = j.value("device", std::string());  // journals written before requests named a device
  if (j.contains("search_form")) r.search_form = files_from_json(j.at("search_form"));
}

json to_json(const eval_warning& w) {
  return {{"kind", to_string(w.kind)}, {"site", w.site}, {"text", w.text}};
}

void from_json(const json& j, eval_warning& w) {
  w.kind = read_name(warning_names, j.at("kind"), "warning kind");
  w.site = j.at("site").get<std::string>();
  w.text = j.at("text").get<std::string>();
}

// latency_us is null when nothing was measured (0): a failed candidate shows no latency, and one
// that failed after its timed run (a suspect, a precision error) shows what was measured.
json to_json(const eval_report& r) {
  json cases = json::array();
  for (const auto& c : r.cases) cases.push_back(to_json(c));
  json warnings = json::array();
  for (const auto& w : r.warnings) warnings.push_back(to_json(w));
  return {{"version", eval_report_version},
          {"ok", r.ok},
          {"status", to_string(r.status)},
          {"diagnostic", r.diagnostic},
          {"latency_us", r.latency_us != 0 ? json(r.latency_us) : json()},
          {"bound_us", opt(r.bound_us)},
          {"suspect", r.suspect},
          {"cached", r.cached},
          {"backend", r.backend},
          {"simulated", r.backend != "cann"},
          {"device_profile", r.profile_name},
          {"profile", r.profile},
          {"kernel", r.kernel},
          {"cases", std::move(cases)},
          {"samples_us", r.samples_us},
          {"warnings", std::move(warnings)},
          {"build_seconds", r.build_seconds},
          {"build_reused", {{"host", r.host_reused}, {"kernel", r.kernel_reused}}},
          {"seconds", r.seconds},
          {"device", r.device}};
}

void from_json(const json& j, eval_report& r) {
  r = eval_report{};
  r.ok = j.at("ok").get<bool>();
  r.status = read_name(status_names, j.at("status"), "status");
  r.diagnostic = j.at("diagnostic").get<std::string>();
  r.latency_us = read_opt<double>(j, "latency_us").value_or(0);
  r.bound_us = read_opt<double>(j, "bound_us");
  r.suspect = j.at("suspect").get<bool>();
  r.cached = j.at("cached").get<bool>();
  r.backend = j.at("backend").get<std::string>();
  r.profile_name = j.at("device_profile").get<std::string>();
  r.profile = j.at("profile");
  r.seconds = j.at("seconds").get<double>();
  r.device =
      j.value("device", std::string());  // absent in journals written before devices were named
  if (!j.contains("version")) {
    // Version 1: the facts are in the result record, when the record has one (journals written
    // before reports carried their result record keep it beside the report: the reader puts it
    // under "result").
    if (j.contains("result")) read_legacy_result(j.at("result"), r);
    return;
  }
  r.kernel = j.at("kernel").get<std::string>();
  for (const auto& c : j.at("cases")) r.cases.push_back(case_from_json(c));
  r.samples_us = j.at("samples_us").get<std::vector<double>>();
  for (const auto& w : j.at("warnings")) r.warnings.push_back(w.get<eval_warning>());
  r.build_seconds = j.at("build_seconds").get<double>();
  if (const auto b = j.find("build_reused"); b != j.end() && b->is_object()) {  // absent in the first version-2 records
    r.host_reused = b->value("host", false);
    r.kernel_reused = b->value("kernel", false);
  }
}

}  // namespace aopt::vocab
