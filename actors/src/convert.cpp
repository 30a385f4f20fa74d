#include "aopt/actors/convert.hpp"

#include <nlohmann/json.hpp>

#include "aopt/common/error.h"

namespace aopt::actors {

namespace {

nlohmann::json parse_object(const std::string& text, const char* field) {
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    throw aopt::error(ec::parse_error,
                      std::string("eval_report_msg field '") + field + "' is not JSON (" +
                          e.what() +
                          "): the evaluator that sent it is broken or of another version");
  }
}

}  // namespace

protocols::eval_request_msg to_message(const optimize::eval_request& r,
                                       const std::string& package) {
  protocols::eval_request_msg m;
  m.package = package;
  m.files = r.files;
  m.stage = r.stage;
  m.round = r.round;
  m.proposal = r.proposal;
  m.has_input_seed = r.input_seed.has_value();
  m.input_seed = r.input_seed.value_or(0);
  return m;
}

optimize::eval_request from_message(const protocols::eval_request_msg& m) {
  optimize::eval_request r;
  r.files = m.files;
  r.stage = m.stage;
  r.round = m.round;
  r.proposal = m.proposal;
  if (m.has_input_seed) r.input_seed = m.input_seed;
  return r;
}

protocols::eval_report_msg to_message(const optimize::eval_report& r) {
  protocols::eval_report_msg m;
  m.ok = r.ok;
  m.status = r.status;
  m.diagnostic = r.diagnostic;
  m.latency_us = r.latency_us;
  m.has_bound = r.bound_us.has_value();
  m.bound_us = r.bound_us.value_or(0);
  m.suspect = r.suspect;
  m.cached = r.cached;
  m.backend = r.backend;
  m.profile_name = r.profile_name;
  m.profile_json = r.profile.dump();
  m.result_json = r.result.dump();
  m.seconds = r.seconds;
  return m;
}

optimize::eval_report from_message(const protocols::eval_report_msg& m) {
  optimize::eval_report r;
  r.ok = m.ok;
  r.status = m.status;
  r.diagnostic = m.diagnostic;
  r.latency_us = m.latency_us;
  if (m.has_bound) r.bound_us = m.bound_us;
  r.suspect = m.suspect;
  r.cached = m.cached;
  r.backend = m.backend;
  r.profile_name = m.profile_name;
  r.profile = parse_object(m.profile_json, "profile_json");
  r.result = parse_object(m.result_json, "result_json");
  r.seconds = m.seconds;
  return r;
}

protocols::progress_msg to_message(const optimize::progress_event& e) {
  protocols::progress_msg m;
  m.kind = e.kind;
  m.message = e.message;
  if (e.point != nullptr) {
    const auto& p = *e.point;
    m.has_point = true;
    m.index = p.index;
    m.evaluations = p.evaluations;
    m.round = p.round;
    m.stage = p.stage;
    m.proposal = p.proposal;
    m.status = p.status;
    m.has_latency = p.latency_us.has_value();
    m.latency_us = p.latency_us.value_or(0);
    m.best_us = p.best_us;
    m.accepted = p.accepted;
    m.memo = p.memo;
    m.cached = p.cached;
    m.suspect = p.suspect;
  }
  return m;
}

optimize::trajectory_point point_of(const protocols::progress_msg& m) {
  optimize::trajectory_point p;
  p.index = m.index;
  p.evaluations = m.evaluations;
  p.round = m.round;
  p.stage = m.stage;
  p.proposal = m.proposal;
  p.status = m.status;
  if (m.has_latency) p.latency_us = m.latency_us;
  p.best_us = m.best_us;
  p.accepted = m.accepted;
  p.memo = m.memo;
  p.cached = m.cached;
  p.suspect = m.suspect;
  return p;
}

protocols::optimize_job_msg to_message(const std::string& package, const optimize::file_map& base,
                                       const optimize::optimizer_config& cfg) {
  protocols::optimize_job_msg m;
  m.package = package;
  m.base_files = base;
  m.budget = cfg.budget;
  m.rounds = cfg.rounds;
  m.extra_rounds = cfg.extra_rounds;
  m.stage1_steps = cfg.stage1_steps;
  m.stage2_steps = cfg.stage2_steps;
  m.proposals_per_step = cfg.proposals_per_step;
  m.top_k = cfg.top_k;
  m.stage1 = cfg.stage1;
  m.stage2 = cfg.stage2;
  m.min_gain = cfg.min_gain;
  m.verify = cfg.verify;
  m.verify_seed = cfg.verify_seed;
  m.unguided_fallback = cfg.unguided_fallback;
  m.cotune = cfg.cotune;
  return m;
}

optimize::optimizer_config config_of(const protocols::optimize_job_msg& m) {
  optimize::optimizer_config cfg;
  cfg.budget = m.budget;
  cfg.rounds = m.rounds;
  cfg.extra_rounds = m.extra_rounds;
  cfg.stage1_steps = m.stage1_steps;
  cfg.stage2_steps = m.stage2_steps;
  cfg.proposals_per_step = m.proposals_per_step;
  cfg.top_k = m.top_k;
  cfg.stage1 = m.stage1;
  cfg.stage2 = m.stage2;
  cfg.min_gain = m.min_gain;
  cfg.verify = m.verify;
  cfg.verify_seed = m.verify_seed;
  cfg.unguided_fallback = m.unguided_fallback;
  cfg.cotune = m.cotune;
  return cfg;
}

search::rewind_eval to_rewind_eval(const optimize::eval_report& r) {
  search::rewind_eval e;
  e.ok = r.ok;
  e.latency_us = r.latency_us;
  e.status = r.status;
  e.profile = r.profile;
  e.diagnostic = r.diagnostic;
  if (r.samples().size() > 1) e.samples_us = r.samples();
  return e;
}

protocols::eval_report_msg failure_report(const std::string& status,
                                          const std::string& diagnostic) {
  protocols::eval_report_msg m;
  m.ok = false;
  m.status = status;
  m.diagnostic = diagnostic;
  return m;
}

}  // namespace aopt::actors
