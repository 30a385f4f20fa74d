// The `cann` backend (cann.h): build, install, run and profile through the command profile's
// templates. The contract of the run command (the ACL runner) is docs/cann.md, "The runner".
#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <fstream>
#include <mutex>
#include <regex>
#include <sstream>

#include "aopt/common/error.h"
#include "aopt/common/fs.h"
#include "aopt/common/json.h"
#include "aopt/common/log.h"
#include "aopt/common/sha256.h"
#include "aopt/common/stats.h"
#include "aopt/common/text.h"
#include "aopt/evaluation/cann.h"
#include "aopt/evaluation/package_build.h"

namespace aopt::evaluation {

namespace fs = std::filesystem;

namespace {

std::string last_chars(const std::string& s, std::size_t n) { return s.size() <= n ? s : "..." + s.substr(s.size() - n); }

// The project's op_host/ and op_kernel/ compile what the package's own build compiles
// (evaluation/package_build.h): an msOpGen project builds every op_host/*.cpp, so a source the
// package gives to no tiling/proto library (an aclnn L0 source, a stray InferShape .cc) is taken
// out; a shared host source is put beside the others; the contents of each shared include
// directory are laid into op_host/ (host) or op_kernel/ (kernel) at their relative paths, where
// the sources' quoted includes find them. The materialized aopt_shared/ copy goes away.
void follow_package_build(const op_package& pkg, const fs::path& project) {
  std::error_code e;
  const fs::path host = project / "op_host";
  std::vector<fs::path> unbuilt;
  for (auto it = fs::directory_iterator(host, e); !e && it != fs::directory_iterator(); it.increment(e)) {
    const std::string rel = "op_host/" + it->path().filename().string();
    const auto ext = it->path().extension();
    if ((ext == ".cpp" || ext == ".cc") && std::find(pkg.host_sources.begin(), pkg.host_sources.end(), rel) == pkg.host_sources.end()) {
      unbuilt.push_back(it->path());
    }
  }
  for (const auto& f : unbuilt) fs::remove(f, e);
  const std::string prefix = shared_prefix;
  const fs::path shared = project / "aopt_shared";
  for (const auto& h : pkg.host_sources) {
    if (h.rfind(prefix, 0) == 0) fs::copy_file(project / h, host / ("aopt_shared_" + fs::path(h).filename().string()), fs::copy_options::overwrite_existing, e);
  }
  auto overlay = [&](const std::vector<std::string>& dirs, const fs::path& into) {
    for (const auto& d : dirs) {
      if (d.rfind(prefix, 0) != 0) continue;
      fs::copy(project / d, into, fs::copy_options::recursive | fs::copy_options::skip_existing, e);
    }
  };
  overlay(pkg.host_include_dirs, host);
  overlay(pkg.kernel_include_dirs, project / "op_kernel");
  if (!pkg.tiling_header.empty() && pkg.tiling_header.rfind(prefix, 0) == 0) {
    fs::copy_file(project / pkg.tiling_header, host / fs::path(pkg.tiling_header).filename(), fs::copy_options::skip_existing, e);
  }
  fs::remove_all(shared, e);
}


// Stage I's run-time tunables on the CANN toolchain (docs/cann.md, "Partial builds"): a
// search-form host source writes `AOPT_TUNABLE(slot, written)`; the tiling library built from
// it reads the slot's value from the environment variable AOPT_TUNABLES of the process that
// runs the tiling (the runner), as the sim harness does (aopt_sim/host/tunable.h, whose macros,
// when that header is force-included first as on sim, take precedence). Header-only: the
// tiling library links nothing of aopt's.
constexpr const char* tunable_header_name = "aopt_tunable.h";
constexpr const char* tunable_header = R"(// Written by aopt (docs/cann.md, "Partial builds"): Stage I's run-time tunables.
#pragma once
#ifndef AOPT_TUNABLE
#include <cstdlib>
#include <map>
namespace aopt_cann {
inline const std::map<unsigned, long long>& tunables() {
  static const std::map<unsigned, long long> t = [] {
    std::map<unsigned, long long> m;
    const char* s = std::getenv("AOPT_TUNABLES");
    while (s != nullptr && *s != '\0') {
      char* end = nullptr;
      const unsigned long slot = std::strtoul(s, &end, 10);
      if (end == s || *end != '=') break;
      s = end + 1;
      const long long v = std::strtoll(s, &end, 10);
      if (end == s || (*end != ',' && *end != '\0')) break;
      m[static_cast<unsigned>(slot)] = v;
      s = *end == ',' ? end + 1 : end;
    }
    return m;
  }();
  return t;
}
inline bool tunable_given(unsigned slot) { return tunables().count(slot) != 0; }
template <class T>
inline T tunable(unsigned slot, T written) {
  const auto it = tunables().find(slot);
  return it == tunables().end() ? written : static_cast<T>(it->second);
}
}  // namespace aopt_cann
#define AOPT_TUNABLE(slot, written) (::aopt_cann::tunable((slot), (written)))
#define AOPT_TUNABLE_OR(slot, written) \
  (::aopt_cann::tunable_given(slot) ? static_cast<int>(::aopt_cann::tunables().at(slot)) : (written))
#endif
)";

// A host source in search form includes the tunables' header (its line numbers unchanged).
void add_tunable_header(const fs::path& project) {
  bool any = false;
  std::error_code e;
  for (auto it = fs::directory_iterator(project / "op_host", e); !e && it != fs::directory_iterator(); it.increment(e)) {
    const auto ext = it->path().extension();
    if (ext != ".cpp" && ext != ".cc" && ext != ".h" && ext != ".hpp") continue;
    const std::string text = common::read_text_file(it->path());
    if (text.find("AOPT_TUNABLE") == std::string::npos || it->path().filename() == tunable_header_name) continue;
    common::write_text_file(it->path(), std::string("#include \"") + tunable_header_name + "\"\n#line 1\n" + text);
    any = true;
  }
  if (any) common::write_text_file(project / "op_host" / tunable_header_name, tunable_header);
}

// The OpDef of a host source (its class to OP_ADD): a change there is a new signature, kernels
// for other dtypes, another aclnn interface, so it is part of what a partial build keeps.
std::string opdef_text(const std::string& text) {
  static const std::regex cls(R"(class\s+\w+\s*:\s*public\s+(?:ops\s*::\s*)?OpDef)");
  std::smatch m;
  if (!std::regex_search(text, m, cls)) return {};
  const auto from = static_cast<std::size_t>(m.position(0));
  const auto add = text.find("OP_ADD(", from);
  const auto to = add == std::string::npos ? text.size() : text.find(')', add);
  return text.substr(from, to == std::string::npos ? std::string::npos : to - from);
}

// What a candidate's build depends on, in three parts: `lineage` (everything but the op_host/
// and op_kernel/ sources: the spec, the package's build lists, shared files, the OpDef), `host`
// and `kernel`. Candidates of one lineage differ in a partial build.
struct source_keys {
  std::string lineage, host, kernel;
};

source_keys keys_of(const candidate& cand) {
  common::sha256 l, h, k;
  l.field("aopt-cann-lineage-v1");
  h.field("aopt-cann-host-v1");
  k.field("aopt-cann-kernel-v1");
  for (const auto& [f, d] : cand.file_hashes()) {
    if (f.rfind("op_host/", 0) == 0) {
      h.field(f).field(d);
      l.field("opdef").field(f).field(opdef_text(cand.content(f)));
    } else if (f.rfind("op_kernel/", 0) == 0) {
      k.field(f).field(d);
    } else {
      l.field(f).field(d);
    }
  }
  const auto& pkg = cand.package();
  for (const auto* list : {&pkg.host_sources, &pkg.host_include_dirs, &pkg.kernel_include_dirs}) {
    for (const auto& f : *list) l.field(f);
    l.field("|");
  }
  l.field(pkg.tiling_header);
  for (const auto& f : pkg.shared_files) l.field(f).field(common::sha256_file_hex(pkg.tree_root / f));
  l.field(pkg.spec.to_json().dump());
  return {l.finish_hex(), h.finish_hex(), k.finish_hex()};
}

// `to`'s op_host/ and op_kernel/ made equal to `from`'s: files that differ written (so make's
// timestamps see them), files that went away removed, equal files untouched.
void sync_sources(const fs::path& from, const fs::path& to) {
  for (const char* d : {"op_host", "op_kernel"}) {
    std::error_code e;
    std::vector<fs::path> gone;
    for (auto it = fs::recursive_directory_iterator(to / d, e); !e && it != fs::recursive_directory_iterator(); it.increment(e)) {
      if (it->is_regular_file() && !fs::exists(from / fs::relative(it->path(), to))) gone.push_back(it->path());
    }
    for (const auto& f : gone) fs::remove(f, e);
    for (auto it = fs::recursive_directory_iterator(from / d, e); !e && it != fs::recursive_directory_iterator(); it.increment(e)) {
      const fs::path dest = to / fs::relative(it->path(), from);
      if (it->is_directory()) {
        fs::create_directories(dest);
        continue;
      }
      const std::string text = common::read_text_file(it->path());
      std::error_code x;
      if (fs::is_regular_file(dest, x) && common::read_text_file(dest) == text) continue;
      common::write_text_file(dest, text);
    }
  }
  fs::copy_file(from / "aopt.json", to / "aopt.json", fs::copy_options::overwrite_existing);
}

// Built projects and installed packages, kept for the candidates that follow
// (docs/cann.md, "Partial builds"). One per store directory in the process: every backend of a
// command profile (a daemon's builders and its devices) shares it.
class build_store {
 public:
  struct installed {
    fs::path install;
    nlohmann::json signature;
  };
  struct project {
    fs::path dir;                 // the project (build_out/ inside, kept)
    bool busy = false;
    std::string host, kernel;     // the sources of its last good build, installed at `install`
    installed last;
  };
  struct lineage {
    fs::path dir;
    std::vector<std::shared_ptr<project>> projects;
    std::map<std::pair<std::string, std::string>, installed> installs;
    std::set<std::pair<std::string, std::string>> building;  // (host, kernel) keys being built
  };

