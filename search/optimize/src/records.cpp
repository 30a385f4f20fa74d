// The one JSON form of each record of the search (optimizer.h): report.json, the daemon's journal
// and events, and the actor messages all read and write these, so a field added to a record is
// added here once and reaches every place it travels.
#include <optional>
#include <string>

#include "aopt/common/text.h"
#include "aopt/optimize/optimizer.h"
#include "aopt/optimize/services.h"

namespace aopt::optimize {

namespace {

using nlohmann::json;

json opt_num(const std::optional<double>& v) { return v ? json(*v) : json(); }

std::optional<double> read_opt_num(const json& j, const char* key) {
  const auto& v = j.at(key);
  if (v.is_null()) return std::nullopt;
  return v.get<double>();
}

// Source files as JSON: text as a string; bytes that are not UTF-8 (a random or binary file is a
// candidate too) as {"base64": ...}, so every file reads back byte-exact.
json files_to_json(const file_map& files) {
  json out = json::object();
  for (const auto& [path, content] : files) {
    out[common::valid_utf8(path)] =
        common::is_valid_utf8(content) ? json(content) : json{{"base64", common::base64_encode(content)}};
  }
  return out;
}

file_map files_from_json(const json& j) {
  file_map out;
  for (const auto& [path, content] : j.items()) {
    out[path] = content.is_string() ? content.get<std::string>()
                                    : common::base64_decode(content.at("base64").get<std::string>());
  }
  return out;
}

}  // namespace

json to_json(const eval_request& r) {
  json seed = r.input_seed ? json(*r.input_seed) : json();
  return {{"package", r.package},   {"files", files_to_json(r.files)}, {"stage", r.stage},
          {"round", r.round},       {"proposal", r.proposal}, {"input_seed", seed}, {"device", r.device},
          {"search_form", files_to_json(r.search_form)}};
}

void from_json(const json& j, eval_request& r) {
  r.package = j.at("package").get<std::string>();
  r.files = files_from_json(j.at("files"));
  r.stage = j.at("stage").get<std::string>();
  r.round = j.at("round").get<int>();
  r.proposal = j.at("proposal").get<std::string>();
  const auto& seed = j.at("input_seed");
  r.input_seed = seed.is_null() ? std::nullopt : std::optional<std::uint64_t>(seed.get<std::uint64_t>());
  r.device = j.value("device", std::string());  // journals written before requests named a device
  if (j.contains("search_form")) r.search_form = files_from_json(j.at("search_form"));
}

// latency_us is null when nothing was measured (0): a failed candidate shows no latency, and one
// that failed after its timed run (a suspect, a precision error) shows what was measured.
json to_json(const eval_report& r) {
  return {{"ok", r.ok},
          {"status", r.status},
          {"diagnostic", r.diagnostic},
          {"latency_us", r.latency_us != 0 ? json(r.latency_us) : json()},
          {"bound_us", opt_num(r.bound_us)},
          {"suspect", r.suspect},
          {"cached", r.cached},
          {"backend", r.backend},
          {"simulated", r.backend != "cann"},
          {"device_profile", r.profile_name},
          {"profile", r.profile},
          {"result", r.result},
          {"seconds", r.seconds},
          {"device", r.device}};
}

void from_json(const json& j, eval_report& r) {
  r.ok = j.at("ok").get<bool>();
  r.status = j.at("status").get<std::string>();
  r.diagnostic = j.at("diagnostic").get<std::string>();
  r.latency_us = read_opt_num(j, "latency_us").value_or(0);
  r.bound_us = read_opt_num(j, "bound_us");
  r.suspect = j.at("suspect").get<bool>();
  r.cached = j.at("cached").get<bool>();
  r.backend = j.at("backend").get<std::string>();
  r.profile_name = j.at("device_profile").get<std::string>();
  r.profile = j.at("profile");
  // Journals written before reports carried their result record keep it beside the report.
  r.result = j.contains("result") ? j.at("result") : json::object();
  r.seconds = j.at("seconds").get<double>();
  r.device = j.value("device", std::string());  // absent in journals written before devices were named
}

json to_json(const trajectory_point& p) {
  return {{"index", p.index},
          {"evaluations", p.evaluations},
          {"round", p.round},
          {"stage", p.stage},
          {"proposal", p.proposal},
          {"status", p.status},
          {"latency_us", opt_num(p.latency_us)},
          {"best_us", p.best_us},
          {"accepted", p.accepted},
          {"memo", p.memo},
          {"cached", p.cached},
          {"suspect", p.suspect}};
}

void from_json(const json& j, trajectory_point& p) {
  p.index = j.at("index").get<std::size_t>();
  p.evaluations = j.at("evaluations").get<std::size_t>();
  p.round = j.at("round").get<std::size_t>();
  p.stage = j.at("stage").get<std::string>();
  p.proposal = j.at("proposal").get<std::string>();
  p.status = j.at("status").get<std::string>();
  p.latency_us = read_opt_num(j, "latency_us");
  p.best_us = j.at("best_us").get<double>();
  p.accepted = j.at("accepted").get<bool>();
  p.memo = j.at("memo").get<bool>();
  p.cached = j.at("cached").get<bool>();
  p.suspect = j.at("suspect").get<bool>();
}

json to_json(const progress_event& e) {
  return {{"kind", e.kind}, {"message", e.message}, {"point", e.point ? to_json(*e.point) : json()}};
}

void from_json(const json& j, progress_event& e) {
  e.kind = j.at("kind").get<std::string>();
  e.message = j.at("message").get<std::string>();
  const auto& p = j.at("point");
  e.point = p.is_null() ? std::nullopt : std::optional<trajectory_point>(p.get<trajectory_point>());
}

json to_json(const optimizer_config& c) {
  return {{"budget", c.budget},
          {"rounds", c.rounds},
          {"extra_rounds", c.extra_rounds},
          {"stage1_steps", c.stage1_steps},
          {"stage2_steps", c.stage2_steps},
          {"proposals_per_step", c.proposals_per_step},
          {"top_k", c.top_k},
          {"stage1", c.stage1},
          {"stage2", c.stage2},
          {"unguided_fallback", c.unguided_fallback},
          {"cotune", c.cotune},
          {"widen", c.widen},
          {"screen", c.screen},
          {"search_form", c.search_form},
          {"min_gain", c.min_gain},
          {"verify", c.verify},
          {"verify_seed", c.verify_seed}};
}

void from_json(const json& j, optimizer_config& c) {
  c.budget = j.at("budget").get<std::size_t>();
  c.rounds = j.at("rounds").get<std::size_t>();
  c.extra_rounds = j.at("extra_rounds").get<std::size_t>();
  c.stage1_steps = j.at("stage1_steps").get<std::size_t>();
  c.stage2_steps = j.at("stage2_steps").get<std::size_t>();
  c.proposals_per_step = j.at("proposals_per_step").get<std::size_t>();
  c.top_k = j.at("top_k").get<std::size_t>();
  c.stage1 = j.at("stage1").get<bool>();
  c.stage2 = j.at("stage2").get<bool>();
  c.unguided_fallback = j.at("unguided_fallback").get<bool>();
  c.cotune = j.at("cotune").get<bool>();
  c.widen = j.value("widen", false);  // records written before widening existed
  c.screen = j.value("screen", false);  // records written before the screen existed
  c.search_form = j.value("search_form", false);
  c.min_gain = j.at("min_gain").get<double>();
  c.verify = j.at("verify").get<bool>();
  c.verify_seed = j.at("verify_seed").get<std::uint64_t>();
}

eval_report failure_report(const std::string& status, const std::string& diagnostic) {
  eval_report r;
  r.status = status;
  r.diagnostic = diagnostic;
  return r;
}

}  // namespace aopt::optimize
