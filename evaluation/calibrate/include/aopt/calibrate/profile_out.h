// The calibrated profile: the base profile's JSON with the fitted constants replaced, each
// one's "source" saying it was fitted, from which kernels, on which date, with its fit error.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "aopt/calibrate/fit.h"

namespace aopt::calibrate {

struct profile_meta {
  std::string name;         // the new profile's name ("a2-site0")
  std::string date;         // "2026-11-26" (UTC)
  std::string device;       // what was measured: "cann profile site.toml, device 0", "--from DIR"
};

// The base with every fitted value written and its source rewritten (a table's source lists
// its fitted entries and keeps the base source for the others).
nlohmann::json calibrated_profile(const nlohmann::json& base_raw, const std::vector<fit_param>& params,
                                  const fit_result& fit, const profile_meta& meta);

// The fit error report: per case and field, measured / base / fitted; per constant base and
// fitted value, kernels, error (calibration.json beside the profile).
nlohmann::json fit_report(const std::vector<fit_param>& params, const fit_result& fit, const profile_meta& meta);

// The same as a plain-text table (what `aopt calibrate` prints).
std::string fit_table(const std::vector<fit_param>& params, const fit_result& fit);

}  // namespace aopt::calibrate
