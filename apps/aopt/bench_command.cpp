// `aopt bench SUITE_DIR [--budget 40] [--methods ...] [--ops ...] [--out DIR] [--bank DIR]`
// AscendOptimizer and the baselines at equal budget on an operator suite (examples/ops layout:
// <op>/baseline is optimized, <op>/expert, when present, seeds the experience bank and makes the
// operator "seeded"). Prints the paper's table, writes per-operator JSON, the table and plots.
// Resumable: a (operator, method) result already in --out with the same settings is reused.
// A suite of real operators (examples/real-ops) keeps only <op>/aopt.json (our cases) and a
// sources.json naming each operator's directory under --sources (sources the project does not
// hold: e.g. the public cann-ops tree) and its level in the table (bench_suite.h).
#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <mutex>
#include <semaphore>
#include <thread>
#include <map>
#include <set>
#include <sstream>

#include <fmt/format.h>

#include "aopt/bench/baselines.h"
#include "aopt/bench/metrics.h"
#include "aopt/bench/plots.h"
#include "aopt/common/error.h"
#include "aopt/common/json.h"
#include "aopt/optimize/report.h"
#include "aopt/storage/experience_bank.h"
#include "bench_suite.h"
#include "commands.h"
#include "support.h"

namespace aopt::app {

namespace ev = aopt::evaluation;
namespace fs = std::filesystem;

namespace {

struct bench_args {
  std::string suite;
  std::size_t budget = 40;
  std::vector<std::string> methods;
  std::vector<std::string> ops;
  std::string out = "aopt-bench";
  std::string bank_dir;
  std::string profile = "910b4";
  std::uint64_t seed = 1;
  std::vector<std::uint64_t> seeds;   // --seeds: several; empty: {seed}
  std::vector<std::size_t> budgets;   // --budgets: the sweep's other budgets
  std::size_t jobs = 0;
  std::size_t at_once = 2;  // --operators-at-once: operators in flight, sharing the `jobs` evaluations
  bool no_cache = false;
  bool screen = true;  // Feasible Stage I for the aopt methods (docs/stage1.md); the baselines never screen
  std::string cache_dir;
  std::string sources;
  bool fresh = false;
  bool stored_only = false;
  rewind_options rewind;
};

struct suite_op {
  std::string name;
  fs::path package;  // <op>/baseline, or the operator's directory under --sources
  std::optional<fs::path> expert;
  fs::path spec;     // <op>/aopt.json of a real-operator suite (empty: the package's own)
  int level = 0;     // declared in sources.json's "levels" (0: bench::level_of decides)
};

std::vector<suite_op> discover(const fs::path& suite, const std::vector<std::string>& only, const std::string& sources) {
  std::vector<suite_op> out;
  std::set<std::string> wanted(only.begin(), only.end());
  std::optional<std::map<std::string, real_operator>> dirs_of;  // sources.json, read when first needed
  std::vector<fs::path> dirs;
  for (const auto& e : fs::directory_iterator(suite)) {
    if (e.is_directory()) dirs.push_back(e.path());
  }
  std::sort(dirs.begin(), dirs.end());
  for (const auto& d : dirs) {
    const std::string name = d.filename().string();
    if (!only.empty() && wanted.count(name) == 0) continue;
    suite_op op{name, d / "baseline", std::nullopt, {}};
    if (!fs::is_directory(d / "baseline")) {
      if (!fs::is_regular_file(d / "aopt.json") || !fs::is_regular_file(suite / "sources.json")) continue;
      // A real operator: our aopt.json, the sources elsewhere.
      if (sources.empty()) {
        throw error(ec::invalid_argument, fmt::format("{}: a suite of real operators (sources.json); pass --sources DIR, the "
                                                      "tree its operators' directories are under (e.g. cann-ops' src/)",
                                                      suite.string()));
      }
      if (!dirs_of) dirs_of = read_real_suite(suite);
      const auto it = dirs_of->find(name);
      if (it == dirs_of->end()) {
        throw error(ec::invalid_spec, fmt::format("{}: no entry for operator {}; add \"{}\": \"<directory under --sources>\"",
                                                  (suite / "sources.json").string(), name, name));
      }
      op.package = fs::path(sources) / it->second.dir;
      op.spec = d / "aopt.json";
      op.level = it->second.level;
      if (!fs::is_directory(op.package)) {
        throw error(ec::not_found, fmt::format("operator {}: {} is not a directory; --sources must be the tree that holds {}",
                                               name, op.package.string(), it->second.dir));
      }
    }
    if (fs::is_directory(d / "expert")) op.expert = d / "expert";
    out.push_back(std::move(op));
    wanted.erase(name);  // what is left was not found
  }
  if (!wanted.empty()) {
    throw error(ec::invalid_argument, fmt::format("--ops: no operator {} with a baseline/ directory (or aopt.json and a sources.json entry) in {}",
                                                  *wanted.begin(), suite.string()));
  }
  if (out.empty()) {
    throw error(ec::invalid_argument,
                fmt::format("{}: no operator found (expected <op>/baseline/ directories, as in examples/ops, or <op>/aopt.json "
                                            "with a sources.json, as in examples/real-ops)", suite.string()));
  }
  return out;
}

// What a stored result must match to be reused.
// What a stored result was measured with; "version" changes when the methods do (3: Stage I
// freezes probe-inert tunables and no longer renumbers key constants the kernel shares), so a
// resumed bench never mixes results of two optimizers.
nlohmann::json settings_of(const bench_args& a, const std::string& label, std::size_t budget, std::uint64_t seed) {
  return {{"budget", budget}, {"seed", seed}, {"profile", a.profile}, {"method", label}, {"screen", a.screen}, {"version", 3}};
}

// One column of the bench: a method at a budget ("best_of_n@5": Best-of-N with 5 samples; a
// method of the budget sweep: "aopt@80"); the plain name runs at --budget.
struct method_run {
  bench::method m;
  std::string label;
  std::size_t budget = 0;
  bool in_table = true;  // a column of the paper's table (the sweep's extra budgets are not)
};

std::vector<method_run> parse_runs(const bench_args& a) {
  std::vector<method_run> runs;
  std::vector<std::string> names = a.methods;
  if (names.empty()) {
    for (const auto m : bench::all_methods()) names.push_back(bench::to_string(m));
  }
  for (const auto& name : names) {
    const auto at = name.find('@');
    const auto pm = bench::parse_method(name.substr(0, at));
    if (!pm) {
      throw error(ec::invalid_argument, fmt::format("--methods {}: unknown method; use aopt, stage1_only, stage2_only, random, "
                                                    "best_of_n, openevolve, each optionally @BUDGET (best_of_n@5)",
                                                    name));
    }
    method_run r{*pm, bench::to_string(*pm), a.budget, true};
    if (at != std::string::npos) {
      const std::string b = name.substr(at + 1);
      if (b.empty() || b.size() > 6 || b.find_first_not_of("0123456789") != std::string::npos || std::stoul(b) < 2) {
        throw error(ec::invalid_argument, fmt::format("--methods {}: the budget after @ must be a whole number >= 2", name));
      }
      r.budget = std::stoul(b);
      if (r.budget != a.budget) r.label += "@" + b;
    }
    runs.push_back(r);
  }
  // The sweep: every plain method of the table again at each other budget.
  const std::size_t plain = runs.size();
  for (const std::size_t b : a.budgets) {
    if (b == a.budget) continue;
    if (b < 2) throw error(ec::invalid_argument, fmt::format("--budgets {}: a budget must be >= 2", b));
    for (std::size_t i = 0; i < plain; ++i) {
      if (runs[i].budget != a.budget) continue;
      runs.push_back({runs[i].m, runs[i].label + "@" + std::to_string(b), b, false});
    }
  }
  return runs;
}

std::string display_label(const method_run& r) {
  const std::string base = bench::display_name(r.m);
  return r.label.find('@') == std::string::npos ? base : base + " @ " + std::to_string(r.budget);
}

// The operator's level when its suite does not declare one (sources.json's "levels", by the rule
// of docs/real-ops.md): bench::level_of over its timed case's inputs, its OpDef's outputs and the
// APIs its kernel calls.
int level_of_operator(const ev::op_package& pkg, const file_map& files) {
  bench::level_facts f;
  const ev::case_spec* timed = nullptr;
  for (const auto& c : pkg.spec.cases) {
    if (c.timed || timed == nullptr) timed = &c;
  }
  if (timed != nullptr) {
    f.tensor_inputs = timed->inputs.size();
    for (const auto& in : timed->inputs) f.lists = f.lists || in.is_list;
    for (const auto& out : timed->outputs) f.lists = f.lists || !out.list_shapes.empty();
  }
  f.outputs = 1;
  for (const auto& [path, text] : files) {
    if (path.rfind("op_kernel/", 0) == 0 || path == pkg.kernel_source) bench::scan_kernel(text, f);
    if (path.rfind("op_host/", 0) == 0) bench::scan_host(text, f);
  }
  return bench::level_of(f);
}

// The bench configuration of one run: its budget and seed, the offline engine's mutator for
// every baseline, the aopt methods' screen and search form.
bench::bench_config config_for(const bench_args& a, const method_run& run, std::uint64_t seed) {
  bench::bench_config cfg;
  cfg.budget = run.budget;
  cfg.seed = seed;
  const auto engine_cfg = offline_config(a.profile, seed);
  cfg.random.common.mutator = engine_cfg.mutator;
  cfg.best_of_n.common.mutator = engine_cfg.mutator;
  cfg.evolve.common.mutator = engine_cfg.mutator;
  cfg.optimizer.screen = a.screen;
  cfg.optimizer.search_form = true;  // a speed-up only: the same results (docs/stage1.md)
  return cfg;
}

struct op_context {
  const suite_op& op;
  const file_map& base;
  std::vector<optimize::evaluate_fn> slots;
  int level = 0;
};

// One (operator, method run, seed): the stored result when its settings match, else a run whose
// result is stored. nullopt: not run (--stored-only) or failed (printed; a resumed bench runs it
// again).
std::optional<bench::operator_record> run_one(const bench_args& a, const op_context& ctx, const method_run& run,
                                              std::uint64_t seed, const std::vector<search::experience>& corpus,
                                              const fs::path& out) {
  const auto& op = ctx.op;
  const std::string& mname = run.label;
  const std::string stem = op.name + "." + mname + (seed == a.seeds.front() ? "" : ".s" + std::to_string(seed));
  const fs::path file = out / "ops" / (stem + ".json");
  const auto settings = settings_of(a, mname, run.budget, seed);
  if (!a.fresh && fs::exists(file)) {
    try {
      std::ifstream in(file);
      const auto j = nlohmann::json::parse(in);
      if (j.at("settings") == settings) {
        auto rec = bench::record_from_json(j.at("record"));
        rec.seed = seed;
        rec.level = ctx.level;
        std::cout << fmt::format("  {:<30} {:<12} {:>7.3f}x  (stored)\n", op.name, mname, rec.speedup);
        return rec;
      }
    } catch (const std::exception&) {
      // unreadable or older: run again
    }
  }
  if (a.stored_only) return std::nullopt;
  const auto m0 = std::chrono::steady_clock::now();
  optimize::offline_engine engine(offline_config(a.profile, seed));
  optimize::local_services svc(engine, corpus, ctx.slots);
  optimize::optimize_result res;
  try {
    res = bench::run_method(run.m, ctx.base, svc, config_for(a, run, seed));
  } catch (const std::exception& e) {
    // One operator's failure is a row missing from the table, not the end of the bench.
    std::cout << fmt::format("  {:<30} {:<12} ERROR: {}\n", op.name, mname, e.what());
    std::cout.flush();
    return std::nullopt;
  }
  auto rec = bench::record_of(op.name, mname, op.expert.has_value(), res, run.budget);
  rec.seed = seed;
  rec.level = ctx.level;
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - m0).count();
  nlohmann::json j{{"settings", settings}, {"record", bench::to_json(rec)}, {"result", optimize::to_json(res)}, {"wall_seconds", secs}};
  std::ofstream(file) << j.dump(1) << "\n";
  std::cout << fmt::format("  {:<30} {:<12} {:>7.3f}x  {:>8.2f} -> {:>8.2f} us  {} eval(s), {} failed  [{:.0f} s]{}\n", op.name,
                           mname, rec.speedup, rec.base_us, rec.best_us, rec.evaluations, rec.failures, secs,
                           a.seeds.size() > 1 ? fmt::format(" seed {}", seed) : std::string());
  std::cout.flush();
  return rec;
}

// The budget sweep as a table: one row per method with two or more budgets, one column per budget.
std::string budget_sweep_markdown(const std::vector<bench::operator_record>& records, const std::vector<method_run>& runs,
                                  const bench_args& a) {
  if (a.budgets.empty()) return {};
  std::set<std::size_t> budgets{a.budget};
  budgets.insert(a.budgets.begin(), a.budgets.end());
  std::string md = "\n## Budget sweep (geometric-mean speedup over all operators, mean over the seeds)\n\n| Method |";
  for (auto b : budgets) md += fmt::format(" {} |", b);
  md += "\n|---|";
  for (std::size_t i = 0; i < budgets.size(); ++i) md += "---:|";
  md += "\n";
  for (const auto& run : runs) {
    if (!run.in_table || run.budget != a.budget) continue;
    std::map<std::size_t, double> at;
    for (const auto& [b, g] : bench::budget_sweep(records, run.label)) at[b] = g;
    md += "| " + display_label(run) + " |";
    for (auto b : budgets) md += at.count(b) ? fmt::format(" {:.3f}x |", at[b]) : std::string(" - |");
    md += "\n";
  }
  return md;
}

// Every (operator, method run, seed) of the bench, by operator; nullopt: not run or failed.
// Operators run `at_once` at a time and share `jobs` evaluations in flight: while one operator's
// search is in its engine, its base or its verification, another's candidates use the slots.
// Each operator keeps its own slots (as many as `jobs`, so its batches are as before), engine and
// services; no run learns into the bank; latencies are simulated: the results are the same as
// one at a time, only the wall time shrinks (a row's [s] then includes time shared with another).
std::vector<std::vector<std::optional<bench::operator_record>>> run_operators(const bench_args& a, const std::vector<suite_op>& ops,
                                                                              const std::vector<method_run>& runs,
                                                                              const std::vector<search::experience>& corpus,
                                                                              const fs::path& out) {
  const std::size_t slots_each = a.jobs != 0 ? a.jobs : default_slots();
  std::counting_semaphore<> tokens(static_cast<std::ptrdiff_t>(slots_each));
  std::vector<std::vector<std::optional<bench::operator_record>>> by_op(ops.size());
  std::atomic<std::size_t> next{0};
  std::mutex error_mu;
  std::exception_ptr error;  // anything else that fails outside an operator's rows ends the bench
  auto worker = [&] {
    for (std::size_t i = next++; i < ops.size(); i = next++) try {
      const auto& op = ops[i];
      // A real-operator suite's operators are built in their tree (--sources), as `aopt eval --tree`
      // builds them: shared headers and sources their CMakeLists adds from outside the operator.
      ev::package_options po;
      po.spec_file = op.spec;
      if (!a.sources.empty()) po.tree_root = fs::absolute(a.sources).lexically_normal();
      std::shared_ptr<const ev::op_package> pkg;
      try {
        pkg = std::make_shared<const ev::op_package>(ev::load_package(op.package, po));
      } catch (const std::exception& e) {
        // An operator that does not load is a missing row, not the end of the bench.
        std::cout << fmt::format("  {:<30} ERROR: {}\n", op.name, e.what());
        std::cout.flush();
        by_op[i].assign(a.seeds.size() * runs.size(), std::nullopt);
        continue;
      }
      const auto base = load_files(*pkg);
      slot_options so;
      so.profile = a.profile;
      so.use_cache = !a.no_cache;
      so.cache_dir = a.cache_dir;
      so.slots = slots_each;
      auto slots = make_sim_slots(pkg, so);
      for (auto& f : slots) {
        f = [f = std::move(f), &tokens](const optimize::eval_request& r) {
          tokens.acquire();
          struct release {
            std::counting_semaphore<>& t;
            ~release() { t.release(); }
          } held{tokens};
          return f(r);
        };
      }
      const op_context ctx{op, base, std::move(slots), op.level != 0 ? op.level : level_of_operator(*pkg, base)};
      for (const auto seed : a.seeds) {
        for (const auto& run : runs) by_op[i].push_back(run_one(a, ctx, run, seed, corpus, out));
      }
    } catch (...) {
      std::lock_guard lock(error_mu);
      if (!error) error = std::current_exception();
      next = ops.size();
    }
  };
  {
    std::vector<std::jthread> workers;
    const std::size_t n = std::max<std::size_t>(1, std::min(a.at_once, ops.size()));
    for (std::size_t w = 1; w < n; ++w) workers.emplace_back(worker);
    worker();
  }
  if (error) std::rethrow_exception(error);
  return by_op;
}

int run(bench_args& a, const std::string& argv_line) {
  const auto t0 = std::chrono::steady_clock::now();
  const auto runs = parse_runs(a);
  if (a.seeds.empty()) a.seeds = {a.seed};
  const auto ops = discover(a.suite, a.ops, a.sources);
  const fs::path out(a.out);
  fs::create_directories(out / "ops");

  // The bank: given, or built by rewinding every expert of the suite (once; reused on resume).
  const fs::path bank_path = a.bank_dir.empty() ? out / "bank" : fs::path(a.bank_dir);
  std::vector<search::experience> corpus;
  {
    storage::experience_bank bank(bank_path);
    if (bank.count() == 0 && !a.stored_only) {
      std::vector<std::string> seeds;
      for (const auto& op : discover(a.suite, {}, a.sources)) {
        if (op.expert) seeds.push_back(op.expert->string());
      }
      if (seeds.empty()) {
        std::cout << fmt::format("warning: {} has no expert kernel to build an experience bank from and the bank {} is "
                                 "empty: Stage II retrieves nothing; pass --bank DIR with tuples (e.g. aopt bank --bank DIR "
                                 "import examples/bank/experts.jsonl)\n",
                                 a.suite, bank_path.string());
      }
      std::cout << fmt::format("building the experience bank in {} by rewinding {} expert seed(s)\n", bank_path.string(),
                               seeds.size());
      std::ofstream log(out / "rewind.log");
      rewind_into_bank(seeds, a.rewind, bank, log);
    }
    corpus = bank.all();
  }
  std::cout << fmt::format("bench {}: {} operator(s) x {} method run(s) x {} seed(s), budget {}, profile {} (sim: simulated "
                           "latencies), bank {} tuple(s)\n",
                           a.suite, ops.size(), runs.size(), a.seeds.size(), a.budget, a.profile, corpus.size());

  // Every run's configuration is checked before the first operator runs.
  for (const auto& run : runs) config_for(a, run, a.seeds.front()).validate();
  auto by_op = run_operators(a, ops, runs, corpus, out);
  std::vector<bench::operator_record> records;
  std::size_t missing = 0;  // (operator, method, seed) runs without a stored result (--stored-only, errors)
  for (auto& recs : by_op) {
    for (auto& rec : recs) {
      if (rec) {
        records.push_back(std::move(*rec));
      } else {
        ++missing;
      }
    }
  }

  std::vector<std::string> names;
  bench::table_notes notes;
  notes.title = "aopt bench: " + a.suite;
  notes.budget = a.budget;
  notes.backend = "sim";
  notes.profile_name = a.profile;
  notes.ours = bench::to_string(bench::method::aopt);
  std::vector<bench::operator_record> table_records;  // the sweep's extra budgets are not columns
  for (const auto& run : runs) {
    notes.labels.emplace_back(run.label, display_label(run));
    if (run.in_table) names.push_back(run.label);
  }
  for (const auto& r : records) {
    if (std::find(names.begin(), names.end(), r.method) != names.end()) table_records.push_back(r);
  }
  if (missing > 0) {
    notes.title += fmt::format(" (PARTIAL: {} of {} operator x method results missing)", missing,
                               ops.size() * runs.size() * a.seeds.size());
  }
  const auto rows = bench::summarize(table_records, names);
  const std::string text = bench::render_text(rows, notes);
  std::cout << "\n" << text;
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::string md = bench::render_markdown(rows, notes);
  // Methods compared on the same operators: when some (operator, method) results are missing,
  // the table again over the operators every method has finished.
  const auto common = bench::common_operators(table_records, names);
  if (common.size() != table_records.size() && !common.empty()) {
    std::set<std::string> common_ops;
    for (const auto& r : common) common_ops.insert(r.op);
    bench::table_notes cn = notes;
    cn.title = fmt::format("Over the {} operator(s) every method has finished", common_ops.size());
    md += "\n" + bench::render_markdown(bench::summarize(common, names), cn);
  }
  md += budget_sweep_markdown(records, runs, a);
  md += "\n## Per operator (speedup; best of the row in bold)\n\n" + bench::render_per_operator_markdown(table_records, names, notes);
  std::ofstream(out / "table.md") << md << "\nCommand: `" << argv_line << "`\n";
  auto bj = bench::bench_json(records, rows, notes);
  bj["command"] = argv_line;
  bj["wall_seconds"] = wall;
  std::ofstream(out / "bench.json") << bj.dump(1) << "\n";
  const auto plots = bench::write_plots(out, records, names, notes);
  std::cout << fmt::format("wrote {}/table.md, {}/bench.json, {}/ops/*.json", out.string(), out.string(), out.string());
  for (const auto& p : plots) std::cout << ", " << p.string();
  std::cout << fmt::format(" ({:.0f} s)\n", wall);
  return 0;
}

}  // namespace

