// The I/O of `aopt calibrate`: the calibration manifest, the kernels' traces on sim, their
// msprof op outputs on the device (through the cann backend), read back per case.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "aopt/calibrate/fit.h"
#include "aopt/evaluation/cann.h"
#include "aopt/evaluation/package.h"

namespace aopt::calibrate {

// calibration/calibration.json: the operator package and, per case, the msprof fields fitted.
struct manifest_case {
  std::string name;
  std::vector<std::string> fields;
};
struct manifest {
  std::filesystem::path file;
  std::filesystem::path package_dir;  // absolute
  std::vector<manifest_case> cases;
};

// The calibration directory shipped with aopt (env AOPT_CALIBRATION_DIR overrides).
std::filesystem::path default_calibration_dir();
// Throws aopt::error (not_found, parse_error, invalid_spec) naming the file.
manifest load_manifest(const std::filesystem::path& file);

// Each case's traces, from one run on sim with `base_profile` (a name or a .json path): the
// package built by the sim backend, its harness run with "trace_file" in `work`.
std::vector<std::vector<aopt::sim::core_trace>> trace_cases(const manifest& m, const std::string& base_profile,
                                                           const std::filesystem::path& work);

// Each case built, installed and run `launches` times on the device of `profile` (the cann
// backend); every profiled launch's OPPROF_* directory moved to <out>/<case>/. Throws
// aopt::error with the backend's diagnostic when a case does not run.
void measure_cases(const manifest& m, const evaluation::cann_profile& profile, int launches,
                   const std::filesystem::path& work, const std::filesystem::path& out);

}  // namespace aopt::calibrate