  static std::shared_ptr<build_store> get(const cann_profile& p) {
    static std::mutex mu;
    static std::map<std::string, std::weak_ptr<build_store>> stores;
    const std::string id = p.build_store.empty() ? "tmp:" + p.file.string() : p.build_store.string();
    std::lock_guard lock(mu);
    if (auto s = stores[id].lock()) return s;
    auto s = std::make_shared<build_store>(p.build_store);
    stores[id] = s;
    return s;
  }

  explicit build_store(const fs::path& root) : owned_(root.empty()) {
    root_ = owned_ ? common::make_unique_dir(fs::temp_directory_path(), "aopt-cann-builds-") : root;
    fs::create_directories(root_);
    if (!owned_) load();
  }
  ~build_store() {
    std::error_code e;
    if (owned_) fs::remove_all(root_, e);
  }
  build_store(const build_store&) = delete;
  build_store& operator=(const build_store&) = delete;

  fs::path new_dir(lineage& l, const char* prefix) { return common::make_unique_dir(l.dir, prefix); }
  lineage& of(const std::string& key) {
    auto& l = lineages_[key];
    if (l.dir.empty()) {
      l.dir = root_ / key.substr(0, 20);
      fs::create_directories(l.dir);
    }
    return l;
  }

  // A configured store (`[cann] build_store`) outlives the process: what it built is listed in
  // its manifest, by the content keys of the sources, so an aoptd or aopt-node started again
  // runs a candidate it built before on that build (no step) and builds partially from its
  // projects. Called with `mu` held after each good build.
  void save() {
    if (owned_) return;
    nlohmann::json lins = nlohmann::json::object();
    for (const auto& [key, l] : lineages_) {
      nlohmann::json projects = nlohmann::json::array(), installs = nlohmann::json::array();
      for (const auto& p : l.projects) {
        if (p->host.empty()) continue;  // never built
        projects.push_back({{"dir", p->dir.string()}, {"host", p->host}, {"kernel", p->kernel},
                            {"install", p->last.install.string()}, {"signature", p->last.signature}});
      }
      for (const auto& [k, in] : l.installs) {
        installs.push_back({{"host", k.first}, {"kernel", k.second}, {"install", in.install.string()}, {"signature", in.signature}});
      }
      lins[key] = {{"dir", l.dir.string()}, {"projects", projects}, {"installs", installs}};
    }
    common::write_json_file(root_ / manifest_name, {{"version", 1}, {"lineages", lins}});
  }

