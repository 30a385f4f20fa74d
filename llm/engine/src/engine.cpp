#include "aopt/llm/engine.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <exception>
#include <utility>

#include "aopt/common/error.h"
#include "aopt/common/sha256.h"
#include "aopt/motifs/edit.h"
#include "aopt/search/diagnose.h"

namespace aopt::llm {

void llm_engine_options::validate() const {
  if (proposals == 0) throw aopt::error(ec::invalid_argument, "llm engine options: proposals must be at least 1");
  if (max_code_bytes < 1024) {
    throw aopt::error(ec::invalid_argument, "llm engine options: max_code_bytes must be at least 1024 (the prompts show code)");
  }
  if (limits.core_count < 1 || limits.ub_bytes < 1) {
    throw aopt::error(ec::invalid_argument, "llm engine options: device limits (core_count, ub_bytes) must be positive");
  }
}

namespace {

constexpr std::string_view start_marker = "// EVOLVE-BLOCK-START";
constexpr std::string_view end_marker = "// EVOLVE-BLOCK-END";

std::string files_key(const search::file_map& files) {
  common::sha256 h;
  for (const auto& [p, c] : files) h.field(p).field(c);
  return h.finish_hex();
}

std::string fence_lang(const std::string& path) {
  return path.ends_with(".json") ? "json" : (path.ends_with(".md") ? "markdown" : "cpp");
}

// The files as the prompts show them: path line, fenced content (cut at `limit` bytes overall).
std::string files_text(const search::file_map& files, std::size_t limit) {
  std::string out;
  for (const auto& [p, c] : files) {
    out += p + "\n```" + fence_lang(p) + "\n";
    if (out.size() + c.size() > limit) {
      const std::size_t room = limit > out.size() ? limit - out.size() : 0;
      out += c.substr(0, room);
      out += "\n// ... (cut: the file has " + std::to_string(c.size()) + " bytes)\n```\n\n";
      continue;
    }
    out += c;
    if (!c.empty() && c.back() != '\n') out += '\n';
    out += "```\n\n";
  }
  return out;
}

std::string classes_text() {
  static const std::map<search::bottleneck_class, std::string> what = {
      {search::bottleneck_class::mte2_bound, "GM->UB copy-in pipe (MTE2) dominates"},
      {search::bottleneck_class::mte3_bound, "UB->GM copy-out pipe (MTE3) dominates"},
      {search::bottleneck_class::vector_bound, "vector pipe dominates"},
      {search::bottleneck_class::scalar_bound, "scalar pipe (element loops, address arithmetic) dominates"},
      {search::bottleneck_class::serialized_pipes, "pipes take turns instead of overlapping (barriers, single buffer)"},
      {search::bottleneck_class::load_imbalance, "cores finish at different times, or cores are left idle"},
      {search::bottleneck_class::launch_bound, "launch/head overhead is a large share of the task"},
      {search::bottleneck_class::bank_conflict, "UB bank-group conflicts slow the vector pipe"},
      {search::bottleneck_class::ub_underused, "MTE-bound with a small UB footprint: copies too small"},
  };
  std::string out;
  for (auto c : search::all_bottleneck_classes()) out += std::string("- ") + search::to_string(c) + ": " + what.at(c) + "\n";
  return out;
}

std::size_t line_start(const std::string& s, std::size_t off) {
  if (off == 0) return 0;
  const std::size_t p = s.rfind('\n', off - 1);
  return p == std::string::npos ? 0 : p + 1;
}
std::size_t next_line(const std::string& s, std::size_t off) {
  const std::size_t p = s.find('\n', off);
  return p == std::string::npos ? s.size() : p + 1;
}
std::size_t line_number(const std::string& s, std::size_t off) {
  return static_cast<std::size_t>(std::count(s.begin(), s.begin() + static_cast<std::ptrdiff_t>(std::min(off, s.size())), '\n')) + 1;
}

std::string_view trimmed(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front())) != 0) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back())) != 0) s.remove_suffix(1);
  return s;
}

// Which marker a line is: 1 start, 2 end, 0 neither ("//EVOLVE-BLOCK-START" and trailing words accepted).
int marker_kind(std::string_view line) {
  std::string_view t = trimmed(line);
  if (!t.starts_with("//")) return 0;
  t = trimmed(t.substr(2));
  if (t.starts_with("EVOLVE-BLOCK-START")) return 1;
  if (t.starts_with("EVOLVE-BLOCK-END")) return 2;
  return 0;
}

struct marker_scan {
  std::string stripped;            // the text without marker lines
  std::size_t begin = 0, end = 0;  // region in `stripped`: after the START line, up to the END line
  std::string problem;             // empty when exactly one START precedes exactly one END
  std::size_t prefix_end = 0;      // in the marked text: end of the START line
  std::size_t suffix_begin = 0;    // in the marked text: start of the END line
};

