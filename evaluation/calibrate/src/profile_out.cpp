// profile_out.h: writing the fitted constants into a profile and reporting the fit.
#include "aopt/calibrate/profile_out.h"

#include <cstdio>
#include <sstream>

namespace aopt::calibrate {

namespace {

std::string fmt(double v, const char* f = "%.4g") {
  char b[64];
  std::snprintf(b, sizeof b, f, v);
  return b;
}

std::string pct(double v) { return fmt(100.0 * v, "%.2f") + "%"; }

std::string joined(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : ", ") + x;
  return s;
}

std::string what_fitted(const fit_param& p, double base, double value) {
  return p.curve ? "bandwidth column x " + fmt(value) + " of the base curve" : fmt(value) + " (base " + fmt(base) + ")";
}

// The "source" text of one fitted constant.
std::string fitted_source(const fit_param& p, const fit_result& fit, std::size_t j, const profile_meta& meta) {
  return "[FITTED] aopt calibrate " + meta.date + " on " + meta.device + ": " + what_fitted(p, fit.base_values[j], fit.values[j]) +
         ", from kernels " + joined(fit.kernels[j]) + "; fit error " + pct(fit.param_error[j]) +
         " (RMS relative error of those kernels' fitted msprof fields)";
}

nlohmann::json& field_json(nlohmann::json& raw, const std::string& field) {
  nlohmann::json* j = &raw["timing"];
  std::size_t at = 0;
  while (true) {
    const auto dot = field.find('.', at);
    j = &(*j)[field.substr(at, dot == std::string::npos ? std::string::npos : dot - at)];
    if (dot == std::string::npos) return *j;
    at = dot + 1;
  }
}

}  // namespace

nlohmann::json calibrated_profile(const nlohmann::json& base_raw, const std::vector<fit_param>& params, const fit_result& fit,
                                  const profile_meta& meta) {
  nlohmann::json raw = base_raw;
  const std::string base_name = base_raw.at("name").value("value", std::string());
  raw["name"] = {{"value", meta.name}, {"source", "aopt calibrate " + meta.date + ": profile " + base_name + " fitted on " + meta.device}};
  raw["description"]["value"] = base_raw["description"].value("value", std::string()) + "; calibrated on " + meta.device;
  std::map<std::string, std::string> table_notes;  // table field -> fitted entries' notes
  for (std::size_t j = 0; j < params.size(); ++j) {
    if (fit.kernels[j].empty()) continue;
    const auto& p = params[j];
    write_param(raw, p, fit.values[j]);
    if (p.entry.empty()) {
      field_json(raw, p.field)["source"] = fitted_source(p, fit, j, meta);
    } else {
      const std::string entry = p.name.substr(p.field.size() + 1);  // "binary.b16"
      table_notes[p.field] += (table_notes[p.field].empty() ? "" : "; ") + entry + ": " + fitted_source(p, fit, j, meta);
    }
  }
  for (const auto& [field, notes] : table_notes) {
    auto& f = field_json(raw, field);
    f["source"] = notes + ". Other entries: " + f.value("source", std::string());
  }
  return raw;
}

nlohmann::json fit_report(const std::vector<fit_param>& params, const fit_result& fit, const profile_meta& meta) {
  nlohmann::json j = {{"profile", meta.name}, {"date", meta.date}, {"device", meta.device}, {"iterations", fit.iterations},
                      {"rms_error_base", fit.rms_base}, {"rms_error_fitted", fit.rms_fitted},
                      {"constants", nlohmann::json::array()}, {"cases", nlohmann::json::array()}};
  for (std::size_t k = 0; k < params.size(); ++k) {
    j["constants"].push_back({{"name", params[k].name}, {"curve_factor", params[k].curve}, {"base", fit.base_values[k]},
                              {"fitted", fit.values[k]}, {"kernels", fit.kernels[k]}, {"error", fit.param_error[k]}});
  }
  for (const auto& c : fit.cases) {
    j["cases"].push_back({{"name", c.name}, {"measured", c.measured}, {"simulated_base", c.base}, {"simulated_fitted", c.fitted},
                          {"error_base", c.error_base}, {"error_fitted", c.error_fitted}});
  }
  return j;
}

std::string fit_table(const std::vector<fit_param>& params, const fit_result& fit) {
  std::ostringstream o;
  o << "constant                                  base        fitted      fit error  kernels\n";
  for (std::size_t k = 0; k < params.size(); ++k) {
    char line[160];
    std::snprintf(line, sizeof line, "%-40s  %-10.4g  %-10.4g  %-9s  ", params[k].name.c_str(), fit.base_values[k],
                  fit.values[k], fit.kernels[k].empty() ? "-" : pct(fit.param_error[k]).c_str());
    o << line << (fit.kernels[k].empty() ? "(not identifiable from these kernels: kept)" : std::to_string(fit.kernels[k].size()))
      << "\n";
  }
  o << "\ncase                      error (base profile)  error (fitted)\n";
  for (const auto& c : fit.cases) {
    char line[160];
    std::snprintf(line, sizeof line, "%-24s  %-20s  %s\n", c.name.c_str(), pct(c.error_base).c_str(), pct(c.error_fitted).c_str());
    o << line;
  }
  o << "all fields: " << pct(fit.rms_base) << " with the base profile, " << pct(fit.rms_fitted) << " fitted (RMS, "
    << fit.iterations << " iterations)\n";
  return o.str();
}

}  // namespace aopt::calibrate
