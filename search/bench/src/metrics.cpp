#include "aopt/bench/metrics.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>

#include "aopt/common/error.h"

namespace aopt::bench {

std::vector<double> speedup_curve(const optimize::optimize_result& r, std::size_t budget) {
  std::vector<double> curve(budget, 1.0);
  if (budget == 0 || !(r.base_us > 0)) return curve;  // a failed base: nothing was improved
  // The best after each evaluation count; later points with the same count (memo answers,
  // verification) overwrite earlier ones.
  std::vector<std::optional<double>> at(budget + 1);
  for (const auto& p : r.trajectory) {
    if (p.evaluations == 0 || p.evaluations > budget) continue;
    at[p.evaluations] = p.best_us > 0 ? r.base_us / p.best_us : 1.0;
  }
  double cur = 1.0;
  for (std::size_t e = 1; e <= budget; ++e) {
    if (at[e]) cur = *at[e];
    curve[e - 1] = cur;
  }
  // After the method stopped, the verified final result holds.
  for (std::size_t e = std::max<std::size_t>(r.evaluations, 1); e <= budget; ++e) curve[e - 1] = r.speedup;
  return curve;
}

operator_record record_of(const std::string& op, const std::string& method, bool seeded,
                          const optimize::optimize_result& r, std::size_t budget) {
  operator_record rec;
  rec.op = op;
  rec.method = method;
  rec.seeded = seeded;
  rec.base_ok = r.base.ok;
  rec.base_us = r.base_us;
  rec.best_us = r.best_us;
  rec.speedup = r.speedup > 0 ? r.speedup : 1.0;
  rec.evaluations = r.evaluations;
  rec.failures = r.failures;
  rec.memo_hits = r.memo_hits;
  rec.suspects = r.suspects;
  rec.accepted = r.changes.size();
  if (r.verification) rec.verified = r.verification->ok && !r.verification->suspect;
  rec.stop_reason = r.stop_reason;
  rec.backend = r.base.backend;
  rec.profile_name = r.base.profile_name;
  rec.curve = speedup_curve(r, budget);
  return rec;
}

std::optional<double> geomean(const std::vector<double>& xs) {
  if (xs.empty()) return std::nullopt;
  double sum = 0;
  for (double x : xs) {
    if (!(x > 0)) {
      throw aopt::error(ec::invalid_argument,
                        "geomean: every value must be > 0, got " + std::to_string(x) + " (a speedup of a failed run?)");
    }
    sum += std::log(x);
  }
  return std::exp(sum / static_cast<double>(xs.size()));
}

std::optional<double> fast_p(const std::vector<double>& speedups, double p) {
  if (speedups.empty()) return std::nullopt;
  const auto n = std::count_if(speedups.begin(), speedups.end(), [p](double s) { return s > p; });
  return static_cast<double>(n) / static_cast<double>(speedups.size());
}

const char* to_string(group g) {
  switch (g) {
    case group::all: return "all";
    case group::seeded: return "seeded";
    case group::unseeded: return "unseeded";
    case group::level1: return "level1";
    case group::level2: return "level2";
    case group::level3: return "level3";
  }
  return "?";
}

namespace {

bool called(std::string_view text, std::string_view name) {
  for (std::size_t at = text.find(name); at != std::string_view::npos; at = text.find(name, at + 1)) {
    const bool starts = at == 0 || !(std::isalnum(static_cast<unsigned char>(text[at - 1])) || text[at - 1] == '_');
    std::size_t end = at + name.size();
    while (end < text.size() && text[end] == ' ') ++end;
    if (starts && end < text.size() && (text[end] == '(' || text[end] == '<')) return true;
  }
  return false;
}

bool in_group(const operator_record& r, group g) {
  switch (g) {
    case group::all: return true;
    case group::seeded: return r.seeded;
    case group::unseeded: return !r.seeded;
    case group::level1: return r.level == 1;
    case group::level2: return r.level == 2;
    case group::level3: return r.level == 3;
  }
  return false;
}

std::vector<group> groups_of(const std::vector<operator_record>& records) {
  std::vector<group> gs{group::all, group::seeded, group::unseeded};
  if (std::any_of(records.begin(), records.end(), [](const operator_record& r) { return r.level > 0; })) {
    gs.insert(gs.end(), {group::level1, group::level2, group::level3});
  }
  return gs;
}

}  // namespace

void scan_kernel(std::string_view text, level_facts& f) {
  static const char* const reductions[] = {
      "ReduceSum", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceMean", "ReduceAll", "ReduceAny",
      "WholeReduceSum", "WholeReduceMax", "WholeReduceMin", "BlockReduceSum", "BlockReduceMax", "BlockReduceMin",
      "PairReduceSum", "RepeatReduceSum", "SoftMax", "SimpleSoftMax", "SoftmaxFlash", "SoftmaxFlashV2", "LogSoftMax",
      "LayerNorm", "RmsNorm", "BatchNorm", "GroupNorm", "DeepNorm", "Normalize", "WelfordUpdate", "CumSum", "Sum", "Mean"};
  static const char* const indexing[] = {"Gather", "Gatherb", "GatherMask", "Scatter", "Sort", "Sort32", "MrgSort",
                                         "MrgSort4", "TopK", "ArgMax", "ArgMin"};
  for (const char* n : reductions) f.reduces = f.reduces || called(text, n);
  for (const char* n : indexing) f.indexes = f.indexes || called(text, n);
}

void scan_host(std::string_view text, level_facts& f) {
  std::set<std::string> names;
  static constexpr std::string_view key = "Output(\"";
  for (std::size_t at = text.find(key); at != std::string_view::npos; at = text.find(key, at + 1)) {
    if (at > 0 && (std::isalnum(static_cast<unsigned char>(text[at - 1])) || text[at - 1] == '_')) continue;
    const std::size_t start = at + key.size();
    const std::size_t end = text.find('"', start);
    if (end != std::string_view::npos && end > start) names.insert(std::string(text.substr(start, end - start)));
  }
  if (!names.empty()) f.outputs = names.size();
}

int level_of(const level_facts& f) {
  const int traits = (f.tensor_inputs >= 3 ? 1 : 0) + (f.outputs >= 2 ? 1 : 0) + (f.reduces ? 1 : 0) + (f.indexes ? 1 : 0);
  if (f.tensor_inputs <= 1 && f.outputs == 1 && !f.lists && !f.reduces && !f.indexes) return 1;
  return traits >= 2 ? 3 : 2;
}

std::vector<method_summary> summarize(const std::vector<operator_record>& records,
                                      const std::vector<std::string>& methods,
                                      const std::vector<double>& thresholds) {
  std::vector<std::string> order = methods;
  if (order.empty()) {
    for (const auto& r : records) {
      if (std::find(order.begin(), order.end(), r.method) == order.end()) order.push_back(r.method);
    }
  }
  std::vector<method_summary> out;
  for (const auto& m : order) {
    for (group g : groups_of(records)) {
      method_summary s;
      s.method = m;
      s.subset = g;
      s.thresholds = thresholds;
      std::map<std::uint64_t, std::vector<double>> by_seed;
      for (const auto& r : records) {
        if (r.method != m || !in_group(r, g)) continue;
        by_seed[r.seed].push_back(r.speedup);
        s.evaluations += r.evaluations;
        s.failures += r.failures;
      }
      s.seeds = by_seed.size();
      std::vector<double> means;
      std::vector<double> fast_sum(thresholds.size(), 0.0);
      for (const auto& [seed, speedups] : by_seed) {
        s.operators = std::max(s.operators, speedups.size());
        means.push_back(*geomean(speedups));
        for (std::size_t i = 0; i < thresholds.size(); ++i) fast_sum[i] += *fast_p(speedups, thresholds[i]);
      }
      if (!means.empty()) {
        double sum = 0;
        for (double x : means) sum += x;
        s.geomean = sum / static_cast<double>(means.size());
        s.geomean_min = *std::min_element(means.begin(), means.end());
        s.geomean_max = *std::max_element(means.begin(), means.end());
      }
      for (std::size_t i = 0; i < thresholds.size(); ++i) {
        s.fast.push_back(means.empty() ? std::nullopt : std::optional<double>(fast_sum[i] / static_cast<double>(means.size())));
      }
      out.push_back(std::move(s));
    }
  }
  return out;
}

std::vector<std::pair<std::size_t, double>> budget_sweep(const std::vector<operator_record>& records,
                                                         const std::string& method) {
  std::map<std::size_t, std::map<std::uint64_t, std::vector<double>>> at;  // budget -> seed -> speedups
  for (const auto& r : records) {
    std::size_t budget = 0;
    if (r.method == method) {
      budget = r.curve.size();
    } else if (r.method.size() > method.size() + 1 && r.method.compare(0, method.size(), method) == 0 &&
               r.method[method.size()] == '@') {
      const std::string b = r.method.substr(method.size() + 1);
      if (b.empty() || b.find_first_not_of("0123456789") != std::string::npos || b.size() > 9) continue;
      budget = std::stoul(b);
    }
    if (budget > 0) at[budget][r.seed].push_back(r.speedup);
  }
  std::vector<std::pair<std::size_t, double>> out;
  for (const auto& [budget, seeds] : at) {
    double sum = 0;
    for (const auto& [seed, speedups] : seeds) sum += *geomean(speedups);
    out.emplace_back(budget, sum / static_cast<double>(seeds.size()));
  }
  return out;
}

namespace {

std::string fmt(const char* f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

std::string threshold_label(double p) { return "fast_" + fmt("%.1f", p); }

std::string label_of(const std::string& method, const table_notes& notes) {
  for (const auto& [m, l] : notes.labels) {
    if (m == method) return l;
  }
  return method;
}

std::string group_heading(group g) {
  switch (g) {
    case group::all: return "All operators";
    case group::seeded: return "Operators with an expert seed in the bank";
    case group::unseeded: return "Operators without a seed";
    case group::level1: return "Level 1: one input, one output, elementwise or cast";
    case group::level2: return "Level 2: multi-input, reductions, norms, index and loss";
    case group::level3: return "Level 3: fused (two or more of: 3+ inputs, 2+ outputs, a reduction, indexing)";
  }
  return "?";
}

// The note under the title: budget, backend, the fast_p definition.
std::vector<std::string> note_lines(const table_notes& notes) {
  std::vector<std::string> lines;
  if (notes.budget > 0) {
    lines.push_back("Budget: " + std::to_string(notes.budget) +
                    " evaluations per operator and method (failures included).");
  }
  if (notes.backend == "sim") {
    lines.push_back("Latencies are SIMULATED by the sim backend (device profile " +
                    (notes.profile_name.empty() ? std::string("?") : notes.profile_name) +
                    "), not hardware measurements.");
  } else if (!notes.backend.empty()) {
    lines.push_back("Latencies measured on backend " + notes.backend +
                    (notes.profile_name.empty() ? std::string() : " (" + notes.profile_name + ")") + ".");
  }
  lines.push_back("Speedup = reference latency / best latency; geomean = geometric mean over operators; "
                  "fast_p = share of operators with speedup strictly greater than p.");
  return lines;
}

std::vector<std::string> header(const std::vector<method_summary>& rows) {
  std::vector<std::string> h{"Method", "Operators", "Geomean speedup"};
  if (!rows.empty()) {
    for (double p : rows.front().thresholds) h.push_back(threshold_label(p));
  }
  h.push_back("Evaluations");
  h.push_back("Failures");
  return h;
}

std::string geomean_cell(const method_summary& s) {
  if (!s.geomean) return "-";
  std::string c = fmt("%.3fx", *s.geomean);
  if (s.seeds > 1 && s.geomean_min && s.geomean_max) {
    c += " (" + fmt("%.3f", *s.geomean_min) + "-" + fmt("%.3f", *s.geomean_max) + ", " + std::to_string(s.seeds) + " seeds)";
  }
  return c;
}

std::vector<std::string> cells(const method_summary& s, const table_notes& notes) {
  std::vector<std::string> c{label_of(s.method, notes), std::to_string(s.operators), geomean_cell(s)};
  for (const auto& f : s.fast) c.push_back(f ? fmt("%.1f%%", *f * 100.0) : std::string("-"));
  c.push_back(std::to_string(s.evaluations));
  c.push_back(std::to_string(s.failures));
  return c;
}

// Groups in order, each with its rows (groups no operator belongs to are skipped, except all).
std::vector<std::pair<group, std::vector<const method_summary*>>> by_group(const std::vector<method_summary>& rows) {
  std::vector<std::pair<group, std::vector<const method_summary*>>> out;
  for (group g : {group::all, group::seeded, group::unseeded, group::level1, group::level2, group::level3}) {
    std::vector<const method_summary*> in;
    std::size_t n = 0;
    for (const auto& r : rows) {
      if (r.subset != g) continue;
      in.push_back(&r);
      n = std::max(n, r.operators);
    }
    if (in.empty() || (n == 0 && g != group::all)) continue;
    out.emplace_back(g, std::move(in));
  }
  return out;
}

// "ours leads the best other method by d; the spread of ours over its seeds is w", when `ours`
// has a row in the group and another method does too.
std::string lead_line(const std::vector<const method_summary*>& in, const table_notes& notes) {
  const method_summary* ours = nullptr;
  const method_summary* best = nullptr;
  for (const auto* s : in) {
    if (!s->geomean) continue;
    if (s->method == notes.ours) {
      ours = s;
    } else if (best == nullptr || *s->geomean > *best->geomean) {
      best = s;
    }
  }
  if (ours == nullptr || best == nullptr) return {};
  const double lead = *ours->geomean - *best->geomean;
  std::string line = label_of(ours->method, notes) + (lead >= 0 ? " leads " : " trails ") + "the best other method (" +
                     label_of(best->method, notes) + ", " + fmt("%.3fx", *best->geomean) + ") by " + fmt("%.3f", std::abs(lead));
  if (ours->seeds > 1 && best->seeds > 1) {
    const double spread = std::max(*ours->geomean_max - *ours->geomean_min, *best->geomean_max - *best->geomean_min);
    line += "; the larger spread of the two over their seeds is " + fmt("%.3f", spread) +
            (lead > spread ? ": a lead larger than the spread." : ": NOT a lead larger than the spread.");
  } else {
    line += " (one seed: no spread measured).";
  }
  return line;
}

}  // namespace

std::string render_markdown(const std::vector<method_summary>& rows, const table_notes& notes) {
  std::string out = "# " + notes.title + "\n\n";
  for (const auto& l : note_lines(notes)) out += l + "\n";
  const auto h = header(rows);
  for (const auto& [g, in] : by_group(rows)) {
    out += "\n## " + group_heading(g) + "\n\n|";
    for (const auto& c : h) out += " " + c + " |";
    out += "\n|";
    for (std::size_t i = 0; i < h.size(); ++i) out += i == 0 ? "---|" : "---:|";
    out += "\n";
    for (const auto* s : in) {
      out += "|";
      for (const auto& c : cells(*s, notes)) out += " " + c + " |";
      out += "\n";
    }
    const std::string lead = lead_line(in, notes);
    if (!lead.empty()) out += "\n" + lead + "\n";
  }
  return out;
}

std::string render_per_operator_markdown(const std::vector<operator_record>& records,
                                         const std::vector<std::string>& methods, const table_notes& notes) {
  std::vector<std::string> ops;
  std::map<std::pair<std::string, std::string>, const operator_record*> at;
  std::map<std::string, bool> seeded;
  for (const auto& r : records) {
    if (!seeded.count(r.op)) ops.push_back(r.op);
    seeded[r.op] = r.seeded;
    at[{r.op, r.method}] = &r;
  }
  std::string out = "| Operator | Seeded |";
  for (const auto& m : methods) out += " " + label_of(m, notes) + " |";
  out += "\n|---|---|";
  for (std::size_t i = 0; i < methods.size(); ++i) out += "---:|";
  out += "\n";
  for (const auto& op : ops) {
    // Compared as printed (three decimals), so two figures that read the same are both the best.
    std::vector<std::string> shown;
    std::string best;
    long long best_milli = -1;
    for (const auto& m : methods) {
      auto it = at.find({op, m});
      shown.push_back(it == at.end() ? std::string("-") : fmt("%.3fx", it->second->speedup));
      if (it != at.end() && std::llround(it->second->speedup * 1000.0) > best_milli) {
        best_milli = std::llround(it->second->speedup * 1000.0);
        best = shown.back();
      }
    }
    out += "| " + op + " | " + (seeded[op] ? "yes" : "no") + " |";
    for (const auto& c : shown) out += " " + (c == best ? "**" + c + "**" : c) + " |";
    out += "\n";
  }
  return out;
}

std::vector<operator_record> common_operators(const std::vector<operator_record>& records,
                                              const std::vector<std::string>& methods) {
  std::map<std::string, std::set<std::string>> has;
  for (const auto& r : records) has[r.op].insert(r.method);
  std::vector<operator_record> out;
  for (const auto& r : records) {
    const auto& h = has[r.op];
    const bool all = std::all_of(methods.begin(), methods.end(), [&h](const std::string& m) { return h.count(m) != 0; });
    if (all && std::find(methods.begin(), methods.end(), r.method) != methods.end()) out.push_back(r);
  }
  return out;
}

std::string render_text(const std::vector<method_summary>& rows, const table_notes& notes) {
  std::string out = notes.title + "\n";
  for (const auto& l : note_lines(notes)) out += l + "\n";
  const auto h = header(rows);
  for (const auto& [g, in] : by_group(rows)) {
    std::vector<std::vector<std::string>> table{h};
    for (const auto* s : in) table.push_back(cells(*s, notes));
    std::vector<std::size_t> width(h.size(), 0);
    for (const auto& row : table) {
      for (std::size_t i = 0; i < row.size() && i < width.size(); ++i) width[i] = std::max(width[i], row[i].size());
    }
    out += "\n" + group_heading(g) + "\n";
    for (const auto& row : table) {
      std::string line;
      for (std::size_t i = 0; i < row.size() && i < width.size(); ++i) {
        const std::string pad(width[i] - row[i].size(), ' ');
        // The method column reads left-aligned, numbers right-aligned.
        line += (i == 0 ? row[i] + pad : pad + row[i]) + (i + 1 < row.size() ? "  " : "");
      }
      while (!line.empty() && line.back() == ' ') line.pop_back();
      out += line + "\n";
    }
    const std::string lead = lead_line(in, notes);
    if (!lead.empty()) out += lead + "\n";
  }
  return out;
}

nlohmann::json to_json(const operator_record& r) {
  nlohmann::json j = {{"operator", r.op},
                      {"method", r.method},
                      {"seeded", r.seeded},
                      {"base_ok", r.base_ok},
                      {"base_us", r.base_us},
                      {"best_us", r.best_us},
                      {"speedup", r.speedup},
                      {"evaluations", r.evaluations},
                      {"failures", r.failures},
                      {"memo_hits", r.memo_hits},
                      {"suspects", r.suspects},
                      {"accepted", r.accepted},
                      {"stop_reason", r.stop_reason},
                      {"backend", r.backend},
                      {"profile", r.profile_name},
                      {"seed", r.seed},
                      {"level", r.level},
                      {"trajectory", r.curve}};
  j["verified"] = r.verified ? nlohmann::json(*r.verified) : nlohmann::json(nullptr);
  return j;
}

operator_record record_from_json(const nlohmann::json& j) {
  try {
    operator_record r;
    r.op = j.at("operator").get<std::string>();
    r.method = j.at("method").get<std::string>();
    r.seeded = j.at("seeded").get<bool>();
    r.base_ok = j.at("base_ok").get<bool>();
    r.base_us = j.at("base_us").get<double>();
    r.best_us = j.at("best_us").get<double>();
    r.speedup = j.at("speedup").get<double>();
    r.evaluations = j.at("evaluations").get<std::size_t>();
    r.failures = j.at("failures").get<std::size_t>();
    r.memo_hits = j.value("memo_hits", std::size_t{0});
    r.suspects = j.value("suspects", std::size_t{0});
    r.accepted = j.value("accepted", std::size_t{0});
    r.stop_reason = j.value("stop_reason", std::string());
    r.backend = j.value("backend", std::string());
    r.profile_name = j.value("profile", std::string());
    r.seed = j.value("seed", std::uint64_t{1});
    r.level = j.value("level", 0);
    r.curve = j.at("trajectory").get<std::vector<double>>();
    if (j.contains("verified") && j["verified"].is_boolean()) r.verified = j["verified"].get<bool>();
    return r;
  } catch (const nlohmann::json::exception& e) {
    throw aopt::error(ec::invalid_spec, std::string("bench record: ") + e.what());
  }
}

nlohmann::json to_json(const method_summary& s) {
  nlohmann::json fast = nlohmann::json::object();
  for (std::size_t i = 0; i < s.thresholds.size() && i < s.fast.size(); ++i) {
    fast[threshold_label(s.thresholds[i])] = s.fast[i] ? nlohmann::json(*s.fast[i]) : nlohmann::json(nullptr);
  }
  return {{"method", s.method},
          {"group", to_string(s.subset)},
          {"operators", s.operators},
          {"geomean", s.geomean ? nlohmann::json(*s.geomean) : nlohmann::json(nullptr)},
          {"seeds", s.seeds},
          {"geomean_min", s.geomean_min ? nlohmann::json(*s.geomean_min) : nlohmann::json(nullptr)},
          {"geomean_max", s.geomean_max ? nlohmann::json(*s.geomean_max) : nlohmann::json(nullptr)},
          {"fast_p", fast},
          {"evaluations", s.evaluations},
          {"failures", s.failures}};
}

nlohmann::json bench_json(const std::vector<operator_record>& records, const std::vector<method_summary>& rows,
                          const table_notes& notes) {
  nlohmann::json n = {{"title", notes.title},
                      {"budget", notes.budget},
                      {"backend", notes.backend},
                      {"profile", notes.profile_name},
                      {"simulated", notes.backend == "sim"},
                      {"fast_p_definition", "share of operators with speedup strictly greater than p"}};
  nlohmann::json summary = nlohmann::json::array();
  for (const auto& s : rows) summary.push_back(to_json(s));
  nlohmann::json ops = nlohmann::json::array();
  for (const auto& r : records) ops.push_back(to_json(r));
  return {{"notes", n}, {"summary", summary}, {"operators", ops}};
}

}  // namespace aopt::bench