 private:
  static constexpr const char* manifest_name = "aopt-builds.json";

  // The manifest of an earlier process; entries whose directories are gone are dropped, and a
  // manifest that cannot be read is a store that starts empty (its builds are made again).
  void load() {
    std::error_code e;
    const fs::path f = root_ / manifest_name;
    if (!fs::is_regular_file(f, e)) return;
    try {
      const auto j = common::read_json_file(f);
      if (j.value("version", 0) != 1) return;
      for (const auto& [key, lj] : j.at("lineages").items()) {
        lineage l;
        l.dir = lj.at("dir").get<std::string>();
        for (const auto& pj : lj.at("projects")) {
          auto p = std::make_shared<project>();
          p->dir = pj.at("dir").get<std::string>();
          p->host = pj.at("host").get<std::string>();
          p->kernel = pj.at("kernel").get<std::string>();
          p->last = {pj.at("install").get<std::string>(), pj.at("signature")};
          if (fs::is_directory(p->dir, e) && fs::is_directory(p->last.install, e)) l.projects.push_back(p);
        }
        for (const auto& ij : lj.at("installs")) {
          installed in{ij.at("install").get<std::string>(), ij.at("signature")};
          if (fs::is_directory(in.install, e)) l.installs[{ij.at("host").get<std::string>(), ij.at("kernel").get<std::string>()}] = in;
        }
        if (fs::is_directory(l.dir, e)) lineages_[key] = std::move(l);
      }
    } catch (const std::exception& ex) {
      lineages_.clear();
      common::logger()->warn("cann build store {}: {} not read ({}); its builds are made again", root_.string(), manifest_name, ex.what());
    }
  }

