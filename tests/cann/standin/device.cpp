// The "device" of the stand-in CANN toolchain: what the scripts under tests/cann/standin/ call
// where the real toolchain would compile for the chip or launch on it. It uses aopt's CPU
// emulator (the sim backend) for the real work, so outputs are the operator's real outputs and
// timings are the sim timing model's, with seeded noise on top.
//
//   aopt-standin-device build PROJECT OUT     compile the project's op_host/ op_kernel/ (aopt.json
//                                             beside them), write OUT/libcust_opmaster_rt2.0.so
//                                             (the tiling library: the host program, JSON),
//                                             OUT/standin_kernels.json (the kernel binaries), the
//                                             ops-info file and the operator's aclnn header and
//                                             library source (OUT/op_api/, build.sh compiles it);
//                                             compiler errors on stderr, exit 1
//   aopt-standin-device build-step tiling|kernel PROJECT OUT
//                                             a partial build: the tiling library or the kernel
//                                             binaries only, into OUT (what did not change comes
//                                             from the artifact cache, as make's incremental build)
//   aopt-standin-device run REQUEST           the runner contract of docs/cann.md ("The runner");
//                                             result.json also holds the noise-free latency_us and
//                                             the tiling's workspace_bytes (for the stand-in
//                                             libnnopbase.so, which runs this per launch)
//
// Environment: AOPT_STANDIN_FAULT = compile_error | acl_error | device_busy | hang | missing_csv
// | tiling_error (one failure the real toolchain shows); AOPT_STANDIN_NOISE relative standard
// deviation of timings (default 0.02); AOPT_STANDIN_SEED; AOPT_STANDIN_SIM_PROFILE (sim profile
// the timings come from, a name or a .json path such as the calibration test's "true" profile;
// default 910b4); AOPT_STANDIN_MSPROF_DIR (set by the stand-in msprof:
// write its CSVs there); AOPT_STANDIN_STEP_LOG (a file: one JSON line per build step and per
// launch's emulation: step, project, start, end, what it compiled).
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <iterator>
#include <vector>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <functional>
#include <iostream>
#include <random>
#include <thread>

#include <nlohmann/json.hpp>

#include "aopt/common/fast_hash.h"
#include "aopt/common/fs.h"
#include "aopt/common/json.h"
#include "aopt/evaluation/backend.h"
#include "aopt/evaluation/candidate.h"
#include "aopt/evaluation/evaluator.h"
#include "aopt/evaluation/package.h"
#include "acl/aclnn_gen.h"

namespace fs = std::filesystem;
namespace ev = aopt::evaluation;

namespace {

std::string env_or(const char* name, const std::string& fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::string(v) : fallback;
}

std::string fault() { return env_or("AOPT_STANDIN_FAULT", ""); }

// The CANN dtype spelling of the ops-info file.
std::string cann_dtype(const std::string& d) { return d == "float32" ? "float" : d; }

std::string joined(const nlohmann::json& list, const std::function<std::string(const std::string&)>& f) {
  std::string s;
  for (const auto& x : list) s += (s.empty() ? "" : ",") + f(x.get<std::string>());
  return s;
}

// One line of the step log (AOPT_STANDIN_STEP_LOG, when set): which step ran on which project,
// when, and what it compiled, so that tests see what each candidate cost and which steps
// overlapped. Appended with O_APPEND in one write (concurrent steps do not interleave lines).
double now_s() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}
void log_step(nlohmann::json line) {
  const std::string file = env_or("AOPT_STANDIN_STEP_LOG", "");
  if (file.empty()) return;
  line["pid"] = ::getpid();
  const std::string text = line.dump() + "\n";
  std::FILE* f = std::fopen(file.c_str(), "a");
  if (f == nullptr) return;
  std::fwrite(text.data(), 1, text.size(), f);
  std::fclose(f);
}

