#include <cstring>

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

std::optional<counted_loop> as_counted_loop(const source_file& f, int loop) {
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
  // inc
  const std::string inc = squeeze(std::string_view(t).substr(semis[1] + 1, close - semis[1] - 1));
  if (inc != "++" + cl.var && inc != cl.var + "++" && inc != cl.var + "+=1") return std::nullopt;
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

}  // namespace aopt::motifs::detail