 public:
  std::mutex mu;
  std::condition_variable freed;

 private:
  bool owned_;
  fs::path root_;
  std::map<std::string, lineage> lineages_;
};

class cann_backend final : public backend {
 public:
  explicit cann_backend(cann_profile p) : p_(std::move(p)), store_(build_store::get(p_)) {
    common::sha256 h;
    h.field("aopt-cann-v1").field(common::sha256_file_hex(p_.file));
    // The toolkit's version file, when there: a CANN upgrade changes every result.
    for (const char* v : {"version.cfg", "version.info"}) {
      std::error_code e;
      if (fs::is_regular_file(p_.toolkit / v, e)) h.field(common::sha256_file_hex(p_.toolkit / v));
    }
    fingerprint_ = h.finish_hex();
  }

  std::string name() const override { return "cann"; }
  std::string profile_name() const override { return p_.name; }
  std::string fingerprint() const override { return fingerprint_; }

  // A candidate whose sources were built before (a tiling variant: only its run-time tunables
  // differ) runs on that build's package: no command. Otherwise a free project of its lineage
  // is updated in place: build_tiling when its host sources differ from the project's last
  // build, build_kernel when its kernel sources do, each into a copy of that build's package;
  // with neither command configured, no free project, or a changed OpDef, the full build and
  // install in a project of its own (docs/cann.md, "Partial builds").
  build_result build(const candidate& cand, const fs::path& dir, const std::vector<const case_spec*>&) override {
    check_toolkit();
    const auto t0 = std::chrono::steady_clock::now();
    build_result br;
    br.dir = dir;
    br.tunables = cand.tunables_env();
    const auto& pkg = cand.package();
    const source_keys keys = keys_of(cand);
    auto done = [&]() -> build_result& {
      br.host_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      br.total_seconds = br.host_seconds;
      br.log = common::bounded_text(br.log, 128 * 1024, "\n[build output truncated]");
      return br;
    };

    std::shared_ptr<build_store::project> slot;
    fs::path install;
    bool full = false;
    {
      std::unique_lock lock(store_->mu);
      auto& lin = store_->of(keys.lineage);
      for (;;) {
        if (const auto it = lin.installs.find({keys.host, keys.kernel}); it != lin.installs.end()) {
          br.ok = true;
          br.host_reused = br.kernel_reused = true;
          br.signature = it->second.signature;
          br.host_exe = it->second.install;
          return done();
        }
        // A free built project: the one needing the fewest steps.
        int best_steps = 3;
        for (const auto& p : lin.projects) {
          if (p->busy) continue;
          const int steps = (p->host != keys.host ? 1 : 0) + (p->kernel != keys.kernel ? 1 : 0);
          const bool possible = (p->host == keys.host || !p_.build_tiling.line.empty()) && (p->kernel == keys.kernel || !p_.build_kernel.line.empty());
          if (possible && steps < best_steps) {
            best_steps = steps;
            slot = p;
          }
        }
        // The same sources being built by another backend (a builder): wait for that build.
        const bool same_in_progress = lin.building.count({keys.host, keys.kernel}) != 0;
        if (!slot && !same_in_progress) {
          std::shared_ptr<build_store::project> free;
          for (const auto& p : lin.projects) {
            if (!p->busy) free = p;
          }
          if (lin.projects.size() < p_.max_projects) {
            slot = std::make_shared<build_store::project>();
            lin.projects.push_back(slot);
          } else if (free) {
            slot = free;  // none can build it partially: a full build, in a new directory (the
                          // packages of its earlier builds stay as they are)
          }
          if (slot) {
            slot->dir = store_->new_dir(lin, "p") / "project";
            slot->host.clear();
            slot->kernel.clear();
            full = true;
          }
        }
        if (slot && !same_in_progress) break;
        slot.reset();
        // Every project of the lineage is building: wait for one (or for this very build).
        store_->freed.wait(lock);
      }
      slot->busy = true;
      lin.building.insert({keys.host, keys.kernel});
      install = store_->new_dir(lin, "i");
    }
    // The slot is this build's until it is released; the store records the result.
    const std::shared_ptr<build_store::project> held = slot;
    auto release = [&](bool ok) {
      std::lock_guard lock(store_->mu);
      auto& lin = store_->of(keys.lineage);
      held->busy = false;
      lin.building.erase({keys.host, keys.kernel});
      if (ok) {
        held->host = keys.host;
        held->kernel = keys.kernel;
        held->last = {install, br.signature};
        lin.installs[{keys.host, keys.kernel}] = held->last;
        store_->save();
      } else if (held->host.empty()) {
        lin.projects.erase(std::remove(lin.projects.begin(), lin.projects.end(), held), lin.projects.end());
      }
      store_->freed.notify_all();
    };
    try {
      // The candidate's project sources as the full build would have them.
      const fs::path fresh = install.parent_path() / (install.filename().string() + "-src");
      fs::create_directories(fresh);
      fs::copy(p_.project_template, fresh, fs::copy_options::recursive | fs::copy_options::overwrite_existing);
      std::error_code e;
      fs::remove_all(fresh / "op_host", e);
      fs::remove_all(fresh / "op_kernel", e);
      cand.materialize(fresh);
      follow_package_build(pkg, fresh);
      fs::copy_file(pkg.spec_file, fresh / "aopt.json", fs::copy_options::overwrite_existing);
      if (!pkg.spec.timed_shape.empty()) {  // --timed-shape: the project's spec says it too
        auto j = common::read_json_file(fresh / "aopt.json");
        if (j.is_object()) {  // an aopt.json (msOpST cases are a list)
          j["timed_shape"] = pkg.spec.timed_shape;
          common::write_json_file(fresh / "aopt.json", j);
        }
      }
      add_tunable_header(fresh);
      bool ok = false;
      if (full) {
        fs::rename(fresh, slot->dir);
        ok = full_build(br, slot->dir, install, pkg.spec.kernel);
      } else {
        // Partial: the candidate's package starts as a copy of the project's last build.
        fs::copy(slot->last.install, install, fs::copy_options::recursive | fs::copy_options::overwrite_existing);
        sync_sources(fresh, slot->dir);
        fs::remove_all(fresh, e);
        const auto vars = vars_for(slot->dir, install, pkg.spec.kernel);
        ok = true;
        br.host_reused = slot->host == keys.host;
        br.kernel_reused = slot->kernel == keys.kernel;
        if (!br.host_reused) ok = step(br, p_.build_tiling, "build_tiling", "tiling", vars, slot->dir);
        if (ok && !br.kernel_reused) ok = step(br, p_.build_kernel, "build_kernel", "kernel", vars, slot->dir);
        if (ok) ok = read_signature(br, vars, pkg.spec.kernel);
      }
      br.ok = ok;
      if (ok) br.host_exe = install;
      else fs::remove_all(install, e);
      release(ok);
    } catch (...) {
      std::error_code e;
      fs::remove_all(install, e);
      release(false);
      throw;
    }
    return done();
  }