marker_scan scan_markers(const std::string& text) {
  marker_scan m;
  std::size_t starts = 0, ends = 0, pos = 0;
  bool order_ok = true;
  while (pos < text.size()) {
    const std::size_t eol = next_line(text, pos);
    const int k = marker_kind(std::string_view(text).substr(pos, eol - pos));
    if (k == 1) {
      ++starts;
      if (ends > 0) order_ok = false;
      m.begin = m.stripped.size();
      m.prefix_end = eol;
    } else if (k == 2) {
      ++ends;
      if (starts == 0) order_ok = false;
      m.end = m.stripped.size();
      m.suffix_begin = pos;
    } else {
      m.stripped.append(text, pos, eol - pos);
    }
    pos = eol;
  }
  if (starts == 0 && ends == 0) m.problem = "no EVOLVE-BLOCK markers";
  else if (starts != 1 || ends != 1) {
    m.problem = std::to_string(starts) + " EVOLVE-BLOCK-START and " + std::to_string(ends) +
                " EVOLVE-BLOCK-END markers (exactly one of each is expected)";
  } else if (!order_ok || m.end < m.begin) {
    m.problem = "EVOLVE-BLOCK-END comes before EVOLVE-BLOCK-START";
  }
  return m;
}

// Offset in `original` of the character that is the `count`-th non-whitespace one (or the end).
std::size_t offset_of_nonspace(const std::string& original, std::size_t count) {
  std::size_t seen = 0;
  for (std::size_t i = 0; i < original.size(); ++i) {
    if (std::isspace(static_cast<unsigned char>(original[i])) != 0) continue;
    if (seen == count) return i;
    ++seen;
  }
  return original.size();
}
std::size_t nonspace_before(const std::string& s, std::size_t off) {
  return static_cast<std::size_t>(std::count_if(s.begin(), s.begin() + static_cast<std::ptrdiff_t>(off),
                                                [](char c) { return std::isspace(static_cast<unsigned char>(c)) == 0; }));
}

std::string value_text(const stage1::tunable& t, std::int64_t v) {
  if (!t.spellings.empty() && v >= 0 && static_cast<std::size_t>(v) < t.spellings.size()) return t.spellings[static_cast<std::size_t>(v)];
  return std::to_string(v);
}

std::string tunables_text(const stage1::tiling_template& t) {
  if (t.tunables.empty()) return "(none found: only logic rewrites are possible)\n";
  std::string out;
  for (const auto& tu : t.tunables) {
    out += "- " + tu.name + ": " + stage1::to_string(tu.kind) + ", domain " + tu.dom.describe() + ", value " +
           value_text(tu, tu.value) + (tu.kernel_linked ? " (also a kernel constant: changed together)" : "") + "; " +
           tu.origin + "\n";
  }
  return out;
}

// The OpDef registration (the operator's inputs, outputs, dtypes and attributes), or a note.
std::string signature_text(const stage1::synthesis_input& in) {
  for (const auto& f : in.host_files) {
    const auto at = f.content.find("public OpDef");
    if (at == std::string::npos) continue;
    const std::size_t b = line_start(f.content, at);
    const std::size_t brace = f.content.find('{', at);
    if (brace == std::string::npos) continue;
    int depth = 0;
    for (std::size_t i = brace; i < f.content.size(); ++i) {
      if (f.content[i] == '{') ++depth;
      if (f.content[i] == '}' && --depth == 0) return f.path + ":\n" + f.content.substr(b, next_line(f.content, i) - b);
    }
  }
  return "(no OpDef registration found in op_host/: infer the signature from the code)\n";
}

std::string kernel_constants(const stage1::synthesis_input& in) {
  std::string out;
  for (const auto& f : in.kernel_files) {
    std::size_t pos = 0;
    while (pos < f.content.size()) {
      const std::size_t eol = next_line(f.content, pos);
      const std::string_view l = trimmed(std::string_view(f.content).substr(pos, eol - pos));
      if (l.starts_with("constexpr") || l.starts_with("#define") || l.starts_with("const ")) {
        out += f.path + ": " + std::string(l) + "\n";
      }
      pos = eol;
    }
  }
  return out.empty() ? "(none)\n" : out;
}

// The first JSON value of an answer: a ```json block, else the first balanced {...} or [...].
std::optional<nlohmann::json> extract_json(const std::string& answer) {
  auto try_parse = [](std::string_view s) -> std::optional<nlohmann::json> {
    auto j = nlohmann::json::parse(s.begin(), s.end(), nullptr, false);
    if (j.is_discarded()) return std::nullopt;
    return j;
  };
  const auto fence = answer.find("```json");
  if (fence != std::string::npos) {
    const std::size_t b = next_line(answer, fence);
    const std::size_t e = answer.find("```", b);
    if (e != std::string::npos) {
      if (auto j = try_parse(std::string_view(answer).substr(b, e - b))) return j;
    }
  }
  for (std::size_t i = 0; i < answer.size(); ++i) {
    if (answer[i] != '{' && answer[i] != '[') continue;
    // The matching close, strings skipped.
    int depth = 0;
    bool in_str = false;
    for (std::size_t k = i; k < answer.size(); ++k) {
      const char c = answer[k];
      if (in_str) {
        if (c == '\\') ++k;
        else if (c == '"') in_str = false;
        continue;
      }
      if (c == '"') in_str = true;
      else if (c == '{' || c == '[') ++depth;
      else if ((c == '}' || c == ']') && --depth == 0) {
        if (auto j = try_parse(std::string_view(answer).substr(i, k - i + 1))) return j;
        break;
      }
    }
  }
  return std::nullopt;
}

