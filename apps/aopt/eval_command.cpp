// `aopt eval OP_DIR [--backend sim|cann] [--profile 910b4] [--cann-config FILE] [--case NAME] [--seed N] [--json]
//                   [--cache-dir D] [--no-cache] [--keep-workdir] [--no-sandbox] [--timeout S] [--memory-limit MiB]`
#include <cstdio>
#include <iostream>
#include <memory>

#include <fmt/format.h>

#include "aopt/common/error.h"
#include "aopt/evaluation/evaluator.h"
#include "aopt/evaluation/package.h"
#include "commands.h"

namespace aopt::app {

namespace ev = aopt::evaluation;

namespace {

struct eval_args {
  std::string op_dir;
  std::string backend = "sim";
  std::string profile = "910b4";
  std::string cann_config;
  std::string only_case;
  std::uint64_t seed = 0;
  bool seed_given = false;
  bool json = false;
  std::string cache_dir;
  bool no_cache = false;
  bool keep_workdir = false;
  bool no_sandbox = false;
  run_limit_options run;
  package_args package;
};

void print_human(const ev::eval_result& r, const std::string& workdir) {
  std::cout << fmt::format("aopt eval {}  (kernel {}{}, backend {}, profile {}, seed {}{})\n", r.package, r.kernel,
                           r.op_type.empty() ? "" : " / " + r.op_type, r.backend, r.profile, r.seed,
                           r.cached ? ", from cache" : "");
  std::cout << "status: " << r.status << "\n";
  if (!r.diagnostic.empty()) std::cout << "diagnostic: " << r.diagnostic << "\n";
  if (r.build.contains("seconds")) {
    std::cout << fmt::format("build: {:.2f} s (host {:.2f} s, kernel {:.2f} s{})\n", r.build.value("seconds", 0.0),
                             r.build.value("host_seconds", 0.0), r.build.value("kernel_seconds", 0.0),
                             r.build.value("parallel_kernel_build", false) ? ", compiled in parallel" : "");
  }
  if (!r.cases.empty()) {
    std::cout << "cases (reference: " << (r.reference == "baseline" ? "baseline" : r.reference) << "):\n";
    for (const auto& c : r.cases) {
      std::size_t elements = 0, mism = 0;
      for (const auto& o : c.outputs) {
        elements += o.elements;
        mism += o.mismatches;
      }
      std::cout << fmt::format("  {:<16} {:<7} {:<16} max abs err {:.3g}  max rel err {:.3g}  mismatches {}/{}", c.name,
                               c.timed ? "[timed]" : "", c.status, c.max_abs_err, c.max_rel_err, mism, elements);
      if (c.latency_us) std::cout << fmt::format("  {:.2f} us", *c.latency_us);
      std::cout << "\n";
      if (c.status != "ok" && !c.diagnostic.empty()) std::cout << "      " << c.diagnostic << "\n";
    }
  }
  if (r.latency_us) {
    const ev::case_result* tc = nullptr;
    for (const auto& c : r.cases) {
      if (r.timed_case && c.name == *r.timed_case) tc = &c;
    }
    std::cout << fmt::format("{} latency {:.2f} us ({}, profile {}) on case {}", r.simulated ? "simulated" : "measured",
                             *r.latency_us, r.backend, r.profile, r.timed_case.value_or("?"));
    if (tc) {
      if (tc->block_dim) std::cout << fmt::format("; block dim {}", *tc->block_dim);
      // A key is a uint64 (SetTilingKey); the record keeps its bits in an int64.
      if (tc->tiling_key) std::cout << fmt::format(", tiling key {}", static_cast<std::uint64_t>(*tc->tiling_key));
      if (tc->ub_bytes) std::cout << fmt::format(", UB {} B", *tc->ub_bytes);
    }
    std::cout << "\n";
    if (r.measurement.is_object()) {
      const auto& m = r.measurement;
      const std::string where = m.value("measured", false) ? fmt::format("measured: median of {} timed launches after {} warm-up(s) on device {}",
                                                                         m.value("repetitions", 0), m.value("warmups", 0), m.value("device", 0))
                                                             : fmt::format("simulated with test noise ({:.0f}%, seed {}): median of {} draws",
                                                                         100.0 * m.value("noise_relative_sd", 0.0), m.value("noise_seed", 0), m.value("repetitions", 0));
      std::cout << fmt::format("{}: {:.2f} us, 95% CI [{:.2f}, {:.2f}] us, spread {:.1f}%\n", where, m.value("median_us", 0.0),
                               m.value("ci_low_us", 0.0), m.value("ci_high_us", 0.0), 100.0 * m.value("spread", 0.0));
    }
    if (tc && tc->profile.is_object() && !tc->profile.empty()) {
      std::cout << "profile (msprof field names" << (r.simulated ? ", simulated" : "") << "):\n";
      for (const auto& [k, v] : tc->profile.items()) {
        if (v.is_number_float()) std::cout << fmt::format("  {:<34} {:.4g}\n", k, v.get<double>());
        else if (v.is_number() || v.is_string() || v.is_boolean()) std::cout << fmt::format("  {:<34} {}\n", k, v.dump());
      }
    }
    if (r.bound.is_object()) {
      const double b = r.bound.value("bound_us", 0.0);
      std::cout << fmt::format(
          "bound (roofline): {:.2f} us, {} (memory {:.2f} us for {:.1f} MiB, vector {:.2f} us, launch {:.2f} us)\n", b,
          r.bound.value("memory_bound", false) ? "memory-bound" : "vector-bound", r.bound.value("memory_us", 0.0),
          (r.bound.value("bytes_read", 0.0) + r.bound.value("bytes_written", 0.0)) / (1024.0 * 1024.0),
          r.bound.value("vector_us", 0.0), r.bound.value("launch_us", 0.0));
      std::cout << fmt::format("headroom: bound / latency = {:.2f} (1.00 = at the bound)\n", r.bound.value("headroom", 0.0));
    }
  }
  for (const auto& w : r.warnings) std::cout << "warning: " << w.text << "\n";
  if (!workdir.empty()) std::cout << "work directory kept: " << workdir << "\n";
}

}  // namespace

common::sandbox_limits run_limit_options::limits() const {
  auto l = evaluation::eval_options::default_limits();
  l.wall_timeout = std::chrono::milliseconds(static_cast<long long>(timeout_s * 1000));
  l.cpu_seconds = static_cast<std::uint64_t>(timeout_s * 2) + 1;
  l.address_space_bytes = memory_mib << 20;
  return l;
}

void add_run_limit_options(CLI::App& app, run_limit_options& o) {
  app.add_option("--timeout", o.timeout_s, "wall-clock limit per run, seconds")->check(CLI::PositiveNumber);
  app.add_option("--memory-limit", o.memory_mib, "address-space limit per run, MiB")->check(CLI::Range(64, 1 << 22));
}

evaluation::package_options package_args::options() const {
  evaluation::package_options o;
  o.spec_file = spec;
  if (!timed_shape.empty()) o.timed_shape = evaluation::parse_shape_text(timed_shape, "--timed-shape");
  o.tree_root = tree;
  return o;
}

void add_package_options(CLI::App& app, package_args& a) {
  app.add_option("--spec", a.spec, "aopt.json to use instead of the package's own (its cases, tolerances and reference)")
      ->check(CLI::ExistingFile);
  app.add_option("--timed-shape", a.timed_shape,
                 "run the timed case at this shape, e.g. 64x32768 (its tensors of the main shape, broadcast operands "
                 "along; aopt.json key \"timed_shape\")");
  app.add_option("--tree", a.tree,
                 "a directory above OP_DIR (e.g. a cann-ops checkout) inside which the package's CMakeLists.txt may reach "
                 "shared headers and sources, read-only; default: nothing outside OP_DIR")
      ->check(CLI::ExistingDirectory);
}

command_fn add_eval_command(CLI::App& app) {
  auto a = std::make_shared<eval_args>();
  app.add_option("OP_DIR", a->op_dir, "operator package directory (op_host/, op_kernel/, aopt.json here or in the parent)")
      ->required();
  app.add_option("--backend", a->backend, "device backend: sim (CPU emulation, simulated latencies) or cann (a real NPU through the CANN toolchain, measured latencies)")
      ->check(CLI::IsMember({"sim", "cann"}));
  app.add_option("--profile", a->profile, "device profile of sim: a name (910b4, a2) or a .json path");
  app.add_option("--cann-config", a->cann_config, "command profile of the cann backend (start from config/cann.example.toml; docs/cann.md)");
  app.add_option("--case", a->only_case, "evaluate only this case");
  app.add_option("--seed", a->seed, "input seed (default: aopt.json \"seed\", else 1)")->each([a](const std::string&) { a->seed_given = true; });
  app.add_flag("--json", a->json, "print the result record as JSON");
  app.add_option("--cache-dir", a->cache_dir, "evaluation cache directory (default $XDG_CACHE_HOME/aopt or ~/.cache/aopt)");
  app.add_flag("--no-cache", a->no_cache, "neither read nor write the evaluation cache");
  app.add_flag("--keep-workdir", a->keep_workdir, "keep the build/run directory and print its path");
  app.add_flag("--no-sandbox", a->no_sandbox,
               "run compilers and the operator without namespaces (resource limits only; also AOPT_SANDBOX=0)");
  add_run_limit_options(app, a->run);
  add_package_options(app, a->package);
  return [a]() -> int {
    ev::eval_options o;
    o.backend = a->backend;
    o.profile = a->profile;
    o.cann_config = a->cann_config;
    if (a->backend == "cann" && a->cann_config.empty()) {
      throw error(ec::invalid_argument, "--backend cann needs --cann-config FILE (copy config/cann.example.toml and adapt it; docs/cann.md)");
    }
    if (!a->only_case.empty()) o.only_case = a->only_case;
    if (a->seed_given) o.seed = a->seed;
    o.use_cache = !a->no_cache;
    o.cache_dir = a->cache_dir;
    o.keep_workdir = a->keep_workdir;
    if (a->no_sandbox) o.sandbox.isolate = false;
    o.limits = a->run.limits();
    try {
      auto package_options = a->package.options();
      package_options.isolate = o.sandbox.isolate;
      auto pkg = std::make_shared<const ev::op_package>(ev::load_package(a->op_dir, package_options));
      ev::check_case_memory(pkg->spec, o.limits.address_space_bytes);
      ev::evaluator e(o);
      ev::candidate cand(pkg);
      const auto r = e.evaluate(cand);
      if (a->json) {
        std::cout << r.to_json().dump(2) << "\n";
      } else {
        print_human(r, a->keep_workdir && !r.cached ? e.last_workdir().string() : std::string());
      }
      return r.ok() ? 0 : 1;
    } catch (const error& e) {
      // --json promises JSON on stdout: the error as a record too (main prints it to stderr).
      if (a->json) {
        const nlohmann::json j = {{"status", "error"}, {"error", {{"code", to_string(e.code())}, {"message", e.what()}}}};
        std::cout << j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
      }
      throw;
    }
  };
}

}  // namespace aopt::app