  // One build command in `project`: false with the build's stage and diagnostic naming the
  // command when it fails (a compile_error of the candidate).
  bool step(build_result& br, const cann_command& cmd, const std::string& key, const std::string& stage,
            const std::map<std::string, std::string>& vars, const fs::path& project) const {
    const auto out = run_command(cmd, "[commands] " + key, vars, project);
    br.log += "[" + key + "]\n" + out.err + out.out;
    if (out.ok()) return true;
    br.stage = stage;
    if (out.end == common::process_end::timed_out) {
      br.diagnostic = "the " + key + " command did not finish within " + common::seconds_text(cmd.timeout_s) + " s ([timeouts] " + key +
                      " in " + p_.file.string() + ")";
    } else {
      br.diagnostic = "the " + key + " command " + out.describe() + ":\n" + first_errors(out.err + out.out);
    }
    return false;
  }

  // The signature from the installed package's ops-info file.
  bool read_signature(build_result& br, const std::map<std::string, std::string>& vars, const std::string& kernel) const {
    std::error_code e;
    const fs::path info = expand_command(p_.ops_info, vars, p_.file.string() + ": [cann] ops_info", raw_all(vars));
    if (!fs::is_regular_file(info, e)) {
      br.stage = "install";
      br.diagnostic = "the install command left no " + info.string() +
                      " (the operator's ops-info file); check [commands] install and [cann] ops_info in " + p_.file.string();
      return false;
    }
    try {
      br.signature = signature_from_ops_info(info, kernel);
    } catch (const error& ex) {
      br.stage = "install";
      br.diagnostic = ex.what();
      return false;
    }
    return true;
  }

