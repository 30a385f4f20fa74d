// The three baselines of the bench. Each only decides which candidates to propose; the job
// (job.h) does the budget, memory, batching, acceptance, trajectory and verification, so every
// method is measured by the same rules as run_optimizer.
#include "aopt/bench/baselines.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <random>
#include <set>
#include <utility>

#include "aopt/common/error.h"
#include "job.h"

namespace aopt::bench {

using detail::candidate;
using detail::job;
using optimize::merged;
using stage1::fork_rng;
using stage1::uniform_index;
using stage1::uniform_unit;

namespace {

[[noreturn]] void bad(const std::string& what) {
  throw aopt::error(ec::invalid_argument, "bench config: " + what);
}

void check_share(double v, const char* name) {
  if (!(v >= 0.0 && v <= 1.0)) bad(std::string(name) + " must be in [0, 1], got " + std::to_string(v));
}

// The operator's tiling template, or why there is none.
struct tiling_source {
  std::optional<stage1::tiling_template> tmpl;
  std::string why;
};

tiling_source template_of(const services& svc, const file_map& files) {
  auto t = svc.engine.synthesize_template(optimize::synthesis_input_of(files));
  if (!t) return {std::nullopt, t.reason()};
  return {std::move(t).value(), {}};
}

struct rewrite_source {
  std::vector<search::kernel_rewrite> rewrites;
  std::string why;
};

// Every unguided rewrite of `files` (no tuples: the engine's own repertoire).
rewrite_source rewrites_of(const services& svc, const file_map& files) {
  auto r = svc.engine.rewrite_kernel(files, {});
  if (!r) return {{}, r.reason()};
  rewrite_source out{std::move(r).value(), {}};
  if (out.rewrites.empty()) out.why = "the engine found no rewrite site";
  return out;
}

std::string no_proposals(const std::string& tiling_why, const std::string& rewrite_why) {
  return "no proposals: tiling: " + (tiling_why.empty() ? std::string("no mutable tunable") : tiling_why) +
         "; rewrites: " + rewrite_why;
}

std::string rewrite_label(const search::kernel_rewrite& rw) {
  return rw.title.empty() ? std::string("unguided rewrite") : rw.title;
}

// The files of a tiling proposal (an engine may leave them for the template to instantiate).
file_map files_of(const stage1::tiling_template& tmpl, const stage1::tiling_proposal& p) {
  return p.files.empty() ? file_map(tmpl.instantiate(p.values)) : file_map(p.files);
}

// Fisher-Yates with our portable uniform_index, so a seed gives one order everywhere.
template <class T>
void shuffle(std::vector<T>& v, std::mt19937_64& rng) {
  for (std::size_t i = v.size(); i > 1; --i) std::swap(v[i - 1], v[uniform_index(rng, i)]);
}

std::size_t max_draws(const baseline_config& c) { return c.budget * c.max_draws_per_unit; }

}  // namespace

void baseline_config::validate() const {
  if (budget < 1) bad("budget must be at least 1 (the base evaluation)");
  if (!(min_gain >= 0.0 && min_gain < 1.0)) bad("min_gain must be in [0, 1), got " + std::to_string(min_gain));
  if (max_draws_per_unit < 1) bad("max_draws_per_unit must be at least 1");
  mutator.validate();
}

void random_search_config::validate() const {
  common.validate();
  check_share(tiling_only, "random.tiling_only");
  check_share(rewrite_only, "random.rewrite_only");
  if (tiling_only + rewrite_only > 1.0) bad("random.tiling_only + random.rewrite_only must be <= 1");
}

void best_of_n_config::validate() const {
  common.validate();
  check_share(rewrite_share, "best_of_n.rewrite_share");
}

void evolve_config::validate() const {
  common.validate();
  if (population < 1) bad("evolve.population must be at least 1");
  if (tournament < 1) bad("evolve.tournament must be at least 1");
  if (variants_per_child < 1) bad("evolve.variants_per_child must be at least 1");
  check_share(rewrite_rate, "evolve.rewrite_rate");
}

// --- random search ------------------------------------------------------------------------------

optimize_result run_random_search(const file_map& base, const services& svc, const random_search_config& cfg,
                                  const progress_fn& progress) {
  cfg.validate();
  job j(svc, cfg.common, progress);
  if (!j.start(base)) return j.finish_failed();

  std::mt19937_64 root(cfg.common.seed);
  std::mt19937_64 pick = fork_rng(root, "random.choice");
  const tiling_source ts = template_of(svc, base);
  std::optional<stage1::mutator> mut;
  if (ts.tmpl) {
    mut.emplace(*ts.tmpl, cfg.common.mutator, fork_rng(root, "random.mutator"));
    if (mut->mutable_tunables().empty()) mut.reset();
  }
  const rewrite_source rs = rewrites_of(svc, base);
  if (!mut && rs.rewrites.empty()) return j.finish(no_proposals(ts.why, rs.why));
  j.stage("random search: " + std::to_string(mut ? mut->mutable_tunables().size() : 0) + " tunables, " +
          std::to_string(rs.rewrites.size()) + " rewrites of the base");

  // Rewrites of a tiled file set, when tiling touched a file the base's rewrites replace.
  std::map<std::string, rewrite_source> tiled_rewrites;
  std::size_t round = 0;
  while (!j.exhausted() && j.draws() < max_draws(cfg.common)) {
    std::vector<candidate> batch;
    const std::size_t want = std::min(j.batch_size(), j.remaining());
    while (batch.size() < want && j.draws() < max_draws(cfg.common)) {
      j.count_draw();
      const double r = uniform_unit(pick);
      bool tiling = mut.has_value();
      bool rewrite = !rs.rewrites.empty();
      if (tiling && rewrite) {
        if (r < cfg.tiling_only) {
          rewrite = false;
        } else if (r < cfg.tiling_only + cfg.rewrite_only) {
          tiling = false;
        }
      }
      candidate c;
      c.files = base;
      c.round = round;
      std::string what;
      if (tiling) {
        // A restart samples every mutable tunable; infeasible samples are drawn again.
        std::optional<stage1::assignment> values;
        for (std::size_t a = 0; a < cfg.common.mutator.max_attempts && !values; ++a) {
          auto v = mut->restart();
          if (!mut->infeasible(v)) values = std::move(v);
        }
        if (!values) continue;  // a draw spent without a candidate
        c.files = merged(base, ts.tmpl->instantiate(*values));
        what = "tunables " + ts.tmpl->describe_change(*values);
      }
      if (rewrite) {
        const std::vector<search::kernel_rewrite>* pool = &rs.rewrites;
        std::size_t k = uniform_index(pick, pool->size());
        // A rewrite made on the base composes with the tiling only when the tiling left the
        // files it replaces alone; otherwise the tiled set itself is rewritten.
        bool clash = false;
        for (const auto& entry : rs.rewrites[k].files) {
          auto it = base.find(entry.first);
          auto jt = c.files.find(entry.first);
          if ((it == base.end()) != (jt == c.files.end()) || (it != base.end() && it->second != jt->second)) {
            clash = true;
          }
        }
        if (tiling && clash) {
          const std::string key = optimize::files_key(c.files);
          auto it = tiled_rewrites.find(key);
          if (it == tiled_rewrites.end()) it = tiled_rewrites.emplace(key, rewrites_of(svc, c.files)).first;
          pool = &it->second.rewrites;
          if (!pool->empty()) k = uniform_index(pick, pool->size());
        }
        if (!pool->empty()) {
          const auto& rw = (*pool)[k];
          c.files = merged(c.files, rw.files);
          c.rationale = rw.rationale;
          what += (what.empty() ? "" : " + ") + rewrite_label(rw);
        } else {
          rewrite = false;
        }
      }
      if (!tiling && !rewrite) continue;
      c.stage = tiling && rewrite ? optimize::eval_stage::tiling_kernel
                : tiling          ? optimize::eval_stage::tiling
                                  : optimize::eval_stage::kernel;
      c.proposal = "random: " + what;
      if (c.rationale.empty()) c.rationale = "random search (no diagnosis, no experience)";
      batch.push_back(std::move(c));
    }
    if (batch.empty()) break;
    j.submit(batch);
    ++round;
  }
  return j.finish("no new candidate after " + std::to_string(j.draws()) + " draws");
}

// --- Best-of-N ----------------------------------------------------------------------------------

optimize_result run_best_of_n(const file_map& base, const services& svc, const best_of_n_config& cfg,
                              const progress_fn& progress) {
  cfg.validate();
  job j(svc, cfg.common, progress);
  if (!j.start(base)) return j.finish_failed();

  std::mt19937_64 root(cfg.common.seed);
  std::mt19937_64 order = fork_rng(root, "best_of_n.order");
  const std::size_t n = cfg.common.budget - 1;
  rewrite_source rs = rewrites_of(svc, base);
  shuffle(rs.rewrites, order);
  std::size_t n_rewrite =
      std::min(rs.rewrites.size(), static_cast<std::size_t>(std::llround(static_cast<double>(n) * cfg.rewrite_share)));

  // Tiling variants of a fresh history: every one is a single proposal from the base.
  std::vector<candidate> all;
  const tiling_source ts = template_of(svc, base);
  std::string tiling_why = ts.why;
  if (ts.tmpl && n > n_rewrite) {
    const stage1::stage1_history fresh;
    auto props = svc.engine.propose_tiling_variants(*ts.tmpl, fresh, n - n_rewrite);
    if (!props) {
      tiling_why = props.reason();
    } else {
      for (const auto& p : props.value()) {
        candidate c;
        c.files = merged(base, files_of(*ts.tmpl, p));
        c.stage = optimize::eval_stage::tiling;
        c.proposal = "best-of-n: tunables " + (p.description.empty() ? ts.tmpl->describe_change(p.values) : p.description);
        c.rationale = "independent tiling variant of the base (" + (p.op.empty() ? std::string("variant") : p.op) + ")";
        all.push_back(std::move(c));
      }
    }
  }
  // Rewrites fill what the tiling variants left.
  n_rewrite = std::min(rs.rewrites.size(), n - std::min(n, all.size()));
  for (std::size_t i = 0; i < n_rewrite; ++i) {
    candidate c;
    c.files = merged(base, rs.rewrites[i].files);
    c.stage = optimize::eval_stage::kernel;
    c.proposal = "best-of-n: " + rewrite_label(rs.rewrites[i]);
    c.rationale = rs.rewrites[i].rationale.empty() ? "independent unguided rewrite of the base" : rs.rewrites[i].rationale;
    all.push_back(std::move(c));
  }
  if (all.empty()) return j.finish(no_proposals(tiling_why, rs.why));
  j.stage("best-of-n: " + std::to_string(all.size()) + " independent proposals");
  // Mixed order, so the trajectory does not depend on which kind came first.
  shuffle(all, order);
  j.count_draw(all.size());
  for (std::size_t b = 0, round = 0; b < all.size() && !j.exhausted(); b += j.batch_size(), ++round) {
    std::vector<candidate> batch(all.begin() + static_cast<std::ptrdiff_t>(b),
                                 all.begin() + static_cast<std::ptrdiff_t>(std::min(all.size(), b + j.batch_size())));
    for (auto& c : batch) c.round = round;
    j.submit(batch);
  }
  return j.finish("all " + std::to_string(all.size()) + " proposals evaluated");
}

// --- OpenEvolve-style evolution -----------------------------------------------------------------

optimize_result run_openevolve(const file_map& base, const services& svc, const evolve_config& cfg,
                               const progress_fn& progress) {
  cfg.validate();
  job j(svc, cfg.common, progress);
  if (!j.start(base)) return j.finish_failed();

  std::mt19937_64 root(cfg.common.seed);
  std::mt19937_64 select = fork_rng(root, "evolve.select");
  std::mt19937_64 mutate = fork_rng(root, "evolve.mutate");
  // Per program (by files_key): its template and its rewrites, computed once. std::map keeps the
  // templates at stable addresses, which an engine may use to keep its per-template state.
  std::map<std::string, tiling_source> templates;
  std::map<std::string, rewrite_source> rewrites;
  std::vector<std::size_t> population{0};  // job entries, all passing
  std::string last_tiling_why;
  std::string last_rewrite_why;

  auto latency = [&](std::size_t e) { return j.at(e).report.latency_us; };
  j.stage("openevolve: population " + std::to_string(cfg.population) + ", tournament " + std::to_string(cfg.tournament));
  std::size_t round = 0;
  while (!j.exhausted() && j.draws() < max_draws(cfg.common)) {
    std::vector<candidate> batch;
    std::set<std::string> in_batch;
    const std::size_t want = std::min(j.batch_size(), j.remaining());
    std::size_t barren = 0;
    while (batch.size() < want && j.draws() < max_draws(cfg.common) && barren < population.size() * 4) {
      j.count_draw();
      // Tournament: the fastest of `tournament` uniform picks (with replacement).
      std::size_t parent = population[uniform_index(select, population.size())];
      for (std::size_t t = 1; t < cfg.tournament; ++t) {
        const std::size_t other = population[uniform_index(select, population.size())];
        if (latency(other) < latency(parent)) parent = other;
      }
      const auto& pe = j.at(parent);
      const file_map& pf = pe.files;
      // The parent's template and rewrites are computed on first use only (a rewrite search
      // parses the kernel, which is not free).
      auto template_of_parent = [&]() -> const tiling_source& {
        auto it = templates.find(pe.key);
        if (it == templates.end()) it = templates.emplace(pe.key, template_of(svc, pf)).first;
        if (!it->second.why.empty()) last_tiling_why = it->second.why;
        return it->second;
      };
      auto rewrites_of_parent = [&]() -> const rewrite_source& {
        auto it = rewrites.find(pe.key);
        if (it == rewrites.end()) it = rewrites.emplace(pe.key, rewrites_of(svc, pf)).first;
        if (!it->second.why.empty()) last_rewrite_why = it->second.why;
        return it->second;
      };

      const bool want_rewrite = uniform_unit(mutate) < cfg.rewrite_rate;
      auto fresh = [&](const file_map& f) { return !j.known(f) && !in_batch.count(optimize::files_key(f)); };
      std::optional<candidate> child;
      auto try_rewrite = [&]() {
        const rewrite_source& rs = rewrites_of_parent();
        if (rs.rewrites.empty()) return;
        // Prefer a rewrite whose result is new; otherwise any (a repeat costs nothing).
        std::vector<std::size_t> idx;
        for (std::size_t i = 0; i < rs.rewrites.size(); ++i) {
          if (fresh(merged(pf, rs.rewrites[i].files))) idx.push_back(i);
        }
        const std::size_t k = idx.empty() ? uniform_index(mutate, rs.rewrites.size()) : idx[uniform_index(mutate, idx.size())];
        candidate c;
        c.files = merged(pf, rs.rewrites[k].files);
        c.stage = optimize::eval_stage::kernel;
        c.proposal = "evolve: " + rewrite_label(rs.rewrites[k]);
        c.rationale = rs.rewrites[k].rationale.empty() ? "unguided rewrite of a tournament parent" : rs.rewrites[k].rationale;
        child = std::move(c);
      };
      auto try_tiling = [&]() {
        const tiling_source& ts = template_of_parent();
        if (!ts.tmpl) return;
        const stage1::stage1_history none;
        auto props = svc.engine.propose_tiling_variants(*ts.tmpl, none, cfg.variants_per_child);
        if (!props) {
          last_tiling_why = props.reason();
          return;
        }
        if (props.value().empty()) return;
        const stage1::tiling_proposal* chosen = &props.value().front();
        for (const auto& p : props.value()) {
          if (fresh(merged(pf, files_of(*ts.tmpl, p)))) {
            chosen = &p;
            break;
          }
        }
        candidate c;
        c.files = merged(pf, files_of(*ts.tmpl, *chosen));
        c.stage = optimize::eval_stage::tiling;
        c.proposal = "evolve: tunables " +
                     (chosen->description.empty() ? ts.tmpl->describe_change(chosen->values) : chosen->description);
        c.rationale = "tiling variant of a tournament parent (" + chosen->op + ")";
        child = std::move(c);
      };
      if (want_rewrite) {
        try_rewrite();
        if (!child) try_tiling();
      } else {
        try_tiling();
        if (!child) try_rewrite();
      }
      if (!child) {
        ++barren;
        continue;
      }
      child->round = round;
      in_batch.insert(optimize::files_key(child->files));
      batch.push_back(std::move(*child));
    }
    if (batch.empty()) {
      if (barren > 0) return j.finish(no_proposals(last_tiling_why, last_rewrite_why));
      break;
    }
    for (const auto& got : j.submit(batch)) {
      if (!got || !j.at(*got).passing()) continue;
      if (std::find(population.begin(), population.end(), *got) != population.end()) continue;
      population.push_back(*got);
      if (population.size() > cfg.population) {
        // Drop the slowest (the newest of equals, so an old program is not pushed out by a tie).
        auto worst = population.begin();
        for (auto it = population.begin(); it != population.end(); ++it) {
          if (latency(*it) >= latency(*worst)) worst = it;
        }
        population.erase(worst);
      }
    }
    ++round;
  }
  return j.finish("no new candidate after " + std::to_string(j.draws()) + " draws");
}

// --- methods ------------------------------------------------------------------------------------

const char* to_string(method m) {
  switch (m) {
    case method::aopt: return "aopt";
    case method::stage1_only: return "stage1_only";
    case method::stage2_only: return "stage2_only";
    case method::random: return "random";
    case method::best_of_n: return "best_of_n";
    case method::openevolve: return "openevolve";
  }
  return "?";
}

const char* display_name(method m) {
  switch (m) {
    case method::aopt: return "AscendOptimizer";
    case method::stage1_only: return "Stage I only";
    case method::stage2_only: return "Stage II only";
    case method::random: return "Random search";
    case method::best_of_n: return "Best-of-N";
    case method::openevolve: return "OpenEvolve-style";
  }
  return "?";
}

std::optional<method> parse_method(std::string_view s) {
  static const std::map<std::string_view, method> names = {
      {"aopt", method::aopt},           {"ours", method::aopt},
      {"ascendoptimizer", method::aopt}, {"stage1_only", method::stage1_only},
      {"stage1", method::stage1_only},   {"stage2_only", method::stage2_only},
      {"stage2", method::stage2_only},   {"random", method::random},
      {"random_search", method::random}, {"best_of_n", method::best_of_n},
      {"bon", method::best_of_n},        {"best-of-n", method::best_of_n},
      {"openevolve", method::openevolve}, {"evolve", method::openevolve}};
  std::string lower(s);
  for (auto& ch : lower) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  auto it = names.find(lower);
  if (it == names.end()) return std::nullopt;
  return it->second;
}

const std::vector<method>& all_methods() {
  static const std::vector<method> all = {method::aopt,   method::stage1_only, method::stage2_only,
                                          method::random, method::best_of_n,   method::openevolve};
  return all;
}

void bench_config::validate() const {
  if (budget < 1) bad("budget must be at least 1 (the base evaluation)");
  if (!(min_gain >= 0.0 && min_gain < 1.0)) bad("min_gain must be in [0, 1), got " + std::to_string(min_gain));
  random.validate();
  best_of_n.validate();
  evolve.validate();
}

namespace {

baseline_config shared(baseline_config c, const bench_config& cfg) {
  c.budget = cfg.budget;
  c.seed = cfg.seed;
  c.min_gain = cfg.min_gain;
  c.verify = cfg.verify;
  c.verify_seed = cfg.verify_seed;
  return c;
}

}  // namespace

optimize_result run_method(method m, const file_map& base, const services& svc, const bench_config& cfg,
                           const progress_fn& progress) {
  cfg.validate();
  switch (m) {
    case method::aopt:
    case method::stage1_only:
    case method::stage2_only: {
      optimize::optimizer_config o = cfg.optimizer;
      o.budget = cfg.budget;
      o.min_gain = cfg.min_gain;
      o.verify = cfg.verify;
      o.verify_seed = cfg.verify_seed;
      if (m == method::stage1_only) o.stage2 = false;
      if (m == method::stage2_only) o.stage1 = false;
      return optimize::run_optimizer(base, svc, o, progress);
    }
    case method::random: {
      random_search_config c = cfg.random;
      c.common = shared(c.common, cfg);
      return run_random_search(base, svc, c, progress);
    }
    case method::best_of_n: {
      best_of_n_config c = cfg.best_of_n;
      c.common = shared(c.common, cfg);
      return run_best_of_n(base, svc, c, progress);
    }
    case method::openevolve: {
      evolve_config c = cfg.evolve;
      c.common = shared(c.common, cfg);
      return run_openevolve(base, svc, c, progress);
    }
  }
  throw aopt::error(ec::internal, "bench: unknown method");
}

}  // namespace aopt::bench
