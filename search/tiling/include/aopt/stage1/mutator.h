// The offline Stage I mutator: a population of tunable assignments (the best passing variants),
// changed by log-scale steps (sizes, alignments), neighbourhood moves (counts, block dim),
// other choices (enums: buffer count, tiling key, flags), uniform crossover between two parents
// and random restarts. Never proposes an assignment already evaluated or one the negative
// history rules out; checks what needs no evaluation (domains, block dim <= cores, the
// template's constraints). Deterministic for a seed. See docs/stage1.md.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "aopt/stage1/tiling_template.h"

namespace aopt::stage1 {

// One evaluation's verdict as Stage I needs it. `status` uses the evaluator's names ("ok",
// "compile_error", "tiling_error", "runtime_error", "timeout", "precision_error",
// "resource_error"); `ok` is true only for a correct, timed variant.
struct eval_outcome {
  bool ok = false;
  double latency_us = 0;
  std::string status;
  std::string message;
  bool memo = false;  // answered by the caller without an evaluation (spends no budget)
};

// A proposed tiling variant: its tunable values (empty for a free-form rewrite an LLM engine may
// make), the files it replaces, and where it came from.
struct tiling_proposal {
  assignment values;
  std::map<std::string, std::string> files;  // path -> content (the instantiated template)
  std::string op;                            // "mutate", "crossover", "restart", "base", ...
  std::string description;                   // "BUFFER_NUM=1, core_count=20"
  std::optional<assignment> parent;
  std::vector<std::size_t> changed;          // tunables that differ from the parent
};

// Everything Stage I has evaluated for one template: the cache (an assignment evaluated once is
// answered from here), the passing population and the negative history.
class stage1_history {
 public:
  struct entry {
    assignment values;
    eval_outcome outcome;
    std::string op;
    std::string description;
  };

  // Records an evaluation (or a screen's rejection). A failure whose proposal changed exactly one
  // tunable from a passing parent makes that (tunable, value) tabu and the tunable fragile (it
  // does not move alone); one that changed exactly two makes the two (tunable, value) together
  // tabu, and a (tunable, value) changed in two such failures and in no passing proposal is tabu. A passing proposal that changed two tunables, one of them fragile, makes them partners:
  // the mutator moves a fragile tunable together with a partner (a block count with the length
  // it must keep aligned).
  void record(const tiling_proposal& p, const eval_outcome& o);
  const entry* lookup(const assignment& values) const;
  bool evaluated(const assignment& values) const { return lookup(values) != nullptr; }
  // Passing entries, fastest first (ties: earliest first), at most k.
  std::vector<const entry*> best(std::size_t k) const;
  bool tabu(std::size_t tunable, std::int64_t value) const { return tabu_.count({tunable, value}) > 0; }
  // The smallest tabu value of `tunable` above `value`, if any.
  std::optional<std::int64_t> tabu_above(std::size_t tunable, std::int64_t value) const;
  // True when `values` holds both values of a pair made tabu together, one of them changed from `base`.
  bool tabu_pair(const assignment& values, const assignment& base) const;
  bool fragile(std::size_t tunable) const { return fragile_.count(tunable) > 0; }
  // Whether a passing variant has `tunable` at `value`.
  bool passed_with(std::size_t tunable, std::int64_t value) const;
  // Tunables that passed when changed together with `tunable` (see record).
  std::vector<std::size_t> partners(std::size_t tunable) const;
  const std::vector<entry>& entries() const { return entries_; }
  std::vector<const entry*> failures() const;  // the negative history, in order
  std::size_t size() const { return entries_.size(); }

