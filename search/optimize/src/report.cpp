#include "aopt/optimize/report.h"

#include <cstdio>
#include <sstream>

namespace aopt::optimize {

namespace {

std::string fmt_us(double us) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.2f", us);
  return buf;
}
std::string fmt_x(double x) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.3fx", x);
  return buf;
}

// The profile fields worth a table row, in this order.
const char* const kProfileFields[] = {"Task Duration(us)", "aiv_time(us)",     "aiv_vec_ratio",
                                      "aiv_scalar_ratio",  "aiv_mte2_ratio",   "aiv_mte3_ratio",
                                      "Block Dim",         "GM_to_UB_datas(KB)", "UB_to_GM_datas(KB)",
                                      "ub_bytes"};

std::string cell(const nlohmann::json& j, const char* key) {
  if (!j.is_object() || !j.contains(key)) return "-";
  const auto& v = j.at(key);
  if (v.is_number_float()) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.4g", v.get<double>());
    return buf;
  }
  if (v.is_string()) return v.get<std::string>();
  return v.dump();
}

}  // namespace

std::string progress_line(const trajectory_point& p) {
  char head[160];
  std::snprintf(head, sizeof head, "  [%3zu] r%zu %-6s %-16s %10s best %10.2f us", p.evaluations, p.round + 1,
                p.stage.c_str(), p.status.c_str(),
                p.latency_us ? (fmt_us(*p.latency_us) + " us").c_str() : "-", p.best_us);
  std::string out = head;
  if (p.accepted) out += "  ACCEPTED";
  if (p.memo) out += "  (repeat, free)";
  return out + "  " + p.proposal.substr(0, 90);
}

nlohmann::json to_json(const optimize_result& r) {
  nlohmann::json traj = nlohmann::json::array();
  for (const auto& p : r.trajectory) traj.push_back(to_json(p));
  nlohmann::json changes = nlohmann::json::array();
  for (const auto& c : r.changes) {
    changes.push_back({{"round", c.round},
                       {"stage", c.stage},
                       {"title", c.title},
                       {"rationale", c.rationale},
                       {"experience_ids", c.experience_ids},
                       {"diff", c.diff},
                       {"before_us", c.before_us},
                       {"after_us", c.after_us},
                       {"speedup", c.after_us > 0 ? c.before_us / c.after_us : 0.0},
                       {"profile_before", c.profile_before},
                       {"profile_after", c.profile_after}});
  }
  nlohmann::json rounds = nlohmann::json::array();
  for (const auto& s : r.rounds) {
    rounds.push_back({{"round", s.round},
                      {"stage1_stop", s.stage1_stop},
                      {"stage2_stop", s.stage2_stop},
                      {"diagnoses", s.diagnoses},
                      {"best_us_after", s.best_us_after}});
  }
  std::vector<std::string> changed_files;
  for (const auto& [p, c] : r.best_files) {
    auto it = r.base_files.find(p);
    if (it == r.base_files.end() || it->second != c) changed_files.push_back(p);
  }
  return {{"engine", r.engine},
          {"base_us", r.base_us},
          {"best_us", r.best_us},
          {"speedup", r.speedup},
          {"base", to_json(r.base)},
          {"best", r.best ? to_json(*r.best) : nlohmann::json()},
          {"verification", r.verification ? to_json(*r.verification) : nlohmann::json()},
          {"evaluations", r.evaluations},
          {"memo_hits", r.memo_hits},
          {"failures", r.failures},
          {"screened", r.screened},
          {"tiling_variants", {{"unbuilt", r.unbuilt_variants}, {"built", r.built_variants}, {"built_why", r.built_why}}},
          {"suspects", r.suspects},
          {"stop_reason", r.stop_reason},
          {"budget_unused", {{"evaluations", r.budget_unused}, {"why", r.budget_unused_why}}},
          {"warnings", r.warnings},
          {"time", {{"total_s", r.time.total_s},
                    {"engine_s", r.time.engine_s},
                    {"retrieve_s", r.time.retrieve_s},
                    {"evaluate_s", r.time.evaluate_s},
                    {"evaluator_s", r.time.evaluator_s},
                    {"evaluated", r.time.evaluated}}},
          {"changed_files", changed_files},
          {"changes", changes},
          {"rounds", rounds},
          {"trajectory", traj}};
}