std::string string_field(const nlohmann::json& j, std::initializer_list<const char*> keys) {
  for (const char* k : keys) {
    auto it = j.find(k);
    if (it != j.end() && it->is_string()) return std::string(trimmed(it->get<std::string>()));
  }
  return {};
}

std::string cut(std::string s, std::size_t n) {
  if (s.size() > n) s = s.substr(0, n) + " ...";
  return s;
}

std::string one_line(std::string s) {
  for (char& c : s) {
    if (c == '\n') c = ' ';
  }
  return std::string(trimmed(s));
}

// "all 3 proposals failed: a; b; c"
aopt::engine_failure all_failed(role r, const std::vector<std::string>& reasons, std::size_t sections) {
  std::string why = std::string(to_string(r)) + ": ";
  if (sections <= 1 && reasons.size() == 1) return aopt::engine_failure{why + reasons.front()};
  why += "all " + std::to_string(sections) + " proposal(s) failed: ";
  for (std::size_t i = 0; i < reasons.size() && i < 6; ++i) why += (i > 0 ? "; " : "") + reasons[i];
  if (reasons.size() > 6) why += "; ...";
  return aopt::engine_failure{why};
}

// The host file with its evolvable region [begin, end) between the markers the model edits within.
std::string mark_region(const std::string& host, std::size_t begin, std::size_t end) {
  std::string marked = host.substr(0, begin) + std::string(start_marker) + "\n" + host.substr(begin, end - begin);
  if (!marked.empty() && marked.back() != '\n') marked += '\n';
  return marked + std::string(end_marker) + "\n" + host.substr(end);
}

// The history the tiling prompt shows: the best passing variants, the latest failures, then a
// seeded sample of the rest, at most `max_history` in the order they were evaluated.
std::string history_text(const stage1::tiling_template& tmpl, const stage1::stage1_history& history,
                         std::size_t max_history, std::mt19937_64& rng) {
  const auto& entries = history.entries();
  std::vector<std::size_t> shown;
  std::set<std::size_t> chosen;
  auto take = [&](std::size_t i) {
    if (shown.size() < max_history && chosen.insert(i).second) shown.push_back(i);
  };
  for (const auto* e : history.best(max_history / 3 + 1)) take(static_cast<std::size_t>(e - entries.data()));
  for (std::size_t i = entries.size(), k = 0; i-- > 0 && k < max_history / 3 + 1;) {
    if (!entries[i].outcome.ok) {
      take(i);
      ++k;
    }
  }
  std::vector<std::size_t> rest;
  for (std::size_t i = 0; i < entries.size(); ++i) {
    if (chosen.count(i) == 0) rest.push_back(i);
  }
  std::shuffle(rest.begin(), rest.end(), rng);
  for (auto i : rest) take(i);
  std::sort(shown.begin(), shown.end());
  std::string hist;
  for (auto i : shown) {
    const auto& e = entries[i];
    const std::string what = e.values.size() == tmpl.tunables.size() ? tmpl.describe_change(e.values) : e.description;
    hist += "- " + what + (e.op.empty() ? "" : " [" + e.op + "]") + ": " +
            (e.outcome.ok ? "ok, " + std::to_string(e.outcome.latency_us) + " us"
                          : e.outcome.status + (e.outcome.message.empty() ? "" : " (" + cut(one_line(e.outcome.message), 200) + ")")) +
            "\n";
  }
  if (hist.empty()) hist = "(nothing evaluated yet)\n";
  if (entries.size() > shown.size()) {
    hist += "(" + std::to_string(entries.size() - shown.size()) + " more evaluated variants not shown)\n";
  }
  return hist;
}

// What one answer section's edits make of the marked host file: the host file without its
// markers (`text`), or the kind of failure and why.
struct region_edit {
  std::string text;
  std::string kind;  // empty when the edit is usable
  std::string why;
};
region_edit edit_region(const answer_section& sec, const std::string& host_path, const std::string& marked,
                        const std::string& host, const edit_options& opt, parse_checker& parse) {
  const search::file_map editable = {{host_path, marked}};
  auto parsed = parse_edits(sec.body, editable, opt);
  if (parsed.error) return {{}, to_string(parsed.error->kind), parsed.error->reason};
  auto applied = apply_blocks(editable, parsed.blocks, opt);
  if (applied.error) return {{}, to_string(applied.error->kind), applied.error->reason};
  const std::string& edited = applied.files.at(host_path);
  const marker_scan frame = scan_markers(marked);  // what lies outside the region must stay
  const marker_scan m = scan_markers(edited);
  if (!m.problem.empty()) {
    return {{}, "outside_region", host_path + ": the edit broke the evolution markers (" + m.problem + ")"};
  }
  if (edited.compare(0, m.prefix_end, marked, 0, frame.prefix_end) != 0 || m.prefix_end != frame.prefix_end ||
      edited.compare(m.suffix_begin, std::string::npos, marked, frame.suffix_begin, std::string::npos) != 0) {
    return {{}, "outside_region", host_path + ": the edit changes code outside EVOLVE-BLOCK-START/END"};
  }
  if (auto bad = parse.check({{host_path, host}}, {{host_path, m.stripped}}, {host_path})) {
    return {{}, to_string(bad->kind), bad->reason};
  }
  return {m.stripped, {}, {}};
}

