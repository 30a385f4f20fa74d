#include "flow.h"

#include <cctype>

namespace aopt::motifs::detail {

int function_at(const source_file& f, std::size_t pos) {
  int best = -1;
  for (std::size_t i = 0; i < f.nodes().size(); ++i) {
    const node& n = f.nodes()[i];
    if ((n.kind != node_kind::function && n.kind != node_kind::method) || !n.r.contains(pos)) continue;
    if (best < 0 || f.at(best).r.size() > n.r.size()) best = static_cast<int>(i);
  }
  return best;
}

namespace {

// Position of the top-level assignment operator in t[b, e): '=' not part of == <= >= !=, or the
// first character of a compound assignment ("+=" ...). npos when none.
std::size_t assignment_op(std::string_view t, std::size_t b, std::size_t e, bool& compound) {
  std::size_t at = std::string_view::npos;
  scan_code(t, b, e, [&](std::size_t i, int depth) {
    if (t[i] != '=' || depth != 0) return false;
    if (i + 1 < e && t[i + 1] == '=') return false;  // "==" (its second '=' follows a '=')
    const char p = i > b ? t[i - 1] : ' ';
    if (p == '=' || p == '!') return false;
    if (p == '<' || p == '>') {
      // "<<=" and ">>=" are compound assignments; "<=" and ">=" are comparisons.
      if (i < b + 2 || t[i - 2] != p) return false;
      compound = true;
      at = i - 2;
      return true;
    }
    compound = std::string_view("+-*/%&|^").find(p) != std::string_view::npos;
    at = compound ? i - 1 : i;
    return true;
  });
  return at;
}

}  // namespace

std::vector<flow_edge> flow_edges(const source_file& f, range scope) {
  std::vector<flow_edge> out;
  const std::string& t = f.text();
  std::set<std::size_t> seen;
  for (std::size_t i = 0; i < f.nodes().size(); ++i) {
    const node& n = f.nodes()[i];
    if (!scope.contains(n.r) || n.r.empty()) continue;
    if (n.kind == node_kind::var_decl) {
      // "<type> name = rhs": the '=' after the declared name.
      std::size_t name_pos = std::string::npos;
      for (const auto& [id, pos] : identifiers(t, n.r.begin, n.r.end)) {
        if (id == n.name) {
          name_pos = pos;
          break;
        }
      }
      if (name_pos == std::string::npos) continue;
      const std::size_t p = skip_space(t, name_pos + n.name.size());
      if (p >= n.r.end || t[p] != '=') continue;
      const auto rr = trim(t, p + 1, n.r.end);
      flow_edge e;
      e.lhs = n.name;
      e.rhs = {rr.first, rr.second};
      e.stmt = f.statement_range(f.statement_of(static_cast<int>(i)) >= 0 ? f.statement_of(static_cast<int>(i)) : static_cast<int>(i));
      e.node = static_cast<int>(i);
      e.decl = true;
      out.push_back(std::move(e));
    } else if (n.kind == node_kind::binary_op) {
      if (!seen.insert(n.r.begin * 131 + n.r.end).second) continue;
      bool compound = false;
      const std::size_t op = assignment_op(t, n.r.begin, n.r.end, compound);
      if (op == std::string::npos) continue;
      const std::size_t eq = t.find('=', op);
      const std::string lhs = squeeze(std::string_view(t).substr(n.r.begin, op - n.r.begin));
      if (lhs.empty()) continue;
      const auto rr = trim(t, eq + 1, n.r.end);
      flow_edge e;
      e.lhs = lhs;
      e.rhs = {rr.first, rr.second};
      const int st = f.statement_of(static_cast<int>(i));
      e.stmt = st >= 0 ? f.statement_range(st) : n.r;
      e.node = static_cast<int>(i);
      e.compound = compound;
      out.push_back(std::move(e));
    }
  }
  return out;
}

std::set<std::string> derived_from(const source_file& f, const std::vector<flow_edge>& edges, std::set<std::string> seeds) {
  for (bool grew = true; grew;) {
    grew = false;
    for (const auto& e : edges) {
      if (seeds.count(e.lhs)) continue;
      for (const auto& id : f.identifiers(e.rhs)) {
        if (seeds.count(id)) {
          seeds.insert(e.lhs);
          grew = true;
          break;
        }
      }
    }
  }
  return seeds;
}

bool reaches_tiling(const source_file& f, range scope, const std::vector<flow_edge>& edges, const std::set<std::string>& names) {
  auto mentions_any = [&](range r) {
    for (const auto& id : f.identifiers(r)) {
      if (names.count(id)) return true;
    }
    return false;
  };
  for (const auto& c : f.calls()) {
    if (!scope.contains(c.r) || c.callee.rfind("set_", 0) != 0) continue;
    for (const auto& a : c.args) {
      if (mentions_any(a)) return true;
    }
  }
  for (const auto& e : edges) {
    const bool member = e.lhs.find('.') != std::string::npos || e.lhs.find("->") != std::string::npos;
    if (member && scope.contains(e.rhs) && mentions_any(e.rhs)) return true;
  }
  return false;
}

std::string strip_parens(std::string s) {
  while (s.size() >= 2 && s.front() == '(' && closing_bracket(s, 0) == s.size() - 1) s = s.substr(1, s.size() - 2);
  return s;
}

std::string strip_cast(std::string s) {
  s = strip_parens(s);
  for (const char* k : {"static_cast<"}) {
    const std::string key = k;
    if (s.rfind(key, 0) != 0) continue;
    const auto gt = s.find(">(", key.size());
    if (gt == std::string::npos) continue;
    if (closing_bracket(s, gt + 1) != s.size() - 1) continue;
    return strip_parens(s.substr(gt + 2, s.size() - gt - 3));
  }
  return s;
}

bool is_identifier(const std::string& s) {
  if (s.empty() || !is_ident_start(s[0])) return false;
  for (char c : s) {
    if (!is_ident_char(c)) return false;
  }
  return true;
}

bool is_int_literal(const std::string& s, long long* value) {
  std::size_t i = 0;
  long long v = 0;
  while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) {
    v = v * 10 + (s[i] - '0');
    if (v > (1LL << 40)) return false;
    ++i;
  }
  if (i == 0) return false;
  if (i > 1 && s[0] == '0') return false;  // octal or hex: not handled
  for (std::size_t j = i; j < s.size(); ++j) {
    if (std::string_view("uUlL").find(s[j]) == std::string_view::npos) return false;
  }
  if (value) *value = v;
  return true;
}