// The project compiled on aopt's emulator (the sim backend) into a directory of its own under
// build_out/ (an installed package keeps referring to it after later steps). What did not
// change since an earlier step is taken from the artifact cache, as an incremental build does:
// br.host_reused / br.kernel_reused say what was compiled.
std::optional<ev::build_result> sim_build(const fs::path& project, const std::string& step) {
  const double start = now_s();
  nlohmann::json line = {{"step", step}, {"project", project.string()}, {"start", start}};
  if (fault() == "compile_error") {
    std::cerr << project.string() << "/op_kernel/kernel.cpp:1:1: error: unknown type name 'standin_fault' (AOPT_STANDIN_FAULT=compile_error)\n"
              << "[ERROR] build failed\n";
    line["ok"] = false;
    line["end"] = now_s();
    log_step(line);
    return std::nullopt;
  }
  const fs::path work = aopt::common::make_unique_dir(project / "build_out", "sim-");
  // The package as the emulator needs it: the project's sources and the cases of its aopt.json
  // (which the cann backend puts beside them; the reference is not the build's business).
  const fs::path pkg_dir = work / "package";
  fs::create_directories(pkg_dir);
  for (const char* d : {"op_host", "op_kernel"}) fs::copy(project / d, pkg_dir / d, fs::copy_options::recursive);
  auto spec = aopt::common::read_json_file(project / "aopt.json");
  spec["reference"] = "baseline";
  aopt::common::write_json_file(pkg_dir / "aopt.json", spec);
  auto pkg = std::make_shared<const ev::op_package>(ev::load_package(pkg_dir));
  ev::candidate cand(pkg);
  std::vector<const ev::case_spec*> cases;
  for (const auto& c : pkg->spec.cases) cases.push_back(&c);
  auto be = ev::make_sim_backend(env_or("AOPT_STANDIN_SIM_PROFILE", "910b4"));
  auto br = be->build(cand, work / "sim", cases);
  line["ok"] = br.ok;
  line["host_compiled"] = !br.host_reused;
  line["kernel_compiled"] = !br.kernel_reused;
  line["end"] = now_s();
  log_step(line);
  if (!br.ok) {
    std::cerr << br.log << "\n" << br.diagnostic << "\n[ERROR] build failed\n";
    return std::nullopt;
  }
  return br;
}

// The stand-in's tiling library (op_host: what liboptiling.so is on the chip) and kernel
// binaries (op_kernel), as JSON files under the names the real build gives them.
nlohmann::json tiling_library(const ev::build_result& br) {
  return {{"dir", br.dir.string()}, {"host_exe", br.host_exe.string()}, {"signature", br.signature}};
}
nlohmann::json kernel_binaries(const ev::build_result& br) {
  nlohmann::json kernels = nlohmann::json::object();
  for (const auto& [col, so] : br.kernels) kernels[std::to_string(col)] = so.string();
  return {{"kernels", kernels}};
}

// A partial build (`cmake --build build_out --target T` of the stand-in project): the tiling
// library only (`tiling`) or the kernel binaries only (`kernel`), written to OUT.
int build_step(const std::string& step, const fs::path& project, const fs::path& out) {
  const auto br = sim_build(project, step);
  if (!br) return 1;
  fs::create_directories(out);
  if (step == "tiling") aopt::common::write_json_file(out / "libcust_opmaster_rt2.0.so", tiling_library(*br));
  else aopt::common::write_json_file(out / "standin_kernels.json", kernel_binaries(*br));
  std::cout << "[INFO] standin " << step << " step of " << project.string() << " done\n";
  return 0;
}

