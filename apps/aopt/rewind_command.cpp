// `aopt bank rewind SEED_DIR... [--steps N] [--min-slowdown X] [--seed S] [--profile P]
//                  [--attempts N] [--no-cache] [--bank DIR] [--engine offline|llm] [--config F]
//                  [--llm-base-url U] [--llm-model M] [--llm-record DIR | --llm-replay DIR] [--prompts DIR]`
// Rewind: de-optimizes each seed package step by step (inverse motifs, or the llm engine's
// rewind role), evaluates every step on the embedded `sim` backend, and writes the kept steps
// (as experience tuples) to the bank.
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>

#include <fmt/format.h>

#include "aopt/actors/job.hpp"
#include "aopt/common/error.h"
#include "aopt/evaluation/evaluator.h"
#include "aopt/evaluation/package.h"
#include "aopt/search/rewind.h"
#include "aopt/jobs/llm_options.h"
#include "aopt/storage/experience_bank.h"
#include "commands.h"
#include "support.h"

namespace aopt::app {

namespace ev = aopt::evaluation;
namespace fs = std::filesystem;

namespace {

struct rewind_args {
  std::vector<std::string> seeds;
  rewind_options opt;
  std::string bank_dir;
};

std::string op_name(const ev::op_package& pkg) {
  std::string dir = pkg.dir.filename().string();
  if (dir.empty()) dir = pkg.dir.parent_path().filename().string();
  return pkg.spec.kernel.empty() ? dir : pkg.spec.kernel + " (" + dir + ")";
}

int run(const rewind_args& a, const std::string& parent_bank_dir) {
  const std::string dir = !a.bank_dir.empty() ? a.bank_dir : parent_bank_dir;
  const fs::path bank_path = dir.empty() ? storage::default_bank_dir() : fs::path(dir);
  storage::experience_bank bank(bank_path);
  const auto s = rewind_into_bank(a.seeds, a.opt, bank, std::cout);
  std::cout << fmt::format("summary: {} seed(s), {} attempt(s), {} step(s) kept, {} new tuple(s) in {}\n",
                           a.seeds.size(), s.attempts, s.kept, s.inserted, bank_path.string());
  if (s.engine_usage.is_object()) std::cout << usage_line(s.engine_usage) << "\n";
  return 0;
}

}  // namespace

rewind_summary rewind_into_bank(const std::vector<std::string>& seeds, const rewind_options& o,
                                storage::experience_bank& bank, std::ostream& log) {
  if (o.steps < 0) throw error(ec::invalid_argument, "aopt bank rewind: --steps must be >= 0");
  if (!(o.min_slowdown > 0))
    throw error(ec::invalid_argument, "aopt bank rewind: --min-slowdown must be > 0 (e.g. 1.03 for a 3% slowdown)");
  check_engine_options(o.engine, o.llm);
  // One client chain for every seed: a recording or replay store is opened once per job.
  std::optional<llm::session> lm;
  if (o.engine == "llm") lm.emplace(session_options(o.llm), jobs::llm_engine_options_for(offline_config(o.profile, o.seed), "", o.profile));
  rewind_summary total;
  for (const auto& seed_dir : seeds) {
    auto pkg = std::make_shared<const ev::op_package>(ev::load_package(seed_dir));
    const motifs::file_set base = load_files(*pkg);
    search::rewind_config cfg;
    cfg.max_steps = o.steps;
    cfg.min_slowdown = o.min_slowdown;
    cfg.seed = o.seed;
    cfg.max_attempts = o.attempts;
    cfg.op = op_name(*pkg);
    cfg.backend = "sim";
    cfg.profile = o.profile;
    slot_options so;
    so.profile = o.profile;
    so.use_cache = !o.no_cache;
    so.slots = 1;
    log << fmt::format("rewind {} (engine {}, op {}, backend sim, profile {}, seed {}, steps <= {}, min slowdown {:.3f})\n",
                       pkg->dir.string(), o.engine, cfg.op, cfg.profile, cfg.seed, cfg.max_steps, cfg.min_slowdown);
    // On the actors: the Rewinder runs the chain, its evaluations go to the Evaluator, its tuples
    // to the Distiller; tuples are stored below, in chain order, with their bank status.
    actors::rewind_spec rs;
    rs.package = pkg->dir.string();
    rs.seed_files = base;
    rs.config = cfg;
    rs.slots = make_sim_slots(pkg, so);
    if (lm) rs.engine = &lm->engine();
    const std::size_t failures_before = lm ? lm->engine().failures().size() : 0;
    const auto res = actors::run_rewind_job(rs);
    if (lm) {
      // Proposals the engine refused before any evaluation (an edit that does not apply, code
      // that does not parse, ...); failed calls are attempts, printed below.
      const auto& failures = lm->engine().failures();
      for (std::size_t i = failures_before; i < failures.size(); ++i) {
        if (failures[i].kind == "client") continue;
        log << fmt::format("  rejected {} proposal ({}): {}\n", llm::to_string(failures[i].r), failures[i].kind,
                           failures[i].reason);
      }
    }
    for (const auto& at : res.attempts) {
      const std::string who = at.motif.empty() ? "(" + o.engine + ")" : at.motif;
      std::string line = at.path.empty() ? fmt::format("  [{}] {:<22} {}", at.index, who, at.summary)
                                         : fmt::format("  [{}] {:<22} {}: {}", at.index, who, at.path, at.summary);
      if (at.latency_us) {
        line += fmt::format("  {:.2f} -> {:.2f} us (x{:.3f}) {}", at.current_us, *at.latency_us, at.slowdown,
                            at.outcome == search::rewind_outcome::kept ? "KEPT" : "not kept (too small)");
      } else {
        line += fmt::format("  {}: {}", search::to_string(at.outcome), at.reason);
      }
      log << line << "\n";
    }
    if (res.stop_reason == "seed_failed") {
      log << fmt::format("  seed does not evaluate ok (status {}{}{}): skipped\n", res.seed_eval.status,
                         res.seed_eval.diagnostic.empty() ? "" : ": ", res.seed_eval.diagnostic);
      continue;
    }
    log << fmt::format("  seed latency {:.2f} us (simulated)\n", res.seed_eval.latency_us);
    std::size_t inserted = 0;
    for (const auto& t : res.tuples) {
      const auto pr = bank.put(t);
      if (pr.inserted) ++inserted;
      log << fmt::format("  tuple {} {} ({}){}\n", pr.id.substr(0, 12), t.title, t.bottleneck,
                         pr.inserted ? "" : " (already in the bank)");
    }
    log << fmt::format("  {} attempt(s), {} step(s) kept, {} new tuple(s); stopped: {}; final latency {:.2f} us\n",
                       res.attempts.size(), res.steps.size(), inserted, res.stop_reason,
                       res.steps.empty() ? res.seed_eval.latency_us : res.steps.back().slow_us);
    log.flush();
    total.kept += res.steps.size();
    total.inserted += inserted;
    total.attempts += res.attempts.size();
  }
  if (lm) total.engine_usage = lm->usage();
  return total;
}

command_fn add_bank_rewind_command(CLI::App& bank) {
  auto args = std::make_shared<rewind_args>();
  auto* cmd = bank.add_subcommand(
      "rewind",
      "De-optimize seed packages (inverse motifs, or the llm engine) with simulated timing and store the kept steps");
  cmd->add_option("SEED_DIR", args->seeds, "Operator packages to rewind (e.g. examples/ops/add/expert)")
      ->required()
      ->check(CLI::ExistingDirectory);
  cmd->add_option("--steps", args->opt.steps, "Kept steps per seed at most (default 6)");
  cmd->add_option("--min-slowdown", args->opt.min_slowdown,
                  "Keep a step when new/current latency >= X (default 1.03)");
  cmd->add_option("--seed", args->opt.seed, "Seed of the site choice (default 1)");
  cmd->add_option("--profile", args->opt.profile, "Device profile of the sim backend (default 910b4)");
  cmd->add_option("--attempts", args->opt.attempts,
                  "Attempts per seed at most: evaluated candidates (offline), or every tried step and failed model "
                  "call (llm) (default 64, 0 = no limit)");
  cmd->add_flag("--no-cache", args->opt.no_cache, "Do not use the evaluation result cache");
  cmd->add_option("--bank", args->bank_dir, "Bank directory (default: the `bank --bank` value, else the default bank)");
  add_engine_options(*cmd, args->opt.engine, args->opt.llm, /*embeddings=*/false);
  CLI::App* parent = &bank;
  return [args, parent]() {
    std::string parent_dir;
    if (auto* o = parent->get_option_no_throw("--bank"); o != nullptr && o->count() > 0) parent_dir = o->as<std::string>();
    return run(*args, parent_dir);
  };
}

}  // namespace aopt::app
