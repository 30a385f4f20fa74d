// The bench baselines on the fake services: exact evaluation counts, the budget, free memo hits,
// failures, suspects, verification and determinism for a seed.
#include <cstdio>
#include <set>
#include <string>

#include <gtest/gtest.h>

#include "aopt/bench/baselines.h"
#include "aopt/common/error.h"
#include "fake_services.h"

namespace aopt::bench {
namespace {

using test::base_files;
using test::fake_options;
using test::fake_services;
using test::kernel_path;

constexpr std::uint64_t default_seed = 20240611;

baseline_config common(std::size_t budget, std::uint64_t seed) {
  std::printf("seed %llu, budget %zu\n", static_cast<unsigned long long>(seed), budget);
  baseline_config c;
  c.budget = budget;
  c.seed = seed;
  return c;
}

// The rules every method obeys, checked against what the fake saw.
void check_rules(const optimize_result& r, const fake_services& f, std::size_t budget, std::size_t parallelism) {
  EXPECT_LE(r.evaluations, budget);
  EXPECT_EQ(f.evaluations(), r.evaluations) << "every evaluation sent is counted, nothing else";
  for (std::size_t b : f.batch_sizes) EXPECT_LE(b, parallelism);
  EXPECT_EQ(r.failures, f.failures_reported);

  std::size_t fresh = 0, memo = 0, last = 0;
  for (const auto& p : r.trajectory) {
    EXPECT_GE(p.evaluations, last);
    last = p.evaluations;
    if (p.stage == "verify") continue;
    (p.memo ? memo : fresh) += 1;
    if (p.suspect) {
      EXPECT_FALSE(p.accepted) << p.proposal;
    }
    if (p.memo) {
      EXPECT_FALSE(p.accepted);
    }
  }
  EXPECT_EQ(fresh, r.evaluations);
  EXPECT_EQ(memo, r.memo_hits);

  // The memory works: no candidate was sent twice for the budget.
  std::set<std::string> keys;
  for (const auto& q : f.requests) {
    if (q.stage == aopt::vocab::eval_stage::verify) {
      EXPECT_EQ(q.input_seed, std::optional<std::uint64_t>(0x5eed));
      continue;
    }
    EXPECT_TRUE(keys.insert(optimize::files_key(q.files)).second) << "evaluated twice: " << q.proposal;
  }

  // Suspects are never the best; the best is what the fake says it costs.
  ASSERT_TRUE(r.best.has_value());
  EXPECT_FALSE(r.best->suspect);
  EXPECT_FALSE(fake_services::has(r.best_files.at(kernel_path), "MAGIC"));
  const auto lat = fake_services::latency_of(r.best_files);
  ASSERT_TRUE(lat.has_value());
  EXPECT_DOUBLE_EQ(r.best_us, *lat);
  EXPECT_DOUBLE_EQ(r.speedup, r.base_us / r.best_us);
  if (!r.changes.empty()) {
    EXPECT_DOUBLE_EQ(r.changes.back().after_us, r.best_us);
    EXPECT_DOUBLE_EQ(r.changes.front().before_us, r.base_us);
    ASSERT_TRUE(r.verification.has_value());
    EXPECT_TRUE(r.verification->ok);
  } else {
    EXPECT_EQ(r.best_files, r.base_files);
  }
  EXPECT_EQ(r.engine, "fake");
}

std::vector<std::string> proposals(const optimize_result& r) {
  std::vector<std::string> out;
  for (const auto& p : r.trajectory) out.push_back(p.stage + "|" + p.proposal + "|" + p.status);
  return out;
}

// --- random search ------------------------------------------------------------------------------

TEST(RandomSearch, SpendsExactlyTheBudgetAndKeepsTheRules) {
  fake_services f;
  random_search_config cfg;
  cfg.common = common(25, default_seed);
  const auto r = run_random_search(base_files(), f, cfg);
  check_rules(r, f, 25, 3);
  EXPECT_EQ(r.evaluations, 25u);  // the space (40 tilings x 32 kernels) is far larger
  EXPECT_EQ(r.stop_reason, "budget exhausted");
  EXPECT_GT(r.speedup, 1.0);
  // Base, then 24 evaluations in batches of 3 (memo answers may add calls, never more per call).
  EXPECT_EQ(f.batch_sizes.front(), 1u);
  EXPECT_EQ(r.trajectory.front().stage, "base");
  // Both kinds and their composition were drawn.
  std::set<std::string> stages;
  for (const auto& p : r.trajectory) stages.insert(p.stage);
  EXPECT_TRUE(stages.count("tiling"));
  EXPECT_TRUE(stages.count("kernel"));
  EXPECT_TRUE(stages.count("tiling+kernel"));
}

TEST(RandomSearch, RepeatsAreFreeAndASmallSpaceEnds) {
  // No template: only the 5 single rewrites of the base exist. Draws repeat; repeats cost nothing.
  fake_options o;
  o.has_template = false;
  fake_services f(o);
  random_search_config cfg;
  cfg.common = common(20, default_seed);
  cfg.common.max_draws_per_unit = 2;  // 40 draws
  const auto r = run_random_search(base_files(), f, cfg);
  check_rules(r, f, 20, 3);
  EXPECT_EQ(r.evaluations, 1u + 5u);
  EXPECT_EQ(r.memo_hits, 40u - 5u);
  EXPECT_EQ(r.failures, 1u);  // BROKEN
  EXPECT_EQ(r.suspects, 1u);  // MAGIC: evaluated, never accepted
  EXPECT_EQ(r.stop_reason, "no new candidate after 40 draws");
  // FLAKY (0.5) won the search, failed verification, and the previous accepted state is kept.
  EXPECT_FALSE(fake_services::has(r.best_files.at(kernel_path), "FLAKY"));
  EXPECT_GE(f.verifications(), 1u);
}

TEST(RandomSearch, DeterministicForASeed) {
  random_search_config cfg;
  cfg.common = common(16, default_seed);
  fake_services f1, f2, f3;
  const auto a = run_random_search(base_files(), f1, cfg);
  const auto b = run_random_search(base_files(), f2, cfg);
  EXPECT_EQ(proposals(a), proposals(b));
  EXPECT_EQ(a.best_files, b.best_files);
  cfg.common.seed = default_seed + 1;
  const auto c = run_random_search(base_files(), f3, cfg);
  EXPECT_NE(proposals(a), proposals(c)) << "another seed draws other candidates";
}

TEST(RandomSearch, NothingToProposeStopsAfterTheBase) {
  fake_options o;
  o.has_template = false;
  o.has_rewrites = false;
  fake_services f(o);
  random_search_config cfg;
  cfg.common = common(10, default_seed);
  const auto r = run_random_search(base_files(), f, cfg);
  EXPECT_EQ(r.evaluations, 1u);
  EXPECT_NE(r.stop_reason.find("no proposals"), std::string::npos) << r.stop_reason;
  EXPECT_NE(r.stop_reason.find("no tiling function in the fake"), std::string::npos) << r.stop_reason;
  EXPECT_DOUBLE_EQ(r.speedup, 1.0);
}

TEST(RandomSearch, BaseFailureStops) {
  fake_options o;
  o.base_fails = true;
  fake_services f(o);
  random_search_config cfg;
  cfg.common = common(10, default_seed);
  const auto r = run_random_search(base_files(), f, cfg);
  EXPECT_EQ(r.evaluations, 1u);
  EXPECT_EQ(r.failures, 1u);
  EXPECT_EQ(r.stop_reason, "base failed: compile_error: fake: does not compile");
  EXPECT_FALSE(r.best.has_value());
  EXPECT_DOUBLE_EQ(r.speedup, 1.0);
  EXPECT_EQ(f.verifications(), 0u);
}

TEST(RandomSearch, ConfigIsValidated) {
  fake_services f;
  random_search_config cfg;
  cfg.common = common(0, default_seed);
  EXPECT_THROW(run_random_search(base_files(), f, cfg), aopt::error);
  cfg.common.budget = 5;
  cfg.tiling_only = 0.8;
  cfg.rewrite_only = 0.8;
  EXPECT_THROW(run_random_search(base_files(), f, cfg), aopt::error);
  EXPECT_TRUE(f.requests.empty());
}

// --- Best-of-N ----------------------------------------------------------------------------------

TEST(BestOfN, ProposesBudgetMinusOneSingleProposalsOnce) {
  fake_services f;
  best_of_n_config cfg;
  cfg.common = common(10, default_seed);
  const auto r = run_best_of_n(base_files(), f, cfg);
  check_rules(r, f, 10, 3);
  // N = 9: round(9 * 0.5) = 5 wanted, 5 rewrites exist, so 4 tiling variants + 5 rewrites.
  std::size_t tiling = 0, kernel = 0;
  for (const auto& p : r.trajectory) {
    tiling += p.stage == "tiling";
    kernel += p.stage == "kernel";
  }
  EXPECT_EQ(tiling, 4u);
  EXPECT_EQ(kernel, 5u);
  EXPECT_EQ(r.evaluations + r.memo_hits, 10u);
  EXPECT_EQ(f.refine_calls, 1u) << "no iteration: the base is rewritten once";
  EXPECT_EQ(r.suspects, 1u);
  EXPECT_GE(r.failures, 1u) << "BROKEN fails";
  EXPECT_EQ(r.stop_reason, r.evaluations == 10 ? "budget exhausted" : "all 9 proposals evaluated");
  // Every proposal is one step from the base: no candidate composes a rewrite with a tiling.
  for (const auto& q : f.requests) {
    const bool kernel_changed = q.files.at(kernel_path) != base_files().at(kernel_path);
    const bool host_changed = q.files.at(test::host_path) != base_files().at(test::host_path);
    EXPECT_FALSE(kernel_changed && host_changed) << q.proposal;
  }
}

TEST(BestOfN, RewritesFillInWithoutATemplate) {
  fake_options o;
  o.has_template = false;
  fake_services f(o);
  best_of_n_config cfg;
  cfg.common = common(40, default_seed);
  const auto r = run_best_of_n(base_files(), f, cfg);
  check_rules(r, f, 40, 3);
  EXPECT_EQ(r.evaluations, 6u);  // base + the 5 rewrites; no iteration to spend the rest
  EXPECT_EQ(r.stop_reason, "all 5 proposals evaluated");
  // FLAKY (0.5) is the fastest and fails verification: the walk back through the accepted
  // states ends at a passing one (VEC 0.7 or PIPE 0.9, depending on the order) or the base.
  EXPECT_FALSE(fake_services::has(r.best_files.at(kernel_path), "FLAKY"));
  EXPECT_GE(f.verifications(), 1u);
}

TEST(BestOfN, DeterministicForASeed) {
  best_of_n_config cfg;
  cfg.common = common(12, default_seed);
  fake_services f1, f2;
  EXPECT_EQ(proposals(run_best_of_n(base_files(), f1, cfg)), proposals(run_best_of_n(base_files(), f2, cfg)));
}

// --- OpenEvolve-style ---------------------------------------------------------------------------

TEST(OpenEvolve, EvolvesWithinTheBudget) {
  fake_options o;
  o.parallelism = 2;
  fake_services f(o);
  evolve_config cfg;
  cfg.common = common(24, default_seed);
  cfg.population = 4;
  const auto r = run_openevolve(base_files(), f, cfg);
  check_rules(r, f, 24, 2);
  EXPECT_EQ(r.evaluations, 24u);
  EXPECT_EQ(r.stop_reason, "budget exhausted");
  EXPECT_GT(r.speedup, 1.0);
  // Children of children: some candidate changed both the tiling and the kernel.
  bool composed = false;
  for (const auto& q : f.requests) {
    composed |= q.files.at(kernel_path) != base_files().at(kernel_path) &&
                q.files.at(test::host_path) != base_files().at(test::host_path);
  }
  EXPECT_TRUE(composed);
  EXPECT_GE(r.changes.size(), 1u);
}

TEST(OpenEvolve, DeterministicForASeed) {
  evolve_config cfg;
  cfg.common = common(18, default_seed);
  fake_services f1, f2;
  const auto a = run_openevolve(base_files(), f1, cfg);
  const auto b = run_openevolve(base_files(), f2, cfg);
  EXPECT_EQ(proposals(a), proposals(b));
  EXPECT_EQ(a.best_files, b.best_files);
}

TEST(OpenEvolve, SmallSpaceEndsWithFreeRepeats) {
  fake_options o;
  o.has_template = false;
  o.motifs = {"VEC", "BROKEN"};
  fake_services f(o);
  evolve_config cfg;
  cfg.common = common(30, default_seed);
  cfg.common.max_draws_per_unit = 1;
  const auto r = run_openevolve(base_files(), f, cfg);
  check_rules(r, f, 30, 3);
  // Reachable programs: base, VEC, BROKEN, VEC+BROKEN (BROKEN never becomes a parent).
  EXPECT_EQ(r.evaluations, 4u);
  EXPECT_EQ(r.failures, 2u);
  EXPECT_TRUE(fake_services::has(r.best_files.at(kernel_path), "VEC"));
  EXPECT_EQ(r.stop_reason, "no new candidate after 30 draws");
}

// --- methods ------------------------------------------------------------------------------------

TEST(Methods, NamesRoundTrip) {
  for (method m : all_methods()) {
    EXPECT_EQ(parse_method(to_string(m)), m);
    EXPECT_STRNE(display_name(m), "?");
  }
  EXPECT_EQ(parse_method("Best-of-N"), method::best_of_n);
  EXPECT_EQ(parse_method("OURS"), method::aopt);
  EXPECT_FALSE(parse_method("hill_climbing").has_value());
}

TEST(Methods, RunMethodAppliesTheSharedBudget) {
  bench_config cfg;
  cfg.budget = 9;
  cfg.seed = default_seed;
  cfg.random.common.budget = 100;  // overridden: every method gets the same budget
  std::printf("seed %llu\n", static_cast<unsigned long long>(cfg.seed));
  for (method m : {method::random, method::best_of_n, method::openevolve}) {
    fake_services f;
    const auto r = run_method(m, base_files(), f, cfg);
    EXPECT_LE(r.evaluations, 9u) << to_string(m);
    EXPECT_EQ(f.evaluations(), r.evaluations) << to_string(m);
  }
}

}  // namespace
}  // namespace aopt::bench