int build(const fs::path& project, const fs::path& out) {
  const auto built = sim_build(project, "build");
  if (!built) return 1;
  const auto& br = *built;
  fs::create_directories(out);
  aopt::common::write_json_file(out / "libcust_opmaster_rt2.0.so", tiling_library(br));
  aopt::common::write_json_file(out / "standin_kernels.json", kernel_binaries(br));
  // The ops-info file as CANN's build writes it: {"<OpType>": {"input0": {...}, ...}}.
  nlohmann::json op = nlohmann::json::object();
  const auto& sig = br.signature;
  int i = 0;
  for (const auto& in : sig.value("inputs", nlohmann::json::array())) {
    op["input" + std::to_string(i++)] = {{"name", in.value("name", "")}, {"dtype", joined(in["dtypes"], cann_dtype)},
                                         {"format", joined(in["formats"], [](const std::string& f) { return f; })},
                                         {"paramType", in.value("param_type", "required")}};
  }
  i = 0;
  for (const auto& o : sig.value("outputs", nlohmann::json::array())) {
    op["output" + std::to_string(i++)] = {{"name", o.value("name", "")}, {"dtype", joined(o["dtypes"], cann_dtype)},
                                          {"format", joined(o["formats"], [](const std::string& f) { return f; })},
                                          {"paramType", o.value("param_type", "required")}};
  }
  std::string attrs;
  for (const auto& a : sig.value("attrs", nlohmann::json::array())) {
    const std::string n = a.value("name", "");
    attrs += (attrs.empty() ? "" : ",") + n;
    op["attr_" + n] = {{"type", a.value("type", "float")}, {"paramType", a.value("required", false) ? "required" : "optional"}};
    if (a.contains("default")) op["attr_" + n]["defaultValue"] = a["default"];
  }
  if (!attrs.empty()) op["attr"] = {{"list", attrs}};
  op["opFile"] = {{"value", sig.value("kernel", "")}};
  op["opInterface"] = {{"value", sig.value("kernel", "")}};
  aopt::common::write_json_file(out / "ops-info.json", {{sig.value("op_type", std::string("Op")), op}});
  // The aclnn interface msOpGen generates for the operator: op_api/include/ and the library's source.
  const std::string snake = aopt::standin::snake_case(sig.value("op_type", std::string("Op")));
  fs::create_directories(out / "op_api");
  aopt::common::write_text_file(out / "op_api" / ("aclnn_" + snake + ".h"), aopt::standin::aclnn_header(sig));
  aopt::common::write_text_file(out / "op_api" / ("aclnn_" + snake + ".cpp"), aopt::standin::aclnn_source(sig));
  std::cout << "[INFO] standin build of " << sig.value("op_type", std::string()) << " done\n";
  return 0;
}

// A seed for this launch: the configured seed, the request and a per-process count (the same
// request run twice gives two different noise draws, reproducibly).
std::uint64_t launch_seed(const fs::path& request) {
  const std::uint64_t base = std::strtoull(env_or("AOPT_STANDIN_SEED", "1").c_str(), nullptr, 10);
  const fs::path counter = fs::path(env_or("AOPT_STANDIN_STATE", fs::temp_directory_path().string())) / "aopt-standin-launches";
  std::uint64_t n = 0;
  {
    std::ifstream in(counter);
    in >> n;
  }
  {
    std::ofstream o(counter, std::ios::trunc);
    o << n + 1;
  }
  const std::string text = aopt::common::read_text_file(request);
  return base * 0x9E3779B97F4A7C15ull ^ aopt::common::fast_hash64(text.data(), text.size()) ^ (n * 0xBF58476D1CE4E5B9ull);
}

// The kernel's name as msprof op shows it for an msOpGen operator: <OpType>_<hash>_<n>.
std::string kernel_name(const std::string& op_type) {
  char hash[17];
  std::snprintf(hash, sizeof hash, "%016llx", static_cast<unsigned long long>(aopt::common::fast_hash64(op_type.data(), op_type.size())));
  return op_type + "_" + hash + "_0";
}