  // build.sh and the package's install into `install`, in a project of its own.
  bool full_build(build_result& br, const fs::path& project, const fs::path& install, const std::string& kernel) const {
    const auto vars = vars_for(project, install, kernel);
    return step(br, p_.build, "build", "kernel", vars, project) && step(br, p_.install, "install", "install", vars, project) &&
           read_signature(br, vars, kernel);
  }

  run_result run(const build_result& built, const run_spec& spec, const fs::path& run_dir,
                 const common::sandbox_limits&) override {
    run_result rr;
    fs::create_directories(run_dir);
    const std::string kernel = built.signature.value("kernel", std::string());
    // The run sees the package its build installed (built.host_exe) and the candidate's
    // run-time tunables (the tiling library reads them in the runner's process).
    auto vars = vars_for(built.dir, built.host_exe, kernel);
    vars["op_type"] = built.signature.value("op_type", std::string());
    vars["run_dir"] = run_dir.string();
    write_request(built, spec, run_dir / "aopt_run.json", "result.json", p_.warmup, p_.repeat);
    vars["run_json"] = (run_dir / "aopt_run.json").string();
    std::error_code e;
    fs::remove(run_dir / "result.json", e);
    rr.process = run_command(p_.run, "[commands] run", vars, run_dir, {}, built.tunables);
    if (!classify(rr, p_.run, "run")) return rr;
    nlohmann::json res;
    try {
      res = common::read_json_file(run_dir / "result.json");
    } catch (const std::exception& ex) {
      rr.status = "runtime_error";
      rr.diagnostic = std::string("the run command exited 0 but its result is unusable: ") + ex.what();
      return rr;
    }
    std::vector<double> samples;
    for (const auto& s : res.value("samples_us", nlohmann::json::array())) {
      if (s.is_number()) samples.push_back(s.get<double>());
    }
    nlohmann::json harness = {{"status", "ok"}, {"warnings", nlohmann::json::array()}};
    harness["outputs"] = res.value("outputs", nlohmann::json::array());
    // Inputs the kernel wrote (in place), which the runner found changed: compared like outputs.
    harness["written_inputs"] = res.value("written_inputs", nlohmann::json::array());
    if (!take_outputs(harness, run_dir, "result.json of the run command", rr)) return rr;
    for (const auto& o : res.value("outputs", nlohmann::json::array())) {
      if (!o.value("shape_assumed", false)) continue;
      // aclnn takes outputs the caller allocates: without a shape in the case the runner took the
      // first input's. Right for elementwise operators; anything else must say its shape.
      harness["warnings"].push_back({{"kind", "output_shape_assumed"}, {"file", "aopt.json"}, {"line", 0},
                                     {"message", "output '" + o.value("name", std::string()) + "' has no shape in the case: the runner allocated " +
                                                     o.value("shape", nlohmann::json::array()).dump() +
                                                     " (the first input's); give \"outputs\": {\"" + o.value("name", std::string()) +
                                                     "\": {\"shape\": [...]}} in the case if it differs"}});
    }
    if (res.contains("block_dim")) harness["tiling"]["block_dim"] = res["block_dim"];
    nlohmann::json timing = {{"measured", true}};
    if (!samples.empty()) {
      const auto s = common::summarize(samples);
      // Kernel time (msprof's Task Duration) when the runner timed launches on a busy stream; a
      // runner that times each launch alone (or says nothing) measured the host's launch too.
      const std::string method = res.value("timing_method", std::string("events_per_launch_with_host_launch"));
      timing["Task Duration(us)"] = s.median;
      harness["measurement"] = {{"measured", true},       {"repetitions", s.n},    {"warmups", res.value("warmup", p_.warmup)},
                                {"median_us", s.median},  {"ci_low_us", s.low},    {"ci_high_us", s.high},
                                {"min_us", s.min},        {"max_us", s.max},       {"spread", s.spread()},
                                {"samples_us", samples},  {"device", p_.device},   {"method", method},
                                {"launches_per_sample", res.value("launches_per_sample", 1)}};
      if (res.contains("submit_us") && res["submit_us"].is_number()) harness["measurement"]["submit_us"] = res["submit_us"];
      if (method != "events_busy_stream") {
        harness["warnings"].push_back({{"kind", "timing_includes_launch"}, {"file", "result.json"}, {"line", 0},
                                       {"message", "the run command timed each launch alone (timing_method " + method +
                                                       "): each sample is the host's launch plus the kernel, not kernel time; "
                                                       "a runtime with aclSetAclOpExecutorRepeatable times launches on a busy stream "
                                                       "(docs/cann.md, \"Measurement\")"}});
      }
    } else {
      harness["warnings"].push_back({{"kind", "no_timing"}, {"file", "result.json"}, {"line", 0},
                                     {"message", "the run command reported no samples_us: no latency for this case"}});
    }
    if (spec.timing && !p_.profile.line.empty()) profile(built, spec, run_dir, vars, timing, harness);
    harness["timing"] = timing;
    rr.harness = std::move(harness);
    rr.status = "ok";
    return rr;
  }

