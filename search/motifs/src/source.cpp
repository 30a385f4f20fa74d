#include "aopt/motifs/source.h"

#include <atomic>

#include <clang-c/Index.h>
#include <unistd.h>

#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <list>
#include <map>
#include <regex>
#include <unordered_map>
#include <set>

#include "aopt/common/error.h"
#include "aopt/common/sha256.h"
#include "text_scan.h"

#ifndef AOPT_MOTIFS_SIM_INCLUDE_DIR
#define AOPT_MOTIFS_SIM_INCLUDE_DIR ""
#endif

namespace aopt::motifs {
namespace {

constexpr const char* virtual_root = "/aopt-motifs-virtual/";

std::string take(CXString s) {
  const char* c = clang_getCString(s);
  std::string r = c ? c : "";
  clang_disposeString(s);
  return r;
}

node_kind map_kind(CXCursorKind k) {
  switch (k) {
    case CXCursor_TranslationUnit: return node_kind::translation_unit;
    case CXCursor_Namespace: return node_kind::namespace_decl;
    case CXCursor_ClassDecl:
    case CXCursor_StructDecl:
    case CXCursor_ClassTemplate:
    case CXCursor_ClassTemplatePartialSpecialization: return node_kind::class_decl;
    case CXCursor_FunctionDecl:
    case CXCursor_FunctionTemplate: return node_kind::function;
    case CXCursor_CXXMethod:
    case CXCursor_Constructor:
    case CXCursor_Destructor: return node_kind::method;
    case CXCursor_FieldDecl: return node_kind::field_decl;
    case CXCursor_VarDecl: return node_kind::var_decl;
    case CXCursor_ParmDecl: return node_kind::parm_decl;
    case CXCursor_MacroDefinition: return node_kind::macro_definition;
    case CXCursor_CompoundStmt: return node_kind::compound;
    case CXCursor_DeclStmt: return node_kind::decl_stmt;
    case CXCursor_ForStmt: return node_kind::for_loop;
    case CXCursor_WhileStmt: return node_kind::while_loop;
    case CXCursor_DoStmt: return node_kind::do_loop;
    case CXCursor_IfStmt: return node_kind::if_stmt;
    case CXCursor_ReturnStmt: return node_kind::return_stmt;
    case CXCursor_CallExpr: return node_kind::call;
    case CXCursor_MemberRefExpr: return node_kind::member_ref;
    case CXCursor_DeclRefExpr: return node_kind::decl_ref;
    case CXCursor_IntegerLiteral: return node_kind::integer_literal;
    case CXCursor_FloatingLiteral: return node_kind::floating_literal;
    case CXCursor_BinaryOperator:
    case CXCursor_CompoundAssignOperator: return node_kind::binary_op;
    case CXCursor_UnaryOperator: return node_kind::unary_op;
    case CXCursor_ConditionalOperator: return node_kind::conditional_op;
    case CXCursor_ParenExpr: return node_kind::paren_expr;
    case CXCursor_ArraySubscriptExpr: return node_kind::array_subscript;
    case CXCursor_InitListExpr: return node_kind::init_list;
    case CXCursor_CStyleCastExpr:
    case CXCursor_CXXStaticCastExpr:
    case CXCursor_CXXFunctionalCastExpr: return node_kind::cast_expr;
    case CXCursor_UnexposedExpr: return node_kind::unexposed_expr;
    default: return node_kind::other;
  }
}

bool wants_type(node_kind k) {
  return k == node_kind::var_decl || k == node_kind::field_decl || k == node_kind::parm_decl ||
         k == node_kind::decl_ref || k == node_kind::member_ref;
}

struct builder {
  CXFile main_file = nullptr;
  std::string main_name;
  std::string_view text;
  std::vector<node> nodes;

  // Every file of the set is an unsaved file of libclang, and unsaved files compare equal by
  // their (absent) inode under clang_File_isEqual: a kernel that includes a sibling source
  // (`#include "trunc_f32.cpp"`) got that file's statements with that file's offsets. The name
  // tells them apart.
  bool in_main_file(CXFile f) const {
    return f && clang_File_isEqual(f, main_file) && take(clang_getFileName(f)) == main_name;
  }

