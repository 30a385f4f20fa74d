// The one JSON form of each record of the search (optimizer.h): report.json, the daemon's journal
// and events, and the actor messages all read and write these, so a field added to a record is
// added here once and reaches every place it travels. An evaluation's request and report have
// theirs in vocab/verdict.h.
#include <optional>
#include <string>

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

}  // namespace

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
          {"suspect", p.suspect},
          {"diagnostic", p.diagnostic}};
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
  p.diagnostic = j.value("diagnostic", "");  // records written before it existed
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

}  // namespace aopt::optimize
