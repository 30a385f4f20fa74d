// `aopt bank rewind SEED_DIR... [--steps N] [--min-slowdown X] [--seed S] [--profile P]
//                  [--attempts N] [--no-cache] [--bank DIR]`
// Offline rewind: de-optimizes each seed package with inverse motifs, evaluates every step on
// the embedded `sim` backend, and writes the kept steps (as experience tuples) to the bank.
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>

#include <fmt/format.h>

#include "aopt/common/error.h"
#include "aopt/evaluation/evaluator.h"
#include "aopt/evaluation/package.h"
#include "aopt/search/rewind.h"
#include "aopt/storage/experience_bank.h"
#include "commands.h"

namespace aopt::app {

namespace ev = aopt::evaluation;
namespace fs = std::filesystem;

namespace {

struct rewind_args {
  std::vector<std::string> seeds;
  int steps = 6;
  double min_slowdown = 1.03;
  std::uint64_t seed = 1;
  std::string profile = "910b4";
  int attempts = 64;
  bool no_cache = false;
  std::string bank_dir;
};

std::string read_text(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  if (!in) throw error(ec::io_error, fmt::format("{}: cannot read this source file of the seed package", p.string()));
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

motifs::file_set load_files(const ev::op_package& pkg) {
  motifs::file_set files;
  for (const auto& rel : pkg.source_files()) files[rel] = read_text(pkg.dir / rel);
  return files;
}

search::rewind_eval to_rewind_eval(const ev::eval_result& r) {
  search::rewind_eval out;
  out.status = r.status;
  out.ok = r.ok() && r.latency_us.has_value();
  if (r.latency_us) out.latency_us = *r.latency_us;
  out.diagnostic = r.diagnostic;
  if (r.ok() && !r.latency_us) out.diagnostic = "no timed case ran ok (no latency)";
  for (const auto& c : r.cases) {
    if (r.timed_case && c.name == *r.timed_case) out.profile = c.profile;
  }
  return out;
}

std::string op_name(const ev::op_package& pkg) {
  std::string dir = pkg.dir.filename().string();
  if (dir.empty()) dir = pkg.dir.parent_path().filename().string();
  return pkg.spec.kernel.empty() ? dir : pkg.spec.kernel + " (" + dir + ")";
}

int run(const rewind_args& a, const std::string& parent_bank_dir) {
  if (a.steps < 0) throw error(ec::invalid_argument, "aopt bank rewind: --steps must be >= 0");
  if (!(a.min_slowdown > 0))
    throw error(ec::invalid_argument, "aopt bank rewind: --min-slowdown must be > 0 (e.g. 1.03 for a 3% slowdown)");
  const std::string dir = !a.bank_dir.empty() ? a.bank_dir : parent_bank_dir;
  const fs::path bank_path = dir.empty() ? storage::default_bank_dir() : fs::path(dir);
  storage::experience_bank bank(bank_path);

  ev::eval_options eo;
  eo.backend = "sim";
  eo.profile = a.profile;
  eo.use_cache = !a.no_cache;
  ev::evaluator evaluator(eo);
  motifs::parser parser;

  std::size_t total_kept = 0, total_new = 0, total_attempts = 0;
  for (const auto& seed_dir : a.seeds) {
    auto pkg = std::make_shared<const ev::op_package>(ev::load_package(seed_dir));
    const motifs::file_set base = load_files(*pkg);
    search::rewind_config cfg;
    cfg.max_steps = a.steps;
    cfg.min_slowdown = a.min_slowdown;
    cfg.seed = a.seed;
    cfg.max_attempts = a.attempts;
    cfg.op = op_name(*pkg);
    cfg.backend = "sim";
    cfg.profile = a.profile;

    auto evaluate = [&](const motifs::file_set& files) {
      ev::candidate cand(pkg);
      for (const auto& [path, text] : files) {
        auto it = base.find(path);
        if (it == base.end() || it->second != text) cand.replace(path, text);
      }
      cand.info().stage = "rewind";
      return to_rewind_eval(evaluator.evaluate(cand));
    };
    std::cout << fmt::format("rewind {} (op {}, backend sim, profile {}, seed {}, steps <= {}, min slowdown {:.3f})\n",
                             pkg->dir.string(), cfg.op, cfg.profile, cfg.seed, cfg.max_steps, cfg.min_slowdown);
    auto on_attempt = [](const search::rewind_attempt& at) {
      std::string line = fmt::format("  [{}] {:<22} {}: {}", at.index, at.motif, at.path, at.summary);
      if (at.latency_us) {
        line += fmt::format("  {:.2f} -> {:.2f} us (x{:.3f}) {}", at.current_us, *at.latency_us, at.slowdown,
                            at.outcome == search::rewind_outcome::kept ? "KEPT" : "not kept (too small)");
      } else {
        line += fmt::format("  {}: {}", search::to_string(at.outcome), at.reason);
      }
      std::cout << line << "\n";
    };
    const auto res = search::run_rewind(base, parser, evaluate, cfg, on_attempt);
    if (res.stop_reason == "seed_failed") {
      std::cout << fmt::format("  seed does not evaluate ok (status {}{}{}): skipped\n", res.seed_eval.status,
                               res.seed_eval.diagnostic.empty() ? "" : ": ", res.seed_eval.diagnostic);
      continue;
    }
    std::cout << fmt::format("  seed latency {:.2f} us (simulated)\n", res.seed_eval.latency_us);
    std::size_t inserted = 0;
    for (const auto& t : res.tuples) {
      const auto pr = bank.put(t);
      if (pr.inserted) ++inserted;
      std::cout << fmt::format("  tuple {} {} ({}){}\n", pr.id.substr(0, 12), t.title, t.bottleneck,
                               pr.inserted ? "" : " (already in the bank)");
    }
    std::cout << fmt::format("  {} attempt(s), {} step(s) kept, {} new tuple(s); stopped: {}; final latency {:.2f} us\n",
                             res.attempts.size(), res.steps.size(), inserted, res.stop_reason,
                             res.steps.empty() ? res.seed_eval.latency_us : res.steps.back().slow_us);
    total_kept += res.steps.size();
    total_new += inserted;
    total_attempts += res.attempts.size();
  }
  std::cout << fmt::format("summary: {} seed(s), {} attempt(s), {} step(s) kept, {} new tuple(s) in {}\n",
                           a.seeds.size(), total_attempts, total_kept, total_new, bank_path.string());
  return 0;
}

}  // namespace

command_fn add_bank_rewind_command(CLI::App& bank) {
  auto args = std::make_shared<rewind_args>();
  auto* cmd = bank.add_subcommand(
      "rewind", "De-optimize seed packages with inverse motifs (simulated timing) and store the kept steps");
  cmd->add_option("SEED_DIR", args->seeds, "Operator packages to rewind (e.g. examples/ops/add/expert)")
      ->required()
      ->check(CLI::ExistingDirectory);
  cmd->add_option("--steps", args->steps, "Kept steps per seed at most (default 6)");
  cmd->add_option("--min-slowdown", args->min_slowdown,
                  "Keep a step when new/current latency >= X (default 1.03)");
  cmd->add_option("--seed", args->seed, "Seed of the site choice (default 1)");
  cmd->add_option("--profile", args->profile, "Device profile of the sim backend (default 910b4)");
  cmd->add_option("--attempts", args->attempts, "Evaluated candidates per seed at most (default 64, 0 = no limit)");
  cmd->add_flag("--no-cache", args->no_cache, "Do not use the evaluation result cache");
  cmd->add_option("--bank", args->bank_dir, "Bank directory (default: the `bank --bank` value, else the default bank)");
  CLI::App* parent = &bank;
  return [args, parent]() {
    std::string parent_dir;
    if (auto* o = parent->get_option_no_throw("--bank"); o != nullptr && o->count() > 0) parent_dir = o->as<std::string>();
    return run(*args, parent_dir);
  };
}

}  // namespace aopt::app