// The template assignment an edited host file is when the edit only changed tunables' values
// (synthesizing it again finds every tunable and instantiating those values gives the same
// text); empty for a rewrite of the tiling logic.
stage1::assignment assignment_of(const stage1::tiling_template& tmpl, const std::string& host_path,
                                 const std::string& edited) {
  stage1::synthesis_input resyn;
  for (const auto& f : tmpl.files) {
    if (f.path.starts_with("op_kernel/")) resyn.kernel_files.push_back(f);
    else resyn.host_files.push_back(f);
  }
  for (auto& f : resyn.host_files) {
    if (f.path == host_path) f.content = edited;
  }
  const auto t2 = stage1::synthesize(resyn);
  if (!t2.tmpl) return {};
  stage1::assignment values = tmpl.base();
  for (std::size_t i = 0; i < tmpl.tunables.size(); ++i) {
    const auto j = t2.tmpl->find(tmpl.tunables[i].name);
    if (!j) return {};
    const auto& t2u = t2.tmpl->tunables[*j];
    if (tmpl.tunables[i].spellings.empty()) {
      values[i] = t2u.value;
    } else {
      const std::string sp = value_text(t2u, t2u.value);
      const auto& sps = tmpl.tunables[i].spellings;
      const auto at = std::find(sps.begin(), sps.end(), sp);
      if (at == sps.end()) return {};
      values[i] = at - sps.begin();
    }
  }
  if (tmpl.instantiate(values).at(host_path) != edited) return {};
  return values;
}

}  // namespace

llm_engine::llm_engine(client& c, prompt_library prompts, llm_engine_options opt)
    : client_(c), prompts_(std::move(prompts)), opt_(std::move(opt)), rng_(opt_.seed), parse_(opt_.check_parse) {
  opt_.validate();
  for (role r : prompted_roles()) {
    if (!prompts_.has(r)) {
      throw aopt::error(ec::invalid_argument, std::string("llm engine: no prompt template for role ") + to_string(r));
    }
  }
}

llm_engine::~llm_engine() = default;

aopt::engine_failure llm_engine::fail(role r, std::string kind, std::string reason) {
  failures_.push_back({r, std::move(kind), reason});
  return aopt::engine_failure{std::string(to_string(r)) + ": " + reason};
}

void llm_engine::note_ok(role r, std::size_t n) { ok_by_role_[to_string(r)] += n; }

aopt::outcome<std::string> llm_engine::ask(role r, const std::map<std::string, std::string>& values) {
  chat_request req;
  req.role = r;
  try {
    req.messages = prompts_.render(r, values);
  } catch (const std::exception& e) {
    return fail(r, "prompt", e.what());
  }
  auto got = client_.chat(req);
  if (!got.ok()) return fail(r, "client", got.reason());
  std::string content = got.value().content;
  if (trimmed(content).empty()) return fail(r, "empty_answer", "the model returned an empty answer");
  // A cut-off answer is parsed anyway (complete blocks still count); reasons will say so.
  if (got.value().finish_reason == "length") content += "\n";
  return content;
}

llm_engine::region llm_engine::region_of(const stage1::tiling_template& t) const {
  if (auto it = regions_.find(stage1::template_id(t)); it != regions_.end()) return it->second;
  // The Stage I rule (tiling_template::marked): from the first tunable or the function start
  // to the end of the function, whole lines.
  const std::string& src = t.files.at(0).content;
  std::size_t b = t.function_begin, e = t.function_end;
  for (const auto& tu : t.tunables) {
    for (const auto& oc : tu.occurrences) {
      if (oc.file != 0) continue;
      b = std::min(b, oc.offset);
      e = std::max(e, oc.offset + oc.length);
    }
  }
  return {line_start(src, b), next_line(src, std::min(e, src.size()))};
}

