// Bench metrics: one record per (operator, method) taken from an optimize_result, the paper's
// table (geometric-mean speedup and fast_p per method, for all / seeded / unseeded operators) as
// Markdown and plain text, and per-operator JSON. Pure functions.
//
// Definitions (as in the paper, which follows KernelBench):
//   speedup    base latency / best latency of the operator after the method (1 when nothing
//              beat the base or the base itself failed).
//   geomean    exp(mean(ln speedup)) over the operators of a group.
//   fast_p     share of the group's operators whose speedup is STRICTLY greater than p; fast_1.0
//              is the share made faster than the reference at all. Since only correct
//              candidates are ever accepted, every counted speedup is of a correct operator.
//   seeds      a bench run with several seeds summarizes each seed apart, then shows the mean of
//              the per-seed figures and the range of the per-seed geomeans (the spread).
//   level      the paper's three levels by a rule over the operator (level_of below).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "aopt/optimize/optimizer.h"

namespace aopt::bench {

struct operator_record {
  std::string op;            // operator (package id or directory name)
  std::string method;        // method name (to_string(method) or any label)
  bool seeded = false;       // the operator has an expert seed in the experience bank
  double base_us = 0;
  double best_us = 0;
  double speedup = 1.0;
  std::size_t evaluations = 0;
  std::size_t failures = 0;
  std::size_t memo_hits = 0;
  std::size_t suspects = 0;
  std::size_t accepted = 0;  // accepted changes leading to the final best
  bool base_ok = false;
  std::optional<bool> verified;  // fresh-input check of the final best (none when not run)
  std::string stop_reason;
  std::string backend;       // "sim", "cann" (from the base evaluation)
  std::string profile_name;  // device profile
  std::uint64_t seed = 1;    // the method's seed
  int level = 0;             // 1-3 by level_of; 0 = not classified
  // curve[e - 1] = best speedup after e evaluations spent, e = 1..budget; flat after the method
  // stopped. The final value is the speedup after verification.
  std::vector<double> curve;
};

// The record of one run. `budget` is the length of the curve.
operator_record record_of(const std::string& op, const std::string& method, bool seeded,
                          const optimize::optimize_result& r, std::size_t budget);

// Best speedup after e evaluations, e = 1..budget (see operator_record::curve).
std::vector<double> speedup_curve(const optimize::optimize_result& r, std::size_t budget);

// exp(mean(ln x)); nullopt for an empty list. Throws aopt::error(invalid_argument) for x <= 0.
std::optional<double> geomean(const std::vector<double>& xs);
// Share of xs strictly greater than p; nullopt for an empty list.
std::optional<double> fast_p(const std::vector<double>& speedups, double p);

inline const std::vector<double>& default_thresholds() {
  static const std::vector<double> ps{1.0, 1.2, 1.4, 2.0};
  return ps;
}

// What the level rule reads of an operator: its timed case and its kernel sources.
struct level_facts {
  std::size_t tensor_inputs = 0;  // inputs of the timed case (a tensor list counts once)
  std::size_t outputs = 0;
  bool lists = false;             // a tensor-list input or output
  bool reduces = false;           // the kernel calls a reduction or normalization API
  bool indexes = false;           // the kernel calls a gather, scatter, sort or top-k API
};
// Sets `reduces` and `indexes` from kernel source text (API names called as functions or
// templates: `ReduceSum(`, `WholeReduceMax<`, `Gather(` ...; comments are not skipped).
void scan_kernel(std::string_view kernel_text, level_facts& f);
// Sets `outputs` from host source text: the distinct names of the OpDef's `Output("name")`
// declarations (left as it is when there is none).
void scan_host(std::string_view host_text, level_facts& f);
// The rule (docs/BENCHMARKS.md, "The paper's table"): level 1 = one tensor input, one output,
// no list, no reduction and no indexing (a single elementwise operator or a cast); level 3 =
// fused: at least two of {three or more tensor inputs, two or more outputs, a reduction or
// normalization, indexing}; level 2 = everything else (multi-input elementwise, reductions,
// norms, index and loss operators).
int level_of(const level_facts& f);

enum class group : std::uint8_t { all, seeded, unseeded, level1, level2, level3 };
const char* to_string(group g);

struct method_summary {
  std::string method;
  group subset = group::all;
  std::size_t operators = 0;
  std::optional<double> geomean;       // nullopt when the group is empty; several seeds: the mean
  std::size_t seeds = 0;               // seeds with a record in the group
  std::optional<double> geomean_min;   // the range of the per-seed geomeans (several seeds)
  std::optional<double> geomean_max;
  std::vector<double> thresholds;      // p values
  std::vector<std::optional<double>> fast;  // fast_p per threshold (share in [0, 1])
  std::size_t evaluations = 0;         // total over the group's operators
  std::size_t failures = 0;
};

// One summary per (method, group), methods in `methods` order (every method found in the records
// when empty, in first-seen order), groups all, seeded, unseeded, then the levels 1-3 when any
// record has a level. fast_p and the geomean are per seed, then averaged over the seeds.
std::vector<method_summary> summarize(const std::vector<operator_record>& records,
                                      const std::vector<std::string>& methods = {},
                                      const std::vector<double>& thresholds = default_thresholds());

// The budget sweep of one method: (budget, geometric mean over the operators averaged over the
// seeds) for its records labelled `method` (at their curve's length) and `method@B` (budget B),
// sorted by budget.
std::vector<std::pair<std::size_t, double>> budget_sweep(const std::vector<operator_record>& records,
                                                         const std::string& method);

// Text around the table: what was run and how latencies were obtained.
struct table_notes {
  std::string title = "Bench results";
  std::size_t budget = 0;
  std::string backend;       // "sim": the table says latencies are simulated
  std::string profile_name;
  std::vector<std::pair<std::string, std::string>> labels;  // method name -> display label
  std::string ours;          // the method whose lead over the others each table states ("aopt")
};

// Markdown: a heading, a note, one table per group (method, operators, geomean, fast_p...).
std::string render_markdown(const std::vector<method_summary>& rows, const table_notes& notes);
// The same as aligned plain text (a terminal).
std::string render_text(const std::vector<method_summary>& rows, const table_notes& notes);

// Markdown: one row per operator (in first-seen order), its seed flag and each method's speedup
// ("-" where the method has no record), the best of the row in bold (ties included).
std::string render_per_operator_markdown(const std::vector<operator_record>& records,
                                         const std::vector<std::string>& methods, const table_notes& notes);
// The records of the operators every method in `methods` has a record for (methods compared on
// the same operators), and how many operators that is.
std::vector<operator_record> common_operators(const std::vector<operator_record>& records,
                                              const std::vector<std::string>& methods);

nlohmann::json to_json(const operator_record& r);
nlohmann::json to_json(const method_summary& s);
// The inverse of to_json(operator_record) (a stored bench result). Throws aopt::error(invalid_spec)
// naming the missing or mistyped field.
operator_record record_from_json(const nlohmann::json& j);
// {"notes": {...}, "summary": [...], "operators": [...]}: the per-operator file of a bench run.
nlohmann::json bench_json(const std::vector<operator_record>& records, const std::vector<method_summary>& rows,
                          const table_notes& notes);

}  // namespace aopt::bench