nlohmann::json report_json(const optimize_result& r, const report_context& ctx) {
  const auto& c = ctx.config;
  return {{"version", 1},
          {"operator", ctx.op_dir},
          {"output", ctx.out_dir},
          {"backend", ctx.backend},
          {"simulated", ctx.backend != "cann"},
          {"device_profile", ctx.profile},
          {"seed", ctx.seed},
          {"command", ctx.command},
          {"wall_seconds", ctx.wall_seconds},
          {"config", to_json(c)},
          {"engine_usage", ctx.engine_usage},
          {"result", to_json(r)}};
}

std::string report_markdown(const optimize_result& r, const report_context& ctx) {
  std::ostringstream o;
  const bool sim = ctx.backend != "cann";
  const std::string unit = sim ? " µs (simulated)" : " µs (measured)";
  o << "# aopt optimize: " << ctx.op_dir << "\n\n";
  if (sim) {
    o << "> All latencies are **simulated** by the `sim` backend (device profile `" << ctx.profile
      << "`), not measured on hardware.\n\n";
  } else {
    o << "> All latencies are **measured** on an NPU by the `cann` backend: the median of repeated timed "
         "launches; an accepted change beat the best beyond the 99% interval of both, confirmed by measuring "
         "both again (docs/cann.md, \"Measurement\").\n\n";
  }
  o << "| | |\n|---|---|\n";
  o << "| speedup | **" << fmt_x(r.speedup) << "** |\n";
  o << "| base latency | " << fmt_us(r.base_us) << unit << " |\n";
  o << "| best latency | " << fmt_us(r.best_us) << unit << " |\n";
  if (r.best && r.best->bound_us) {
    o << "| roofline bound | " << fmt_us(*r.best->bound_us) << unit << " (best / bound = "
      << fmt_x(r.best_us / *r.best->bound_us) << ") |\n";
  }
  o << "| engine | " << r.engine << " (seed " << ctx.seed << ") |\n";
  o << "| evaluations | " << r.evaluations << " of budget " << ctx.config.budget << " (" << r.failures
    << " failed, " << r.suspects << " suspect, " << r.memo_hits << " repeats answered free) |\n";
  o << "| stopped | " << r.stop_reason << " |\n";
  if (r.budget_unused > 0) {
    o << "| unused budget | " << r.budget_unused << " of " << ctx.config.budget << ": " << r.budget_unused_why << " |\n";
  }
  for (const auto& w : r.warnings) o << "| warning | " << w << " |\n";
  if (r.verification) {
    o << "| fresh-input check | " << (r.verification->ok ? "passed" : "failed: " + std::string(to_string(r.verification->status))) << " |\n";
  }
  if (!ctx.out_dir.empty()) o << "| output | `" << ctx.out_dir << "` (drop-in, same layout) |\n";
  o << "| wall time | " << fmt_us(ctx.wall_seconds) << " s (search " << fmt_us(r.time.total_s) << " s: waiting for "
    << r.time.evaluated << " evaluations " << fmt_us(r.time.evaluate_s) << " s, their evaluators' own time "
    << fmt_us(r.time.evaluator_s) << " s; engine " << fmt_us(r.time.engine_s) << " s) |\n";
  if (!ctx.command.empty()) o << "\nReproduce: `" << ctx.command << "`\n";

  o << "\n## Accepted changes\n\n";
  if (r.changes.empty()) o << "None: no candidate beat the base within the budget.\n";
  for (std::size_t i = 0; i < r.changes.size(); ++i) {
    const auto& c = r.changes[i];
    o << "### " << (i + 1) << ". " << c.title << "\n\n";
    o << "- stage: " << (c.stage == "tiling" ? "I (tiling)" : "II (kernel)") << ", round " << (c.round + 1) << "\n";
    o << "- effect: " << fmt_us(c.before_us) << " -> " << fmt_us(c.after_us) << unit << " ("
      << fmt_x(c.after_us > 0 ? c.before_us / c.after_us : 0) << ")\n";
    o << "- why: " << c.rationale << "\n";
    if (!c.experience_ids.empty()) {
      o << "- experience:";
      for (const auto& id : c.experience_ids) o << " `" << id.substr(0, 12) << "`";
      o << "\n";
    }
    o << "\n```diff\n" << c.diff << (c.diff.empty() || c.diff.back() == '\n' ? "" : "\n") << "```\n\n";
  }

  // A change to a file the package shares with others in its tree (aopt_shared/...).
  std::vector<std::string> shared_changed;
  for (const auto& [p, c] : r.best_files) {
    auto it = r.base_files.find(p);
    if (p.starts_with("aopt_shared/") && (it == r.base_files.end() || it->second != c)) shared_changed.push_back(p);
  }
  if (!shared_changed.empty()) {
    o << "**Shared files changed.** These are files of the tree the package's build reads, which other "
         "operators may share:";
    for (const auto& p : shared_changed) o << " `" << p.substr(std::string("aopt_shared/").size()) << "`";
    o << ". The optimized package carries its own copy of every shared file (under aopt_shared/, with "
         "aopt_shared/package_path), so `aopt eval` on it builds what was measured without the tree. To "
         "install it in a tree, copy the changed file into the package and point its CMakeLists.txt at the "
         "copy, or review the change for the operators that share the file.\n\n";
  }

  o << "## Profile before and after (timed case)\n\n| field | base | best |\n|---|---|---|\n";
  const nlohmann::json empty = nlohmann::json::object();
  const auto& before = r.base.profile;
  const auto& after = r.best ? r.best->profile : empty;
  for (const char* f : kProfileFields) o << "| " << f << " | " << cell(before, f) << " | " << cell(after, f) << " |\n";

  if (ctx.engine_usage.is_object() && ctx.engine_usage.contains("client")) {
    o << "\n## Model usage (" << r.engine << " engine)\n\n";
    if (ctx.engine_usage.value("replayed", false)) o << "Answers replayed from a recording; no model was contacted.\n\n";
    o << "| role | requests | failed | retries | prompt tokens | completion tokens | seconds |\n|---|---|---|---|---|---|---|\n";
    for (const auto& [role, u] : ctx.engine_usage["client"].items()) {
      o << "| " << role << " | " << u.value("requests", 0) << " | " << u.value("failures", 0) << " | "
        << u.value("retries", 0) << " | " << u.value("prompt_tokens", 0) << " | " << u.value("completion_tokens", 0)
        << " | " << fmt_us(u.value("seconds", 0.0)) << " |\n";
    }
    if (ctx.engine_usage.contains("failures") && !ctx.engine_usage["failures"].empty()) {
      o << "\nFailed proposals by kind: ";
      bool first = true;
      for (const auto& [role, kinds] : ctx.engine_usage["failures"].items()) {
        for (const auto& [kind, n] : kinds.items()) {
          o << (first ? "" : ", ") << role << "/" << kind << " " << n.dump();
          first = false;
        }
      }
      o << "\n";
    }
  }
  o << "\n## Rounds\n\n";
  for (const auto& s : r.rounds) {
    o << "- round " << (s.round + 1) << ": best " << fmt_us(s.best_us_after) << " µs";
    if (!s.stage1_stop.empty()) o << "; Stage I: " << s.stage1_stop;
    if (!s.stage2_stop.empty()) o << "; Stage II: " << s.stage2_stop;
    o << "\n";
    for (const auto& d : s.diagnoses) o << "  - diagnosis: " << d << "\n";
  }

  o << "\n## Trajectory\n\n| # | budget | round | stage | status | latency (µs) | best (µs) | note | proposal |\n"
       "|---|---|---|---|---|---|---|---|---|\n";
  for (const auto& p : r.trajectory) {
    std::string note = p.accepted ? "accepted" : "";
    if (p.memo) note += note.empty() ? "repeat (free)" : ", repeat";
    if (p.suspect) note += note.empty() ? "suspect" : ", suspect";
    std::string prop = p.proposal;
    for (auto& ch : prop) {
      if (ch == '|' || ch == '\n') ch = ' ';
    }
    o << "| " << p.index << " | " << p.evaluations << " | " << (p.round + 1) << " | " << p.stage << " | " << p.status
      << " | " << (p.latency_us ? fmt_us(*p.latency_us) : "-") << " | " << fmt_us(p.best_us) << " | " << note << " | "
      << prop << " |\n";
  }
  // Why each failed candidate failed (the evaluator's first line), so a reader need not rerun it.
  std::size_t failed = 0;
  for (const auto& p : r.trajectory) {
    if (p.diagnostic.empty() || p.memo) continue;
    if (failed++ == 0) o << "\n## Why candidates failed\n\n";
    if (failed > 60) {
      o << "- ... (the rest in report.json, `result.trajectory[].diagnostic`)\n";
      break;
    }
    std::string why = p.diagnostic;
    for (auto& ch : why) {
      if (ch == '\n') ch = ' ';
    }
    o << "- #" << p.index << " " << p.status << ": " << why << "\n";
  }
  return o.str();
}

}  // namespace aopt::optimize