aopt::outcome<stage1::tiling_template> llm_engine::synthesize_template(const stage1::synthesis_input& input) {
  const role r = role::template_synthesis;
  try {
    stage1::synthesis_result syn = stage1::synthesize(input);
    if (!syn.tmpl) return fail(r, "no_tiling_function", syn.error ? syn.error->reason : "template synthesis failed");
    stage1::tiling_template t = std::move(*syn.tmpl);
    const std::string host_path = t.files.at(0).path;
    const std::string& host = t.files[0].content;
    search::file_map host_files;
    for (const auto& f : input.host_files) host_files[f.path] = f.content;
    auto answer = ask(r, {{"signature", signature_text(input)},
                          {"function", t.function_name},
                          {"files", files_text(host_files, opt_.max_code_bytes)},
                          {"kernel_constants", kernel_constants(input)},
                          {"tunables", tunables_text(t)},
                          {"paths", host_path},
                          {"edit_format", edit_format_help(opt_.edits)}});
    if (!answer.ok()) return aopt::engine_failure{answer.reason()};
    const search::file_map editable = {{host_path, host}};
    auto parsed = parse_edits(answer.value(), editable, opt_.edits);
    if (parsed.error) return fail(r, to_string(parsed.error->kind), parsed.error->reason);
    auto applied = apply_blocks(editable, parsed.blocks, opt_.edits);
    if (applied.error) {
      if (applied.error->kind == edit_error::no_change) {
        return fail(r, "markers", host_path + ": the answer leaves the file as it was: no EVOLVE-BLOCK markers were added");
      }
      return fail(r, to_string(applied.error->kind), applied.error->reason);
    }
    const std::string& marked = applied.files.at(host_path);
    const marker_scan m = scan_markers(marked);
    if (!m.problem.empty()) return fail(r, "markers", host_path + ": " + m.problem);
    // Markers only: the code itself must be the original (modulo whitespace, which maps back).
    region reg;
    if (m.stripped == host) {
      reg = {m.begin, m.end};
    } else if (motifs::equal_modulo_whitespace(m.stripped, host)) {
      reg = {line_start(host, offset_of_nonspace(host, nonspace_before(m.stripped, m.begin))),
             line_start(host, offset_of_nonspace(host, nonspace_before(m.stripped, m.end)))};
    } else {
      std::size_t i = 0;
      while (i < host.size() && i < m.stripped.size() && host[i] == m.stripped[i]) ++i;
      return fail(r, "code_changed", host_path + ": the answer changes code (first difference at line " +
                                         std::to_string(line_number(host, i)) + "), not only adds markers");
    }
    if (auto bad = parse_.check(editable, {{host_path, marked}}, {host_path})) {
      return fail(r, to_string(bad->kind), bad->reason);
    }
    const std::size_t total = t.tunables.size();
    std::vector<stage1::tunable> kept;
    std::vector<std::string> dropped;
    for (auto& tu : t.tunables) {
      const bool inside = std::any_of(tu.occurrences.begin(), tu.occurrences.end(), [&](const stage1::occurrence& oc) {
        return oc.file == 0 && oc.offset >= reg.begin && oc.offset + oc.length <= reg.end;
      });
      if (inside) kept.push_back(std::move(tu));
      else dropped.push_back(tu.name);
    }
    if (total > 0 && kept.empty()) {
      std::string names;
      for (const auto& d : dropped) names += (names.empty() ? "" : ", ") + d;
      return fail(r, "no_tunable_in_region", host_path + ": the marked region (lines " + std::to_string(line_number(host, reg.begin)) +
                                                 "-" + std::to_string(line_number(host, reg.end)) + ") holds none of the " +
                                                 std::to_string(total) + " tunables found in " + t.function_name + " (" + names + ")");
    }
    t.tunables = std::move(kept);
    t.notes.push_back("llm (" + client_.model_for(r) + "): evolvable region " + host_path + " lines " +
                      std::to_string(line_number(host, reg.begin)) + "-" + std::to_string(line_number(host, reg.end)));
    for (const auto& d : dropped) t.notes.push_back("tunable " + d + " lies outside the region the model marked: not evolved");
    regions_[stage1::template_id(t)] = reg;
    note_ok(r);
    return t;
  } catch (const std::exception& e) {
    return fail(r, "internal", std::string("internal error: ") + e.what());
  }
}