// msprof op's CSVs of one launch, as the real one writes them: OpBasicInfo.csv one row;
// PipeUtilization.csv one row per core (block_id, sub_block_id), the cores' times spread around
// the kernel's (their mean is the kernel-level value sim reports), the cube columns N/A (a
// vector-only kernel). Nothing when --kernel-name (a prefix of the kernel's name) does not match.
void write_csvs(const fs::path& dir, const nlohmann::json& timing, std::uint32_t block_dim, const std::string& op_type,
                std::mt19937_64& rng, double noise) {
  const std::string name = kernel_name(op_type), filter = env_or("AOPT_STANDIN_MSPROF_KERNEL", "");
  if (name.rfind(filter, 0) != 0) {
    std::cout << "[WARNING] msprof op: no kernel launch matched --kernel-name=" << filter << " (launched: " << name << ")\n";
    return;
  }
  std::normal_distribution<double> z(0.0, 1.0);
  auto noisy = [&](double v) { return std::max(0.0, v * (1.0 + noise * z(rng))); };
  char stamp[32];
  const std::time_t t = std::time(nullptr);
  std::strftime(stamp, sizeof stamp, "%Y%m%d%H%M%S", std::gmtime(&t));
  const fs::path out = dir / ("OPPROF_" + std::string(stamp) + "_" + std::to_string(::getpid()));
  fs::create_directories(out);
  auto num = [&](const char* k) { return timing.contains(k) && timing[k].is_number() ? timing[k].get<double>() : 0.0; };
  {
    std::ofstream f(out / "OpBasicInfo.csv");
    f << "Op Name,Op Type,Task Type,Task Duration(us),Task Wait Time(us),Block Dim,Mix Block Dim,Device Id,Pid,Current Freq,Rated Freq\n";
    f << name << "," << op_type << ",AI_VECTOR_CORE," << noisy(num("Task Duration(us)")) << ",N/A," << block_dim << ",N/A,"
      << env_or("ASCEND_DEVICE_ID", "0") << "," << ::getpid() << ",1800,1800\n";
  }
  {
    std::ofstream f(out / "PipeUtilization.csv");
    const char* cube[] = {"aic_time(us)", "aic_total_cycles", "aic_mac_time(us)", "aic_mac_ratio"};
    const char* cols[] = {"aiv_time(us)",        "aiv_total_cycles",   "aiv_vec_time(us)",  "aiv_vec_ratio",
                          "aiv_scalar_time(us)", "aiv_scalar_ratio",   "aiv_mte2_time(us)", "aiv_mte2_ratio",
                          "aiv_mte3_time(us)",   "aiv_mte3_ratio",     "aiv_icache_miss_rate"};
    f << "block_id,sub_block_id";
    for (const char* c : cube) f << "," << c;
    for (const char* c : cols) f << "," << c;
    f << "\n";
    // Per-core field values: the kernel's, noisy, times a factor that spreads the cores by up to
    // +-10% and averages exactly 1 (so the per-core mean is the kernel-level value).
    const std::uint32_t cores = std::max<std::uint32_t>(1, block_dim);
    std::vector<double> kernel_value;
    for (const char* c : cols) {
      const std::string k(c);
      kernel_value.push_back(k.find("ratio") != std::string::npos || k.find("rate") != std::string::npos ? num(c) : noisy(num(c)));
    }
    for (std::uint32_t core = 0; core < cores; ++core) {
      const double factor = cores == 1 ? 1.0 : 1.0 + 0.2 * (static_cast<double>(core) / (cores - 1) - 0.5);
      f << core << ",0";
      for (std::size_t i = 0; i < std::size(cube); ++i) f << ",N/A";
      for (std::size_t i = 0; i < std::size(cols); ++i) {
        const std::string k(cols[i]);
        const bool ratio = k.find("ratio") != std::string::npos || k.find("rate") != std::string::npos;
        f << "," << (ratio ? kernel_value[i] : kernel_value[i] * factor);
      }
      f << "\n";
    }
  }
  std::cout << "[INFO] Op profiling data saved in " << out.string() << "\n";
}

int run_device(const fs::path& request);

// A launch's emulation, logged as the step "run" (when the device measured).
int run(const fs::path& request) {
  const double start = now_s();
  const int rc = run_device(request);
  log_step({{"step", "run"}, {"request", request.string()}, {"start", start}, {"end", now_s()}, {"ok", rc == 0}});
  return rc;
}