  std::optional<roofline_estimate> roofline(double, double, double) const override { return std::nullopt; }

 private:
  void check_toolkit() const {
    std::error_code e;
    if (!fs::is_regular_file(p_.set_env, e)) {
      throw error(ec::toolchain_error, p_.set_env.string() + " not found: no CANN toolkit at " + p_.toolkit.string() +
                                           " ([cann] toolkit in " + p_.file.string() +
                                           "; CANN 8.0-8.3: .../ascend-toolkit/latest, 8.5 and later: .../cann); run `aopt doctor --cann-config " +
                                           p_.file.string() + "` for what to install");
    }
    if (!fs::is_directory(p_.project_template, e)) {
      throw error(ec::invalid_spec, p_.file.string() + ": [cann] project_template " + p_.project_template.string() +
                                        " is not a directory; generate it with msopgen (docs/cann.md, step 4)");
    }
  }

  std::map<std::string, std::string> vars_for(const fs::path& project, const fs::path& install, const std::string& kernel) const {
    return {{"project", project.string()},           {"install", install.string()},
            {"toolkit", p_.toolkit.string()},        {"soc", p_.soc_version},
            {"soc_short", p_.soc_short()},           {"vendor", p_.vendor},
            {"device", std::to_string(p_.device)},   {"kernel", kernel},
            {"warmup", std::to_string(p_.warmup)},   {"repeat", std::to_string(p_.repeat)}};
  }

  static std::set<std::string> raw_all(const std::map<std::string, std::string>& vars) {
    std::set<std::string> s;
    for (const auto& [k, v] : vars) s.insert(k);
    return s;
  }

  std::string shell_line(const cann_command& cmd, const std::string& where, const std::map<std::string, std::string>& vars,
                         const std::set<std::string>& raw = {}) const {
    const std::string line = expand_command(cmd.line, vars, p_.file.string() + ": " + where, raw);
    return ". " + expand_command("{f}", {{"f", p_.set_env.string()}}, where) + " >/dev/null 2>&1; " + line;
  }

  common::process_outcome run_command(const cann_command& cmd, const std::string& where,
                                      const std::map<std::string, std::string>& vars, const fs::path& cwd,
                                      const std::set<std::string>& raw = {}, const std::string& tunables = {}) const {
    common::process_request req;
    req.argv = {"/bin/bash", "-c", shell_line(cmd, where, vars, raw)};
    req.cwd = cwd.string();
    req.limits.wall_timeout = std::chrono::milliseconds(static_cast<long long>(cmd.timeout_s * 1000));
    req.limits.max_output_bytes = 256 * 1024;
    // The device and the toolkit are the point: CANN commands run with resource limits only.
    req.iso.enabled = false;
    for (const auto& [k, v] : p_.environment) req.env.emplace_back(k, v);
    req.env.emplace_back("ASCEND_DEVICE_ID", std::to_string(p_.device));
    if (!tunables.empty()) req.env.emplace_back("AOPT_TUNABLES", tunables);
    return common::run_process(req);
  }

  // Maps how a run-like command ended to a status; true when it exited 0.
  bool classify(run_result& rr, const cann_command& cmd, const char* what) const {
    const auto& p = rr.process;
    const std::string err = common::valid_utf8(last_chars(p.err + p.out, 1200));
    if (p.end == common::process_end::spawn_failed) throw error(ec::subprocess_error, std::string("cannot start /bin/bash: ") + p.error);
    if (p.end == common::process_end::timed_out) {
      rr.status = "timeout";
      rr.diagnostic = std::string("the ") + what + " command did not finish within " + common::seconds_text(cmd.timeout_s) +
                      " s (hang on the device, or [timeouts] " + what + " too short); process group killed";
      return false;
    }
    if (p.ok()) return true;
    if (const auto code = find_acl_error_code(p.err + p.out)) {
      const auto it = p_.acl_status.find(*code);
      rr.status = it != p_.acl_status.end() ? it->second : "runtime_error";
      rr.diagnostic = "ACL error " + std::to_string(*code) + " (" + what + " command " + p.describe() + "): " + err;
      return false;
    }
    rr.status = "runtime_error";
    rr.diagnostic = std::string("the ") + what + " command " + p.describe() + (err.empty() ? "" : ": " + err);
    return false;
  }

