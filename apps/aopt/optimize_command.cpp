// `aopt optimize OP_DIR [--budget 40] [--rounds R] [--engine offline] [--out DIR] ...`
// The whole loop (Algorithm 1) on the embedded defaults: offline engine, sim backend, the
// persistent experience bank. Writes the optimized package (same layout, drop-in) and
// report.md / report.json into --out.
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>

#include <fmt/format.h>

#include "aopt/common/error.h"
#include "aopt/motifs/edit.h"
#include "aopt/optimize/optimizer.h"
#include "aopt/optimize/report.h"
#include "aopt/storage/experience_bank.h"
#include "commands.h"
#include "job.h"
#include "aopt/evaluation/cann.h"
#include "support.h"

namespace aopt::app {

namespace ev = aopt::evaluation;
namespace fs = std::filesystem;

namespace {

struct optimize_args {
  std::string op_dir;
  std::string out_dir;
  std::string engine = "offline";
  llm_options llm;
  std::string profile = "910b4";
  std::string backend = "sim";
  std::string cann_config;
  std::string bank_dir;
  optimize::optimizer_config cfg;
  std::uint64_t seed = 1;
  std::size_t jobs = 0;
  bool no_cache = false;
  std::string cache_dir;
  bool no_learn = false;
  bool quiet = false;
  bool json = false;
  std::string command;
  package_args package;
};

void write_text(const fs::path& p, const std::string& text) {
  std::ofstream o(p, std::ios::binary | std::ios::trunc);
  o << text;
  if (!o) throw error(ec::io_error, fmt::format("{}: cannot write", p.string()));
}

int run(optimize_args& a, const std::string& argv_line) {
  check_engine_options(a.engine, a.llm);
  if (a.backend == "cann") {
    if (a.cann_config.empty()) {
      throw error(ec::invalid_argument, "--backend cann needs --cann-config FILE (copy config/cann.example.toml and adapt it; docs/cann.md)");
    }
    evaluation::load_cann_profile(a.cann_config);  // a bad profile is a usage error before any work
  }
  const auto t0 = std::chrono::steady_clock::now();
  auto pkg = std::make_shared<const ev::op_package>(ev::load_package(a.op_dir, a.package.options()));
  // Default output: aopt-out/<operator> (the suite's <op>/baseline is named after <op>).
  std::string name = pkg->dir.filename().string();
  if (name == "baseline" || name == "expert") name = pkg->dir.parent_path().filename().string();
  const fs::path out = a.out_dir.empty() ? fs::path("aopt-out") / name : fs::path(a.out_dir);
  if (fs::weakly_canonical(out) == pkg->dir) {
    throw error(ec::invalid_argument, fmt::format("--out {}: is the input package; choose another directory", out.string()));
  }
  optimize_spec spec;
  spec.package = pkg;
  spec.base_files = load_files(*pkg);
  spec.config = a.cfg;
  spec.engine = a.engine;
  spec.offline = offline_config(a.profile, a.seed);
  spec.llm = a.llm;
  spec.slots.profile = a.profile;
  spec.slots.backend = a.backend;
  spec.slots.cann_config = a.cann_config;
  const std::string latency_kind = a.backend == "sim" ? "simulated" : "measured";
  const std::string device = a.backend == "sim" ? "profile " + a.profile : "command profile " + a.cann_config;
  spec.slots.use_cache = !a.no_cache;
  spec.slots.cache_dir = a.cache_dir;
  spec.slots.slots = a.jobs != 0 ? a.jobs : default_slots();
  spec.bank_dir = a.bank_dir.empty() ? storage::default_bank_dir() : fs::path(a.bank_dir);
  spec.learn = !a.no_learn;
  if (!a.quiet) {
    std::cout << fmt::format("optimize {} (engine {}, backend {} [{} latencies], {}, budget {}, {} evaluator slot(s), seed {})\n",
                             pkg->dir.string(), a.engine, a.backend, latency_kind, device, a.cfg.budget, spec.slots.slots, a.seed);
    spec.progress = [](const optimize::progress_event& e) {
      if (e.kind == "point" && e.point.has_value()) {
        std::cout << optimize::progress_line(*e.point) << "\n";
      } else if (e.kind == "stage" || e.kind == "accepted") {
        std::cout << "  -- " << e.message << "\n";
      } else if (e.kind == "warning") {
        std::cout << "  !! warning: " << e.message << "\n";
      }
      std::cout.flush();
    };
  }
  const optimize_outcome outcome = run_optimize(spec);
  const optimize::optimize_result& res = outcome.result;
  if (res.stop_reason.starts_with("base failed")) {
    throw error(ec::invalid_spec, fmt::format("{}: the operator itself does not pass its cases, nothing to optimize: {}",
                                              pkg->dir.string(), res.stop_reason));
  }
  jobs::write_package(*pkg, res.best_files, out);
  optimize::report_context ctx;
  ctx.op_dir = pkg->dir.string();
  ctx.out_dir = fs::absolute(out).string();
  ctx.backend = a.backend;
  ctx.profile = a.profile;
  ctx.seed = a.seed;
  ctx.config = a.cfg;
  ctx.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  ctx.command = argv_line;
  ctx.engine_usage = outcome.engine_usage;
  const auto rj = optimize::report_json(res, ctx);
  write_text(out / "report.json", rj.dump(2) + "\n");
  write_text(out / "report.md", optimize::report_markdown(res, ctx));
  if (a.json) {
    std::cout << rj.dump(2) << "\n";
  } else {
    std::cout << fmt::format(
        "{}: {:.2f} us -> {:.2f} us ({}, {}): speedup {:.3f}x, {} accepted change(s), {} evaluation(s) "
        "({} failed; {} tiling variant(s) screened out, no budget), stopped: {}{}\n",
        name, res.base_us, res.best_us, latency_kind, device, res.speedup, res.changes.size(),
        res.evaluations, res.failures, res.screened, res.stop_reason,
        res.verification ? (res.verification->ok ? "; verified on fresh inputs" : "; FRESH-INPUT CHECK FAILED") : "");
    if (outcome.engine_usage.is_object() && outcome.engine_usage.contains("client")) {
      std::cout << usage_line(outcome.engine_usage) << "\n";
    }
    std::cout << fmt::format("wrote {} (drop-in package), {}/report.md, {}/report.json\n", out.string(), out.string(),
                             out.string());
  }
  return 0;
}

}  // namespace

command_fn add_optimize_command(CLI::App& app, const std::string& argv_line) {
  auto a = std::make_shared<optimize_args>();
  a->cfg.screen = true;  // the command line screens Stage I variants unless --no-screen
  a->cfg.search_form = true;  // and runs them on one build unless --no-search-form
  app.add_option("OP_DIR", a->op_dir, "Operator package (e.g. examples/ops/add_custom)")->required()->check(CLI::ExistingDirectory);
  app.add_option("--out", a->out_dir, "Where to write the optimized package and reports (default aopt-out/<name>)");
  app.add_option("--budget", a->cfg.budget, "Evaluations, failures included (default 40)");
  app.add_option("--rounds", a->cfg.rounds, "R: alternation rounds (default 3; up to 8 more while budget remains and new candidates come)");
  app.add_option("--stage1-steps", a->cfg.stage1_steps, "U: Stage-I steps per round (default 4)");
  app.add_option("--stage2-steps", a->cfg.stage2_steps, "S: Stage-II steps per round (default 3)");
  app.add_option("--proposals", a->cfg.proposals_per_step, "Candidates per step (default: evaluator slots, at least 2)");
  app.add_option("--top-k", a->cfg.top_k, "Tuples retrieved per Stage-II step (default 4)");
  add_engine_options(app, a->engine, a->llm, /*embeddings=*/true);
  app.add_option("--profile", a->profile, "Device profile of the sim backend (default 910b4; with cann: the core count and UB the mutator assumes)");
  app.add_option("--backend", a->backend, "sim (CPU emulation, simulated latencies) or cann (a real NPU, measured latencies)")
      ->check(CLI::IsMember({"sim", "cann"}));
  app.add_option("--cann-config", a->cann_config, "command profile of the cann backend (config/cann.example.toml; docs/cann.md)");
  app.add_option("--bank", a->bank_dir, "Experience bank directory (default: the user's bank)");
  app.add_option("--seed", a->seed, "Seed of the engine's random choices (default 1)");
  app.add_option("-j,--jobs", a->jobs, "Evaluator slots (default 2, 1 on a one-core machine)");
  app.add_flag("--no-cache", a->no_cache, "Do not use the evaluation result cache");
  app.add_option("--cache-dir", a->cache_dir, "Evaluation cache directory (default: the user's cache)");
  add_package_options(app, a->package);
  app.add_flag("--no-learn", a->no_learn, "Do not store accepted kernel changes in the bank");
  app.add_flag("--no-stage1", [a](std::int64_t) { a->cfg.stage1 = false; }, "Stage II only");
  app.add_flag("--no-stage2", [a](std::int64_t) { a->cfg.stage2 = false; }, "Stage I only");
  app.add_flag("--no-cotune", [a](std::int64_t) { a->cfg.cotune = false; },
               "Do not retune the tiling for a kernel rewrite that ran out of UB");
  app.add_flag("--no-screen", [a](std::int64_t) { a->cfg.screen = false; },
               "Evaluate every Stage I variant, without screening its tiling first (docs/stage1.md, \"Feasible Stage I\")");
  app.add_flag("--no-search-form", [a](std::int64_t) { a->cfg.search_form = false; },
               "Build every Stage I variant instead of running variants on one build of the tiling's search form "
               "(docs/stage1.md, \"Variants without a build\")");
  app.add_flag("--no-verify", [a](std::int64_t) { a->cfg.verify = false; }, "Skip the fresh-input check of the winner");
  app.add_flag("-q,--quiet", a->quiet, "No progress output");
  app.add_flag("--json", a->json, "Print report.json to stdout");
  return [a, argv_line]() { return run(*a, argv_line); };
}

}  // namespace aopt::app
