#include <cstring>

#include <algorithm>
#include <regex>

#include "motifs_impl.h"

namespace aopt::motifs::detail {

const vec_op_shape* vector_op(std::string_view callee) {
  static const vec_op_shape table[] = {
      {"Add", 0, {1, 2}},  {"Sub", 0, {1, 2}},   {"Mul", 0, {1, 2}},   {"Div", 0, {1, 2}},   {"Max", 0, {1, 2}},
      {"Min", 0, {1, 2}},  {"And", 0, {1, 2}},   {"Or", 0, {1, 2}},    {"Exp", 0, {1}},      {"Ln", 0, {1}},
      {"Abs", 0, {1}},     {"Sqrt", 0, {1}},     {"Rsqrt", 0, {1}},    {"Reciprocal", 0, {1}}, {"Relu", 0, {1}},
      {"Not", 0, {1}},     {"Adds", 0, {1}},     {"Muls", 0, {1}},     {"Maxs", 0, {1}},     {"Mins", 0, {1}},
      {"LeakyRelu", 0, {1}}, {"Cast", 0, {1}},   {"Duplicate", 0, {}}, {"Axpy", 0, {0, 1}},  {"Copy", 0, {1}},
  };
  for (const auto& op : table) {
    if (callee == op.name) return &op;
  }
  return nullptr;
}

text_edit insert_after_statement(const source_file& f, range after, const std::string& stmt) {
  const std::string indent = f.indent_at(after.begin);
  const range whole = f.removal_range(after);
  if (whole.end > after.end && whole.end > 0 && f.text()[whole.end - 1] == '\n') {
    return {f.path(), {whole.end, whole.end}, indent + stmt + "\n"};
  }
  return {f.path(), {after.end, after.end}, "\n" + indent + stmt};
}

text_edit insert_before_statement(const source_file& f, range before, const std::string& stmt) {
  const std::string indent = f.indent_at(before.begin);
  const range whole = f.removal_range(before);
  if (whole.begin < before.begin || (whole.begin == before.begin && whole.end > before.end)) {
    return {f.path(), {whole.begin, whole.begin}, indent + stmt + "\n"};
  }
  return {f.path(), {before.begin, before.begin}, stmt + "\n" + indent};
}

text_edit delete_statement(const source_file& f, range stmt) { return {f.path(), f.removal_range(stmt), ""}; }

std::string fresh_name(const source_file& f, const std::string& base) {
  const auto ids = f.identifiers({0, f.text().size()});
  for (int k = 0;; ++k) {
    const std::string cand = k == 0 ? base : base + std::to_string(k);
    bool used = false;
    for (const auto& id : ids) used = used || id == cand;
    if (!used) return cand;
  }
}

std::optional<counted_loop> loop_header(const source_file& f, int loop) {
  if (f.at(loop).kind != node_kind::for_loop) return std::nullopt;
  const std::string& t = f.text();
  const range r = f.at(loop).r;
  std::size_t p = skip_space(t, r.begin + 3);
  if (p >= r.end || t[p] != '(') return std::nullopt;
  // Matching ')' of the header.
  int depth = 0;
  std::size_t close = std::string::npos;
  std::vector<std::size_t> semis;
  for (std::size_t i = p; i < r.end;) {
    const std::size_t next = skip_literal_or_comment(t, i);
    if (next != i) {
      i = next;
      continue;
    }
    if (t[i] == '(' || t[i] == '[' || t[i] == '{') ++depth;
    if (t[i] == ')' || t[i] == ']' || t[i] == '}') {
      if (--depth == 0) {
        close = i;
        break;
      }
    }
    if (t[i] == ';' && depth == 1) semis.push_back(i);
    ++i;
  }
  if (close == std::string::npos || semis.size() != 2) return std::nullopt;
  counted_loop cl;
  cl.loop = loop;
  cl.body = f.loop_body(loop);
  if (cl.body < 0) return std::nullopt;
  // init: [type] var = expr
  const std::size_t eq = t.find('=', p + 1);
  if (eq == std::string::npos || eq > semis[0]) return std::nullopt;
  auto lhs = identifiers(t, p + 1, eq);
  if (lhs.empty()) return std::nullopt;
  cl.var = lhs.back().first;
  auto ir = trim(t, eq + 1, semis[0]);
  cl.init = {ir.first, ir.second};
  // cond: var < bound
  auto cr = trim(t, semis[0] + 1, semis[1]);
  std::size_t q = skip_space(t, cr.first);
  if (t.compare(q, cl.var.size(), cl.var) != 0) return std::nullopt;
  q = skip_space(t, q + cl.var.size());
  if (t[q] != '<' || t[q + 1] == '=' || t[q + 1] == '<') return std::nullopt;
  auto br = trim(t, q + 1, cr.second);
  cl.bound = {br.first, br.second};
  auto sr = trim(t, semis[1] + 1, close);
  cl.step = {sr.first, sr.second};
  return cl;
}

std::optional<counted_loop> as_counted_loop(const source_file& f, int loop) {
  auto cl = loop_header(f, loop);
  if (!cl) return std::nullopt;
  const std::string inc = squeeze(f.text_of(cl->step));
  if (inc != "++" + cl->var && inc != cl->var + "++" && inc != cl->var + "+=1") return std::nullopt;
  return cl;
}

}  // namespace aopt::motifs::detail

