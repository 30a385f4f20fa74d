#include "aopt/jobs/sim_slots.h"

#include <algorithm>
#include <chrono>
#include <fstream>
#include <map>
#include <vector>
#include <set>
#include <sstream>
#include <thread>

#include <fmt/format.h>

#include "aopt/common/error.h"
#include "aopt/common/fs.h"
#include "aopt/evaluation/package_build.h"
#include "aopt/optimize/search_job.h"
#include "aopt/stage1/search_form.h"
#include "aopt_sim/profile.h"

namespace aopt::jobs {

namespace ev = aopt::evaluation;
namespace fs = std::filesystem;

namespace {

// The quoted includes of a source text, in order ("foreach_triangle.h").
std::vector<std::string> quoted_includes(const std::string& text) {
  std::vector<std::string> out;
  for (auto at = text.find("#include"); at != std::string::npos; at = text.find("#include", at + 8)) {
    const auto open = text.find_first_not_of(" \t", at + 8);
    if (open == std::string::npos || text[open] != '"') continue;
    const auto close = text.find('"', open + 1);
    if (close == std::string::npos) break;
    out.push_back(text.substr(open + 1, close - open - 1));
  }
  return out;
}

// The shared files the search may change (shared_search_files below), relative to the tree root.
constexpr std::size_t max_shared_search_files = 24;

}  // namespace

optimize::file_map shared_search_files(const ev::op_package& pkg, const optimize::file_map& package_files) {
  optimize::file_map out;
  if (pkg.shared_files.empty()) return out;
  const std::string prefix = ev::shared_prefix;
  const std::set<std::string> shared(pkg.shared_files.begin(), pkg.shared_files.end());
  // Adds a shared file once (at most max_shared_search_files); its text, or null when not added.
  auto add = [&](const std::string& rel) -> const std::string* {
    if (out.size() >= max_shared_search_files || out.count(rel)) return nullptr;
    return &(out[rel] = common::read_text_file(pkg.tree_root / rel));
  };
  // The shared sources the package's host libraries compile (a tiling function shared by a family).
  for (const auto& h : pkg.host_sources) {
    if (h.rfind(prefix, 0) == 0 && shared.count(h.substr(prefix.size()))) add(h.substr(prefix.size()));
  }
  // The shared kernel headers the kernel includes from its shared include directories, and theirs.
  std::vector<std::string> dirs;
  for (const auto& d : pkg.kernel_include_dirs) {
    if (d.rfind(prefix, 0) == 0) dirs.push_back(d.substr(prefix.size()));
  }
  std::vector<std::string> texts;
  for (const auto& [path, text] : package_files) {
    if (path.rfind("op_kernel/", 0) == 0) texts.push_back(text);
  }
  for (std::size_t i = 0; i < texts.size() && out.size() < max_shared_search_files; ++i) {
    for (const auto& inc : quoted_includes(texts[i])) {
      for (const auto& d : dirs) {
        const std::string rel = (fs::path(d) / inc).lexically_normal().generic_string();
        if (!shared.count(rel) || out.count(rel)) continue;
        if (const std::string* text = add(rel)) texts.push_back(*text);
        break;
      }
    }
  }
  // The shared headers the package's host code includes (from the including file's directory or
  // a host include directory), and theirs: a shared tiling class written in its header (the
  // methods that write the tiling data) is part of what Stage I's synthesis slices. Last, so the
  // kernel headers the rewrites change come first under the cap.
  std::vector<std::string> host_dirs;
  for (const auto& d : pkg.host_include_dirs) {
    if (d.rfind(prefix, 0) == 0) host_dirs.push_back(d.substr(prefix.size()));
  }
  std::vector<std::pair<std::string, std::string>> host_texts;  // (directory under the tree root, text)
  for (const auto& [rel, text] : std::map<std::string, std::string>(out.begin(), out.end())) {
    if (rel.ends_with(".cpp") || rel.ends_with(".cc")) host_texts.emplace_back(fs::path(rel).parent_path().generic_string(), text);
  }
  for (const auto& [path, text] : package_files) {
    if (path.rfind("op_host/", 0) == 0) host_texts.emplace_back("", text);
  }
  for (std::size_t i = 0; i < host_texts.size() && out.size() < max_shared_search_files; ++i) {
    const auto [dir, text] = host_texts[i];
    for (const auto& inc : quoted_includes(text)) {
      std::vector<std::string> candidates;
      if (!dir.empty()) candidates.push_back(dir);
      candidates.insert(candidates.end(), host_dirs.begin(), host_dirs.end());
      for (const auto& d : candidates) {
        const std::string rel = (fs::path(d) / inc).lexically_normal().generic_string();
        if (!shared.count(rel) || out.count(rel)) continue;
        if (const std::string* t = add(rel)) host_texts.emplace_back(fs::path(rel).parent_path().generic_string(), *t);
        break;
      }
    }
  }
  return out;
}

optimize::file_map load_files(const ev::op_package& pkg) {
  optimize::file_map files;
  for (const auto& rel : pkg.source_files()) {
    std::ifstream in(pkg.dir / rel, std::ios::binary);
    if (!in) {
      throw error(ec::io_error, fmt::format("{}: cannot read this source file of the package", (pkg.dir / rel).string()));
    }
    std::stringstream ss;
    ss << in.rdbuf();
    files[rel] = ss.str();
  }
  // A family's shared tiling source and kernel headers: the search may change the package's own
  // copy of them (candidate.h), as it does the package's files.
  for (auto& [rel, text] : shared_search_files(pkg, files)) files[ev::shared_prefix + rel] = std::move(text);
  return files;
}

std::shared_ptr<const sim_package> make_sim_package(std::shared_ptr<const ev::op_package> pkg) {
  ev::check_case_memory(pkg->spec, ev::eval_options::default_limits().address_space_bytes);
  auto out = std::make_shared<sim_package>();
  out->base = load_files(*pkg);
  out->package = std::move(pkg);
  return out;
}

namespace {

// The evaluate functions of make_sim_slots (build_only false) and make_sim_builders (true).
std::vector<optimize::package_evaluate_fn> make_functions(package_lookup lookup, const slot_options& opt, bool build_only) {
  struct slot_state {
    // (input seed, fresh) -> evaluator; seed 0 = the package's; fresh: no result cache (remeasure)
    std::map<std::pair<std::uint64_t, bool>, std::unique_ptr<ev::evaluator>> by_seed;
  };
  std::vector<optimize::package_evaluate_fn> out;
  for (std::size_t s = 0; s < std::max<std::size_t>(1, opt.slots); ++s) {
    auto state = std::make_shared<slot_state>();
    out.emplace_back([lookup, opt, state, build_only](const std::string& package, const optimize::eval_request& req) {
      const auto pkg = lookup(package);
      if (!pkg) {
        throw error(ec::not_found, fmt::format("evaluator: no package '{}' is registered (its job was removed?)", package));
      }
      const bool fresh = req.stage == optimize::eval_stage::remeasure;
      auto& e = state->by_seed[{req.input_seed.value_or(0), fresh}];
      if (!e) {
        ev::eval_options eo;
        eo.backend = opt.backend;
        eo.profile = opt.profile;
        eo.cann_config = opt.cann_config;
        eo.cann_device = opt.cann_device;
        eo.use_cache = opt.use_cache && !fresh;
        eo.cache_dir = opt.cache_dir;
        if (req.input_seed) eo.seed = *req.input_seed;
        e = std::make_unique<ev::evaluator>(eo);
      }
      // The evaluation's wall time is the whole call: the candidate, the evaluation, its result
      // cache write and work directory removal (the result's total_seconds ends before those).
      const auto t0 = std::chrono::steady_clock::now();
      ev::candidate cand(pkg->package);
      for (const auto& [path, text] : optimize::merged(req.files, req.search_form)) {
        if (path == stage1::tunables_file) {
          cand.set_tunables(text);
          continue;
        }
        auto it = pkg->base.find(path);
        if (it == pkg->base.end() || it->second != text) cand.replace(path, text);
      }
      cand.info().stage = to_string(req.stage);
      cand.info().round = req.round;
      cand.info().proposal = req.proposal;
      optimize::eval_report report;
      if (req.stage == optimize::eval_stage::screen && !build_only) {
        report = e->screen(cand);
      } else if (!build_only) {
        report = e->evaluate(cand).report();
      } else if (auto final_result = e->prebuild(cand)) {
        report = final_result->report();
      } else {
        report.status = optimize::eval_status::built;
      }
      report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      return report;
    });
  }
  return out;
}

}  // namespace

std::vector<optimize::package_evaluate_fn> make_sim_slots(package_lookup lookup, const slot_options& opt) {
  return make_functions(std::move(lookup), opt, false);
}

std::vector<optimize::package_evaluate_fn> make_sim_builders(package_lookup lookup, const slot_options& opt) {
  return make_functions(std::move(lookup), opt, true);
}

std::vector<optimize::evaluate_fn> make_sim_slots(std::shared_ptr<const ev::op_package> pkg, const slot_options& opt) {
  auto one = make_sim_package(std::move(pkg));
  std::vector<optimize::evaluate_fn> out;
  for (auto& fn : make_sim_slots([one](const std::string&) { return one; }, opt)) {
    out.emplace_back([fn = std::move(fn)](const optimize::eval_request& req) { return fn(std::string(), req); });
  }
  return out;
}

optimize::offline_engine_config offline_config(const std::string& profile, std::uint64_t seed) {
  optimize::offline_engine_config cfg;
  cfg.seed = seed;
  const auto p = sim::load_profile(profile);
  cfg.mutator.limits.core_count = p.aiv_cores;
  cfg.mutator.limits.ub_bytes = static_cast<std::int64_t>(p.ub_bytes);
  if (p.l1_bytes > 0) cfg.mutator.limits.l1_bytes = static_cast<std::int64_t>(p.l1_bytes);
  if (p.l0a_bytes > 0) cfg.mutator.limits.l0a_bytes = static_cast<std::int64_t>(p.l0a_bytes);
  if (p.l0b_bytes > 0) cfg.mutator.limits.l0b_bytes = static_cast<std::int64_t>(p.l0b_bytes);
  if (p.l0c_bytes > 0) cfg.mutator.limits.l0c_bytes = static_cast<std::int64_t>(p.l0c_bytes);
  cfg.diagnosis.ub_capacity_bytes = p.ub_bytes;
  return cfg;
}

std::size_t default_slots() {
  const unsigned hc = std::thread::hardware_concurrency();
  return hc <= 1 ? 1 : 2;
}

void write_package(const ev::op_package& pkg, const optimize::file_map& best, const fs::path& out) {
  std::error_code ec;
  if (fs::exists(out) && !fs::is_directory(out)) {
    throw error(ec::invalid_argument, fmt::format("--out {}: exists and is not a directory", out.string()));
  }
  fs::create_directories(out, ec);
  if (ec) throw error(ec::io_error, fmt::format("--out {}: cannot create the directory: {}", out.string(), ec.message()));
  // The package root plus aopt.json when it lives in the parent (the suite's baseline/ layout).
  for (auto it = fs::recursive_directory_iterator(pkg.dir); it != fs::recursive_directory_iterator(); ++it) {
    const fs::path rel = fs::relative(it->path(), pkg.dir);
    const std::string first = rel.begin()->string();
    if (first == "build" || first == "build_out" || first.starts_with(".")) {
      if (it->is_directory()) it.disable_recursion_pending();
      continue;
    }
    if (it->is_directory()) {
      fs::create_directories(out / rel);
    } else if (it->is_regular_file()) {
      fs::copy_file(it->path(), out / rel, fs::copy_options::overwrite_existing);
    }
  }
  if (!fs::exists(pkg.dir / "aopt.json") && fs::exists(pkg.dir.parent_path() / "aopt.json")) {
    fs::copy_file(pkg.dir.parent_path() / "aopt.json", out / "aopt.json", fs::copy_options::overwrite_existing);
    // A reference.cpp next to it is part of the spec.
    for (const auto& e : fs::directory_iterator(pkg.dir.parent_path())) {
      if (e.is_regular_file() && e.path().extension() == ".cpp") {
        fs::copy_file(e.path(), out / e.path().filename(), fs::copy_options::overwrite_existing);
      }
    }
  }
  // A changed shared file (aopt_shared/...): the package then carries every shared file and its
  // place in the tree (package_build.h, carried_tree_file), so that it builds as measured without
  // the tree; unchanged shared files are not written (the tree has them).
  const std::string shared = ev::shared_prefix;
  const bool carried = fs::exists(pkg.dir / ev::carried_tree_file);
  bool shared_changed = false;
  for (const auto& [rel, text] : best) {
    if (rel.rfind(shared, 0) == 0 && !carried && text != common::read_text_file(pkg.tree_root / rel.substr(shared.size()))) {
      shared_changed = true;
    }
  }
  if (shared_changed) {
    for (const auto& [rel, text] : ev::carried_shared_files(pkg.dir, pkg.tree_root)) common::write_text_file(out / rel, text);
  }
  for (const auto& [rel, text] : best) {
    if (rel.rfind(shared, 0) == 0 && !carried && !shared_changed) continue;
    if (rel.rfind(shared, 0) == 0) fs::create_directories((out / rel).parent_path());
    std::ofstream o(out / rel, std::ios::binary | std::ios::trunc);
    o << text;
    if (!o) throw error(ec::io_error, fmt::format("{}: cannot write the optimized file", (out / rel).string()));
  }
}

}  // namespace aopt::jobs
