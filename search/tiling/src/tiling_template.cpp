#include <algorithm>
#include <cctype>
#include <map>
#include <optional>
#include <set>
#include <sstream>

#include "aopt/common/error.h"
#include "aopt/common/sha256.h"
#include "aopt/stage1/lexer.h"
#include "aopt/stage1/search_form.h"
#include "aopt/stage1/tiling_template.h"

namespace aopt::stage1 {

const char* to_string(tunable_kind k) {
  switch (k) {
    case tunable_kind::size: return "size";
    case tunable_kind::count: return "count";
    case tunable_kind::block_dim: return "block_dim";
    case tunable_kind::buffer_num: return "buffer_num";
    case tunable_kind::alignment: return "alignment";
    case tunable_kind::key: return "key";
    case tunable_kind::flag: return "flag";
  }
  return "?";
}

const char* to_string(domain_kind k) {
  switch (k) {
    case domain_kind::choices: return "choices";
    case domain_kind::pow2: return "pow2";
    case domain_kind::log_range: return "log_range";
    case domain_kind::range: return "range";
    case domain_kind::cores: return "cores";
  }
  return "?";
}

namespace {
bool is_pow2(std::int64_t v) { return v > 0 && (v & (v - 1)) == 0; }
// A range whose hi is 0 and lo >= 1 reaches the device core count (block-dim literals).
std::int64_t upper(const domain& d, const device_limits& dev) {
  return (d.kind == domain_kind::cores || (d.kind == domain_kind::range && d.hi == 0 && d.lo >= 1))
             ? dev.core_count
             : d.hi;
}
}  // namespace

bool domain::contains(std::int64_t v, const device_limits& dev) const {
  const std::int64_t h = upper(*this, dev);
  switch (kind) {
    case domain_kind::choices: return std::find(choices.begin(), choices.end(), v) != choices.end();
    case domain_kind::pow2: return (allow_zero && v == 0) || (is_pow2(v) && v >= lo && v <= h);
    case domain_kind::log_range:
    case domain_kind::range: return (allow_zero && v == 0) || (v >= lo && v <= h);
    case domain_kind::cores: return v == 0 || (v >= 1 && v <= h);
  }
  return false;
}

std::int64_t domain::size(const device_limits& dev) const {
  const std::int64_t h = upper(*this, dev);
  const std::int64_t z = allow_zero ? 1 : 0;
  switch (kind) {
    case domain_kind::choices: return static_cast<std::int64_t>(choices.size());
    case domain_kind::pow2: {
      std::int64_t n = 0;
      for (std::int64_t p = 1; p > 0 && p <= h; p <<= 1) n += (p >= lo) ? 1 : 0;
      return n + z;
    }
    case domain_kind::log_range:
    case domain_kind::range: return std::min<std::int64_t>(1000000000, std::max<std::int64_t>(0, h - lo + 1)) + z;
    case domain_kind::cores: return h + 1;
  }
  return 0;
}

std::string domain::describe() const {
  std::ostringstream o;
  o << to_string(kind) << ' ';
  if (kind == domain_kind::choices) {
    o << '{';
    for (std::size_t i = 0; i < choices.size(); ++i) o << (i ? ", " : "") << choices[i];
    o << '}';
  } else if (kind == domain_kind::cores) {
    o << "0|1..cores";
  } else {
    o << (allow_zero ? "0|" : "") << '[' << lo << ", " << (hi == 0 && lo >= 1 ? std::string("cores") : std::to_string(hi)) << ']';
  }
  return o.str();
}

assignment tiling_template::base() const {
  assignment a;
  for (const auto& t : tunables) a.push_back(t.value);
  return a;
}

std::optional<std::size_t> tiling_template::find(std::string_view name) const {
  for (std::size_t i = 0; i < tunables.size(); ++i) {
    if (tunables[i].name == name) return i;
  }
  return std::nullopt;
}

std::optional<std::string> tiling_template::check(const assignment& values, const device_limits& dev) const {
  if (values.size() != tunables.size()) {
    return "assignment has " + std::to_string(values.size()) + " values, the template " +
           std::to_string(tunables.size()) + " tunables";
  }
  for (std::size_t i = 0; i < values.size(); ++i) {
    const tunable& t = tunables[i];
    if (!t.dom.contains(values[i], dev)) {
      return "tunable " + t.name + " = " + std::to_string(values[i]) + " is outside its domain " + t.dom.describe();
    }
  }
  return std::nullopt;
}

std::string render_occurrence(const tunable& t, const occurrence& oc, std::int64_t v) {
  if (v == t.value) return oc.original;
  if (!t.spellings.empty()) {
    if (v < 0 || static_cast<std::size_t>(v) >= t.spellings.size()) {
      throw aopt::error(ec::invalid_argument, "tunable " + t.name + ": spelling index " + std::to_string(v) +
                                                  " out of range (" + std::to_string(t.spellings.size()) + " choices)");
    }
    return t.spellings[static_cast<std::size_t>(v)];
  }
  if (t.dom.kind == domain_kind::cores && v == 0) return oc.original;
  const bool numeric = !oc.original.empty() && oc.original[0] >= '0' && oc.original[0] <= '9';
  return std::to_string(v + oc.delta) + (numeric ? std::string(integer_suffix(oc.original)) : std::string());
}

namespace {

struct edit {
  std::size_t offset = 0;
  std::size_t length = 0;  // 0: an insertion
  std::string text;
};

std::string apply(const std::string& src, std::vector<edit> edits, const std::string& path) {
  std::stable_sort(edits.begin(), edits.end(), [](const edit& a, const edit& b) {
    if (a.offset != b.offset) return a.offset < b.offset;
    return a.length < b.length;  // insertions before a replacement at the same place
  });
  std::string out;
  out.reserve(src.size() + 256);
  std::size_t pos = 0;
  for (const auto& e : edits) {
    if (e.offset < pos || e.offset + e.length > src.size()) {
      throw aopt::error(ec::internal, "overlapping or out-of-range tunable occurrences in " + path +
                                          " at byte " + std::to_string(e.offset) + ": the template is inconsistent");
    }
    out.append(src, pos, e.offset - pos);
    out += e.text;
    pos = e.offset + e.length;
  }
  out.append(src, pos, std::string::npos);
  return out;
}

std::size_t line_start(const std::string& s, std::size_t off) {
  const std::size_t p = s.rfind('\n', off == 0 ? 0 : off - 1);
  return (off == 0 || p == std::string::npos) ? 0 : p + 1;
}
std::size_t next_line(const std::string& s, std::size_t off) {
  const std::size_t p = s.find('\n', off);
  return p == std::string::npos ? s.size() : p + 1;
}

std::map<std::string, std::string> build(const tiling_template& tt, const assignment& values, bool markers) {
  if (values.size() != tt.tunables.size()) {
    throw aopt::error(ec::invalid_argument, "instantiate: assignment has " + std::to_string(values.size()) +
                                                " values, template of " + tt.function_name + " has " +
                                                std::to_string(tt.tunables.size()) + " tunables");
  }
  std::vector<std::vector<edit>> edits(tt.files.size());
  for (std::size_t i = 0; i < tt.tunables.size(); ++i) {
    for (const auto& oc : tt.tunables[i].occurrences) {
      edits.at(oc.file).push_back({oc.offset, oc.length, render_occurrence(tt.tunables[i], oc, values[i])});
    }
  }
  if (markers) {
    for (std::size_t f = 0; f < tt.files.size(); ++f) {
      const std::string& src = tt.files[f].content;
      std::size_t b = f == 0 ? tt.function_begin : src.size();
      std::size_t e = f == 0 ? tt.function_end : 0;
      for (const auto& t : tt.tunables) {
        for (const auto& oc : t.occurrences) {
          if (oc.file != f) continue;
          b = std::min(b, oc.offset);
          e = std::max(e, oc.offset + oc.length);
        }
      }
      if (b >= e) continue;
      std::string head = "// EVOLVE-BLOCK-START\n";
      if (f == 0) {
        head += "// Tunables of " + tt.function_name + " (Stage I changes only these values):\n";
        for (std::size_t i = 0; i < tt.tunables.size(); ++i) {
          const tunable& t = tt.tunables[i];
          head += "//   " + t.name + ": " + to_string(t.kind) + ", " + t.dom.describe() + ", value " +
                  (t.spellings.empty() ? std::to_string(values[i]) : t.spellings.at(static_cast<std::size_t>(values[i]))) +
                  (t.kernel_linked ? " (also in the kernel)" : "") + "\n";
        }
      } else {
        head += "// Constants shared with the tiling function: they change together with it.\n";
      }
      edits[f].push_back({line_start(src, b), 0, head});
      const std::size_t end = next_line(src, e);
      edits[f].push_back({end, 0, std::string(end == src.size() && !src.empty() && src.back() != '\n' ? "\n" : "") +
                                      "// EVOLVE-BLOCK-END\n"});
    }
  }
  std::map<std::string, std::string> out;
  for (std::size_t f = 0; f < tt.files.size(); ++f) {
    out[tt.files[f].path] = apply(tt.files[f].content, std::move(edits[f]), tt.files[f].path);
  }
  return out;
}

}  // namespace

// ---- The search form (search_form.h) ----

const char* to_string(form_level l) { return l == form_level::bold ? "bold" : "careful"; }

namespace {

// The C++ type of an integer literal on LP64 ([lex.icon]), as (bits, signed); {0, false} when
// the text is not an integer literal or no standard type holds it.
std::pair<int, bool> literal_type(std::string_view text) {
  const auto v = parse_integer_literal(text);
  if (!v) return {0, false};
  std::string suffix(integer_suffix(text));
  for (char& c : suffix) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  const bool u = suffix.find('u') != std::string::npos;
  const bool l = suffix.find('l') != std::string::npos;
  const bool decimal = text.size() < 2 || text[0] != '0';
  const auto x = static_cast<std::uint64_t>(*v);
  if (!l) {
    if (!u && x <= 0x7fffffffULL) return {32, true};
    if ((u || !decimal) && x <= 0xffffffffULL) return {32, false};
  }
  if (!u) return {64, true};  // parse_integer_literal stops at INT64_MAX
  return {64, false};
}

// The token of `toks` that covers byte `off` (the last token starting at or before it).
std::size_t token_at(const std::vector<token>& toks, std::size_t off) {
  std::size_t lo = 0, hi = toks.size();
  while (hi - lo > 1) {
    const std::size_t mid = (lo + hi) / 2;
    (toks[mid].offset <= off ? lo : hi) = mid;
  }
  return lo;
}

// What the statement holding token `i` says about reading a value there at run time.
struct statement_facts {
  bool constant_expression = false;  // static_assert, case, enum, template, alignas, an array bound
  bool constant_declaration = false;  // const, constexpr, #define
  std::vector<std::size_t> constexpr_tokens;  // `constexpr` keywords of the declaration
  // Surely a constant expression: static_assert, case, enum, template, alignas, or inside `[...]`
  // (not counting a `<` that may be a comparison).
  bool surely_constant = false;
};

statement_facts facts_of(const std::vector<token>& toks, std::size_t i) {
  statement_facts f;
  if (toks[i].kind == token_kind::directive) {
    f.constant_declaration = true;
    return f;
  }
  int square = 0, angle = 0;
  for (std::size_t j = i; j-- > 0;) {
    const token& k = toks[j];
    if (k.is(";") || k.is("{") || k.is("}") || k.kind == token_kind::directive) break;
    if (k.is("]")) --square;
    if (k.is("[")) ++square;
    if (k.is(">")) --angle;
    if (k.is("<")) ++angle;
    if (k.is("static_assert") || k.is("case") || k.is("enum") || k.is("template") || k.is("alignas")) {
      f.constant_expression = true;
      f.surely_constant = true;
    }
    if (k.is("const")) f.constant_declaration = true;
    if (k.is("constexpr")) {
      f.constant_declaration = true;
      f.constexpr_tokens.push_back(j);
    }
  }
  // Inside `[...]` of a declaration or `<...>` after an identifier: an array bound or a
  // template argument (a comparison `a < b` is read wrongly as the latter, which only makes
  // the occurrence a literal).
  if (square > 0 || angle > 0) f.constant_expression = true;
  if (square > 0) f.surely_constant = true;
  return f;
}

// The identifiers of `text` (a directive's body, an initializer), in order.
std::vector<std::string> identifiers_of(std::string_view text) {
  std::vector<std::string> out;
  for (const token& k : lex(text)) {
    if (k.is_ident()) out.emplace_back(k.text);
  }
  return out;
}

// `#define NAME body`: NAME and the body's text; nullopt for other directives and macros with
// parameters.
std::optional<std::pair<std::string, std::string_view>> object_macro(std::string_view d) {
  std::size_t i = d.find_first_not_of(" \t", 1);
  if (d.empty() || d[0] != '#' || i == std::string_view::npos || d.substr(i, 6) != "define") return std::nullopt;
  i = d.find_first_not_of(" \t", i + 6);
  if (i == std::string_view::npos) return std::nullopt;
  std::size_t e = i;
  while (e < d.size() && (std::isalnum(static_cast<unsigned char>(d[e])) || d[e] == '_')) ++e;
  if (e == i || (e < d.size() && d[e] == '(')) return std::nullopt;
  return std::make_pair(std::string(d.substr(i, e - i)), d.substr(e));
}

// The names whose values a constant expression of the file needs: used in a `constexpr`
// declaration's initializer, an array bound, a template argument, static_assert, case or enum,
// closed over the const declarations and object-like macros that define them. The bold form keeps
// their declarations literal: `static const int E = AOPT_TUNABLE(3, 8);` is no constant, and
// `constexpr int S = 255 * E;` then does not compile (cann-ops add_layer_norm, whose whole bold
// form failed for it, so every one of its constants was built).
std::set<std::string> constant_expression_names(const std::vector<token>& toks) {
  std::set<std::string> names;
  std::map<std::string, std::vector<std::string>> defined_from;  // a constant -> its initializer's names
  for (std::size_t i = 0; i < toks.size(); ++i) {
    const token& k = toks[i];
    if (k.kind == token_kind::directive) {
      if (const auto m = object_macro(k.text)) defined_from[m->first] = identifiers_of(m->second);
      continue;
    }
    if (!k.is_ident()) continue;
    const statement_facts f = facts_of(toks, i);
    if (i + 1 < toks.size() && toks[i + 1].is("=")) {  // a declarator (or an assignment)
      if (!f.constant_declaration) continue;
      auto& from = defined_from[std::string(k.text)];
      for (std::size_t j = i + 2; j < toks.size() && !toks[j].is(";"); ++j) {
        if (toks[j].is_ident()) from.emplace_back(toks[j].text);
      }
      continue;
    }
    if (f.surely_constant || !f.constexpr_tokens.empty()) names.emplace(k.text);
  }
  for (bool changed = true; changed;) {
    changed = false;
    for (const auto& [name, from] : defined_from) {
      if (!names.count(name)) continue;
      for (const auto& n : from) changed = names.insert(n).second || changed;
    }
  }
  return names;
}

// The name a constant declaration holding token `i` declares: a macro's, or the identifier
// before the `=` of its statement; empty when there is none.
std::string declared_name(const std::vector<token>& toks, std::size_t i) {
  if (toks[i].kind == token_kind::directive) {
    const auto m = object_macro(toks[i].text);
    return m ? m->first : std::string();
  }
  std::string name;
  for (std::size_t j = i; j-- > 0;) {
    const token& k = toks[j];
    if (k.is(";") || k.is("{") || k.is("}") || k.kind == token_kind::directive) break;
    if (k.is("=") && j > 0 && toks[j - 1].is_ident()) name = std::string(toks[j - 1].text);
  }
  return name;
}

}  // namespace

bool same_literal_type(std::string_view original, std::string_view rendered) {
  const auto a = literal_type(original);
  return a.first != 0 && a == literal_type(rendered);
}

search_form make_search_form(const tiling_template& tt, const assignment& values, form_level level) {
  if (values.size() != tt.tunables.size()) {
    throw aopt::error(ec::invalid_argument, "search form: assignment has " + std::to_string(values.size()) +
                                                " values, template of " + tt.function_name + " has " +
                                                std::to_string(tt.tunables.size()) + " tunables");
  }
  search_form out;
  if (tt.files.empty()) return out;
  const std::vector<token> toks = lex(tt.files[0].content);
  const std::set<std::string> needed_constant = level == form_level::bold ? constant_expression_names(toks) : std::set<std::string>{};
  std::vector<std::vector<edit>> edits(tt.files.size());
  std::vector<std::size_t> constexpr_done;
  nlohmann::json given = nlohmann::json::array();
  std::size_t slot = 0;
  for (std::size_t i = 0; i < tt.tunables.size(); ++i) {
    const tunable& t = tt.tunables[i];
    const std::int64_t v = values[i];
    std::string literal_why;  // why the first changed occurrence written as a literal is one
    for (const auto& oc : t.occurrences) {
      const std::string text = render_occurrence(t, oc, v);
      const char* why = oc.file != 0              ? "a kernel constant"
                        : !t.spellings.empty()    ? "an identifier key"
                        : toks.empty()            ? "the host file has no tokens"
                                                  : nullptr;
      statement_facts f;
      if (why == nullptr) {
        f = facts_of(toks, token_at(toks, oc.offset));
        if (f.constant_expression) why = "a constant expression";
        else if (level == form_level::careful && f.constant_declaration) why = "a constant declaration (careful form)";
        else if (f.constant_declaration && needed_constant.count(declared_name(toks, token_at(toks, oc.offset)))) {
          why = "a constant that constant expressions use";
        }
      }
      const bool digits = !oc.original.empty() && oc.original[0] >= '0' && oc.original[0] <= '9';
      const bool numeric = digits && parse_integer_literal(oc.original) && parse_integer_literal(text);
      if (why == nullptr && digits && !numeric) why = "not an integer literal";  // a floating one
      const bool changed = text != oc.original;
      // A number read as the written literal's type: the new value must be that type too.
      if (why == nullptr && numeric && changed && !same_literal_type(oc.original, text)) {
        why = "the value does not fit the written literal's type";
      }
      if (why != nullptr) {
        edits.at(oc.file).push_back({oc.offset, oc.length, text});
        if (changed && literal_why.empty()) literal_why = why;
        if (changed && oc.file == 0) out.host_literal = true;
        continue;
      }
      const std::size_t s = slot++;
      // A number keeps its type; an expression (a core count "as written") gives way to an int.
      edits[0].push_back({oc.offset, oc.length,
                          std::string(numeric ? "AOPT_TUNABLE(" : "AOPT_TUNABLE_OR(") + std::to_string(s) + ", " +
                              oc.original + ")"});
      for (std::size_t k : f.constexpr_tokens) {
        if (std::find(constexpr_done.begin(), constexpr_done.end(), k) != constexpr_done.end()) continue;
        constexpr_done.push_back(k);
        edits[0].push_back({toks[k].offset, toks[k].length, "const"});
      }
      // A number's slot is always given (its written value at the base), so a run can say how
      // many it read; an expression's only when it changes (at the base it is evaluated).
      if (numeric) given.push_back({s, *parse_integer_literal(text)});
      else if (changed) given.push_back({s, v + oc.delta});
    }
    if (!literal_why.empty()) {
      out.literal.push_back(t.name);
      out.literal_why.push_back(std::move(literal_why));
    }
  }
  out.slots = slot;
  out.given = given.size();
  if (slot == 0) {
    out.literal.clear();
    out.literal_why.clear();
    out.host_literal = false;
    return out;
  }
  for (std::size_t f = 0; f < tt.files.size(); ++f) {
    out.files[tt.files[f].path] = apply(tt.files[f].content, std::move(edits[f]), tt.files[f].path);
  }
  out.files[std::string(tunables_file)] = nlohmann::json{{"tunables", given}}.dump() + "\n";
  return out;
}

std::map<std::string, std::string> tiling_template::instantiate(const assignment& values) const {
  return build(*this, values, false);
}

std::map<std::string, std::string> tiling_template::marked(const assignment& values) const {
  return build(*this, values, true);
}

std::string tiling_template::describe_change(const assignment& values) const {
  std::string out;
  for (std::size_t i = 0; i < tunables.size() && i < values.size(); ++i) {
    const tunable& t = tunables[i];
    if (values[i] == t.value) continue;
    std::string v = std::to_string(values[i]);
    if (!t.spellings.empty() && values[i] >= 0 && static_cast<std::size_t>(values[i]) < t.spellings.size()) {
      v = t.spellings[static_cast<std::size_t>(values[i])];
    } else if (t.dom.kind == domain_kind::cores && values[i] == 0) {
      v = "all";
    }
    out += (out.empty() ? "" : ", ") + t.name + "=" + v;
  }
  return out.empty() ? "base" : out;
}

std::string template_id(const tiling_template& t) {
  common::sha256 h;
  h.field(t.function_name);
  for (const auto& f : t.files) h.field(f.path).field(f.content);
  return h.finish_hex();
}

std::uint64_t hash_assignment(const assignment& values) {
  std::uint64_t h = 1469598103934665603ULL;
  auto mix = [&](std::uint64_t x) {
    for (int i = 0; i < 8; ++i) {
      h ^= (x >> (8 * i)) & 0xFF;
      h *= 1099511628211ULL;
    }
  };
  mix(values.size());
  for (auto v : values) mix(static_cast<std::uint64_t>(v));
  return h;
}

nlohmann::json to_json(const tiling_template& t) {
  nlohmann::json j;
  j["function"] = t.function_name;
  j["files"] = nlohmann::json::array();
  for (const auto& f : t.files) j["files"].push_back(f.path);
  j["tunables"] = nlohmann::json::array();
  for (const auto& tu : t.tunables) {
    nlohmann::json o;
    o["name"] = tu.name;
    o["kind"] = to_string(tu.kind);
    o["value"] = tu.value;
    o["domain"] = tu.dom.describe();
    if (!tu.spellings.empty()) o["spellings"] = tu.spellings;
    o["origin"] = tu.origin;
    o["context"] = tu.context;
    o["kernel_linked"] = tu.kernel_linked;
    o["occurrences"] = nlohmann::json::array();
    for (const auto& oc : tu.occurrences) {
      o["occurrences"].push_back({{"file", t.files.at(oc.file).path},
                                  {"line", line_of(t.files.at(oc.file).content, oc.offset)},
                                  {"offset", oc.offset},
                                  {"length", oc.length},
                                  {"text", oc.original},
                                  {"delta", oc.delta}});
    }
    j["tunables"].push_back(std::move(o));
  }
  j["notes"] = t.notes;
  return j;
}

}  // namespace aopt::stage1