  // Probes (Feasible Stage I, loop.h): `value` of `tunable`, changed alone from the base (whose
  // value is `base_value`), passed or failed the tiling screen. A failing probe makes the value
  // tabu. Probes are not evaluations: `evaluated` does not see them.
  // `same_tiling`: the probe passed and every case tiled exactly as with the base value, the
  // tunable not read by the kernel.
  void record_probe(std::size_t tunable, std::int64_t base_value, std::int64_t value, bool passed, bool same_tiling = false);
  // A probed tunable whose every probe passed with the base's tiling: it changes nothing these
  // cases run (it sits in a branch none takes), so it stays at its written value: a change would
  // cost an evaluation to measure the base again, and ship untested in the package.
  bool frozen(std::size_t tunable) const;
  bool probed() const { return !probes_.empty(); }
  // Takes the tabu (tunable, value) settings of `from`, an earlier history of the same operator
  // (the previous round's template, before a tiling change was accepted), mapped by `index`:
  // index[i] is the tunable of this history's template that `from`'s tunable i is, or nullopt.
  // A value that broke a variant there is not tried again here; `base` (this template's values)
  // is never made tabu.
  // `kernel_changed`: the kernel was rewritten in between; a value whose failure was one of
  // capacity (out of UB, a timeout) may fit the new kernel and is not taken, the others are (an
  // alignment or a GM bound the kernel's copies rely on does not move with a rewrite of its
  // compute).
  void inherit_tabu(const stage1_history& from, const std::vector<std::optional<std::size_t>>& index, const assignment& base,
                    bool kernel_changed = false);
  // The values a probed tunable may take, ascending (the base's and every passing probe), when at
  // least one of its probes failed; nullopt when it was not probed or every probe passed (its
  // domain stands: nothing says its other values break the tiling).
  std::optional<std::vector<std::int64_t>> allowed(std::size_t tunable) const;
  // The span [lowest, highest] of a probed tunable's passing values when every failing probe lies
  // outside it (the tiling breaks past a bound, such as a block dim over the cores, not at
  // scattered values, such as an alignment); nullopt otherwise. The values between passing
  // probes are then as plausible as the probed ones (the mutator widens `allowed` to them).
  std::optional<std::pair<std::int64_t, std::int64_t>> passing_span(std::size_t tunable) const;
  // The values of a tunable whose probes passed (the base's included), ascending; empty when it
  // was not probed.
  std::vector<std::int64_t> probe_passed(std::size_t tunable) const;

 private:
  std::vector<entry> entries_;
  std::map<std::uint64_t, std::vector<std::size_t>> by_hash_;
  std::set<std::pair<std::size_t, std::int64_t>> tabu_;
  std::set<std::pair<std::size_t, std::int64_t>> capacity_tabu_;  // of tabu_: made so by a capacity failure
  using setting = std::pair<std::size_t, std::int64_t>;  // (tunable, value)
  std::set<std::pair<setting, setting>> tabu_pairs_;
  std::set<std::size_t> fragile_;
  std::map<std::size_t, std::set<std::size_t>> partners_;
  std::map<setting, std::pair<std::size_t, std::size_t>> seen_;  // (failed, passed) changes from passing parents
  struct probe_record {
    std::set<std::int64_t> passed;  // the base's value included
    std::set<std::int64_t> failed_values;
    std::size_t failed = 0;
    std::size_t tried = 0;
    std::size_t same_tiling = 0;
  };
  std::map<std::size_t, probe_record> probes_;
};

// The values Feasible Stage I probes for `t` (changed alone from its written value), at most
// `max`, nearest first: one step each way, then the value doubled and halved, four times and a
// quarter, the device's core count and half of it for a count of cores; every one inside the
// domain, none equal to the written value.
std::vector<std::int64_t> probe_ladder(const tunable& t, const device_limits& limits, std::size_t max);

// A feasibility rule that needs no evaluation: returns why `values` is infeasible, or nullopt.
using feasibility_rule = std::function<std::optional<std::string>(const tiling_template&, const assignment&)>;

struct mutator_config {
  std::size_t population = 4;       // parents: the best-k passing variants. Default: 4
  double crossover_rate = 0.25;     // share of proposals made by crossover (needs 2 parents). Default: 0.25
  double restart_rate = 0.10;       // share made by a random restart. Default: 0.10
  double two_change_rate = 0.30;    // share of mutations that change two tunables, not one. Default: 0.30
  bool mutate_keys = true;          // change tiling-key choices too. Default: true
  std::size_t max_attempts = 64;    // tries per requested proposal before giving up. Default: 64
  device_limits limits;             // core count and UB of the device
  std::vector<feasibility_rule> rules;  // extra checks besides domains and block dim
  void validate() const;            // throws aopt::error(invalid_argument) naming the field
};

// Forks an independent generator from `parent` for the component named `tag`.
std::mt19937_64 fork_rng(std::mt19937_64& parent, std::string_view tag);

// Uniform integer in [0, n) and uniform double in [0, 1), defined here (not by the standard
// library's distributions) so a seed gives the same sequence with every compiler.
std::uint64_t uniform_index(std::mt19937_64& rng, std::uint64_t n);
double uniform_unit(std::mt19937_64& rng);

class mutator {
 public:
  mutator(const tiling_template& tmpl, mutator_config cfg, std::uint64_t seed);
  mutator(const tiling_template& tmpl, mutator_config cfg, std::mt19937_64 rng);