std::optional<ternary> split_ternary(const std::string& s) {
  int depth = 0;
  std::size_t q = std::string::npos;
  int nested = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (c == '(' || c == '[' || c == '{') ++depth;
    if (c == ')' || c == ']' || c == '}') --depth;
    if (depth != 0) continue;
    if (c == '?') {
      if (q == std::string::npos) {
        q = i;
      } else {
        ++nested;
      }
    } else if (c == ':' && q != std::string::npos) {
      const bool scope_op = (i + 1 < s.size() && s[i + 1] == ':') || (i > 0 && s[i - 1] == ':');
      if (scope_op) continue;
      if (nested > 0) {
        --nested;
        continue;
      }
      return ternary{s.substr(0, q), s.substr(q + 1, i - q - 1), s.substr(i + 1)};
    }
  }
  return std::nullopt;
}

std::optional<std::pair<std::string, std::string>> split_binary(const std::string& s, const std::string& op, bool last) {
  int depth = 0;
  std::optional<std::pair<std::string, std::string>> found;
  for (std::size_t i = 0; i + op.size() <= s.size(); ++i) {
    const char c = s[i];
    if (c == '(' || c == '[' || c == '{') ++depth;
    if (c == ')' || c == ']' || c == '}') --depth;
    if (depth != 0 || s.compare(i, op.size(), op) != 0) continue;
    const char after = i + op.size() < s.size() ? s[i + op.size()] : ' ';
    const char before = i > 0 ? s[i - 1] : ' ';
    // Longer operators that share the characters: "<<", "<=", "++", "->", "+=", "===".
    if (after == '=' || (op.size() == 1 && (after == op[0] || before == op[0])) || (op == "-" && after == '>') ||
        (op == "==" && (before == '=' || before == '!' || before == '<' || before == '>'))) {
      i += op.size() - 1;
      continue;
    }
    if (i == 0 || i + op.size() == s.size()) return std::nullopt;
    found = std::make_pair(s.substr(0, i), s.substr(i + op.size()));
    if (!last) return found;
  }
  return found;
}

std::optional<range> find_token(const source_file& f, range r, const std::string& token) {
  const std::string& t = f.text();
  for (std::size_t i = r.begin; i + token.size() <= r.end;) {
    const std::size_t next = skip_literal_or_comment(t, i);
    if (next != i) {
      i = next;
      continue;
    }
    if (t.compare(i, token.size(), token) == 0 && (i == 0 || !is_ident_char(t[i - 1])) &&
        (i + token.size() >= t.size() || !is_ident_char(t[i + token.size()]))) {
      return range{i, i + token.size()};
    }
    ++i;
  }
  return std::nullopt;
}

text_edit delete_statement_and_comment(const source_file& f, range stmt) {
  const std::string& t = f.text();
  std::size_t e = stmt.end;
  while (e < t.size() && (t[e] == ' ' || t[e] == '\t')) ++e;
  range r = stmt;
  if (e + 1 < t.size() && t[e] == '/' && t[e + 1] == '/') {
    while (e < t.size() && t[e] != '\n') ++e;
    r.end = e;
  }
  return {f.path(), f.removal_range(r), ""};
}

std::vector<ub_query> ub_queries(const source_file& f) {
  std::vector<ub_query> out;
  for (const auto& c : f.calls("GetCoreMemSize")) {
    if (c.args.size() != 2 || c.statement.empty()) continue;
    const std::string kind = norm(f, c.args[0]);
    if (kind.size() < 2 || kind.compare(kind.size() - 2, 2, "UB") != 0) continue;
    const std::string v = norm(f, c.args[1]);
    if (!is_identifier(v)) continue;
    const int fn = function_at(f, c.r.begin);
    if (fn < 0) continue;
    out.push_back({c, v, fn, flow_edges(f, f.at(fn).r)});
  }
  return out;
}


}  // namespace aopt::motifs::detail
