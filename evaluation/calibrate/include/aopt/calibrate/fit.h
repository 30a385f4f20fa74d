// The fit of `aopt calibrate`: constants of a sim device profile chosen so that the timing model,
// replaying the calibration kernels' traces, reproduces what msprof op measured on the device.
// Pure: no files, no processes. Deterministic (Levenberg-Marquardt from the base profile, a fixed
// step schedule, no randomness).
#pragma once

#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "aopt_sim/trace.h"

namespace aopt::calibrate {

// One fitted constant of the profile's "timing" section.
struct fit_param {
  std::string name;   // "chip.hbm_bandwidth_gbs", "dma.gm_to_ub_gibs", "vector.cycles_per_repeat.binary.b16"
  bool curve = false; // a DMA curve: the fitted value is a factor on its bandwidth column
  // Where the number lives: the field under "timing" ("chip.hbm_bandwidth_gbs") and, for a table
  // entry, the keys inside its value ("binary", "b16").
  std::string field;
  std::vector<std::string> entry;
};

// The constants `aopt calibrate` fits by default (docs/cann.md, "Calibrating sim").
std::vector<fit_param> default_params();
// A parameter by name, as default_params() names them; throws invalid_argument on an unknown one.
fit_param param_named(const std::string& name);

// The value of `p` in a profile (a curve: 1.0, its factor relative to itself).
double read_param(const nlohmann::json& raw, const fit_param& p);
// `raw` with `p` set to `value` (a curve: its bandwidths multiplied by `value`).
void write_param(nlohmann::json& raw, const fit_param& p, double value);

// One calibration case: its traces (from the sim run) and what the device measured.
struct fit_case {
  std::string name;
  std::vector<aopt::sim::core_trace> traces;
  std::map<std::string, double> measured;  // msprof field -> value (only the fitted fields)
};

// The msprof fields of a simulated launch (timing_report under msprof's names).
std::map<std::string, double> simulate_fields(const std::vector<aopt::sim::core_trace>& traces, const nlohmann::json& raw);

struct case_fit {
  std::string name;
  std::map<std::string, double> measured, base, fitted;  // per field
  double error_base = 0, error_fitted = 0;  // RMS of the relative errors over the fields
};

struct fit_result {
  std::vector<double> base_values, values;        // per parameter, default_params() order
  std::vector<std::vector<std::string>> kernels;  // per parameter: the cases it moves
  std::vector<double> param_error;                // per parameter: RMS relative error over its cases
  std::vector<case_fit> cases;
  double rms_base = 0, rms_fitted = 0;            // over every (case, field)
  int iterations = 0;
};

struct fit_options {
  int max_iterations = 60;
  double lower = 0.2, upper = 5.0;  // bounds on each value, relative to the base
};

// Fits `params` of `base_raw` (a whole profile JSON) to `cases`. A parameter no case depends
// on keeps its base value (kernels empty). Throws invalid_argument when a case has no field.
fit_result fit_profile(const nlohmann::json& base_raw, const std::vector<fit_param>& params,
                       const std::vector<fit_case>& cases, const fit_options& opts = {});

// Solves the n x n system a x = b (Gaussian elimination, partial pivoting); false when singular.
bool solve_linear(std::vector<std::vector<double>> a, std::vector<double> b, std::vector<double>& x);

}  // namespace aopt::calibrate