  // Up to n new proposals (fewer when the neighbourhood is exhausted), none evaluated before,
  // none tabu, none repeated, each feasible. Files are not instantiated here. When the history
  // holds evaluations but none passed (the base itself failed: a kernel rewrite that does not
  // fit the current tiling), there is no parent to mutate from: the base's neighbours are tried
  // first (op "repair"): each group of sibling tunables (sibling_groups) one step up together
  // and one step down together, then, in template order, one step down and one step up per
  // tunable; random moves of the base only once they are all tried. Otherwise up to half the
  // batch scouts (op "scout"): single changes of the best parent to values the tunables' probes
  // passed, round robin over the tunables, the farthest-reaching first. When the random moves
  // find fewer than n new proposals (and it is no repair), a sweep fills the batch (op "sweep"): from each parent,
  // best first, every single change of an active tunable to a value its probes passed or to a
  // neighbour, so the budget is not left unspent while such variants remain.
  std::vector<tiling_proposal> propose(const stage1_history& history, std::size_t n);

  // The single operators, exposed for tests and for engines composing their own strategy.
  assignment step(const assignment& parent, std::size_t tunable);  // one move of one tunable
  assignment crossover(const assignment& a, const assignment& b);
  assignment restart();
  // The values one deterministic step from `v` in the domain of `t`: one down, one up (fewer
  // at a domain's edge), without `v` itself.
  std::vector<std::int64_t> neighbours(const tunable& t, std::int64_t v) const;
  // Tunables of `among` that are one quantity on several paths: the same kind and the same name
  // but for a numeric suffix ("ubPartNum_count", "ubPartNum_count_2"); keys, flags and enums
  // excluded. Groups of two or more, each in template order.
  std::vector<std::vector<std::size_t>> sibling_groups(const std::vector<std::size_t>& among) const;
  // Why `values` is infeasible without evaluation (domain, block dim, rules), or nullopt.
  std::optional<std::string> infeasible(const assignment& values) const;
  // Tunables the mutator may change (domain of more than one value; keys if mutate_keys).
  const std::vector<std::size_t>& mutable_tunables() const { return mutable_; }

 private:
  std::int64_t move(const tunable& t, std::int64_t v);
  std::int64_t sample(const tunable& t);
  // Tunables whose probes found values that break the tiling: they move only among the values
  // the probes kept (stage1_history::allowed), refreshed from the history by every propose.
  std::map<std::size_t, std::vector<std::int64_t>> restricted_;

  tiling_template tmpl_;  // a copy: callers re-synthesize templates; the mutator outlives each
  mutator_config cfg_;
  std::mt19937_64 rng_;
  std::vector<std::size_t> mutable_;
};

}  // namespace aopt::stage1