aopt::outcome<std::vector<stage1::tiling_proposal>> llm_engine::propose_tiling_variants(
    const stage1::tiling_template& tmpl, const stage1::stage1_history& history, std::size_t n) {
  const role r = role::tiling_mutation;
  try {
    if (n == 0) return std::vector<stage1::tiling_proposal>{};
    const std::string key = stage1::template_id(tmpl);
    const std::string host_path = tmpl.files.at(0).path;
    const std::string& host = tmpl.files[0].content;
    const region reg = region_of(tmpl);
    const std::string marked = mark_region(host, reg.begin, reg.end);
    const std::string device = "vector cores: " + std::to_string(opt_.limits.core_count) +
                               ", unified buffer per core: " + std::to_string(opt_.limits.ub_bytes) + " bytes";
    auto answer = ask(r, {{"function", tmpl.function_name},
                          {"region", files_text({{host_path, marked}}, opt_.max_code_bytes)},
                          {"tunables", tunables_text(tmpl)},
                          {"history", history_text(tmpl, history, opt_.max_history, rng_)},
                          {"n", std::to_string(n)},
                          {"device", device},
                          {"edit_format", edit_format_help(opt_.edits)}});
    if (!answer.ok()) return aopt::engine_failure{answer.reason()};

    const stage1::assignment base = tmpl.base();
    const auto base_files = tmpl.instantiate(base);
    auto& offered = offered_[key];
    std::vector<stage1::tiling_proposal> out;
    std::vector<std::string> reasons;
    const auto sections = split_sections(answer.value());
    std::size_t index = 0;
    for (const auto& sec : sections) {
      if (out.size() >= n) break;
      ++index;
      const std::string label = "variant " + std::to_string(index) + (sec.title.empty() ? "" : " (" + sec.title + ")");
      auto reject = [&](std::string kind, const std::string& why) {
        reasons.push_back(label + ": " + why);
        fail(r, std::move(kind), label + ": " + why);
      };
      const region_edit edit = edit_region(sec, host_path, marked, host, opt_.edits, parse_);
      if (!edit.kind.empty()) {
        reject(edit.kind, edit.why);
        continue;
      }
      // A parameter-only change carries its assignment (Stage I dedups and instantiates it).
      stage1::tiling_proposal p;
      p.values = assignment_of(tmpl, host_path, edit.text);
      if (!p.values.empty()) {
        if (auto why = tmpl.check(p.values, opt_.limits)) {
          reject("domain", *why);
          continue;
        }
        if (history.evaluated(p.values)) {
          reject("duplicate", "repeats an evaluated variant (" + tmpl.describe_change(p.values) + ")");
          continue;
        }
        p.files = tmpl.instantiate(p.values);
        p.op = "llm-mutate";
        p.description = tmpl.describe_change(p.values);
        for (std::size_t i = 0; i < p.values.size(); ++i) {
          if (p.values[i] != base[i]) p.changed.push_back(i);
        }
      } else {
        p.files = base_files;
        p.files[host_path] = edit.text;
        p.op = "llm-rewrite";
        p.description = "tiling logic rewrite";
      }
      if (p.files == base_files) {
        reject("no_change", "the edits leave the tiling code as it was");
        continue;
      }
      if (!offered.insert(files_key(p.files)).second) {
        reject("duplicate", "repeats a variant proposed before");
        continue;
      }
      if (!sec.title.empty()) p.description = sec.title + ": " + p.description;
      p.parent = base;
      out.push_back(std::move(p));
    }
    if (out.empty()) return all_failed(r, reasons, sections.size());
    note_ok(r, out.size());
    return out;
  } catch (const std::exception& e) {
    return fail(r, "internal", std::string("internal error: ") + e.what());
  }
}

template <class T, class Make>
aopt::outcome<std::vector<T>> llm_engine::collect(role r, const std::string& answer, const search::file_map& files,
                                                    const std::string& noun, Make make) {
  std::vector<T> out;
  std::vector<std::string> reasons;
  std::set<std::string> seen;
  const auto sections = split_sections(answer);
  std::size_t index = 0;
  for (const auto& sec : sections) {
    if (out.size() >= opt_.proposals) break;
    ++index;
    const std::string label = noun + " " + std::to_string(index) + (sec.title.empty() ? "" : " (" + sec.title + ")");
    auto reject = [&](std::string kind, const std::string& why) {
      reasons.push_back(label + ": " + why);
      fail(r, std::move(kind), label + ": " + why);
    };
    auto applied = edit_files(sec.body, files, opt_.edits, parse_);
    if (applied.error) {
      reject(to_string(applied.error->kind), applied.error->reason);
      continue;
    }
    if (!seen.insert(files_key(applied.files)).second) {
      reject("duplicate", "the same code as an earlier " + noun);
      continue;
    }
    if (std::optional<T> made = make(sec, index, std::move(applied.files), reject)) out.push_back(std::move(*made));
  }
  if (out.empty()) return all_failed(r, reasons, sections.size());
  note_ok(r, out.size());
  return out;
}

aopt::outcome<std::vector<search::deopt_step>> llm_engine::deoptimize(const search::file_map& kernel_files) {
  const role r = role::rewind;
  try {
    auto answer = ask(r, {{"code", files_text(kernel_files, opt_.max_code_bytes)},
                          {"n", std::to_string(opt_.proposals)},
                          {"classes", classes_text()},
                          {"edit_format", edit_format_help(opt_.edits)}});
    if (!answer.ok()) return aopt::engine_failure{answer.reason()};
    return collect<search::deopt_step>(
        r, answer.value(), kernel_files, "step",
        [&](const answer_section& sec, std::size_t, search::file_map edited, const auto& reject) -> std::optional<search::deopt_step> {
          search::deopt_step st;
          st.title = sec.title;
          auto field = [&](const char* k) {
            auto it = sec.fields.find(k);
            return it == sec.fields.end() ? std::string() : it->second;
          };
          st.bottleneck = field("bottleneck");
          st.description = field("description");
          if (st.description.empty()) st.description = one_line(sec.prose);
          if (st.title.empty()) {
            reject("malformed", "no title (a '### Step N: title' heading or a 'Title:' line)");
            return std::nullopt;
          }
          if (st.bottleneck.empty()) {
            reject("malformed", "no 'Bottleneck:' line naming what the step makes worse");
            return std::nullopt;
          }
          if (auto c = search::parse_bottleneck_class(st.bottleneck)) st.bottleneck = search::to_string(*c);
          if (st.description.empty()) st.description = st.title;
          st.before = kernel_files;
          st.after = std::move(edited);
          return st;
        });
  } catch (const std::exception& e) {
    return fail(r, "internal", std::string("internal error: ") + e.what());
  }
}

