#include "aopt/evaluation/result.h"

#include <algorithm>
#include <limits>

#include "aopt/common/error.h"
#include "aopt/common/json.h"

namespace aopt::evaluation {

nlohmann::json case_result::to_json() const {
  nlohmann::json j = {{"name", name},
                      {"timed", timed},
                      {"status", status},
                      {"diagnostic", diagnostic},
                      {"max_abs_err", common::number_to_json(max_abs_err)},
                      {"max_rel_err", common::number_to_json(max_rel_err)},
                      {"mismatch_ratio", mismatch_ratio},
                      {"run_seconds", run_seconds},
                      {"phases", phases}};
  j["outputs"] = nlohmann::json::array();
  for (const auto& o : outputs) j["outputs"].push_back(o.to_json());
  j["latency_us"] = latency_us ? nlohmann::json(*latency_us) : nlohmann::json();
  j["block_dim"] = block_dim ? nlohmann::json(*block_dim) : nlohmann::json();
  j["tiling_key"] = tiling_key ? nlohmann::json(*tiling_key) : nlohmann::json();
  j["ub_bytes"] = ub_bytes ? nlohmann::json(*ub_bytes) : nlohmann::json();
  if (ub_usable) j["ub_usable"] = *ub_usable;
  j["workspace_bytes"] = workspace_bytes ? nlohmann::json(*workspace_bytes) : nlohmann::json();
  j["profile"] = profile;
  if (!measurement.is_null()) j["measurement"] = measurement;
  return j;
}

nlohmann::json eval_result::to_json() const {
  nlohmann::json j;
  j["version"] = version;
  j["status"] = status;
  j["diagnostic"] = diagnostic;
  j["key"] = key;
  j["package"] = package;
  j["kernel"] = kernel;
  j["op_type"] = op_type;
  j["backend"] = backend;
  j["profile"] = profile;
  j["simulated"] = simulated;
  j["seed"] = seed;
  j["cached"] = cached;
  j["reference"] = reference;
  j["cases"] = nlohmann::json::array();
  for (const auto& c : cases) j["cases"].push_back(c.to_json());
  j["timed_case"] = timed_case ? nlohmann::json(*timed_case) : nlohmann::json();
  j["latency_us"] = latency_us ? nlohmann::json(*latency_us) : nlohmann::json();
  j["latency_label"] = simulated ? "simulated (backend " + backend + ", profile " + profile + ")"
                                 : "measured (backend " + backend + ", profile " + profile + ")";
  if (!measurement.is_null()) j["measurement"] = measurement;
  j["bound"] = bound;
  j["build"] = build;
  j["total_seconds"] = total_seconds;
  j["warnings"] = nlohmann::json::array();
  for (const auto& w : warnings) j["warnings"].push_back(w.text);
  // Diagnostics quote compiler and harness output, which need not be UTF-8 (a source of random
  // bytes); the record must still dump (cache, --json).
  common::make_valid_utf8(j);
  return j;
}

namespace {
template <class T>
std::optional<T> opt(const nlohmann::json& j, const char* k) {
  if (!j.contains(k) || j[k].is_null()) return std::nullopt;
  return j[k].get<T>();
}
}  // namespace

eval_result eval_result::from_json(const nlohmann::json& j) {
  try {
    eval_result r;
    r.version = j.at("version").get<int>();
    r.status = j.at("status").get<std::string>();
    r.diagnostic = j.value("diagnostic", std::string());
    r.key = j.value("key", std::string());
    r.package = j.value("package", std::string());
    r.kernel = j.value("kernel", std::string());
    r.op_type = j.value("op_type", std::string());
    r.backend = j.value("backend", std::string());
    r.profile = j.value("profile", std::string());
    r.simulated = j.value("simulated", true);
    r.seed = j.value("seed", std::uint64_t{0});
    r.cached = j.value("cached", false);
    r.reference = j.value("reference", std::string());
    for (const auto& cj : j.at("cases")) {
      case_result c;
      c.name = cj.at("name").get<std::string>();
      c.timed = cj.value("timed", false);
      c.status = cj.at("status").get<std::string>();
      c.diagnostic = cj.value("diagnostic", std::string());
      c.max_abs_err = common::number_from_json(cj, "max_abs_err", 0.0, std::numeric_limits<double>::infinity());
      c.max_rel_err = common::number_from_json(cj, "max_rel_err", 0.0, std::numeric_limits<double>::infinity());
      c.mismatch_ratio = cj.value("mismatch_ratio", 0.0);
      c.run_seconds = cj.value("run_seconds", 0.0);
      c.phases = cj.value("phases", nlohmann::json::object());
      for (const auto& oj : cj.value("outputs", nlohmann::json::array())) {
        output_check o;
        o.name = oj.value("name", std::string());
        o.elements = oj.value("elements", std::size_t{0});
        o.mismatches = oj.value("mismatches", std::size_t{0});
        o.mismatch_ratio = oj.value("mismatch_ratio", 0.0);
        o.max_abs_err = common::number_from_json(oj, "max_abs_err", 0.0, std::numeric_limits<double>::infinity());
        o.max_rel_err = common::number_from_json(oj, "max_rel_err", 0.0, std::numeric_limits<double>::infinity());
        o.passed = oj.value("passed", true);
        o.message = oj.value("message", std::string());
        if (oj.contains("first_mismatch")) {
          o.first_mismatch = oj["first_mismatch"].value("index", std::int64_t{-1});
          o.got_at_first = common::number_from_json(oj["first_mismatch"], "got", 0.0, std::numeric_limits<double>::quiet_NaN());
          o.want_at_first = common::number_from_json(oj["first_mismatch"], "want", 0.0, std::numeric_limits<double>::quiet_NaN());
        }
        c.outputs.push_back(o);
      }
      c.latency_us = opt<double>(cj, "latency_us");
      c.block_dim = opt<std::uint32_t>(cj, "block_dim");
      c.tiling_key = opt<std::int64_t>(cj, "tiling_key");
      c.ub_bytes = opt<std::uint64_t>(cj, "ub_bytes");
      c.ub_usable = opt<std::uint64_t>(cj, "ub_usable");
      c.workspace_bytes = opt<std::uint64_t>(cj, "workspace_bytes");
      c.profile = cj.value("profile", nlohmann::json::object());
      c.measurement = cj.value("measurement", nlohmann::json());
      r.cases.push_back(std::move(c));
    }
    r.timed_case = opt<std::string>(j, "timed_case");
    r.latency_us = opt<double>(j, "latency_us");
    r.measurement = j.value("measurement", nlohmann::json());
    r.bound = j.value("bound", nlohmann::json());
    r.build = j.value("build", nlohmann::json::object());
    r.total_seconds = j.value("total_seconds", 0.0);
    for (const auto& w : j.value("warnings", std::vector<std::string>{})) r.warnings.push_back(vocab::warning_from_text(w));
    return r;
  } catch (const nlohmann::json::exception& e) {
    throw error(ec::cache_error, std::string("malformed result record: ") + e.what());
  }
}

void eval_result::warn(vocab::eval_warning w) {
  for (const auto& have : warnings) {
    if (have.text == w.text) return;
  }
  warnings.push_back(std::move(w));
}

vocab::eval_status verdict_status(const std::string& status) {
  return vocab::parse_eval_status(status).value_or(vocab::eval_status::runtime_error);
}

vocab::eval_report eval_result::report() const {
  vocab::eval_report out;
  out.status = verdict_status(status);
  out.ok = ok() && latency_us.has_value();
  out.diagnostic = diagnostic;
  if (ok() && !latency_us) {
    out.status = vocab::eval_status::runtime_error;
    out.diagnostic = "no timed case ran ok (no latency)";
  }
  if (latency_us) out.latency_us = *latency_us;
  if (bound.is_object() && bound.contains("bound_us") && bound["bound_us"].is_number()) {
    out.bound_us = bound["bound_us"].get<double>();
  }
  out.suspect = out.ok && out.bound_us && out.latency_us < *out.bound_us * (1.0 - 1e-9);
  out.cached = cached;
  out.backend = backend;
  out.profile_name = profile;
  out.kernel = kernel;
  for (const auto& c : cases) {
    if (timed_case && c.name == *timed_case) out.profile = c.profile;
    vocab::case_facts f;
    f.name = c.name;
    f.timed = c.timed;
    f.status = verdict_status(c.status);
    // The declared outputs' elements; an in-place operator's (no declared output): its written inputs'.
    const bool any_output = std::any_of(c.outputs.begin(), c.outputs.end(), [](const auto& o) { return !o.input; });
    for (const auto& o : c.outputs)
      if (!o.input || !any_output) f.output_elements += o.elements;
    f.latency_us = c.latency_us;
    f.block_dim = c.block_dim;
    f.tiling_key = c.tiling_key;
    f.workspace_bytes = c.workspace_bytes;
    f.ub_reserved = c.ub_bytes;
    f.ub_usable = c.ub_usable;
    out.cases.push_back(std::move(f));
  }
  if (out.bound_us && out.profile.is_object()) out.profile["bound_us"] = *out.bound_us;
  if (measurement.is_object()) {
    for (const auto& v : measurement.value("samples_us", nlohmann::json::array())) {
      if (v.is_number()) out.samples_us.push_back(v.get<double>());
    }
  }
  out.warnings = warnings;
  if (build.is_object() && !cached) {  // a cached answer built nothing
    out.build_seconds = build.value("seconds", 0.0);
    out.host_reused = build.value("host_reused", false);
    out.kernel_reused = build.value("kernel_reused", false);
  }
  out.seconds = total_seconds;
  return out;
}

}  // namespace aopt::evaluation
