// `aopt calibrate`: fit a sim device profile to msprof op outputs of the calibration kernels
// (calibration/), measured on the user's device through the cann backend or read with --from.
// docs/cann.md, "Calibrating sim".
#include <ctime>
#include <filesystem>
#include <iostream>
#include <memory>

#include <fmt/format.h>

#include "aopt/calibrate/fit.h"
#include "aopt/calibrate/measure.h"
#include "aopt/calibrate/msprof_csv.h"
#include "aopt/calibrate/profile_out.h"
#include "aopt/common/error.h"
#include "aopt/common/fs.h"
#include "aopt/common/json.h"
#include "aopt_sim/profile.h"
#include "commands.h"

namespace aopt::app {

namespace fs = std::filesystem;
namespace cal = aopt::calibrate;

namespace {

struct calibrate_args {
  std::string base = "910b4";
  std::string cann_config;
  int device = -1;
  std::string from;
  int launches = 5;
  std::string out;
  std::string name;
  std::string measurements;
  std::string calibration;
  std::string work;
};

std::string today_utc() {
  char b[16];
  const std::time_t t = std::time(nullptr);
  std::strftime(b, sizeof b, "%Y-%m-%d", std::gmtime(&t));
  return b;
}

// Runs the calibration kernels on the device; returns the directory of their msprof outputs.
fs::path measure(const calibrate_args& a, const cal::manifest& m, const fs::path& work, const fs::path& out, std::string& device) {
  if (a.cann_config.empty()) {
    throw error(ec::invalid_argument, "give --cann-config FILE (the device's command profile, config/cann.example.toml) to "
                                      "measure the calibration kernels, or --from DIR with msprof op outputs already taken");
  }
  auto prof = evaluation::load_cann_profile(a.cann_config);
  if (a.device >= 0) prof.device = a.device;
  device = "cann profile " + prof.name + " (" + fs::path(a.cann_config).filename().string() + "), device " + std::to_string(prof.device);
  std::cerr << fmt::format("measuring {} calibration cases x {} launches on {}\n", m.cases.size(), a.launches, device);
  cal::measure_cases(m, prof, a.launches, work, out);
  return out;
}

std::vector<cal::fit_case> read_cases(const cal::manifest& m, const fs::path& from,
                                      const std::vector<std::vector<aopt::sim::core_trace>>& traces, const nlohmann::json& base) {
  std::vector<cal::fit_case> cases;
  for (std::size_t i = 0; i < m.cases.size(); ++i) {
    const auto& mc = m.cases[i];
    auto fields = mc.fields;
    fields.push_back("Block Dim");
    auto meas = cal::read_case_dir(from / mc.name, fields);
    if (!meas.fields.contains("Block Dim")) {
      throw error(ec::parse_error, fmt::format("{}: OpBasicInfo.csv gives no 'Block Dim' (N/A in every launch); profile the case again "
                                               "(aopt calibrate without --from) or replace the file with msprof op's own",
                                               (from / mc.name).string()));
    }
    const double device_blocks = meas.fields.at("Block Dim");
    const double sim_blocks = cal::simulate_fields(traces[i], base).at("Block Dim");
    if (device_blocks != sim_blocks) {
      throw error(ec::invalid_spec, fmt::format("{}: the device ran case {} on {} cores, sim with the base profile on {}: choose a "
                                                "--base whose aiv_cores is the device's", (from / mc.name).string(), mc.name,
                                                device_blocks, sim_blocks));
    }
    meas.fields.erase("Block Dim");
    cases.push_back({mc.name, traces[i], meas.fields});
  }
  return cases;
}

int run(const calibrate_args& a) {
  const fs::path cal_dir = a.calibration.empty() ? cal::default_calibration_dir() : fs::path(a.calibration);
  const auto m = cal::load_manifest(cal_dir / "calibration.json");
  const auto base_prof = aopt::sim::load_profile(a.base);
  const std::string name = a.name.empty() ? base_prof.name + "-calibrated" : a.name;
  const fs::path out = a.out.empty() ? fs::path(name + ".json") : fs::path(a.out);
  const fs::path work = a.work.empty() ? common::make_unique_dir(fs::temp_directory_path(), "aopt-calibrate-") : fs::path(a.work);
  // A work directory of our own goes when the command ends; one given with --work stays.
  const std::unique_ptr<const fs::path, void (*)(const fs::path*)> cleanup(a.work.empty() ? &work : nullptr, [](const fs::path* p) {
    std::error_code e;
    fs::remove_all(*p, e);
  });
  std::string device = "msprof op outputs in " + a.from;
  fs::path from = a.from;
  if (from.empty()) {
    const fs::path keep = a.measurements.empty() ? out.parent_path() / (name + "-msprof") : fs::path(a.measurements);
    from = measure(a, m, work, keep, device);
    std::cerr << "msprof outputs kept in " << keep.string() << " (aopt calibrate --from " << keep.string() << " fits them again)\n";
  }
  const auto traces = cal::trace_cases(m, a.base, work);
  const auto cases = read_cases(m, from, traces, base_prof.raw);
  const auto params = cal::default_params();
  const auto fit = cal::fit_profile(base_prof.raw, params, cases);
  const cal::profile_meta meta{name, today_utc(), device};
  common::write_json_file(out, cal::calibrated_profile(base_prof.raw, params, fit, meta));
  fs::path report = out;
  report.replace_extension(".fit.json");
  common::write_json_file(report, cal::fit_report(params, fit, meta));
  aopt::sim::load_profile(fs::absolute(out).string());  // what we wrote must load
  std::cout << cal::fit_table(params, fit) << "profile written to " << out.string() << " (fit report " << report.string()
            << "); use it with --profile " << out.string() << "\n";
  return 0;
}

}  // namespace

command_fn add_calibrate_command(CLI::App& app) {
  auto a = std::make_shared<calibrate_args>();
  app.add_option("--base", a->base, "Profile to start from and keep the unfitted constants of: a name (910b4, a2) or a .json path; "
                                    "its core count must be the device's")
      ->capture_default_str();
  app.add_option("--cann-config", a->cann_config, "The device's command profile (config/cann.example.toml): run the kernels there");
  app.add_option("--device", a->device, "Device id (overrides [cann] device of --cann-config)");
  app.add_option("--from", a->from, "Read msprof op outputs from DIR/<case>/OPPROF_*/ instead of running the kernels");
  app.add_option("--launches", a->launches, "Profiled launches per case (the fit uses the median of each field)")
      ->capture_default_str()
      ->check(CLI::Range(1, 100));
  app.add_option("-o,--out", a->out, "The calibrated profile file (default: <name>.json); the fit report goes beside it as .fit.json");
  app.add_option("--name", a->name, "Name of the calibrated profile (default: <base>-calibrated)");
  app.add_option("--measurements", a->measurements, "Where the msprof outputs of a run are kept (default: <name>-msprof beside --out)");
  app.add_option("--calibration", a->calibration, "The calibration directory (calibration.json and its package; default: the one shipped with aopt)");
  app.add_option("--work", a->work, "Work directory (default: a new one under $TMPDIR)");
  return [a] { return run(*a); };
}

}  // namespace aopt::app