aopt::outcome<search::experience> llm_engine::distill(const search::deopt_step& step) {
  const role r = role::distillation;
  try {
    if (!step.fast_us || !step.slow_us) {
      return fail(r, "not_measured", "the step has not been measured (fast_us and slow_us are required)");
    }
    const std::string diff = motifs::unified_diff(step.after, step.before);
    if (diff.empty()) return fail(r, "no_change", "the step's files are identical: nothing to distill");
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.3f", *step.slow_us / *step.fast_us);
    auto answer = ask(r, {{"diff", cut(diff, opt_.max_code_bytes)},
                          {"fast_us", std::to_string(*step.fast_us)},
                          {"slow_us", std::to_string(*step.slow_us)},
                          {"slowdown", buf},
                          {"step_title", step.title},
                          {"step_description", step.description},
                          {"step_bottleneck", step.bottleneck},
                          {"classes", classes_text()}});
    if (!answer.ok()) return aopt::engine_failure{answer.reason()};
    const auto j = extract_json(answer.value());
    if (!j || !j->is_object()) {
      return fail(r, "bad_json", "the answer holds no JSON object {title, description, bottleneck}: '" +
                                     cut(one_line(answer.value()), 120) + "'");
    }
    search::experience e;
    e.title = string_field(*j, {"title"});
    e.description = string_field(*j, {"description"});
    e.bottleneck = string_field(*j, {"bottleneck"});
    for (auto [name, value] : {std::pair<const char*, std::string*>{"title", &e.title},
                               {"description", &e.description}, {"bottleneck", &e.bottleneck}}) {
      if (value->empty()) return fail(r, "bad_json", std::string("the JSON object has no string field '") + name + "'");
    }
    nlohmann::json note = {{"model", client_.model_for(r)}};
    if (auto c = search::parse_bottleneck_class(e.bottleneck)) {
      e.bottleneck = search::to_string(*c);
    } else if (search::classify_bottleneck(e.bottleneck).empty() && !step.bottleneck.empty()) {
      // Free text no retrieval filter understands: the step's own bottleneck keeps it findable.
      note["model_bottleneck"] = e.bottleneck;
      e.bottleneck = step.bottleneck;
    }
    e.code_diff = diff;
    e.evidence = search::experience_evidence{opt_.evidence_op, *step.slow_us, *step.fast_us, opt_.evidence_backend,
                                             opt_.evidence_profile};
    e.motif = step.motif;
    e.origin = search::provenance::rewind;
    e.extra["llm"] = note;
    search::finalize(e);
    if (auto problems = search::validate(e); !problems.empty()) return fail(r, "invalid_tuple", problems.front());
    note_ok(r);
    return e;
  } catch (const std::exception& e) {
    return fail(r, "internal", std::string("internal error: ") + e.what());
  }
}

aopt::outcome<search::diagnosis> llm_engine::diagnose(const nlohmann::json& profile, const search::file_map& code) {
  const role r = role::diagnosis;
  try {
    auto answer = ask(r, {{"profile", profile.dump(2)},
                          {"code", files_text(code, opt_.max_code_bytes)},
                          {"classes", classes_text()}});
    if (!answer.ok()) return aopt::engine_failure{answer.reason()};
    auto j = extract_json(answer.value());
    if (j && j->is_object()) {
      for (const char* k : {"findings", "bottlenecks", "diagnosis"}) {
        if (j->contains(k) && (*j)[k].is_array()) {
          j = (*j)[k];
          break;
        }
      }
      if (j->is_object()) j = nlohmann::json::array({*j});
    }
    if (!j || !j->is_array()) {
      return fail(r, "bad_json", "the answer holds no JSON list of {class, evidence}: '" + cut(one_line(answer.value()), 120) + "'");
    }
    search::diagnosis d;
    std::vector<std::string> notes;
    std::set<search::bottleneck_class> seen;
    std::size_t i = 0;
    for (const auto& item : *j) {
      ++i;
      if (!item.is_object()) {
        notes.push_back("entry " + std::to_string(i) + " is not an object: dropped");
        continue;
      }
      const std::string name = string_field(item, {"class", "bottleneck", "kind"});
      const auto c = search::parse_bottleneck_class(name);
      if (!c) {
        notes.push_back("unknown bottleneck class '" + name + "' dropped");
        continue;
      }
      if (!seen.insert(*c).second) continue;
      search::finding f;
      f.kind = *c;
      f.evidence = string_field(item, {"evidence", "reason", "why"});
      double score = 1.0 - 0.1 * static_cast<double>(d.findings.size());
      if (auto s = item.find("score"); s != item.end() && s->is_number()) score = s->get<double>();
      f.score = std::clamp(std::isfinite(score) ? score : 0.0, 0.0, 1.0);
      d.findings.push_back(std::move(f));
    }
    for (const auto& n : notes) fail(r, "unknown_class", n);
    if (d.findings.empty()) {
      if (j->empty()) return fail(r, "no_finding", "the model named no bottleneck");
      std::string why = "no valid bottleneck class in the answer";
      for (const auto& n : notes) why += "; " + n;
      return aopt::engine_failure{std::string(to_string(r)) + ": " + why};
    }
    std::stable_sort(d.findings.begin(), d.findings.end(), [](const search::finding& a, const search::finding& b) {
      if (a.score != b.score) return a.score > b.score;
      return a.kind < b.kind;
    });
    for (const auto& f : d.findings) {
      d.summary += (d.summary.empty() ? "" : " ") + std::string(search::to_string(f.kind)) + ": " + f.evidence +
                   (f.evidence.empty() || f.evidence.back() == '.' ? "" : ".");
    }
    for (const auto& n : notes) d.summary += " (" + n + ")";
    try {
      const auto pm = search::parse_profile(profile);
      if (pm.bound_us && *pm.bound_us > 0) d.roofline_headroom = pm.task_us / *pm.bound_us;
    } catch (const std::exception&) {
      // A profile the rule-based reader cannot take is still shown to the model as is.
    }
    note_ok(r);
    return d;
  } catch (const std::exception& e) {
    return fail(r, "internal", std::string("internal error: ") + e.what());
  }
}