  bool offsets(CXCursor c, range& out) const {
    const CXSourceRange ext = clang_getCursorExtent(c);
    CXFile f1 = nullptr;
    CXFile f2 = nullptr;
    unsigned b = 0;
    unsigned e = 0;
    clang_getExpansionLocation(clang_getRangeStart(ext), &f1, nullptr, nullptr, &b);
    if (!in_main_file(f1) || b > text.size()) return false;
    clang_getExpansionLocation(clang_getRangeEnd(ext), &f2, nullptr, nullptr, &e);
    if (!in_main_file(f2)) e = b;
    if (e < b) e = b;
    if (e > text.size()) e = static_cast<unsigned>(text.size());
    // A range ending on a macro name stops at its start: extend over the identifier.
    while (e < text.size() && e > b && detail::is_ident_char(text[e]) && detail::is_ident_char(text[e - 1])) ++e;
    if (e == b) {
      while (e < text.size() && detail::is_ident_char(text[e])) ++e;
    }
    out = {b, e};
    return true;
  }

  void visit(CXCursor c, int parent) {
    range r;
    if (!offsets(c, r)) return;
    const CXCursorKind ck = clang_getCursorKind(c);
    node n;
    n.kind = map_kind(ck);
    n.clang_kind = static_cast<int>(ck);
    n.name = take(clang_getCursorSpelling(c));
    if (wants_type(n.kind)) n.type = take(clang_getTypeSpelling(clang_getCursorType(c)));
    n.r = r;
    n.parent = parent;
    const int id = static_cast<int>(nodes.size());
    nodes.push_back(std::move(n));
    if (parent >= 0) nodes[static_cast<std::size_t>(parent)].children.push_back(id);
    struct ctx {
      builder* self;
      int id;
    } cx{this, id};
    clang_visitChildren(
        c,
        [](CXCursor child, CXCursor, CXClientData data) {
          auto* p = static_cast<ctx*>(data);
          p->self->visit(child, p->id);
          return CXChildVisit_Continue;
        },
        &cx);
  }
};

std::string sim_include_default() {
  if (const char* env = std::getenv("AOPT_SIM_INCLUDE_DIR"); env && *env) return env;
  std::string built = AOPT_MOTIFS_SIM_INCLUDE_DIR;
  if (!built.empty()) return built;
  if (const char* src = std::getenv("AOPT_SOURCE_DIR"); src && *src) return std::string(src) + "/sim/include";
  return {};
}

std::string dir_of(const std::string& p) {
  const auto slash = p.rfind('/');
  return slash == std::string::npos ? std::string() : p.substr(0, slash);
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// call_info, source_file

std::string call_info::object() const {
  std::string q = qualifier;
  if (q.size() >= 2 && q.compare(q.size() - 2, 2, "->") == 0) q.resize(q.size() - 2);
  else if (!q.empty() && q.back() == '.') q.pop_back();
  else return {};
  return q;
}

source_file::source_file(std::string path, std::string text, std::vector<node> nodes,
                         std::vector<std::string> diagnostics)
    : path_(std::move(path)), text_(std::move(text)), nodes_(std::move(nodes)), diagnostics_(std::move(diagnostics)) {}

std::string_view source_file::text_of(range r) const {
  if (r.end > text_.size() || r.begin > r.end) return {};
  return std::string_view(text_).substr(r.begin, r.size());
}

std::vector<int> source_file::find(node_kind k) const {
  std::vector<int> out;
  for (std::size_t i = 0; i < nodes_.size(); ++i) {
    if (nodes_[i].kind == k) out.push_back(static_cast<int>(i));
  }
  return out;
}

std::optional<call_info> source_file::call_at(int n) const {
  const node& nd = at(n);
  if (nd.kind != node_kind::call) return std::nullopt;
  const std::string_view s = text_;
  const range r = nd.r;
  if (r.size() < 3 || s[r.end - 1] != ')') return std::nullopt;
  // The last top-level '(' in the call's text opens the argument list.
  std::size_t lparen = std::string::npos;
  int depth = 0;
  for (std::size_t i = r.begin; i < r.end;) {
    const std::size_t next = detail::skip_literal_or_comment(s, i);
    if (next != i) {
      i = next;
      continue;
    }
    const char c = s[i];
    if (c == '(' || c == '[' || c == '{') {
      if (depth == 0 && c == '(') lparen = i;
      ++depth;
    } else if (c == ')' || c == ']' || c == '}') {
      --depth;
    }
    ++i;
  }
  if (lparen == std::string::npos || lparen == r.begin) return std::nullopt;
  call_info ci;
  ci.node = n;
  ci.r = r;
  std::string callee = detail::squeeze(s.substr(r.begin, lparen - r.begin));
  if (!callee.empty() && callee.back() == '>') {
    int ad = 0;
    std::size_t open = std::string::npos;
    for (std::size_t i = callee.size(); i-- > 0;) {
      if (callee[i] == '>') ++ad;
      if (callee[i] == '<' && --ad == 0) {
        open = i;
        break;
      }
    }
    if (open == std::string::npos) return std::nullopt;
    const std::string inner = callee.substr(open + 1, callee.size() - open - 2);
    for (const auto& [b, e] : detail::split_args(inner, 0, inner.size())) ci.template_args.push_back(inner.substr(b, e - b));
    callee.resize(open);
  }
  std::size_t name_begin = callee.size();
  while (name_begin > 0 && detail::is_ident_char(callee[name_begin - 1])) --name_begin;
  ci.callee = callee.substr(name_begin);
  ci.qualifier = callee.substr(0, name_begin);
  if (ci.callee.empty()) return std::nullopt;
  for (const auto& [b, e] : detail::split_args(s, lparen + 1, r.end - 1)) ci.args.push_back({b, e});
  // An expression statement: walking up through wrappers with the same range reaches a node
  // whose parent is a compound statement (or a loop / if body without braces).
  int cur = n;
  while (at(cur).parent >= 0) {
    const node& p = at(at(cur).parent);
    if (p.kind == node_kind::compound || p.kind == node_kind::for_loop || p.kind == node_kind::while_loop ||
        p.kind == node_kind::if_stmt || p.kind == node_kind::do_loop) {
      if (p.kind == node_kind::compound || at(cur).kind != node_kind::compound) {
        const range st = statement_range(cur);
        if (st.begin == r.begin && st.end > r.end) ci.statement = st;
      }
      break;
    }
    if (!(p.r == r) || p.kind == node_kind::call) break;
    cur = at(cur).parent;
  }
  return ci;
}

std::vector<call_info> source_file::calls(std::string_view callee) const {
  std::vector<call_info> out;
  for (std::size_t i = 0; i < nodes_.size(); ++i) {
    if (nodes_[i].kind != node_kind::call) continue;
    auto ci = call_at(static_cast<int>(i));
    if (!ci || (!callee.empty() && ci->callee != callee)) continue;
    // Wrappers (implicit conversions) can repeat a call with the same range: keep the first.
    if (!out.empty() && out.back().r == ci->r) continue;
    out.push_back(std::move(*ci));
  }
  return out;
}

int source_file::enclosing(int n, node_kind k) const {
  for (int p = at(n).parent; p >= 0; p = at(p).parent) {
    if (at(p).kind == k) return p;
  }
  return -1;
}

bool source_file::is_ancestor(int ancestor, int n) const {
  for (int p = at(n).parent; p >= 0; p = at(p).parent) {
    if (p == ancestor) return true;
  }
  return false;
}

int source_file::loop_body(int loop) const {
  const auto& ch = at(loop).children;
  for (auto it = ch.rbegin(); it != ch.rend(); ++it) {
    if (at(*it).kind == node_kind::compound) return *it;
  }
  return -1;
}

std::vector<int> source_file::statements(int compound) const { return at(compound).children; }

int source_file::statement_of(int n) const {
  int cur = n;
  while (at(cur).parent >= 0 && at(at(cur).parent).kind != node_kind::compound) cur = at(cur).parent;
  return at(cur).parent >= 0 ? cur : -1;
}

range source_file::statement_range(int stmt) const {
  range r = at(stmt).r;
  if (r.end > 0 && text_[r.end - 1] == ';') return r;
  const std::size_t p = detail::skip_space(text_, r.end);
  if (p < text_.size() && text_[p] == ';') r.end = p + 1;
  return r;
}

range source_file::removal_range(range stmt) const {
  std::size_t ls = stmt.begin;
  while (ls > 0 && text_[ls - 1] != '\n') --ls;
  for (std::size_t i = ls; i < stmt.begin; ++i) {
    if (!std::isspace(static_cast<unsigned char>(text_[i]))) return stmt;
  }
  std::size_t le = stmt.end;
  while (le < text_.size() && text_[le] != '\n') {
    if (!std::isspace(static_cast<unsigned char>(text_[le]))) return stmt;
    ++le;
  }
  if (le < text_.size()) ++le;
  return {ls, le};
}

std::string source_file::indent_at(std::size_t pos) const {
  std::size_t ls = std::min(pos, text_.size());
  while (ls > 0 && text_[ls - 1] != '\n') --ls;
  std::size_t e = ls;
  while (e < text_.size() && (text_[e] == ' ' || text_[e] == '\t')) ++e;
  return text_.substr(ls, e - ls);
}

std::size_t source_file::line_end(std::size_t pos) const {
  const auto nl = text_.find('\n', pos);
  return nl == std::string::npos ? text_.size() : nl + 1;
}

std::vector<std::string> source_file::identifiers(range r) const {
  std::vector<std::string> out;
  for (auto& [id, pos] : detail::identifiers(text_, r.begin, std::min(r.end, text_.size()))) out.push_back(std::move(id));
  return out;
}

bool source_file::mentions(range r, std::string_view name) const {
  for (const auto& [id, pos] : detail::identifiers(text_, r.begin, std::min(r.end, text_.size()))) {
    if (id == name) return true;
  }
  return false;
}

namespace {
std::optional<long long> parse_integer(std::string_view lit) {
  std::string t(lit);
  while (!t.empty() && (t.back() == 'u' || t.back() == 'U' || t.back() == 'l' || t.back() == 'L')) t.pop_back();
  if (t.empty() || !std::isdigit(static_cast<unsigned char>(t[0]))) return std::nullopt;
  try {
    std::size_t used = 0;
    const long long v = std::stoll(t, &used, 0);
    if (used != t.size()) return std::nullopt;
    return v;
  } catch (...) {
    return std::nullopt;
  }
}
}  // namespace

std::vector<source_file::constant> source_file::integer_constants() const {
  std::vector<constant> out;
  for (std::size_t i = 0; i < nodes_.size(); ++i) {
    const node& n = nodes_[i];
    if (n.kind == node_kind::var_decl) {
      // Exactly one integer literal below, and nothing computed (no operators, calls, refs).
      int lit = -1;
      bool simple = true;
      std::vector<int> stack(n.children.begin(), n.children.end());
      while (!stack.empty()) {
        const int c = stack.back();
        stack.pop_back();
        const node& cn = at(c);
        if (cn.kind == node_kind::integer_literal) {
          if (lit >= 0) simple = false;
          lit = c;
        } else if (cn.kind != node_kind::unexposed_expr && cn.kind != node_kind::other && cn.kind != node_kind::init_list) {
          simple = false;
        } else if (cn.clang_kind == CXCursor_TypeRef || cn.clang_kind == CXCursor_NamespaceRef) {
          continue;
        }
        stack.insert(stack.end(), cn.children.begin(), cn.children.end());
      }
      if (!simple || lit < 0) continue;
      auto v = parse_integer(text_of(at(lit).r));
      if (!v) continue;
      out.push_back({n.name, *v, at(lit).r, static_cast<int>(i)});
    } else if (n.kind == node_kind::macro_definition) {
      const std::string_view t = text_of(n.r);
      std::size_t p = n.name.size();
      if (t.substr(0, p) != n.name || (p < t.size() && t[p] == '(')) continue;  // function-like
      auto [b, e] = detail::trim(text_, n.r.begin + p, n.r.end);
      std::size_t lb = b, le = e;
      while (lb < le && text_[lb] == '(' && text_[le - 1] == ')') {
        auto inner = detail::trim(text_, lb + 1, le - 1);
        lb = inner.first;
        le = inner.second;
      }
      auto v = parse_integer(text_of({lb, le}));
      if (!v) continue;
      out.push_back({n.name, *v, {lb, le}, static_cast<int>(i)});
    }
  }
  return out;
}

std::optional<source_file::constant> source_file::integer_constant(std::string_view name) const {
  for (auto& c : integer_constants()) {
    if (c.name == name) return c;
  }
  return std::nullopt;
}

std::string source_file::api_prefix() const {
  for (const auto& c : calls()) {
    if (c.qualifier == "AscendC::") return "AscendC::";
  }
  return {};
}

// ---------------------------------------------------------------------------------------------
// parser

struct parser::impl {
  parse_options opts;
  std::uint64_t id = [] {
    static std::atomic<std::uint64_t> next{1};
    return next.fetch_add(1);
  }();
  CXIndex index = nullptr;
  std::string pch_dir;
  std::string kernel_pch;  // empty: not built yet; "-": failed
  std::string host_pch;
  // The memo: most recently used first; `where` finds an entry by key.
  using entry = std::pair<std::string, std::shared_ptr<const source_file>>;
  std::list<entry> memo;
  std::unordered_map<std::string, std::list<entry>::iterator> where;
  parse_stats stats;

  // What a parse depends on: its arguments (include directories, macros, the forced tiling header),
  // the path, and the files it may include, transitively. An include names a file by a relative
  // path; every file of the set with the same last component counts (more than clang may open, never
  // less). A computed `#include MACRO` makes the whole set count. So a candidate that changes one
  // header parses again only the files that include it (issue 35: the parse of unchanged files of a
  // candidate was most of the engine's time on multi-header kernels).
  static std::string key_of(const file_set& files, const std::string& path, const std::vector<std::string>& args) {
    common::sha256 h;
    const std::string_view sep("\0", 1);
    for (const auto& a : args) {
      h.update(a);
      h.update(sep);
    }
    h.update(path);
    h.update(sep);
    std::vector<std::string> roots = {path};
    for (std::size_t i = 0; i + 1 < args.size(); ++i) {
      if (args[i] == "-include" && args[i + 1].rfind(virtual_root, 0) == 0) {
        roots.push_back(args[i + 1].substr(std::string_view(virtual_root).size()));
      }
    }
    for (const auto* f : include_closure(files, roots)) {
      h.update(f->first);
      h.update(sep);
      h.update(std::to_string(f->second.size()));
      h.update(sep);
      h.update(f->second);
    }
    return common::to_hex(h.finish());
  }

  // The names the #include lines of `text` give ("" for a computed `#include MACRO`). A scan, not a
  // regex: it runs for every file of a set on every parse request, memo hits included.
  static std::vector<std::string> included_names(std::string_view text) {
    std::vector<std::string> out;
    std::size_t at = 0;
    while ((at = text.find("include", at)) != std::string_view::npos) {
      const std::size_t word = at;
      at += 7;
      std::size_t b = word;  // back over blanks to '#', which must open its line
      while (b > 0 && (text[b - 1] == ' ' || text[b - 1] == '\t')) --b;
      if (b == 0 || text[b - 1] != '#') continue;
      --b;
      while (b > 0 && (text[b - 1] == ' ' || text[b - 1] == '\t')) --b;
      if (b > 0 && text[b - 1] != '\n') continue;
      std::size_t q = at;
      while (q < text.size() && (text[q] == ' ' || text[q] == '\t')) ++q;
      if (q >= text.size() || (text[q] != '"' && text[q] != '<')) {
        out.emplace_back();
        continue;
      }
      const char close = text[q] == '"' ? '"' : '>';
      const std::size_t end = text.find_first_of(std::string{close, '\n'}, q + 1);
      if (end == std::string_view::npos || text[end] != close) continue;
      out.emplace_back(text.substr(q + 1, end - q - 1));
    }
    return out;
  }

  // The files of `files` reachable from `roots` by #include lines (see key_of), in the set's order.
  static std::vector<const file_set::value_type*> include_closure(const file_set& files, const std::vector<std::string>& roots) {
    std::map<std::string, std::vector<const file_set::value_type*>> by_name;
    for (const auto& f : files) by_name[last_component(f.first)].push_back(&f);
    std::set<const file_set::value_type*> seen;
    std::vector<const file_set::value_type*> todo;
    for (const auto& r : roots) {
      if (auto it = files.find(r); it != files.end() && seen.insert(&*it).second) todo.push_back(&*it);
    }
    while (!todo.empty()) {
      const auto* f = todo.back();
      todo.pop_back();
      for (const auto& name : included_names(f->second)) {
        if (name.empty()) {  // #include MACRO: anything may be included
          std::vector<const file_set::value_type*> all;
          for (const auto& g : files) all.push_back(&g);
          return all;
        }
        auto hit = by_name.find(last_component(name));
        if (hit == by_name.end()) continue;
        for (const auto* g : hit->second) {
          if (seen.insert(g).second) todo.push_back(g);
        }
      }
    }
    std::vector<const file_set::value_type*> out;
    for (const auto& f : files) {
      if (seen.count(&f)) out.push_back(&f);
    }
    return out;
  }

  // The DTYPE_<NAME> and ORIG_DTYPE_<NAME> words of `text` (whole identifiers), by a scan.
  static void dtype_macros(std::string_view text, std::set<std::string>& out) {
    const auto ident = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
    std::size_t at = 0;
    while ((at = text.find("DTYPE_", at)) != std::string_view::npos) {
      std::size_t b = at;
      if (b >= 5 && text.compare(b - 5, 5, "ORIG_") == 0) b -= 5;
      std::size_t e = at + 6;
      while (e < text.size() && ident(text[e])) ++e;
      const bool whole = (b == 0 || !ident(text[b - 1])) && e > at + 6;
      if (whole) out.insert(std::string(text.substr(b, e - b)));
      at = e;
    }
  }

  static std::string last_component(const std::string& p) {
    const auto slash = p.rfind('/');
    return slash == std::string::npos ? p : p.substr(slash + 1);
  }

  // The arguments of a parse of `path` in `files`, but the prelude PCH (the same for every parse of
  // one parser): every file's directory as an include directory, and for a kernel the DTYPE_<NAME>
  // macros of the whole kernel side and the force-included tiling struct of op_host/.
  std::vector<std::string> parse_args(const file_set& files, bool kernel) const {
    auto args = common_args();
    std::set<std::string> dirs;
    for (const auto& f : files) dirs.insert(dir_of(virtual_root + f.first));
    for (const auto& d : dirs) args.push_back("-I" + d);
    if (kernel) {
      std::set<std::string> macros;
      for (const auto& [p, content] : files) {
        if (is_kernel_source(content)) dtype_macros(content, macros);
      }
      for (const auto& m : macros) args.push_back("-D" + m + (m.rfind("ORIG_", 0) == 0 ? "=ge::DT_FLOAT" : "=float"));
      static const std::regex reg_re(R"(REGISTER_TILING_DATA_CLASS\s*\(\s*(\w+)\s*,)");
      for (const auto& [p, content] : files) {
        if (p.size() > 9 && p.compare(p.size() - 9, 9, "_tiling.h") == 0 && content.find("BEGIN_TILING_DATA_DEF") != std::string::npos) {
          args.push_back("-include");
          args.push_back(virtual_root + p);
          std::smatch m;
          if (std::regex_search(content, m, reg_re)) args.push_back("-DAOPT_OP_TYPE=" + m[1].str());
          break;
        }
      }
    }
    for (const auto& a : opts.extra_args) args.push_back(a);
    return args;
  }

  std::vector<std::string> common_args() const {
    std::vector<std::string> a = {"-x", "c++", "-std=c++17", "-I" + opts.sim_include_dir,
                                  "-D__CCE_AICORE__=220", "-D__DAV_C220_VEC__", "-DASCENDC_CPU_DEBUG=0",
                                  "-Wno-everything"};
    return a;
  }

  std::string build_pch(const std::string& name, const std::string& content) {
    if (pch_dir.empty()) {
      std::string tmpl = (std::filesystem::temp_directory_path() / "aopt-motifs-XXXXXX").string();
      if (!mkdtemp(tmpl.data())) return "-";
      pch_dir = tmpl;
    }
    const std::string header = std::string(virtual_root) + name + ".h";
    CXUnsavedFile uf{header.c_str(), content.c_str(), static_cast<unsigned long>(content.size())};
    auto args = common_args();
    args[1] = "c++-header";
    std::vector<const char*> argv;
    for (auto& s : args) argv.push_back(s.c_str());
    CXTranslationUnit tu = nullptr;
    const auto err = clang_parseTranslationUnit2(index, header.c_str(), argv.data(), static_cast<int>(argv.size()), &uf, 1,
                                                 CXTranslationUnit_Incomplete | CXTranslationUnit_ForSerialization, &tu);
    if (err != CXError_Success || !tu) return "-";
    const std::string out = pch_dir + "/" + name + ".pch";
    const int saved = clang_saveTranslationUnit(tu, out.c_str(), clang_defaultSaveOptions(tu));
    clang_disposeTranslationUnit(tu);
    return saved == CXSaveError_None ? out : "-";
  }
};

std::uint64_t parser::instance_id() const { return impl_->id; }

parser::parser(parse_options opts) : impl_(std::make_unique<impl>()) {
  impl_->opts = std::move(opts);
  if (impl_->opts.sim_include_dir.empty()) impl_->opts.sim_include_dir = sim_include_default();
  if (impl_->opts.sim_include_dir.empty() ||
      !std::filesystem::exists(std::filesystem::path(impl_->opts.sim_include_dir) / "kernel_operator.h")) {
    throw aopt::error(ec::not_found, "motif parser: no kernel_operator.h under the emulator include directory '" +
                                         impl_->opts.sim_include_dir +
                                         "'; set parse_options::sim_include_dir or AOPT_SIM_INCLUDE_DIR to <src>/sim/include");
  }
  impl_->index = clang_createIndex(0, 0);
}

parser::~parser() {
  if (impl_->index) clang_disposeIndex(impl_->index);
  if (!impl_->pch_dir.empty()) {
    std::error_code ec;
    std::filesystem::remove_all(impl_->pch_dir, ec);
  }
}

bool parser::is_kernel_source(std::string_view text) {
  return text.find("kernel_operator.h") != std::string_view::npos || text.find("__aicore__") != std::string_view::npos;
}

bool parser::is_host_source(std::string_view text) {
  return !is_kernel_source(text) &&
         (text.find("TilingContext") != std::string_view::npos || text.find("op_def_registry") != std::string_view::npos ||
          text.find("BEGIN_TILING_DATA_DEF") != std::string_view::npos);
}

parse_stats parser::stats() const { return impl_->stats; }

std::shared_ptr<const source_file> parser::parse(const file_set& files, const std::string& path) {
  auto& m = *impl_;
  if (m.opts.memo_entries == 0) {
    ++m.stats.parses;
    return parse_uncached(files, path);
  }
  auto it = files.find(path);
  if (it == files.end()) {
    throw aopt::error(ec::not_found, "motif parser: '" + path + "' is not in the file set");
  }
  std::string key = impl::key_of(files, path, m.parse_args(files, is_kernel_source(it->second)));
  if (auto hit = m.where.find(key); hit != m.where.end()) {
    m.memo.splice(m.memo.begin(), m.memo, hit->second);
    ++m.stats.memo_hits;
    return hit->second->second;
  }
  ++m.stats.parses;
  auto parsed = parse_uncached(files, path);
  m.memo.emplace_front(key, parsed);
  m.where[std::move(key)] = m.memo.begin();
  while (m.memo.size() > m.opts.memo_entries) {
    m.where.erase(m.memo.back().first);
    m.memo.pop_back();
  }
  return parsed;
}

std::shared_ptr<const source_file> parser::parse_uncached(const file_set& files, const std::string& path) {
  auto it = files.find(path);
  if (it == files.end()) {
    throw aopt::error(ec::not_found, "motif parser: '" + path + "' is not in the file set");
  }
  const std::string& text = it->second;
  const bool kernel = is_kernel_source(text);
  auto args = impl_->parse_args(files, kernel);
  // Every file of the set is visible to clang under the virtual root.
  std::vector<std::string> names;
  for (const auto& f : files) names.push_back(virtual_root + f.first);
  if (impl_->opts.use_pch) {
    std::string& pch = kernel ? impl_->kernel_pch : impl_->host_pch;
    if (pch.empty()) {
      pch = kernel ? impl_->build_pch("kernel_prelude", "#include \"kernel_operator.h\"\n")
                   : impl_->build_pch("host_prelude",
                                      "#include \"register/op_def_registry.h\"\n#include \"register/tilingdata_base.h\"\n"
                                      "#include \"tiling/platform/platform_ascendc.h\"\n");
    }
    if (pch != "-") {
      args.push_back("-include-pch");
      args.push_back(pch);
    }
  }
  std::vector<const char*> argv;
  for (auto& s : args) argv.push_back(s.c_str());
  std::vector<CXUnsavedFile> unsaved;
  std::size_t k = 0;
  for (const auto& [p, content] : files) {
    unsaved.push_back({names[k++].c_str(), content.c_str(), static_cast<unsigned long>(content.size())});
  }
  const std::string main_name = virtual_root + path;
  CXTranslationUnit tu = nullptr;
  const auto err = clang_parseTranslationUnit2(impl_->index, main_name.c_str(), argv.data(), static_cast<int>(argv.size()),
                                               unsaved.data(), static_cast<unsigned>(unsaved.size()),
                                               CXTranslationUnit_KeepGoing | CXTranslationUnit_DetailedPreprocessingRecord, &tu);
  if (err != CXError_Success || !tu) {
    throw aopt::error(ec::parse_error, "motif parser: libclang could not parse '" + path + "' (error " +
                                           std::to_string(static_cast<int>(err)) +
                                           "); check that the emulator headers under " + impl_->opts.sim_include_dir +
                                           " are complete");
  }
  std::vector<std::string> diags;
  for (unsigned i = 0; i < clang_getNumDiagnostics(tu); ++i) {
    CXDiagnostic d = clang_getDiagnostic(tu, i);
    if (clang_getDiagnosticSeverity(d) >= CXDiagnostic_Error) {
      diags.push_back(take(clang_formatDiagnostic(d, CXDiagnostic_DisplaySourceLocation | CXDiagnostic_DisplayColumn)));
    }
    clang_disposeDiagnostic(d);
  }
  builder b;
  b.main_file = clang_getFile(tu, main_name.c_str());
  b.main_name = b.main_file ? take(clang_getFileName(b.main_file)) : main_name;
  b.text = text;
  // The translation unit itself spans the whole file.
  node root;
  root.kind = node_kind::translation_unit;
  root.clang_kind = CXCursor_TranslationUnit;
  root.name = path;
  root.r = {0, text.size()};
  b.nodes.push_back(root);
  struct ctx {
    builder* self;
  } cx{&b};
  clang_visitChildren(
      clang_getTranslationUnitCursor(tu),
      [](CXCursor child, CXCursor, CXClientData data) {
        static_cast<ctx*>(data)->self->visit(child, 0);
        return CXChildVisit_Continue;
      },
      &cx);
  clang_disposeTranslationUnit(tu);
  return std::make_shared<source_file>(path, text, std::move(b.nodes), std::move(diags));
}

// ---------------------------------------------------------------------------------------------
// source_set

std::shared_ptr<const source_file> source_set::get(const std::string& path) const {
  auto it = parsed_.find(path);
  if (it != parsed_.end()) return it->second;
  auto parsed = parser_->parse(files_, path);
  parsed_[path] = parsed;
  return parsed;
}

std::vector<std::string> source_set::paths_with(std::initializer_list<std::string_view> needles) const {
  std::vector<std::string> out;
  for (const auto& [p, content] : files_) {
    const auto dot = p.rfind('.');
    if (dot == std::string::npos) continue;
    const std::string ext = p.substr(dot);
    if (ext != ".cpp" && ext != ".cc" && ext != ".h" && ext != ".hpp") continue;
    bool all = true;
    for (auto n : needles) all = all && content.find(n) != std::string::npos;
    if (all) out.push_back(p);
  }
  return out;
}

}  // namespace aopt::motifs