command_fn add_bench_command(CLI::App& app, const std::string& argv_line) {
  auto a = std::make_shared<bench_args>();
  // The bank a bench builds: the same settings as scripts/make-expert-bank.sh.
  a->rewind.steps = 3;
  a->rewind.attempts = 8;
  app.add_option("SUITE_DIR", a->suite, "Operator suite (e.g. examples/ops: <op>/baseline, <op>/expert)")
      ->required()
      ->check(CLI::ExistingDirectory);
  app.add_option("--budget", a->budget, "Evaluations per operator and method (default 40)");
  app.add_option("--methods", a->methods, "aopt stage1_only stage2_only random best_of_n openevolve (default: all), each "
                                          "optionally @BUDGET (best_of_n@5: Best-of-N with 5 samples)")
      ->delimiter(',');
  app.add_option("--ops", a->ops, "Only these operators (names of SUITE_DIR subdirectories)")->delimiter(',');
  app.add_option("--out", a->out, "Output directory (default aopt-bench)");
  app.add_option("--bank", a->bank_dir, "Experience bank (default: <out>/bank, built by rewinding the suite's experts)");
  app.add_option("--profile", a->profile, "Device profile of the sim backend (default 910b4)");
  app.add_option("--seed", a->seed, "Seed of every method (default 1)");
  app.add_option("--seeds", a->seeds, "Several seeds (e.g. 1,2,3): every method runs once per seed; the table shows the "
                                      "mean of the per-seed figures and the range of the per-seed geomeans")
      ->delimiter(',');
  app.add_option("--budgets", a->budgets, "The budget sweep: every method of the table again at each of these budgets "
                                          "(e.g. 10,20,80), tabulated and plotted (budget_sweep.svg)")
      ->delimiter(',');
  app.add_option("-j,--jobs", a->jobs, "Evaluator slots (default 2, 1 on a one-core machine)");
  app.add_option("--operators-at-once", a->at_once,
                 "Operators searched at the same time, sharing the -j evaluations in flight (default 2; 1: one after "
                 "another); the same results, a shorter wall time")
      ->check(CLI::Range(1, 64));
  app.add_option("--rewind-steps", a->rewind.steps, "Kept rewind steps per expert when building the bank (default 3)");
  app.add_option("--rewind-attempts", a->rewind.attempts, "Rewind evaluations per expert at most (default 8)");
  app.add_flag("--no-cache", a->no_cache, "Do not use the evaluation result cache");
  app.add_flag("--no-screen", [a](std::int64_t) { a->screen = false; },
               "The aopt methods evaluate every Stage I variant without screening its tiling first (as before the Feasible "
               "Stage I; the baselines never screen)");
  app.add_option("--cache-dir", a->cache_dir, "Evaluation cache directory (default: the user's cache)");
  app.add_option("--sources", a->sources,
                 "Where the operators of a real-operator suite live (SUITE_DIR/sources.json names each one's directory "
                 "under it; e.g. cann-ops' src/ for examples/real-ops)")
      ->check(CLI::ExistingDirectory);
  app.add_flag("--fresh", a->fresh, "Ignore results stored in --out by an earlier run");
  app.add_flag("--stored-only", a->stored_only, "Run nothing: tabulate the results stored in --out (a partial table says so)");
  return [a, argv_line]() { return run(*a, argv_line); };
}

}  // namespace aopt::app
