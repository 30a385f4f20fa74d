#include "aopt/evaluation/evaluator.h"

#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <set>
#include <sstream>

#include "aopt/common/error.h"
#include "aopt/common/fast_hash.h"
#include "aopt/common/fs.h"
#include "aopt/common/json.h"
#include "aopt/common/log.h"
#include "aopt/common/mapped_file.h"
#include "aopt/common/ownership.h"
#include "aopt/common/sha256.h"
#include "aopt/common/text.h"
#include "aopt/evaluation/artifacts.h"
#include "aopt/evaluation/cann.h"
#include "aopt/evaluation/checker.h"
#include "aopt/evaluation/inputs.h"
#include "aopt/evaluation/toolchain.h"

namespace aopt::evaluation {

namespace fs = std::filesystem;

common::sandbox_limits eval_options::default_limits() {
  common::sandbox_limits l;
  l.wall_timeout = std::chrono::seconds(60);
  l.cpu_seconds = 120;
  l.address_space_bytes = std::uint64_t(8) << 30;
  l.file_size_bytes = std::uint64_t(4) << 30;
  l.max_output_bytes = 256 * 1024;
  return l;
}

namespace {

// The names of the outputs a run declares (not the inputs it wrote): an input of one of these
// names is a Ref parameter, one tensor with the output.
std::set<std::string> declared_outputs(const std::vector<tensor_file>& outputs) {
  std::set<std::string> names;
  for (const auto& o : outputs) {
    if (!o.written_input) names.insert(o.name);
  }
  return names;
}

std::unique_ptr<backend> make_backend(const eval_options& o) {
  if (o.backend == "sim") return make_sim_backend(o.profile, o.sandbox);
  if (o.backend == "cann") {
    if (o.cann_config.empty()) {
      throw error(ec::invalid_argument, "--backend cann needs --cann-config FILE (the command profile; start from config/cann.example.toml)");
    }
    auto profile = load_cann_profile(o.cann_config);
    if (o.cann_device) profile.device = *o.cann_device;
    return make_cann_backend(profile);
  }
  throw error(ec::invalid_argument, "unknown backend '" + o.backend + "'; this build has: sim, cann");
}

// Work directories carry their owner (pid and start time) so that an evaluator finds and removes
// those a killed or crashed one left behind (at start-up), and any older than a week.
constexpr const char* owner_file = ".aopt-owner";

std::string process_start_time(long pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string stat((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto close = stat.rfind(')');
  if (close == std::string::npos) return {};
  std::istringstream rest(stat.substr(close + 2));
  std::string field;
  for (int i = 3; i <= 22 && rest >> field; ++i) {
    if (i == 22) return field;  // starttime, clock ticks since boot
  }
  return {};
}

void remove_stale_work_dirs(const fs::path& root) {
  std::error_code e;
  if (!fs::is_directory(root, e)) return;
  const auto now = fs::file_time_type::clock::now();
  for (auto it = fs::directory_iterator(root, e); !e && it != fs::directory_iterator(); it.increment(e)) {
    std::error_code fe;
    if (!it->is_directory(fe)) continue;
    bool stale = false;
    std::ifstream in(it->path() / owner_file);
    long pid = 0;
    std::string start;
    if (in >> pid >> start) {
      stale = process_start_time(pid) != start;  // that process is gone (or the pid was reused)
    }
    const auto age = now - fs::last_write_time(it->path(), fe);
    if (!fe && age > std::chrono::hours(24 * 7)) stale = true;
    if (stale) fs::remove_all(it->path(), fe);
  }
}

// Identity of an input file's bytes: its content hash (a concurrent evaluator may replace the
// shared file by an identical one at any time, so inode and mtime say nothing).
std::uint64_t content_of(const fs::path& p) {
  try {
    return common::fast_hash_file(p);
  } catch (const std::exception&) {
    return 0;
  }
}

// A generated input tensor: from the artifact cache when there, else generated (and stored).
// Written once (atomically, read-only) and never deleted by an evaluation: a concurrent one may be
// reading it. `hash` is the content the run must leave unchanged.
fs::path provide_input(const tensor_spec& ts, std::uint64_t seed, const std::string& case_name, const std::string& input,
                       std::size_t index, const fs::path& artifact_root, const fs::path& local_file, std::uint64_t& hash) {
  const std::size_t bytes = static_cast<std::size_t>(ts.numel()) * dtype_size(ts.type);
  fs::path file = local_file;
  if (!artifact_root.empty()) {
    const std::string k = input_key(ts, seed, case_name, input, index);
    file = artifact_root / "inputs" / k.substr(0, 2) / (k + ".bin");
    std::error_code e;
    if (fs::is_regular_file(file, e) && fs::file_size(file, e) == bytes) {
      fs::last_write_time(file, fs::file_time_type::clock::now(), e);  // recently used: pruned last
      hash = content_of(file);
      return file;
    }
    fs::create_directories(file.parent_path(), e);
  }
  std::vector<std::uint8_t> buf(bytes);
  generate_tensor_into(ts, seed, case_name, input, index, buf.data());
  hash = common::fast_hash64(buf.data(), buf.size());
  if (artifact_root.empty()) {
    common::write_file_bytes(file, buf.data(), buf.size());
  } else {
    common::write_file_bytes_atomic(file, buf.data(), buf.size());
    ::chmod(file.c_str(), 0400);  // shared by every later run: read-only (and this user's only)
    note_tensor_stored(artifact_root / "inputs");
  }
  return file;
}

// Reference outputs stored under <root>/references/<key[0:2]>/<key>/: index.json names each
// output's file, dtype and shape.
std::optional<std::map<std::string, fs::path>> stored_reference(const fs::path& root, const std::string& key) {
  if (root.empty()) return std::nullopt;
  const fs::path dir = root / "references" / key.substr(0, 2) / key;
  std::error_code e;
  if (!fs::is_regular_file(dir / "index.json", e)) return std::nullopt;
  try {
    const auto idx = common::read_json_file(dir / "index.json");
    std::map<std::string, fs::path> files;
    for (const auto& o : idx.at("outputs")) {
      const fs::path f = dir / o.at("file").get<std::string>();
      if (!fs::is_regular_file(f, e) || fs::file_size(f, e) != o.at("bytes").get<std::uint64_t>()) return std::nullopt;
      files[o.at("name").get<std::string>()] = f;
    }
    fs::last_write_time(dir, fs::file_time_type::clock::now(), e);  // recently used: pruned last
    return files;
  } catch (const std::exception& ex) {
    common::logger()->warn("ignoring corrupt reference entry {}: {}", dir.string(), ex.what());
    return std::nullopt;
  }
}

void store_reference(const fs::path& root, const std::string& key, const std::vector<tensor_file>& outputs) {
  if (root.empty()) return;
  const fs::path dir = root / "references" / key.substr(0, 2) / key;
  std::error_code e;
  if (fs::is_directory(dir, e)) return;
  try {
    fs::create_directories(dir.parent_path());
    const fs::path tmp = common::make_unique_dir(dir.parent_path(), ".tmp-" + key.substr(0, 8) + "-");
    nlohmann::json idx = {{"outputs", nlohmann::json::array()}};
    for (std::size_t i = 0; i < outputs.size(); ++i) {
      const auto& o = outputs[i];
      const std::string name = "out_" + std::to_string(i) + ".bin";
      fs::create_hard_link(o.file, tmp / name, e);
      if (e) fs::copy_file(o.file, tmp / name, fs::copy_options::overwrite_existing);
      idx["outputs"].push_back({{"name", o.name}, {"dtype", dtype_name(o.type)}, {"shape", o.shape}, {"file", name},
                                {"bytes", fs::file_size(tmp / name)}});
    }
    common::write_json_file(tmp / "index.json", idx);
    fs::rename(tmp, dir, e);
    if (e) fs::remove_all(tmp, e);  // another evaluator stored it first
    else note_tensor_stored(root / "references");
  } catch (const std::exception& ex) {
    common::logger()->warn("cannot store reference outputs under {}: {}", dir.string(), ex.what());
  }
}

// A case's run request: its inputs (generated, or from the artifact cache) in OpDef order, then
// any the OpDef does not list; its outputs' declarations. Shared by evaluations and screens.
struct prepared_run {
  run_spec rs;
  double in_bytes = 0;
  std::vector<std::pair<fs::path, std::uint64_t>> input_hashes;  // file, content hash
  std::vector<std::string> input_keys;
};

prepared_run prepare_run(const case_spec& c, const nlohmann::json& signature, std::size_t col, const fs::path& run_dir,
                       std::uint64_t seed, const fs::path& artifact_root) {
  fs::create_directories(run_dir);
  run_spec rs;
  rs.column = col;
  rs.attrs = c.attrs;
  rs.timing = true;
  double in_bytes = 0;
  std::vector<std::pair<fs::path, std::uint64_t>> input_hashes;
  std::vector<std::string> input_keys;
  // Inputs in OpDef order, then any the OpDef does not list.
  std::vector<const input_spec*> ordered;
  for (const auto& si : signature.value("inputs", nlohmann::json::array())) {
    for (const auto& i : c.inputs) {
      if (i.name == si.value("name", std::string())) ordered.push_back(&i);
    }
  }
  for (const auto& i : c.inputs) {
    if (std::find(ordered.begin(), ordered.end(), &i) == ordered.end()) ordered.push_back(&i);
  }
  for (const auto* i : ordered) {
    run_input ri;
    ri.name = i->name;
    ri.is_list = i->is_list;
    for (std::size_t k = 0; k < i->tensors.size(); ++k) {
      const auto& ts = i->tensors[k];
      tensor_file tf;
      tf.name = i->name;
      tf.type = ts.type;
      tf.shape = ts.shape;
      const fs::path local =
          run_dir / (i->is_list ? "in_" + i->name + "_" + std::to_string(k) + ".bin" : "in_" + i->name + ".bin");
      std::uint64_t hash = 0;
      tf.file = provide_input(ts, seed, c.name, i->name, k, artifact_root, local, hash);
      in_bytes += static_cast<double>(ts.numel()) * static_cast<double>(dtype_size(ts.type));
      input_hashes.emplace_back(tf.file, hash);
      input_keys.push_back(input_key(ts, seed, c.name, i->name, k));
      ri.tensors.push_back(tf);
    }
    rs.inputs.push_back(ri);
  }
  rs.outputs = output_decls(signature, col, c);
  return {std::move(rs), in_bytes, std::move(input_hashes), std::move(input_keys)};
}

}  // namespace

evaluator::evaluator(eval_options opts) : evaluator(opts, make_backend(opts)) {}

evaluator::evaluator(eval_options opts, std::unique_ptr<backend> be) : opts_(std::move(opts)), backend_(std::move(be)) {
  // Absolute from here on: runs see these paths from directories of their own.
  if (!opts_.cache_dir.empty()) opts_.cache_dir = fs::absolute(opts_.cache_dir).lexically_normal();
  if (opts_.use_cache) cache_.emplace(opts_.cache_dir.empty() ? eval_cache::default_root() : opts_.cache_dir);
  if (opts_.work_root.empty()) opts_.work_root = fs::temp_directory_path() / "aopt-work";
  opts_.work_root = fs::absolute(opts_.work_root).lexically_normal();
  remove_stale_work_dirs(opts_.work_root);
  const char* art = std::getenv("AOPT_ARTIFACT_CACHE");
  if (opts_.reuse_artifacts && !(art && std::string(art) == "0")) {
    artifact_root_ = opts_.cache_dir.empty() ? eval_cache::default_root() : opts_.cache_dir;
    try {
      common::make_private_dir(artifact_root_, 0700, "artifact cache", false);
    } catch (const std::exception& x) {
      common::logger()->warn("{}; inputs and references are not reused", x.what());
      artifact_root_.clear();
    }
  }
}

evaluator::~evaluator() {
  if (opts_.keep_workdir) return;
  std::error_code e;
  for (const auto& d : owned_dirs_) fs::remove_all(d, e);
}

fs::path evaluator::new_work_dir(const std::string& prefix) {
  const fs::path dir = common::make_unique_dir(opts_.work_root, prefix);
  fs::permissions(dir, fs::perms::owner_all);  // the operator's sources are copied here
  const long pid = static_cast<long>(::getpid());
  common::write_text_file(dir / owner_file, std::to_string(pid) + " " + process_start_time(pid) + "\n");
  return dir;
}

std::uint64_t evaluator::seed_for(const op_package& pkg) const {
  if (opts_.seed) return *opts_.seed;
  return pkg.spec.seed.value_or(1);
}

std::string evaluator::key_of(const candidate& cand) const {
  const std::string k = cand.key(backend_->name(), backend_->profile_name() + ":" + backend_->fingerprint(),
                                 seed_for(cand.package()), toolchain::get().id());
  if (!opts_.only_case) return k;
  return common::sha256().field(k).field("case").field(*opts_.only_case).finish_hex();
}

eval_result evaluator::start_result(const candidate& cand) const {
  const auto& pkg = cand.package();
  if (opts_.only_case && !pkg.spec.find_case(*opts_.only_case)) {
    std::string names;
    for (const auto& c : pkg.spec.cases) names += (names.empty() ? "" : ", ") + c.name;
    throw error(ec::invalid_argument, "--case " + *opts_.only_case + ": no such case in " + pkg.spec_file.string() +
                                          " (cases: " + names + ")");
  }
  eval_result r;
  r.key = key_of(cand);
  r.package = pkg.dir.string();
  r.kernel = pkg.spec.kernel;
  r.backend = backend_->name();
  r.profile = backend_->profile_name();
  r.simulated = backend_->name() == "sim";
  r.seed = seed_for(pkg);
  r.reference = pkg.spec.reference_is_baseline() ? "baseline" : pkg.spec.reference;
  for (const auto& w : pkg.spec.warnings) r.warnings.push_back({vocab::warning_kind::other, {}, w});
  if (const auto w = isolation_warning(opts_.sandbox); !w.empty()) r.warnings.push_back({vocab::warning_kind::other, {}, w});
  return r;
}

std::vector<const case_spec*> evaluator::cases_to_run(const candidate& cand) const {
  std::vector<const case_spec*> cases;
  for (const auto& c : cand.package().spec.cases) {
    if (!opts_.only_case || c.name == *opts_.only_case) cases.push_back(&c);
  }
  return cases;
}

bool evaluator::take_build(const build_result& built, eval_result& r) {
  r.build = {{"seconds", built.total_seconds},
             {"host_seconds", built.host_seconds},
             {"kernel_seconds", built.kernel_seconds},
             {"parallel_kernel_build", built.speculation_hit},
             {"host_reused", built.host_reused},
             {"kernel_reused", built.kernel_reused}};
  if (!built.kernel_pch_rejected.empty()) r.build["kernel_pch_rejected"] = built.kernel_pch_rejected;
  if (built.ok) return true;
  r.status = built.stage == "signature" ? "runtime_error" : "compile_error";
  r.diagnostic = built.diagnostic;
  r.build["stage"] = built.stage;
  r.build["log"] = built.log.size() > 20000 ? built.log.substr(0, 20000) + "\n[truncated]" : built.log;
  return false;
}

void evaluator::store(const eval_result& r) {
  // A timeout may come from a loaded machine rather than the candidate: never cached, so the
  // next evaluation of the same candidate runs it again.
  const bool timed_out = r.status == "timeout" ||
                         std::any_of(r.cases.begin(), r.cases.end(), [](const case_result& c) { return c.status == "timeout"; });
  // Nor is a verdict that may come from another process rather than the candidate (a changed
  // input, a tampered result channel): the next evaluation decides afresh.
  if (cache_ && !timed_out && !untrusted_) cache_->put(r.key, r);
}

std::optional<eval_result> evaluator::from_cache(const std::string& key) {
  if (!cache_) return std::nullopt;
  auto hit = cache_->get(key);
  if (hit) {
    hit->cached = true;
    common::logger()->info("cache hit {}", key);
  }
  return hit;
}

eval_result evaluator::evaluate(const candidate& cand) {
  const auto t0 = std::chrono::steady_clock::now();
  untrusted_ = false;
  eval_result r = start_result(cand);
  if (auto hit = from_cache(r.key)) return *hit;
  const fs::path work = new_work_dir(r.key.substr(0, 12) + "-");
  last_workdir_ = work;
  try {
    r = run_cases(cand, work, std::move(r));
  } catch (...) {
    if (!opts_.keep_workdir) {
      std::error_code e;
      fs::remove_all(work, e);
    }
    throw;
  }
  r.total_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  store(r);
  if (!opts_.keep_workdir) {
    std::error_code e;
    fs::remove_all(work, e);
  }
  return r;
}

std::optional<eval_result> evaluator::prebuild(const candidate& cand) {
  const auto t0 = std::chrono::steady_clock::now();
  untrusted_ = false;
  eval_result r = start_result(cand);
  if (auto hit = from_cache(r.key)) return hit;
  const fs::path work = new_work_dir(r.key.substr(0, 12) + "-b-");
  std::optional<eval_result> out;
  try {
    const build_result built = backend_->build(cand, work / "build", cases_to_run(cand));
    if (!take_build(built, r)) {
      r.total_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      store(r);
      out = std::move(r);
    }
  } catch (...) {
    std::error_code e;
    fs::remove_all(work, e);
    throw;
  }
  std::error_code e;
  fs::remove_all(work, e);
  return out;
}

vocab::eval_report evaluator::screen(const candidate& cand) {
  vocab::eval_report out;
  out.status = vocab::eval_status::ok;
  if (backend_->name() != "sim") {
    out.status = vocab::eval_status::unsupported;
    out.diagnostic = "the " + backend_->name() + " backend does not screen tilings";
    return out;
  }
  eval_result r = start_result(cand);
  const fs::path work = new_work_dir(r.key.substr(0, 12) + "-s-");
  try {
    const auto cases = cases_to_run(cand);
    // The host only: a screen stops after the tiling, so no kernel is compiled (a Stage I
    // variant that changes a kernel constant screens on the host build it shares).
    const build_result built = backend_->build(cand, work / "build", {});
    if (!take_build(built, r)) {
      out.status = verdict_status(r.status);
      out.diagnostic = r.diagnostic;
    }
    for (std::size_t k = 0; built.ok && k < cases.size(); ++k) {
      const case_spec c = align_case(*cases[k], built.signature);
      std::string why;
      const auto column = select_column(built.signature, c, why);
      if (!column) {
        out.status = vocab::eval_status::tiling_error;
        out.diagnostic = "case '" + c.name + "': " + why;
        break;
      }
      auto prepared = prepare_run(c, built.signature, *column, work / "run" / c.name, r.seed, artifact_root_);
      prepared.rs.screen = true;
      prepared.rs.timing = false;
      const auto rr = backend_->run(built, prepared.rs, work / "run" / c.name, opts_.limits);
      if (rr.status != "ok") {
        out.status = verdict_status(rr.status);
        out.diagnostic = "case '" + c.name + "': " + rr.diagnostic;
        break;
      }
      const auto til = rr.harness.value("tiling", nlohmann::json::object());
      std::uint64_t elements = 0;
      std::size_t elem_bytes = 0;
      for (const auto& in : prepared.rs.inputs) {
        for (const auto& t : in.tensors) {
          std::uint64_t n = 1;
          for (auto d : t.shape) n *= static_cast<std::uint64_t>(std::max<std::int64_t>(d, 0));
          if (n > elements) {
            elements = n;
            elem_bytes = dtype_size(t.type);
          }
        }
      }
      vocab::case_facts f;
      f.name = c.name;
      f.block_dim = til.value("block_dim", std::uint32_t{0});
      f.tiling_key = til.value("tiling_key", std::int64_t{0});
      f.workspace_bytes = til.value("workspace_bytes", std::uint64_t{0});
      f.words = til.value("words", std::vector<std::int64_t>{});
      f.core_count = til.value("core_count", std::uint32_t{0});
      f.ub_capacity = til.value("ub_capacity", std::uint64_t{0});
      f.ub_usable = til.value("ub_usable", std::uint64_t{0});
      f.elements = elements;
      f.elem_bytes = elem_bytes;
      f.tunables_given = rr.harness.value("tunables", nlohmann::json::object()).value("given", std::uint32_t{0});
      out.cases.push_back(std::move(f));
    }
  } catch (...) {
    std::error_code e;
    fs::remove_all(work, e);
    throw;
  }
  std::error_code e;
  if (!opts_.keep_workdir) fs::remove_all(work, e);
  out.ok = out.status == vocab::eval_status::ok;
  return out;
}

// One evaluation's run of its cases, phase by phase: inputs, run, reference, check; then the
// overall status and timing. Holds what the phases share (the build, the result being filled).
struct evaluator::cases_run {
  // A case in progress: its aligned spec, prepared inputs, run and phase clock.
  struct one_case {
    case_result cr;
    case_spec c;
    fs::path run_dir;
    prepared_run in;
    run_result rr;
    std::chrono::steady_clock::time_point t0 = std::chrono::steady_clock::now();
    std::chrono::steady_clock::time_point last = t0;
    // Seconds since the previous lap.
    double lap() {
      const auto now = std::chrono::steady_clock::now();
      const double d = std::chrono::duration<double>(now - last).count();
      last = now;
      return d;
    }
  };

  evaluator& ev;
  const candidate& cand;
  const op_spec& spec;
  const fs::path& work;
  const std::vector<const case_spec*>& cases;
  const build_result& built;
  eval_result& r;
  std::optional<double> timed_in_bytes, timed_out_bytes;

  const build_result& baseline_build();
  fs::path reference_exe();
  bool inputs(const case_spec& cp, one_case& k);
  void run(one_case& k);
  void take_harness(one_case& k);
  std::map<std::string, fs::path> reference(one_case& k);
  std::string reference_key(const one_case& k) const;
  void run_reference_exe(const one_case& k, const std::string& ref_key, std::map<std::string, fs::path>& want_files);
  std::vector<tensor_file> compared_files(const one_case& k, std::map<std::string, fs::path>& want_files) const;
  double check(one_case& k, std::map<std::string, fs::path>& want_files);
  void time();
};

// The baseline (reference: baseline), built once per package for the evaluator's life.
const build_result& evaluator::cases_run::baseline_build() {
  const auto& pkg = cand.package();
  const std::string bkey = pkg.dir.string();
  auto it = ev.baselines_.find(bkey);
  if (it != ev.baselines_.end()) return it->second.second;
  const fs::path bdir = ev.new_work_dir("baseline-");
  ev.owned_dirs_.push_back(bdir);
  candidate base(cand.package_ptr());
  auto b = ev.backend_->build(base, bdir, cases);
  if (!b.ok) {
    throw error(ec::invalid_spec, pkg.dir.string() + ": the baseline operator itself fails to build (" + b.diagnostic +
                                      "); `reference: baseline` needs a working original");
  }
  return ev.baselines_.emplace(bkey, std::make_pair(bdir, std::move(b))).first->second.second;
}

// The C++ reference's executable, compiled once per source for the evaluator's life.
fs::path evaluator::cases_run::reference_exe() {
  const std::string rkey = common::sha256_file_hex(spec.reference);
  auto it = ev.references_.find(rkey);
  if (it != ev.references_.end()) return it->second;
  const auto& tc = toolchain::get();
  const fs::path rdir = ev.new_work_dir("reference-");
  ev.owned_dirs_.push_back(rdir);
  common::process_request req;
  req.argv = {tc.cxx, "-std=c++20", "-O2", "-I" + tc.eval_include, spec.reference, tc.reference_main_lib,
              "-o", (rdir / "reference").string()};
  req.cwd = rdir.string();
  req.limits = ev.opts_.limits;
  req.limits.wall_timeout = std::chrono::seconds(300);
  req.limits.cpu_seconds = 300;
  auto iso = compile_isolation(ev.opts_.sandbox, rdir);
  iso.mounts.push_back({common::mount_entry::kind::read_only, fs::absolute(spec.reference).string(), "", 0, false});
  req.iso = iso;
  const auto out = common::run_process(req);
  if (!out.ok()) {
    throw error(ec::invalid_spec, spec.reference + ": the C++ reference does not compile:\n" +
                                      common::bounded_text(out.err + out.error, 4000));
  }
  return ev.references_.emplace(rkey, rdir / "reference").first->second;
}

// Phase "inputs": the case aligned to the signature, its column, its input files. False (the
// case is a tiling_error, r has it) when no column fits.
bool evaluator::cases_run::inputs(const case_spec& cp, one_case& k) {
  k.cr.name = cp.name;
  k.cr.timed = cp.timed;
  k.c = align_case(cp, built.signature);
  std::string why;
  const auto column = select_column(built.signature, k.c, why);
  if (!column) {
    if (cand.is_baseline()) throw error(ec::invalid_spec, spec.source.string() + ": " + why);
    k.cr.status = "tiling_error";
    k.cr.diagnostic = why;
    r.cases.push_back(k.cr);
    return false;
  }
  k.run_dir = work / "run" / k.c.name;
  k.in = prepare_run(k.c, built.signature, *column, k.run_dir, r.seed, ev.artifact_root_);
  k.last = std::chrono::steady_clock::now();
  k.cr.phases["inputs"] = std::chrono::duration<double>(k.last - k.t0).count();
  return true;
}

// Phase "run": the candidate on the case; its inputs must come back unchanged.
void evaluator::cases_run::run(one_case& k) {
  auto& cr = k.cr;
  try {
    k.rr = ev.backend_->run(built, k.in.rs, k.run_dir, ev.opts_.limits);
  } catch (const error& e) {
    // The run never started (the sandbox could not be set up: e.g. a shared input file gone from
    // under a bind at that moment): a fault of the evaluator, never of the candidate. Once more,
    // with the case's inputs provided again; a second failure is reported as the evaluator's.
    if (e.code() != ec::subprocess_error) throw;
    common::logger()->warn("case {}: {}; starting it once more with its inputs provided again", k.c.name, e.what());
    k.in = prepare_run(k.c, built.signature, k.in.rs.column, k.run_dir, r.seed, ev.artifact_root_);
    k.rr = ev.backend_->run(built, k.in.rs, k.run_dir, ev.opts_.limits);
  }
  cr.phases["run"] = k.lap();
  cr.status = k.rr.status;
  cr.diagnostic = k.rr.diagnostic;
  if (!k.rr.trusted) ev.untrusted_ = true;
  // A candidate must not change its input files (a sandboxed run sees them read-only; without
  // the sandbox a kernel could reach for the shared file itself). Content decides: a concurrent
  // evaluator may have replaced the file by an identical one. The file is never deleted here (a
  // concurrent run may be reading it), and the verdict is never cached.
  for (const auto& [f, hash] : k.in.input_hashes) {
    if (content_of(f) == hash) continue;
    ev.untrusted_ = true;
    if (cr.status == "ok") {
      cr.status = "precision_error";
      cr.diagnostic = "the input " + f.filename().string() +
                      " changed during the run (inputs must be read-only; the real operator's callers rely on it)";
    }
  }
  take_harness(k);
}

// What the harness reported about the run: tiling, UB use, warnings, measurement, timing.
void evaluator::cases_run::take_harness(one_case& k) {
  auto& cr = k.cr;
  const auto& harness = k.rr.harness;
  if (!harness.is_object()) return;
  const auto& til = harness.value("tiling", nlohmann::json::object());
  if (til.contains("block_dim")) cr.block_dim = til["block_dim"].get<std::uint32_t>();
  if (til.contains("tiling_key")) cr.tiling_key = til["tiling_key"].get<std::int64_t>();
  if (til.contains("workspace_bytes")) cr.workspace_bytes = til["workspace_bytes"].get<std::uint64_t>();
  if (harness.contains("phases") && harness["phases"].is_object()) cr.phases["host"] = harness["phases"];
  if (harness.contains("ub_bytes") && harness["ub_bytes"].is_number()) cr.ub_bytes = harness["ub_bytes"].get<std::uint64_t>();
  if (harness.contains("ub_usable") && harness["ub_usable"].is_number()) cr.ub_usable = harness["ub_usable"].get<std::uint64_t>();
  // What the chip does silently (a DataCopy tail dropped): the output check decides, the
  // warning says where to look.
  for (const auto& w : harness.value("warnings", nlohmann::json::array())) {
    if (!w.is_object()) continue;
    r.warn(vocab::harness_warning(cr.name, w.value("kind", std::string("warning")), w.value("file", std::string("?")),
                                  w.value("line", 0), w.value("message", std::string())));
  }
  if (harness.contains("measurement") && harness["measurement"].is_object()) cr.measurement = harness["measurement"];
  if (harness.contains("timing") && harness["timing"].is_object()) {
    cr.profile = harness["timing"];
    if (cr.profile.contains("Task Duration(us)") && cr.profile["Task Duration(us)"].is_number()) {
      cr.latency_us = cr.profile["Task Duration(us)"].get<double>();
    }
  }
}

// The artifact cache's key of the case's reference outputs.
std::string evaluator::cases_run::reference_key(const one_case& k) const {
  common::sha256 rk;
  rk.field("aopt-reference-v1").field(k.c.name).field(std::to_string(k.in.rs.column)).field(k.c.attrs.dump());
  for (const auto& key : k.in.input_keys) rk.field(key);
  const auto& be = *ev.backend_;
  if (spec.reference_is_baseline()) {
    rk.field(candidate(cand.package_ptr()).key(be.name(), be.profile_name() + ":" + be.fingerprint(), r.seed, toolchain::get().id()));
  } else {
    rk.field(common::sha256_file_hex(spec.reference)).field(toolchain::get().id()).field("inputs-in-place-v1");
    for (const auto& o : k.rr.outputs) {
      rk.field(o.name).field(dtype_name(o.type));
      for (auto d : o.shape) rk.field(std::to_string(d));
    }
  }
  return rk.finish_hex();
}

// Phase "reference": the reference outputs by name, from the artifact cache, else computed once
// (the baseline run, or the C++ reference) and stored. Empty when the baseline is its own reference.
std::map<std::string, fs::path> evaluator::cases_run::reference(one_case& k) {
  std::map<std::string, fs::path> want_files;
  const std::string ref_key = reference_key(k);
  k.cr.phases["reference_cached"] = false;
  if (spec.reference_is_baseline() && cand.is_baseline()) {
    store_reference(ev.artifact_root_, ref_key, k.rr.outputs);  // the baseline is its own reference
  } else if (auto stored = stored_reference(ev.artifact_root_, ref_key)) {
    want_files = std::move(*stored);
    k.cr.phases["reference_cached"] = true;
  } else if (spec.reference_is_baseline()) {
    const auto& bb = baseline_build();
    const fs::path ref_dir = k.run_dir / "baseline";
    fs::create_directories(ref_dir);
    const auto br = ev.backend_->run(bb, k.in.rs, ref_dir, ev.opts_.limits);
    if (br.status != "ok") {
      throw error(ec::invalid_spec, cand.package().dir.string() + ": the baseline operator itself fails on case '" + k.c.name +
                                        "' (" + br.status + ": " + br.diagnostic + "); fix the case or the baseline");
    }
    for (const auto& o : br.outputs) want_files[o.name] = o.file;
    store_reference(ev.artifact_root_, ref_key, br.outputs);
  } else {
    run_reference_exe(k, ref_key, want_files);
  }
  k.cr.phases["reference"] = k.lap();
  return want_files;
}

// The C++ reference on the case, sandboxed: fills want_files and stores the outputs.
void evaluator::cases_run::run_reference_exe(const one_case& k, const std::string& ref_key,
                                             std::map<std::string, fs::path>& want_files) {
  const fs::path exe = reference_exe();
  const auto& rs = k.in.rs;
  nlohmann::json rj;
  rj["inputs"] = nlohmann::json::array();
  for (const auto& ri : rs.inputs) {
    if (ri.is_list) {
      nlohmann::json l = nlohmann::json::array();
      for (const auto& t : ri.tensors) l.push_back({{"dtype", dtype_name(t.type)}, {"shape", t.shape}, {"file", t.file.string()}});
      rj["inputs"].push_back({{"name", ri.name}, {"list", l}});
    } else {
      const auto& t = ri.tensors[0];
      rj["inputs"].push_back({{"name", ri.name}, {"dtype", dtype_name(t.type)}, {"shape", t.shape}, {"file", t.file.string()}});
    }
  }
  rj["outputs"] = nlohmann::json::array();
  std::vector<tensor_file> ref_outputs;
  // The declared outputs, then the final content of every input (in place: it starts as
  // the input, the reference updates what the operator updates; "x.k" for list elements).
  // An input named like a declared output is a Ref parameter, one tensor: the output is its
  // final content (ctx.out finds the output first).
  std::vector<tensor_file> wanted;
  const auto declared = declared_outputs(k.rr.outputs);
  for (const auto& o : k.rr.outputs) {
    if (!o.written_input) wanted.push_back(o);
  }
  for (const auto& ri : rs.inputs) {
    for (std::size_t i = 0; i < ri.tensors.size(); ++i) {
      tensor_file t = ri.tensors[i];
      t.name = ri.is_list ? ri.name + "." + std::to_string(i) : ri.name;
      if (declared.count(t.name)) continue;
      t.written_input = true;
      wanted.push_back(t);
    }
  }
  for (const auto& o : wanted) {
    const fs::path f = k.run_dir / ("ref_" + o.name + ".bin");
    nlohmann::json oj = {{"name", o.name}, {"dtype", dtype_name(o.type)}, {"shape", o.shape}, {"file", f.string()}};
    if (o.written_input) oj["in_place"] = true;
    rj["outputs"].push_back(oj);
    want_files[o.name] = f;
    ref_outputs.push_back(o);
    ref_outputs.back().file = f;
  }
  rj["attrs"] = k.c.attrs;
  common::write_json_file(k.run_dir / "ref.json", rj);
  common::process_request req;
  req.argv = {exe.string(), (k.run_dir / "ref.json").string()};
  req.cwd = k.run_dir.string();
  req.limits = ev.opts_.limits;
  auto iso = compile_isolation(ev.opts_.sandbox, k.run_dir);
  iso.mounts.push_back({common::mount_entry::kind::read_only, exe.parent_path().string(), "", 0, false});
  for (const auto& ri : rs.inputs) {
    for (const auto& t : ri.tensors) iso.mounts.push_back({common::mount_entry::kind::read_only, t.file.string(), "", 0, false});
  }
  req.iso = iso;
  const auto out = common::run_process(req);
  if (!out.ok()) {
    throw error(ec::invalid_spec, spec.reference + ": the reference failed on case '" + k.c.name + "' (" + out.describe() +
                                      "): " + out.err.substr(0, 2000));
  }
  store_reference(ev.artifact_root_, ref_key, ref_outputs);
}

// What the check compares: the candidate's outputs and the inputs it or the reference wrote.
// Inputs the kernel writes are compared like outputs (an in-place operator declares no output,
// or fewer than it writes). What one side left unwritten holds the input as given: a candidate
// that does not update what the reference updates is compared on the input file, and so is a
// reference that leaves an input the candidate wrote unchanged (want_files gains it).
std::vector<tensor_file> evaluator::cases_run::compared_files(const one_case& k,
                                                              std::map<std::string, fs::path>& want_files) const {
  std::map<std::string, tensor_file> input_files;
  for (const auto& ri : k.in.rs.inputs) {
    for (std::size_t i = 0; i < ri.tensors.size(); ++i) {
      auto t = ri.tensors[i];
      t.name = ri.is_list ? ri.name + "." + std::to_string(i) : ri.name;
      t.written_input = true;
      input_files[t.name] = t;
    }
  }
  // A written input named like a declared output is that output (a Ref parameter, one tensor in
  // GM: the harness passes the input's memory for both): compared once, as the output.
  std::vector<tensor_file> compared;
  const auto declared = declared_outputs(k.rr.outputs);
  for (const auto& o : k.rr.outputs) {
    if (!o.written_input || !declared.count(o.name)) compared.push_back(o);
  }
  for (const auto& [name, f] : want_files) {
    const bool have = std::any_of(compared.begin(), compared.end(), [&](const tensor_file& o) { return o.name == name; });
    if (!have && input_files.count(name)) compared.push_back(input_files[name]);  // left unchanged by the candidate
  }
  for (const auto& o : compared) {
    if (o.written_input && !want_files.count(o.name) && input_files.count(o.name) && !(cand.is_baseline() && spec.reference_is_baseline())) {
      want_files[o.name] = input_files[o.name].file;  // left unchanged by the reference
    }
  }
  return compared;
}

// Phase "check": every compared file against the reference within the tolerance. Returns the
// bytes the candidate wrote (those checked).
double evaluator::cases_run::check(one_case& k, std::map<std::string, fs::path>& want_files) {
  auto& cr = k.cr;
  double out_bytes = 0;
  // A baseline run as the reference: what it never wrote still holds the harness's fill.
  const std::optional<std::uint8_t> fill =
      spec.reference_is_baseline() ? std::optional<std::uint8_t>(harness_output_fill) : std::nullopt;
  for (const auto& o : compared_files(k, want_files)) {
    const common::mapped_file got(o.file);
    out_bytes += static_cast<double>(got.size());
    std::int64_t numel = 1;
    for (auto d : o.shape) numel *= d;
    const std::size_t esz = dtype_size(o.type);
    if (got.size() % esz != 0 || static_cast<std::int64_t>(got.size() / esz) != numel) {
      cr.status = "runtime_error";
      cr.diagnostic = "output '" + o.name + "' file holds " + std::to_string(got.size() / esz) + " elements, its shape says " +
                      std::to_string(numel);
      break;
    }
    output_check oc;
    if (want_files.count(o.name)) {
      const common::mapped_file want(want_files[o.name]);
      if (want.size() % esz != 0) {
        throw error(ec::internal, want_files[o.name].string() + ": reference output is not a whole number of " +
                                      dtype_name(o.type) + " elements; delete it and evaluate again");
      }
      oc = compare_output_raw(o.name, o.type, got.data(), got.size(), want.data(), want.size(), spec.tolerance, fill);
    } else if (cand.is_baseline() && spec.reference_is_baseline()) {
      oc = compare_output_raw(o.name, o.type, got.data(), got.size(), got.data(), got.size(), spec.tolerance, fill);
    } else {
      oc.name = o.name;
      oc.passed = false;
      oc.message = "the reference produced no output '" + o.name + "'";
    }
    if (oc.reference_unwritten > 0) {
      std::string text = "case '" + cr.name + "': the baseline leaves " + std::to_string(oc.reference_unwritten) +
                         " element(s) of output '" + o.name + "' unwritten (they still hold the harness's fill): "
                         "they are not compared; the operator may not handle this shape (choose another case?)";
      r.warn({vocab::warning_kind::other, {}, std::move(text)});
    }
    cr.max_abs_err = std::max(cr.max_abs_err, oc.max_abs_err);
    cr.max_rel_err = std::max(cr.max_rel_err, oc.max_rel_err);
    cr.mismatch_ratio = std::max(cr.mismatch_ratio, oc.mismatch_ratio);
    if (o.written_input && !oc.passed) oc.message = "input '" + o.name + "', compared as written in place: " + oc.message;
    if (!oc.passed && cr.status == "ok") {
      cr.status = "precision_error";
      cr.diagnostic = oc.message;
    }
    oc.input = o.written_input;
    cr.outputs.push_back(oc);
  }
  if (cr.status == "ok" && cr.outputs.empty()) {
    // Nothing checked is never a pass: the optimizer would accept a kernel that does nothing.
    cr.status = "precision_error";
    cr.diagnostic = "nothing was compared: the operator declares no outputs, and neither it nor the reference wrote any "
                    "of its inputs on this case; an in-place operator must update its inputs (they are compared like "
                    "outputs), any other must declare its outputs";
  }
  std::size_t compared = 0, unwritten = 0;
  for (const auto& oc : cr.outputs) {
    compared += oc.elements;
    unwritten += oc.reference_unwritten;
  }
  if (cr.status == "ok" && compared == 0 && unwritten > 0) {
    // Every element of every output still holds the harness's fill after the baseline: nothing
    // was compared, so this is no pass either (a kernel that writes nothing would be accepted).
    cr.status = "precision_error";
    cr.diagnostic = "nothing was compared: the baseline wrote no element of any output on this case (" + std::to_string(unwritten) +
                    " element(s) still hold the harness's fill); the operator may not handle this shape (choose another "
                    "case) or does not write its outputs";
  }
  cr.phases["compare"] = k.lap();
  return out_bytes;
}

// Phase "time": the overall status (the first failing case decides), the timed case's latency
// and its roofline bound.
void evaluator::cases_run::time() {
  r.status = "ok";
  for (const auto& cr : r.cases) {
    if (cr.status != "ok") {
      r.status = cr.status;
      r.diagnostic = "case '" + cr.name + "': " + cr.diagnostic;
      break;
    }
  }
  for (const auto& cr : r.cases) {
    if (cr.timed && cr.status == "ok" && cr.latency_us) {
      r.timed_case = cr.name;
      r.latency_us = cr.latency_us;
      r.measurement = cr.measurement;
      break;
    }
  }
  if (r.latency_us && timed_in_bytes) {
    const double repeats = std::max(1.0, *timed_out_bytes / 256.0);
    if (auto b = ev.backend_->roofline(*timed_in_bytes, *timed_out_bytes, repeats)) {
      r.bound = {{"bound_us", b->bound_us},       {"launch_us", b->launch_us},
                 {"memory_us", b->memory_us},     {"vector_us", b->vector_us},
                 {"memory_bound", b->memory_bound}, {"bytes_read", *timed_in_bytes},
                 {"bytes_written", *timed_out_bytes}, {"vector_repeats", repeats},
                 {"headroom", *r.latency_us > 0 ? b->bound_us / *r.latency_us : 0.0}};
    }
  }
}

eval_result evaluator::run_cases(const candidate& cand, const fs::path& work, eval_result r) {
  const auto cases = cases_to_run(cand);
  const build_result built = backend_->build(cand, work / "build", cases);
  // The prepared sandboxes of this evaluation's runs (the candidate's, a baseline's) end with it.
  struct close_sandboxes {
    const build_result& built;
    decltype(baselines_)& baselines;
    ~close_sandboxes() {
      if (built.sandbox) built.sandbox->close();
      for (auto& entry : baselines) {
        if (entry.second.second.sandbox) entry.second.second.sandbox->close();
      }
    }
  } closer{built, baselines_};
  if (!take_build(built, r)) return r;
  r.op_type = built.signature.value("op_type", std::string());
  cases_run run{*this, cand, cand.package().spec, work, cases, built, r, {}, {}};
  for (const auto* cp : cases) {
    cases_run::one_case k;
    if (!run.inputs(*cp, k)) continue;
    run.run(k);
    if (k.cr.status == "ok") {
      auto want_files = run.reference(k);
      const double out_bytes = run.check(k, want_files);
      if (cp->timed && !run.timed_in_bytes) {
        run.timed_in_bytes = k.in.in_bytes;
        run.timed_out_bytes = out_bytes;
      }
    }
    k.cr.run_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - k.t0).count();
    r.cases.push_back(std::move(k.cr));
  }
  run.time();
  return r;
}

}  // namespace aopt::evaluation