namespace aopt::motifs::detail {

std::vector<std::string> kernel_paths(const source_set& src, std::string_view needle) {
  std::vector<std::string> out;
  for (const auto& p : src.paths_with({needle})) {
    if (parser::is_kernel_source(src.files().at(p))) out.push_back(p);
  }
  return out;
}

std::vector<std::string> host_paths(const source_set& src, std::string_view needle) {
  std::vector<std::string> out;
  for (const auto& p : src.paths_with({needle})) {
    if (parser::is_host_source(src.files().at(p))) out.push_back(p);
  }
  return out;
}

std::string base_name(std::string_view operand) {
  auto ids = identifiers(operand, 0, operand.size());
  if (ids.empty()) return {};
  // "this->x_" -> x_ ; "AscendC::x" unlikely for tensors.
  if (ids.front().first == "this" && ids.size() > 1) return ids[1].first;
  return ids.front().first;
}

}  // namespace aopt::motifs::detail

namespace aopt::motifs::detail {

std::string type_of_name(const source_file& f, const std::string& name) {
  for (const auto& n : f.nodes()) {
    if ((n.kind == node_kind::var_decl || n.kind == node_kind::field_decl || n.kind == node_kind::parm_decl) && n.name == name) {
      return n.type;
    }
  }
  return {};
}

std::string first_template_arg(std::string_view type) {
  const auto lt = type.find('<');
  const auto gt = type.rfind('>');
  if (lt == std::string_view::npos || gt == std::string_view::npos || gt < lt) return {};
  auto pieces = split_args(type, lt + 1, gt);
  if (pieces.empty()) return {};
  return std::string(type.substr(pieces[0].first, pieces[0].second - pieces[0].first));
}

std::vector<int> loops_of(const source_file& f) {
  std::vector<int> out = f.find(node_kind::for_loop);
  for (int loop : f.find(node_kind::while_loop)) out.push_back(loop);
  return out;
}

std::vector<call_info> call_statements(const source_file& f, int body) {
  std::vector<call_info> out;
  for (const auto& c : f.calls()) {
    if (c.statement.empty()) continue;
    const int st = f.statement_of(c.node);
    if (st >= 0 && f.at(st).parent == body) out.push_back(c);
  }
  return out;
}

bool dead_after(const source_file& f, const std::string& name, std::size_t from) {
  // The function (or method) body that holds `from`.
  range fn{0, 0};
  for (const auto& n : f.nodes()) {
    if ((n.kind == node_kind::function || n.kind == node_kind::method) && n.r.begin <= from && from < n.r.end) fn = n.r;
  }
  if (fn.empty()) return false;
  std::size_t uses = 0;
  for (const auto& [id, pos] : identifiers(f.text(), from, fn.end)) uses += id == name;
  std::size_t frees = 0;
  for (const auto& c : f.calls("FreeTensor")) {
    if (c.r.begin >= from && c.r.end <= fn.end && c.args.size() == 1 && base_name(f.text_of(c.args[0])) == name) ++frees;
  }
  return uses == frees;
}

bool simple_operand(std::string_view s) {
  for (char c : s) {
    if (!(is_ident_char(c) || c == '.' || c == ':' || c == ' ')) return false;
  }
  return !s.empty();
}

namespace {
// The call statement that is the whole of statement node `stmt`, if any.
std::optional<call_info> call_of_statement(const source_file& f, const std::vector<call_info>& calls, int stmt) {
  for (const auto& c : calls) {
    if (f.statement_of(c.node) == stmt && f.statement_range(stmt) == c.statement) return c;
  }
  return std::nullopt;
}
}  // namespace

std::vector<statement_run> statement_runs(const source_file& f) {
  std::vector<statement_run> out;
  for (int body : f.find(node_kind::compound)) {
    const auto calls = call_statements(f, body);
    if (calls.empty()) continue;
    statement_run run{body, {}};
    for (int st : f.statements(body)) run.calls.push_back(call_of_statement(f, calls, st));
    out.push_back(std::move(run));
  }
  return out;
}

bool is_pipe_barrier(const std::optional<call_info>& c, std::string_view pipe) {
  return c && c->callee == "PipeBarrier" && c->template_args.size() == 1 && c->template_args[0] == pipe && c->args.empty();
}

std::optional<double> literal_value(const std::string& s) {
  static const std::regex re(R"(^(static_cast<\w+>\(|\(\w+\)\(?|\w+\()?\(?(-?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?)[fF]?\)*$)");
  std::smatch m;
  if (!std::regex_match(s, m, re)) return std::nullopt;
  // Parentheses must balance: `(1` or `T(1))` are not literals.
  if (std::count(s.begin(), s.end(), '(') != std::count(s.begin(), s.end(), ')')) return std::nullopt;
  return std::stod(m[2].str());
}

bool assigned_in(const source_file& f, const std::string& name, std::size_t from, std::size_t to) {
  const std::string& t = f.text();
  for (const auto& [id, pos] : identifiers(t, from, to)) {
    if (id != name) continue;
    std::size_t k = skip_space(t, pos + id.size());
    if (k + 1 < t.size() && ((t[k] == '+' && t[k + 1] == '+') || (t[k] == '-' && t[k + 1] == '-'))) return true;
    if (k < t.size() && std::string("+-*/%&|^").find(t[k]) != std::string::npos && k + 1 < t.size() && t[k + 1] == '=') return true;
    if (k < t.size() && t[k] == '=' && (k + 1 >= t.size() || t[k + 1] != '=')) return true;
    const std::size_t b = pos >= 2 ? pos - 2 : 0;
    if (pos >= 2 && ((t[b] == '+' && t[b + 1] == '+') || (t[b] == '-' && t[b + 1] == '-'))) return true;
  }
  return false;
}

std::optional<double> scalar_value(const source_file& f, range r) {
  const std::string s = norm(f, r);
  if (auto v = literal_value(s)) return v;
  if (s.empty() || !std::all_of(s.begin(), s.end(), is_ident_char)) return std::nullopt;
  range fn{0, 0};
  for (const auto& n : f.nodes()) {
    if ((n.kind == node_kind::function || n.kind == node_kind::method) && n.r.contains(r.begin)) fn = n.r;
  }
  if (fn.empty()) return std::nullopt;
  for (std::size_t i = 0; i < f.nodes().size(); ++i) {
    const node& n = f.nodes()[i];
    if (n.kind != node_kind::var_decl || n.name != s || !fn.contains(n.r.begin) || n.r.begin > r.begin || n.children.empty()) continue;
    const range init = f.at(n.children.back()).r;
    if (init.begin < n.r.begin || assigned_in(f, s, init.end, fn.end)) return std::nullopt;
    return literal_value(norm(f, init));
  }
  return std::nullopt;
}

std::string declared_element_type(const source_file& f, const std::string& name) {
  for (const auto& n : f.nodes()) {
    if ((n.kind != node_kind::var_decl && n.kind != node_kind::parm_decl) || n.name != name) continue;
    const std::string t = squeeze(f.text_of(n.r));
    const auto at = t.find("LocalTensor<");
    if (at == std::string::npos) return {};
    const std::size_t open = at + std::string_view("LocalTensor").size();
    int depth = 0;
    for (std::size_t i = open; i < t.size(); ++i) {
      depth += t[i] == '<' ? 1 : t[i] == '>' ? -1 : 0;
      if (depth == 0) return t.substr(open + 1, i - open - 1);
    }
    return {};
  }
  return {};
}

// A LocalTensor local of the function holding byte `pos`, declared before it from its own buffer
// (`q.Get<T>()` / `q.AllocTensor<T>()`, no other local of the function from the same q) and
// named nowhere else in the function: a temporary the inverse may use.
std::string unused_temporary(const source_file& f, std::size_t pos, const std::string& elem) {
  range fn{0, 0};
  for (const auto& n : f.nodes()) {
    if ((n.kind == node_kind::function || n.kind == node_kind::method) && n.r.contains(pos)) fn = n.r;
  }
  if (fn.empty()) return {};
  for (const auto& c : f.calls()) {
    if ((c.callee != "Get" && c.callee != "AllocTensor") || !fn.contains(c.r.begin) || c.r.begin > pos || c.object().empty()) continue;
    const int decl = f.enclosing(c.node, node_kind::var_decl);
    if (decl < 0 || declared_element_type(f, f.at(decl).name) != elem) continue;
    const std::string& name = f.at(decl).name;
    std::size_t uses = 0, same_buffer = 0;
    for (const auto& [id, p] : identifiers(f.text(), fn.begin, fn.end)) uses += id == name;
    for (const auto& o : f.calls()) {
      if (fn.contains(o.r.begin) && (o.callee == "Get" || o.callee == "AllocTensor") && o.object() == c.object()) ++same_buffer;
    }
    if (uses == 1 && same_buffer == 1) return name;
  }
  return {};
}

}  // namespace aopt::motifs::detail
