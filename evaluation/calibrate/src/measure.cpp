// measure.h: traces on sim, msprof op outputs on the device.
#include "aopt/calibrate/measure.h"

#include <cstdlib>

#include "aopt/common/error.h"
#include "aopt/common/fs.h"
#include "aopt/common/json.h"
#include "aopt/common/mapped_file.h"
#include "aopt/common/subprocess.h"
#include "aopt/evaluation/backend.h"
#include "aopt/evaluation/evaluator.h"
#include "aopt/evaluation/inputs.h"
#include "aopt/evaluation/toolchain.h"
#include "aopt_sim/trace_io.h"

#ifndef AOPT_CALIBRATION_DIR
#define AOPT_CALIBRATION_DIR ""
#endif

namespace aopt::calibrate {

namespace fs = std::filesystem;
namespace ev = aopt::evaluation;

namespace {

// The cases of the manifest, as the package declares them.
std::vector<const ev::case_spec*> package_cases(const ev::op_package& pkg, const manifest& m) {
  std::vector<const ev::case_spec*> out;
  for (const auto& mc : m.cases) {
    const ev::case_spec* found = nullptr;
    for (const auto& c : pkg.spec.cases) {
      if (c.name == mc.name) found = &c;
    }
    if (found == nullptr) {
      throw error(ec::invalid_spec, m.file.string() + ": case '" + mc.name + "' is not in " + pkg.spec_file.string());
    }
    out.push_back(found);
  }
  return out;
}

// The run of one case: inputs generated into `dir` (the package's seed), outputs declared.
ev::run_spec case_run_spec(const ev::op_package& pkg, const nlohmann::json& signature, const ev::case_spec& raw_case,
                           const fs::path& dir) {
  const ev::case_spec c = ev::align_case(raw_case, signature);
  std::string why;
  const auto column = ev::select_column(signature, c, why);
  if (!column) throw error(ec::invalid_spec, pkg.spec_file.string() + ": case " + c.name + ": " + why);
  fs::create_directories(dir);
  ev::run_spec rs;
  rs.column = *column;
  rs.attrs = c.attrs;
  const std::uint64_t seed = pkg.spec.seed.value_or(1);
  for (const auto& si : signature.value("inputs", nlohmann::json::array())) {
    for (const auto& i : c.inputs) {
      if (i.name != si.value("name", std::string())) continue;
      ev::run_input ri;
      ri.name = i.name;
      for (std::size_t k = 0; k < i.tensors.size(); ++k) {
        const auto& ts = i.tensors[k];
        ev::tensor_file tf{i.name, ts.type, ts.shape, dir / ("in_" + i.name + "_" + std::to_string(k) + ".bin")};
        const auto bytes = ev::generate_tensor(ts, seed, c.name, i.name, k);
        common::write_file_bytes(tf.file, bytes.data(), bytes.size());
        ri.tensors.push_back(tf);
      }
      rs.inputs.push_back(ri);
    }
  }
  rs.outputs = ev::output_decls(signature, *column, c);
  return rs;
}

std::string sim_profile_path(const std::string& profile) {
  if (profile.size() > 5 && profile.substr(profile.size() - 5) == ".json") return fs::absolute(profile).string();
  return (fs::path(ev::toolchain::get().profile_dir) / (profile + ".json")).string();
}

// The harness of the sim build run by hand (trusted kernels shipped with aopt: no sandbox), with
// "trace_file": the case's traces.
std::vector<aopt::sim::core_trace> run_for_traces(const ev::build_result& br, const ev::run_spec& rs, const std::string& profile,
                                                  const fs::path& dir, const std::string& case_name) {
  nlohmann::json rj = {{"kernel_so", br.kernels.at(rs.column).string()},
                       {"kernel", br.signature.value("kernel", std::string())},
                       {"profile", profile},
                       {"inputs", ev::inputs_json(rs.inputs)},
                       {"outputs", nlohmann::json::array()},
                       {"attrs", rs.attrs},
                       {"timing", true},
                       {"trace_file", "traces.bin"},
                       {"result", "result.json"}};
  for (const auto& o : rs.outputs) rj["outputs"].push_back({{"name", o.name}, {"dtype", ev::dtype_name(o.type)}, {"file", "out_" + o.name + ".bin"}});
  common::write_json_file(dir / "run.json", rj);
  common::process_request req;
  req.argv = {br.host_exe.string(), "--run", "run.json"};
  req.cwd = dir.string();
  req.limits = ev::eval_options::default_limits();
  req.iso.enabled = false;
  const auto out = common::run_process(req);
  nlohmann::json res;
  std::error_code e;
  if (fs::is_regular_file(dir / "result.json", e)) res = common::read_json_file(dir / "result.json");
  if (!out.ok() || res.value("status", std::string()) != "ok") {
    throw error(ec::toolchain_error, "calibration case " + case_name + " does not run on sim (" + out.describe() + "): " +
                                         res.value("message", std::string()) + " " + out.err.substr(0, 600));
  }
  return aopt::sim::load_traces(dir / "traces.bin");
}

// Moves every OPPROF_* directory of `from` into `to`.
int move_opprof(const fs::path& from, const fs::path& to, const std::string& tag) {
  int n = 0;
  std::error_code e;
  if (!fs::is_directory(from, e)) return 0;
  fs::create_directories(to);
  for (const auto& d : fs::directory_iterator(from, e)) {
    const auto name = d.path().filename().string();
    if (!d.is_directory() || name.rfind("OPPROF_", 0) != 0) continue;
    fs::rename(d.path(), to / (name + "_" + tag));
    ++n;
  }
  return n;
}

}  // namespace

fs::path default_calibration_dir() {
  if (const char* v = std::getenv("AOPT_CALIBRATION_DIR"); v != nullptr && *v) return v;
  return AOPT_CALIBRATION_DIR;
}

manifest load_manifest(const fs::path& file) {
  const auto j = common::read_json_file(file);
  manifest m;
  m.file = file;
  auto bad = [&](const std::string& what) {
    throw error(ec::invalid_spec, file.string() + ": " + what + " (calibration/README.md describes the manifest)");
  };
  if (!j.is_object() || !j.contains("package") || !j["package"].is_string()) bad("\"package\" (a directory) is missing");
  m.package_dir = fs::absolute(file.parent_path() / j["package"].get<std::string>());
  if (!j.contains("cases") || !j["cases"].is_array() || j["cases"].empty()) bad("\"cases\" must be a non-empty list");
  for (const auto& c : j["cases"]) {
    if (!c.is_object() || !c.contains("name") || !c["name"].is_string() || !c.contains("fields") || !c["fields"].is_array()) {
      bad("every case needs \"name\" and \"fields\"");
    }
    manifest_case mc{c["name"].get<std::string>(), {}};
    for (const auto& f : c["fields"]) {
      if (!f.is_string()) bad("case " + mc.name + ": fields are msprof column names");
      mc.fields.push_back(f.get<std::string>());
    }
    m.cases.push_back(std::move(mc));
  }
  return m;
}

std::vector<std::vector<aopt::sim::core_trace>> trace_cases(const manifest& m, const std::string& base_profile, const fs::path& work) {
  auto pkg = std::make_shared<const ev::op_package>(ev::load_package(m.package_dir));
  const auto cases = package_cases(*pkg, m);
  auto be = ev::make_sim_backend(base_profile);
  const auto br = be->build(ev::candidate(pkg), work / "sim_build", cases);
  if (!br.ok) throw error(ec::toolchain_error, "the calibration kernels do not build on sim: " + br.diagnostic);
  const std::string profile = sim_profile_path(base_profile);
  std::vector<std::vector<aopt::sim::core_trace>> out;
  for (const auto* c : cases) {
    const fs::path dir = work / "sim_run" / c->name;
    out.push_back(run_for_traces(br, case_run_spec(*pkg, br.signature, *c, dir), profile, dir, c->name));
  }
  return out;
}

void measure_cases(const manifest& m, const ev::cann_profile& profile, int launches, const fs::path& work, const fs::path& out) {
  auto pkg = std::make_shared<const ev::op_package>(ev::load_package(m.package_dir));
  const auto cases = package_cases(*pkg, m);
  auto be = ev::make_cann_backend(profile);
  const auto br = be->build(ev::candidate(pkg), work / "cann_build", cases);
  if (!br.ok) throw error(ec::toolchain_error, "the calibration kernels do not build with " + profile.file.string() + ": " + br.diagnostic);
  for (const auto* c : cases) {
    for (int l = 0; l < launches; ++l) {
      const fs::path dir = work / "cann_run" / c->name / std::to_string(l);
      const auto rs = case_run_spec(*pkg, br.signature, *c, dir);
      const auto rr = be->run(br, rs, dir, ev::eval_options::default_limits());
      if (rr.status != "ok") {
        throw error(ec::toolchain_error, "calibration case " + c->name + " on the device: " + rr.status + ": " + rr.diagnostic);
      }
      if (move_opprof(dir / "msprof", out / c->name, std::to_string(l)) == 0) {
        throw error(ec::not_found, "calibration case " + c->name + ": the profile command wrote no OPPROF_* directory under " +
                                       (dir / "msprof").string() + "; check [commands] profile in " + profile.file.string() +
                                       " (msprof op --output={prof_dir})");
      }
    }
  }
}

}  // namespace aopt::calibrate