aopt::outcome<std::vector<search::kernel_rewrite>> llm_engine::rewrite_kernel(const search::file_map& files,
                                                                                const std::vector<search::experience>& tuples) {
  const role r = role::refinement;
  try {
    std::string tuple_text;
    for (std::size_t i = 0; i < tuples.size(); ++i) {
      const auto& t = tuples[i];
      tuple_text += "### T" + std::to_string(i + 1) + ": " + t.title + "\nBottleneck: " + t.bottleneck +
                    "\nDescription: " + t.description + "\n```diff\n" + cut(t.code_diff, 4096) + "\n```\n\n";
    }
    if (tuples.empty()) tuple_text = "(no experience retrieved: rewrite from your own knowledge of AscendC)\n";
    auto answer = ask(r, {{"code", files_text(files, opt_.max_code_bytes)},
                          {"tuples", tuple_text},
                          {"n", std::to_string(opt_.proposals)},
                          {"edit_format", edit_format_help(opt_.edits)}});
    if (!answer.ok()) return aopt::engine_failure{answer.reason()};
    return collect<search::kernel_rewrite>(
        r, answer.value(), files, "rewrite",
        [&](const answer_section& sec, std::size_t index, search::file_map edited, const auto&) -> std::optional<search::kernel_rewrite> {
          // The tuples it names: "Uses: T1, T3" (or any "T<n>" in its heading, fields and text).
          std::string refs = sec.title + "\n" + sec.prose;
          for (const auto& [k, v] : sec.fields) refs += "\n" + v;
          std::set<std::size_t> used;
          for (std::size_t p = 0; p + 1 < refs.size(); ++p) {
            if (refs[p] != 'T' || (p > 0 && std::isalnum(static_cast<unsigned char>(refs[p - 1])) != 0)) continue;
            std::size_t q = p + 1, num = 0;
            while (q < refs.size() && std::isdigit(static_cast<unsigned char>(refs[q])) != 0) num = num * 10 + static_cast<std::size_t>(refs[q++] - '0');
            if (q == p + 1 || (q < refs.size() && std::isalnum(static_cast<unsigned char>(refs[q])) != 0)) continue;
            if (num >= 1 && num <= tuples.size()) used.insert(num - 1);
          }
          search::kernel_rewrite rw;
          rw.files = std::move(edited);
          rw.title = sec.title.empty() ? "LLM rewrite " + std::to_string(index) : sec.title;
          std::string why;
          for (const char* k : {"rationale", "description", "why"}) {
            if (auto it = sec.fields.find(k); it != sec.fields.end()) {
              why = it->second;
              break;
            }
          }
          if (why.empty()) why = cut(one_line(sec.prose), 400);
          std::string applies;
          for (auto u : used) {
            rw.experience_ids.push_back(tuples[u].id);
            applies += (applies.empty() ? "" : ", ") + ("\"" + tuples[u].title + "\"");
          }
          rw.rationale = why.empty() ? rw.title : why;
          if (!applies.empty()) rw.rationale += " (applies experience " + applies + ")";
          return rw;
        });
  } catch (const std::exception& e) {
    return fail(r, "internal", std::string("internal error: ") + e.what());
  }
}

nlohmann::json llm_engine::usage() const {
  nlohmann::json j;
  j["client"] = to_json(client_.usage());
  nlohmann::json proposals = nlohmann::json::object();
  nlohmann::json by_kind = nlohmann::json::object();
  for (role r : prompted_roles()) {
    const std::string name = to_string(r);
    auto ok = ok_by_role_.find(name);
    proposals[name] = {{"ok", ok == ok_by_role_.end() ? 0 : ok->second}, {"failed", 0}};
  }
  for (const auto& f : failures_) {
    const std::string name = to_string(f.r);
    proposals[name]["failed"] = proposals[name]["failed"].get<std::uint64_t>() + 1;
    auto& slot = by_kind[name][f.kind];
    slot = slot.is_null() ? 1 : slot.get<std::uint64_t>() + 1;
  }
  j["proposals"] = proposals;
  j["failures"] = by_kind;
  return j;
}

}  // namespace aopt::llm