int run_device(const fs::path& request) {
  const auto rq = aopt::common::read_json_file(request);
  const std::string op_type = rq.value("op_type", std::string("Op"));
  const std::string f = fault();
  if (f == "device_busy") {
    std::cerr << "[ERROR] RUNTIME: aclrtSetDevice(" << rq.value("device", 0)
              << ") failed, error code 507033: device setup error (the device is in use by another process)\n";
    return 1;
  }
  if (f == "hang") {
    std::this_thread::sleep_for(std::chrono::hours(1));
    return 1;
  }
  if (f == "acl_error") {
    std::cerr << "EZ9999: Inner Error!\nEZ9999: The error from device(chipId:0, dieId:0), serial number is 1, there is an exception of aivec error, core id is 3\n"
              << "[ERROR] aclrtSynchronizeStream failed, error code 507015\n";
    return 1;
  }
  if (f == "tiling_error") {
    std::cerr << "[ERROR] aclnn" << op_type << "GetWorkspaceSize failed, ERROR: 561002 (tiling failed)\n";
    return 1;
  }
  // The installed package: its tiling library and kernel binaries where the installer (or a
  // partial build's copy) put them.
  const fs::path base = fs::path(rq.at("install").get<std::string>()) / "vendors" / rq.value("vendor", std::string("customize"));
  auto installed = [&](const fs::path& dir, const std::string& name) -> std::optional<fs::path> {
    std::error_code e;
    for (auto it = fs::recursive_directory_iterator(dir, e); !e && it != fs::recursive_directory_iterator(); it.increment(e)) {
      if (it->path().filename() == name) return it->path();
    }
    return std::nullopt;
  };
  const auto tiling_lib = installed(base / "op_impl" / "ai_core" / "tbe" / "op_tiling", "libcust_opmaster_rt2.0.so");
  const auto kernel_bins = installed(base / "op_impl" / "ai_core" / "tbe" / "kernel", "standin_kernels.json");
  if (!tiling_lib || !kernel_bins) {
    std::cerr << "[ERROR] aclnn" << op_type << " not found: no custom operator package (tiling library and kernel binaries) installed under "
              << rq.at("install").get<std::string>() << ", error code 161001\n";
    return 1;
  }
  const auto tiling_j = aopt::common::read_json_file(*tiling_lib);
  const auto kernels_j = aopt::common::read_json_file(*kernel_bins);
  ev::build_result br;
  br.ok = true;
  br.dir = tiling_j.at("dir").get<std::string>();
  br.host_exe = tiling_j.at("host_exe").get<std::string>();
  br.signature = tiling_j.at("signature");
  for (const auto& [k, v] : kernels_j.at("kernels").items()) br.kernels[std::stoul(k)] = v.get<std::string>();
  // After a partial build the tiling library and the kernels come from two steps' directories
  // of one project: the run sees the directory that holds both.
  for (const auto& [col, so] : br.kernels) {
    while (!br.dir.empty() && br.dir != br.dir.root_path() && so.string().rfind(br.dir.string() + "/", 0) != 0) br.dir = br.dir.parent_path();
  }
  // The tiling reads its run-time tunables from the process's environment, as a tiling library
  // built from a search-form source does on the chip (the runner's environment).
  br.tunables = env_or("AOPT_TUNABLES", "");
  // The kernel for the inputs' and outputs' dtypes (as aclnn picks the binary: a cast from
  // float32 has one kernel per output dtype).
  std::optional<std::size_t> column;
  for (const auto& [col, so] : br.kernels) {
    bool all = true;
    for (const char* side : {"inputs", "outputs"}) {
      std::size_t i = 0;
      for (const auto& t : rq.at(side)) {
        const auto& decl = br.signature[side];
        if (i >= decl.size() || decl[i]["dtypes"].size() <= col || decl[i]["dtypes"][col] != t.at("dtype")) all = false;
        ++i;
      }
    }
    if (all && !column) column = col;
  }
  if (!column) {
    std::cerr << "[ERROR] aclnn" << op_type << "GetWorkspaceSize failed, ERROR: 161002 (no kernel for these dtypes)\n";
    return 1;
  }
  ev::run_spec spec;
  spec.column = *column;
  spec.attrs = rq.value("attrs", nlohmann::json::object());
  for (const auto& in : rq.at("inputs")) {
    ev::run_input ri;
    ri.name = in.at("name").get<std::string>();
    auto add = [&](const nlohmann::json& t) {
      ev::tensor_file tf;
      tf.name = ri.name;
      tf.type = *ev::parse_dtype(t.at("dtype").get<std::string>());
      tf.shape = t.at("shape").get<std::vector<std::int64_t>>();
      tf.file = t.at("file").get<std::string>();
      ri.tensors.push_back(tf);
    };
    if (in.contains("list")) {
      ri.is_list = true;
      for (const auto& t : in["list"]) add(t);
    } else {
      add(in);
    }
    spec.inputs.push_back(ri);
  }
  for (const auto& o : rq.at("outputs")) {
    ev::run_output_decl d;
    d.name = o.at("name").get<std::string>();
    d.type = *ev::parse_dtype(o.at("dtype").get<std::string>());
    if (o.contains("shape")) d.shape = o["shape"].get<std::vector<std::int64_t>>();
    spec.outputs.push_back(d);
  }
  const fs::path device_dir = fs::absolute("standin_device");
  auto be = ev::make_sim_backend(env_or("AOPT_STANDIN_SIM_PROFILE", "910b4"));
  const auto rr = be->run(br, spec, device_dir, ev::eval_options::default_limits());
  if (rr.status == "tiling_error") {
    std::cerr << "[ERROR] TilingFunc of " << op_type << " failed: " << rr.diagnostic << "\n[ERROR] aclnn" << op_type
              << "GetWorkspaceSize failed, ERROR: 561002\n";
    return 1;
  }
  if (rr.status != "ok") {
    std::cerr << "EZ9999: Inner Error!\nEZ9999: " << rr.diagnostic << "\n[ERROR] aclrtSynchronizeStream failed, error code 507015\n";
    return 1;
  }
  nlohmann::json result = {{"outputs", nlohmann::json::array()}, {"written_inputs", nlohmann::json::array()}, {"warmup", rq.value("warmup", 0)}};
  for (const auto& o : rr.outputs) {
    // An input the kernel wrote ("x", "x.k" for a list's element) goes back into its tensor.
    const fs::path dest = fs::absolute((o.written_input ? "written_" : "out_") + o.name + ".bin");
    fs::rename(o.file, dest);
    result[o.written_input ? "written_inputs" : "outputs"].push_back(
        {{"name", o.name}, {"dtype", ev::dtype_name(o.type)}, {"shape", o.shape}, {"file", dest.filename().string()}});
  }
  const auto timing = rr.harness.value("timing", nlohmann::json::object());
  const double us = timing.value("Task Duration(us)", 0.0);
  const auto tiling = rr.harness.value("tiling", nlohmann::json::object());
  const std::uint32_t block_dim = tiling.is_object() ? tiling.value("block_dim", 1u) : 1u;
  result["block_dim"] = block_dim;
  result["latency_us"] = us;  // noise-free: the stand-in runtime adds the noise per launch
  result["workspace_bytes"] = tiling.is_object() ? tiling.value("workspace_bytes", std::uint64_t{0}) : std::uint64_t{0};
  const double noise = std::strtod(env_or("AOPT_STANDIN_NOISE", "0.02").c_str(), nullptr);
  std::mt19937_64 rng(launch_seed(request));
  std::normal_distribution<double> z(0.0, 1.0);
  result["samples_us"] = nlohmann::json::array();
  for (int i = 0; i < rq.value("repeat", 1); ++i) result["samples_us"].push_back(std::max(0.01, us * (1.0 + noise * z(rng))));
  aopt::common::write_json_file(fs::absolute(rq.value("result", std::string("result.json"))), result);
  const std::string msprof = env_or("AOPT_STANDIN_MSPROF_DIR", "");
  if (!msprof.empty() && f != "missing_csv") write_csvs(msprof, timing, block_dim, op_type, rng, noise);
  std::error_code e;
  fs::remove_all(device_dir, e);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const std::vector<std::string> args(argv + 1, argv + argc);
  try {
    if (args.size() == 3 && args[0] == "build") return build(args[1], args[2]);
    if (args.size() == 2 && args[0] == "run") return run(args[1]);
    if (args.size() == 4 && args[0] == "build-step" && (args[1] == "tiling" || args[1] == "kernel")) return build_step(args[1], args[2], args[3]);
  } catch (const std::exception& e) {
    std::cerr << "[ERROR] aopt-standin-device: " << e.what() << "\n";
    return 1;
  }
  std::cerr << "usage: aopt-standin-device build PROJECT OUT | build-step tiling|kernel PROJECT OUT | run REQUEST\n";
  return 2;
}