  // The case's attributes and, for those it does not give, the defaults of the installed
  // package's ops-info: the aclnn function takes every attribute.
  static nlohmann::json attrs_with_defaults(const nlohmann::json& signature, const nlohmann::json& given) {
    nlohmann::json attrs = given.is_object() ? given : nlohmann::json::object();
    for (const auto& a : signature.value("attrs", nlohmann::json::array())) {
      const std::string name = a.value("name", std::string());
      if (!name.empty() && a.contains("default") && !attrs.contains(name)) attrs[name] = a["default"];
    }
    return attrs;
  }

  void write_request(const build_result& built, const run_spec& spec, const fs::path& file, const std::string& result,
                     int warmup, int repeat) const {
    nlohmann::json rj = {{"op_type", built.signature.value("op_type", std::string())},
                         {"kernel", built.signature.value("kernel", std::string())},
                         {"install", built.host_exe.string()},
                         {"vendor", p_.vendor},
                         {"soc_version", p_.soc_version},
                         {"device", p_.device},
                         {"warmup", warmup},
                         {"repeat", repeat},
                         {"launches", repeat == 1 && warmup == 0 ? 1 : p_.launches},
                         {"attrs", attrs_with_defaults(built.signature, spec.attrs)},
                         {"result", result},
                         {"inputs", inputs_json(spec.inputs)},
                         {"outputs", nlohmann::json::array()}};
    for (const auto& o : spec.outputs) {
      nlohmann::json oj = {{"name", o.name}, {"dtype", dtype_name(o.type)}, {"file", "out_" + o.name + ".bin"}};
      if (o.shape) oj["shape"] = *o.shape;
      rj["outputs"].push_back(oj);
    }
    common::write_json_file(file, rj);
  }

  // One profiled launch under msprof op: its CSV fields join `timing`; a failure or a missing CSV
  // is a warning (the latency comes from the timed runs, not from the profiler).
  void profile(const build_result& built, const run_spec& spec, const fs::path& run_dir, std::map<std::string, std::string> vars,
               nlohmann::json& timing, nlohmann::json& harness) const {
    const fs::path prof_dir = run_dir / "msprof";
    fs::create_directories(prof_dir);
    write_request(built, spec, run_dir / "aopt_profile.json", "profile_result.json", 0, 1);
    vars["run_json"] = (run_dir / "aopt_profile.json").string();
    vars["prof_dir"] = prof_dir.string();
    // msprof op looks a program without a path up in the current directory: give it the path.
    vars["app"] = with_program_path(expand_command(p_.run.line, vars, p_.file.string() + ": [commands] run"));
    auto warn = [&](const std::string& msg) {
      harness["warnings"].push_back({{"kind", "profile_missing"}, {"file", "msprof op"}, {"line", 0},
                                     {"message", msg + "; diagnosis has no pipe fields for this case"}});
    };
    const auto out = run_command(p_.profile, "[commands] profile", vars, run_dir, {"app"}, built.tunables);
    if (!out.ok()) {
      warn("the profile command " + out.describe() + ": " + common::valid_utf8(last_chars(out.err + out.out, 400)));
      return;
    }
    std::string why;
    const auto fields = read_msprof_op(prof_dir, why);
    if (!fields) {
      warn(why);
      return;
    }
    for (const auto& [k, v] : fields->items()) {
      if (k == "Task Duration(us)") timing["msprof Task Duration(us)"] = v;  // one profiled launch
      else timing[k] = v;
    }
    if (fields->contains("Block Dim") && (*fields)["Block Dim"].is_number()) {
      harness["tiling"]["block_dim"] = static_cast<std::uint32_t>((*fields)["Block Dim"].get<double>());
    }
  }

  cann_profile p_;
  std::shared_ptr<build_store> store_;
  std::string fingerprint_;
};

}  // namespace

std::unique_ptr<backend> make_cann_backend(const cann_profile& profile) {
  profile.validate();
  return std::make_unique<cann_backend>(profile);
}

}  // namespace aopt::evaluation
