// vectorize_scalar_loop's general form: a scalar element loop over fp32 UB tensors whose body
// loads elements into float locals and stores expressions of them, with interleaved (array of
// structures) indexing `s * i + o` for s = 1, 2 or 4: complex numbers as (re, im) pairs, RGBA
// pixels, xyzw vectors. The loop becomes, per chunk of C elements: GatherMask with the built-in
// patterns splits every loaded (tensor, o) into a plane, the expressions run as vector
// instructions on the planes (register allocation over scratch slots of C floats, PipeBarrier
// only where an instruction depends on one since the last barrier), and one Gather per output
// tensor re-interleaves its planes through a byte-offset table. The scratch is a TBuf added to
// the kernel class; the host's UB size is reduced by its bytes where the tiling sizes its tiles
// from GetCoreMemSize(UB). For s = 1 the loads and stores use the tensors directly.
#include <algorithm>
#include <map>
#include <regex>
#include <set>

#include "flow.h"

namespace aopt::motifs::detail {
namespace {

constexpr int scratch_budget = 32768;  // bytes of scratch the chunk size is chosen for
constexpr int min_chunk = 256;
constexpr int max_chunk = 2048;

// ---- expressions ----------------------------------------------------------------------------------

struct expr {
  enum kind_t { load, local, scalar, binary, negate } kind = scalar;
  std::string text;     // load: tensor; local: name; scalar: spelling
  int offset = 0;       // load: o of s * i + o
  char op = 0;          // binary: + - * /
  int a = -1, b = -1;   // operands (indices into the arena)
};

struct index_form {
  int stride = 0;
  int offset = 0;
};

// `i`, `s*i`, `i*s`, `s*i+o`, `i*s+o`, `o+s*i`, `o+i*s` (whitespace-free, integer literals).
std::optional<index_form> parse_index(std::string s, const std::string& var) {
  s = strip_parens(s);
  auto lit = [](const std::string& t, int& v) {
    long long x = 0;
    if (!is_int_literal(t, &x) || x < 0 || x > 64) return false;
    v = static_cast<int>(x);
    return true;
  };
  auto strided = [&](const std::string& t, int& stride) {
    if (t == var) {
      stride = 1;
      return true;
    }
    if (auto m = split_binary(t, "*")) {
      if (m->second == var) return lit(m->first, stride);
      if (m->first == var) return lit(m->second, stride);
    }
    return false;
  };
  index_form out;
  if (strided(s, out.stride)) return out;
  if (auto p = split_binary(s, "+")) {
    if (strided(p->first, out.stride) && lit(p->second, out.offset)) return out;
    if (strided(p->second, out.stride) && lit(p->first, out.offset)) return out;
  }
  return std::nullopt;
}

// Recursive descent over a whitespace-free expression: + - * / ( ), unary minus, float or
// integer literals, names (a.b, this->x_), `t.GetValue(index)` and static_cast<float>(e).
class expr_parser {
 public:
  expr_parser(std::string s, std::vector<expr>& arena) : s_(std::move(s)), arena_(arena) {}
  std::optional<int> parse() {
    auto e = sum();
    if (!e || pos_ != s_.size()) return std::nullopt;
    return e;
  }

 private:
  std::optional<int> sum() {
    auto l = product();
    while (l && pos_ < s_.size() && (s_[pos_] == '+' || s_[pos_] == '-')) {
      const char op = s_[pos_++];
      auto r = product();
      if (!r) return std::nullopt;
      l = add({expr::binary, {}, 0, op, *l, *r});
    }
    return l;
  }
  std::optional<int> product() {
    auto l = unary();
    while (l && pos_ < s_.size() && (s_[pos_] == '*' || s_[pos_] == '/')) {
      const char op = s_[pos_++];
      auto r = unary();
      if (!r) return std::nullopt;
      l = add({expr::binary, {}, 0, op, *l, *r});
    }
    return l;
  }
  std::optional<int> unary() {
    if (pos_ < s_.size() && s_[pos_] == '-') {
      ++pos_;
      auto e = unary();
      if (!e) return std::nullopt;
      return add({expr::negate, {}, 0, 0, *e, -1});
    }
    if (pos_ < s_.size() && s_[pos_] == '+') ++pos_;
    return primary();
  }
  std::optional<int> primary() {
    if (pos_ >= s_.size()) return std::nullopt;
    if (s_[pos_] == '(') {
      ++pos_;
      auto e = sum();
      if (!e || pos_ >= s_.size() || s_[pos_] != ')') return std::nullopt;
      ++pos_;
      return e;
    }
    static const std::string cast = "static_cast<float>(";
    if (s_.compare(pos_, cast.size(), cast) == 0) {
      pos_ += cast.size();
      auto e = sum();
      if (!e || pos_ >= s_.size() || s_[pos_] != ')') return std::nullopt;
      ++pos_;
      return e;
    }
    const std::size_t start = pos_;
    if (std::isdigit(static_cast<unsigned char>(s_[pos_])) || s_[pos_] == '.') {
      while (pos_ < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[pos_])) || s_[pos_] == '.' ||
                                  ((s_[pos_] == '+' || s_[pos_] == '-') && (s_[pos_ - 1] == 'e' || s_[pos_ - 1] == 'E')))) {
        ++pos_;
      }
      return add({expr::scalar, s_.substr(start, pos_ - start)});
    }
    if (!is_ident_start(s_[pos_])) return std::nullopt;
    // A name with member access: a.b.c, this->x_.
    while (pos_ < s_.size()) {
      while (pos_ < s_.size() && is_ident_char(s_[pos_])) ++pos_;
      if (s_.compare(pos_, 2, "->") == 0 && pos_ + 2 < s_.size() && is_ident_start(s_[pos_ + 2])) {
        pos_ += 2;
        continue;
      }
      if (s_[pos_] == '.' && pos_ + 1 < s_.size() && is_ident_start(s_[pos_ + 1]) &&
          s_.compare(pos_, 10, ".GetValue(") != 0) {
        ++pos_;
        continue;
      }
      break;
    }
    std::string name = s_.substr(start, pos_ - start);
    if (s_.compare(pos_, 10, ".GetValue(") == 0) {
      pos_ += 10;
      const std::size_t arg = pos_;
      int depth = 1;
      while (pos_ < s_.size() && depth > 0) {
        if (s_[pos_] == '(') ++depth;
        if (s_[pos_] == ')') --depth;
        ++pos_;
      }
      if (depth != 0) return std::nullopt;
      expr e{expr::load, std::move(name)};
      index_.push_back({static_cast<int>(arena_.size()), s_.substr(arg, pos_ - 1 - arg)});
      return add(std::move(e));
    }
    if (pos_ < s_.size() && (s_[pos_] == '(' || s_[pos_] == '[' || s_[pos_] == '<')) return std::nullopt;  // calls, subscripts
    return add({expr::local, std::move(name)});
  }
  int add(expr e) {
    arena_.push_back(std::move(e));
    return static_cast<int>(arena_.size()) - 1;
  }

 public:
  std::vector<std::pair<int, std::string>> index_;  // (load node, index text)

 private:
  std::string s_;
  std::size_t pos_ = 0;
  std::vector<expr>& arena_;
};

// ---- the loop -----------------------------------------------------------------------------------

struct element_loop {
  counted_loop loop;
  int stride = 1;
  std::vector<expr> arena;
  struct local_def {
    std::string name;
    int value = -1;
  };
  struct store {
    std::string tensor;
    int offset = 0;
    int value = -1;
  };
  // Statements in order: a local definition or a store.
  struct statement {
    bool is_store = false;
    int index = -1;  // into locals or stores
  };
  std::vector<local_def> locals;
  std::vector<store> stores;
  std::vector<statement> order;
  std::vector<std::pair<std::string, int>> planes;  // distinct loads (tensor, offset), in order
  std::vector<std::string> outputs;                 // distinct store tensors, in order
  int method = -1;
  int cls = -1;
};

bool is_float_tensor(const source_file& f, int method, const std::string& name) {
  std::string type;
  for (const auto& n : f.nodes()) {
    if ((n.kind == node_kind::var_decl || n.kind == node_kind::parm_decl) && n.name == name && f.is_ancestor(method, static_cast<int>(&n - f.nodes().data()))) {
      type = n.type;
    }
  }
  if (type.empty()) type = type_of_name(f, name);
  return type.find("LocalTensor") != std::string::npos && squeeze(first_template_arg(type)) == "float";
}

// `float name = <expr>;` (a single declarator) -> name and the initializer's spelling.
std::optional<std::pair<std::string, std::string>> float_local(const source_file& f, int stmt) {
  if (f.at(stmt).kind != node_kind::decl_stmt || f.at(stmt).children.size() != 1) return std::nullopt;
  const node& v = f.at(f.at(stmt).children[0]);
  if (v.kind != node_kind::var_decl) return std::nullopt;
  std::string type = v.type;
  if (type.rfind("const ", 0) == 0) type = type.substr(6);
  if (type != "float") return std::nullopt;
  const std::string text = squeeze(f.text_of(f.statement_range(stmt)));
  const auto eq = text.find('=');
  if (eq == std::string::npos || text.back() != ';') return std::nullopt;
  return std::make_pair(v.name, text.substr(eq + 1, text.size() - eq - 2));
}

std::optional<element_loop> as_element_loop(const source_file& f, int loop) {
  auto cl = as_counted_loop(f, loop);
  if (!cl || norm(f, cl->init) != "0") return std::nullopt;
  element_loop el;
  el.loop = *cl;
  el.method = f.enclosing(loop, node_kind::method);
  el.cls = f.enclosing(loop, node_kind::class_decl);
  if (el.method < 0 || el.cls < 0) return std::nullopt;
  // The bound is evaluated once per chunk: names and literals only.
  const std::string bound = norm(f, cl->bound);
  for (char c : bound) {
    if (c == '(' || c == '[' || c == '=') return std::nullopt;
  }
  const auto stmts = f.statements(cl->body);
  if (stmts.empty()) return std::nullopt;
  std::map<std::string, int> local_index;
  std::set<std::pair<std::string, int>> stored;
  int stride = 0;
  auto parse_value = [&](const std::string& text) -> std::optional<int> {
    expr_parser p(text, el.arena);
    auto root = p.parse();
    if (!root) return std::nullopt;
    for (const auto& [node, idx] : p.index_) {
      auto ix = parse_index(idx, cl->var);
      if (!ix || (stride != 0 && ix->stride != stride)) return std::nullopt;
      stride = ix->stride;
      el.arena[static_cast<std::size_t>(node)].offset = ix->offset;
    }
    return root;
  };
  for (int st : stmts) {
    if (auto loc = float_local(f, st)) {
      if (local_index.count(loc->first) || loc->first == cl->var) return std::nullopt;
      auto v = parse_value(loc->second);
      if (!v) return std::nullopt;
      local_index[loc->first] = static_cast<int>(el.locals.size());
      el.order.push_back({false, static_cast<int>(el.locals.size())});
      el.locals.push_back({loc->first, *v});
      continue;
    }
    // `t.SetValue(index, value);`
    std::optional<call_info> set;
    for (const auto& c : f.calls("SetValue")) {
      if (c.statement == f.statement_range(st) && c.args.size() == 2) set = c;
    }
    if (!set) return std::nullopt;
    const std::string tensor = set->object();
    if (!is_identifier(tensor)) return std::nullopt;
    auto ix = parse_index(norm(f, set->args[0]), cl->var);
    if (!ix || (stride != 0 && ix->stride != stride)) return std::nullopt;
    stride = ix->stride;
    auto v = parse_value(norm(f, set->args[1]));
    if (!v) return std::nullopt;
    if (!stored.insert({tensor, ix->offset}).second) return std::nullopt;  // one store per element
    el.order.push_back({true, static_cast<int>(el.stores.size())});
    el.stores.push_back({tensor, ix->offset, *v});
    if (std::find(el.outputs.begin(), el.outputs.end(), tensor) == el.outputs.end()) el.outputs.push_back(tensor);
  }
  if (el.stores.empty() || (stride != 1 && stride != 2 && stride != 4)) return std::nullopt;
  el.stride = stride;
  // Every element of every output written; offsets inside the stride.
  for (const auto& [t, o] : stored) {
    if (o >= stride) return std::nullopt;
  }
  if (stored.size() != el.outputs.size() * static_cast<std::size_t>(stride)) return std::nullopt;
  // Leaves: loads of float tensors that are not outputs; locals defined before; other names are
  // loop-invariant scalars (not the loop variable, not assigned in the loop).
  std::set<std::string> defined;
  for (const auto& s : el.order) {
    const int root = s.is_store ? el.stores[static_cast<std::size_t>(s.index)].value : el.locals[static_cast<std::size_t>(s.index)].value;
    std::vector<int> todo = {root};
    while (!todo.empty()) {
      const int n = todo.back();
      todo.pop_back();
      expr& e = el.arena[static_cast<std::size_t>(n)];
      if (e.a >= 0) todo.push_back(e.a);
      if (e.b >= 0) todo.push_back(e.b);
      if (e.kind == expr::load) {
        if (e.offset >= stride || std::find(el.outputs.begin(), el.outputs.end(), e.text) != el.outputs.end()) return std::nullopt;
        const auto key = std::make_pair(e.text, e.offset);
        if (std::find(el.planes.begin(), el.planes.end(), key) == el.planes.end()) {
          if (!is_identifier(e.text) || !is_float_tensor(f, el.method, e.text)) return std::nullopt;
          el.planes.push_back(key);
        }
      } else if (e.kind == expr::local) {
        if (e.text == cl->var) return std::nullopt;
        if (local_index.count(e.text)) {
          if (!defined.count(e.text)) return std::nullopt;
        } else {
          // A loop-invariant name: the body holds only float locals and stores, so nothing in
          // the loop assigns it.
          e.kind = expr::scalar;
        }
      }
    }
    if (!s.is_store) defined.insert(el.locals[static_cast<std::size_t>(s.index)].name);
  }
  for (const auto& t : el.outputs) {
    if (!is_float_tensor(f, el.method, t)) return std::nullopt;
  }
  // Worth a rewrite: the single-statement stride-1 form belongs to the simple vector call.
  if (stride == 1 && el.stores.size() == 1 && el.locals.empty()) {
    const expr& e = el.arena[static_cast<std::size_t>(el.stores[0].value)];
    if (e.kind == expr::binary && el.arena[static_cast<std::size_t>(e.a)].kind == expr::load &&
        el.arena[static_cast<std::size_t>(e.b)].kind == expr::load) {
      return std::nullopt;
    }
  }
  return el;
}

// ---- code generation ----------------------------------------------------------------------------

// An operand of a vector instruction: a scratch slot, or a tensor at the chunk's element offset.
struct operand {
  enum kind_t { slot, tensor } kind = slot;
  int index = 0;        // slot number
  std::string name;     // tensor
  bool operator<(const operand& o) const { return std::tie(kind, index, name) < std::tie(o.kind, o.index, o.name); }
  bool operator==(const operand& o) const { return kind == o.kind && index == o.index && name == o.name; }
};

struct instr {
  std::string op;                 // Add Sub Mul Div Adds Muls Duplicate
  operand dst;
  std::vector<operand> srcs;
  std::string scalar;             // Adds/Muls/Duplicate
};

// A value during generation: a scalar spelling or a vector operand (temp when owned by nobody).
struct value {
  bool is_scalar = false;
  std::string scalar;
  operand v;
  int temp = -1;  // slot owned by this value alone (dies when consumed)
};

class generator {
 public:
  explicit generator(const element_loop& el) : el_(el) {
    // Slot layout: planes (s > 1), then s slots per output (s > 1), then temporaries.
    first_temp_ = el.stride > 1 ? static_cast<int>(el.planes.size() + el.outputs.size() * static_cast<std::size_t>(el.stride)) : 0;
    for (const auto& e : el.arena) {
      if (e.kind == expr::local) ++uses_[e.text];
    }
  }

  void run() {
    for (const auto& st : el_.order) {
      if (!st.is_store) {
        const auto& l = el_.locals[static_cast<std::size_t>(st.index)];
        value v = eval(l.value, std::nullopt);
        locals_[l.name] = v;  // a temp stays owned by the local until its last use
        if (uses_[l.name] == 0) release(v);
        continue;
      }
      const auto& s = el_.stores[static_cast<std::size_t>(st.index)];
      const operand out = output_operand(s.tensor, s.offset);
      value v = eval(s.value, out);
      if (v.is_scalar) {
        emit({"Duplicate", out, {}, "static_cast<float>(" + v.scalar + ")"});
      } else if (!(v.v == out)) {
        emit({"Muls", out, {v.v}, "1.0f"});
        consumed(v, s.value);
      }
    }
  }

  const std::vector<instr>& code() const { return code_; }
  int slots() const { return first_temp_ + temps_; }

 private:
  operand output_operand(const std::string& tensor, int offset) const {
    if (el_.stride == 1) return {operand::tensor, 0, tensor};
    const auto t = static_cast<int>(std::find(el_.outputs.begin(), el_.outputs.end(), tensor) - el_.outputs.begin());
    return {operand::slot, static_cast<int>(el_.planes.size()) + t * el_.stride + offset, {}};
  }
  operand plane_operand(const std::string& tensor, int offset) const {
    if (el_.stride == 1) return {operand::tensor, 0, tensor};
    const auto key = std::make_pair(tensor, offset);
    return {operand::slot, static_cast<int>(std::find(el_.planes.begin(), el_.planes.end(), key) - el_.planes.begin()), {}};
  }
  int take_temp() {
    if (!free_.empty()) {
      const int t = *free_.begin();
      free_.erase(free_.begin());
      return t;
    }
    return first_temp_ + temps_++;
  }
  void release(const value& v) {
    if (v.temp >= 0) free_.insert(v.temp);
  }
  // A consumed operand value: a temp of a child dies here; a local's temp when its uses run out.
  void consumed(const value& v, int node) {
    const expr& e = el_.arena[static_cast<std::size_t>(node)];
    if (e.kind == expr::local) {
      if (--uses_[e.text] == 0) release(locals_[e.text]);
      return;
    }
    release(v);
  }
  value eval(int node, std::optional<operand> dst) {
    const expr& e = el_.arena[static_cast<std::size_t>(node)];
    switch (e.kind) {
      case expr::load: return {false, {}, plane_operand(e.text, e.offset), -1};
      case expr::scalar: return {true, e.text, {}, -1};
      case expr::local: {
        value v = locals_.at(e.text);
        v.temp = -1;  // owned by the local
        return v;
      }
      case expr::negate: {
        value a = eval(e.a, std::nullopt);
        if (a.is_scalar) return {true, "(-" + a.scalar + ")", {}, -1};
        consumed(a, e.a);
        const operand d = dst ? *dst : operand{operand::slot, take_temp(), {}};
        emit({"Muls", d, {a.v}, "-1.0f"});
        return {false, {}, d, dst ? -1 : d.index};
      }
      case expr::binary: break;
    }
    value a = eval(e.a, std::nullopt);
    value b = eval(e.b, std::nullopt);
    if (a.is_scalar && b.is_scalar) return {true, "(" + a.scalar + " " + e.op + " " + b.scalar + ")", {}, -1};
    // s - v, s / v, v / s need the scalar broadcast into a temporary: taken while the operands'
    // slots are still held, so it cannot overwrite one of them.
    const bool broadcast = a.is_scalar ? (e.op == '-' || e.op == '/') : (b.is_scalar && e.op == '/');
    const int bt = broadcast ? take_temp() : -1;
    // Operands consumed by this instruction free their temps: the destination may reuse one
    // (element-wise instructions may write in place).
    if (!a.is_scalar) consumed(a, e.a);
    if (!b.is_scalar) consumed(b, e.b);
    const operand d = dst ? *dst : operand{operand::slot, take_temp(), {}};
    const value out{false, {}, d, dst ? -1 : d.index};
    const std::string fa = "static_cast<float>(" + a.scalar + ")";
    const std::string fb = "static_cast<float>(" + b.scalar + ")";
    if (!a.is_scalar && !b.is_scalar) {
      emit({e.op == '+' ? "Add" : e.op == '-' ? "Sub" : e.op == '*' ? "Mul" : "Div", d, {a.v, b.v}, {}});
    } else if (b.is_scalar && (e.op == '+' || e.op == '-' || e.op == '*')) {
      emit({e.op == '*' ? "Muls" : "Adds", d, {a.v}, e.op == '-' ? "static_cast<float>(-" + b.scalar + ")" : fb});
    } else if (a.is_scalar && (e.op == '+' || e.op == '*')) {
      emit({e.op == '*' ? "Muls" : "Adds", d, {b.v}, fa});
    } else {
      const operand tv{operand::slot, bt, {}};
      emit({"Duplicate", tv, {}, a.is_scalar ? fa : fb});
      if (a.is_scalar) {
        emit({e.op == '-' ? "Sub" : "Div", d, {tv, b.v}, {}});
      } else {
        emit({"Div", d, {a.v, tv}, {}});
      }
      free_.insert(bt);
    }
    return out;
  }
  void emit(instr i) { code_.push_back(std::move(i)); }

  const element_loop& el_;
  int first_temp_ = 0;
  int temps_ = 0;
  std::set<int> free_;
  std::map<std::string, int> uses_;
  std::map<std::string, value> locals_;
  std::vector<instr> code_;
};

int chunk_for(int slots) {
  int c = max_chunk;
  while (c > min_chunk && slots * c * 4 > scratch_budget) c /= 2;
  return c;
}

struct names {
  std::string buf, off, base, n, cnt, ev, j, k, scratch;
};

std::string render_operand(const operand& o, int chunk, const names& nm) {
  if (o.kind == operand::tensor) return o.name + "[" + nm.base + "]";
  return nm.buf + "[" + std::to_string(o.index * chunk) + "]";
}

// The replacement of the loop, indented with `ind` (the loop's own indentation for its first line).
std::string render(const source_file& f, const element_loop& el, const generator& g, int chunk, const names& nm,
                   const std::string& ind) {
  const std::string p = f.api_prefix();
  const std::string i1 = ind + "    ";
  const std::string i2 = i1 + "    ";
  const std::string s = std::to_string(el.stride);
  const std::string C = std::to_string(chunk);
  const std::string bound = "(" + std::string(f.text_of(el.loop.bound)) + ")";
  const bool scratch = g.slots() > 0;
  const int table_slot = g.slots();
  std::string out = "{\n";
  out += i1 + "// vectorized element loop (stride " + s + ", " + C + " elements per chunk)\n";
  if (scratch) out += i1 + p + "LocalTensor<float> " + nm.buf + " = " + nm.scratch + ".Get<float>();\n";
  // The loop's neighbours are scalar code: what the scalar unit wrote before is visible to the
  // vector instructions (S_V) and what they write is visible to the scalar code after (V_S).
  auto sync = [&](const std::string& ev) {
    out += i1 + nm.ev + " = static_cast<event_t>(" + p + "GetTPipePtr()->FetchEventID(" + p + "HardEvent::" + ev + "));\n";
    out += i1 + p + "SetFlag<" + p + "HardEvent::" + ev + ">(" + nm.ev + ");\n";
    out += i1 + p + "WaitFlag<" + p + "HardEvent::" + ev + ">(" + nm.ev + ");\n";
  };
  out += i1 + "event_t " + nm.ev + ";\n";
  if (el.stride > 1) {
    // Byte offsets of the re-interleave: element s * i + o comes from plane o, element i. Eight
    // written by the scalar unit (after the previous chunk loop's Gather has read them), the rest
    // by doubling.
    out += i1 + p + "LocalTensor<int32_t> " + nm.off + " = " + nm.buf + "[" + std::to_string(table_slot * chunk) +
           "].ReinterpretCast<int32_t>();\n";
    sync("V_S");
    out += i1 + "for (int32_t " + nm.j + " = 0; " + nm.j + " < 8; " + nm.j + "++) {\n";
    out += i2 + nm.off + ".SetValue(" + nm.j + ", (" + nm.j + " % " + s + ") * " + std::to_string(chunk * 4) + " + (" + nm.j +
           " / " + s + ") * 4);\n";
    out += i1 + "}\n";
  }
  sync("S_V");
  if (el.stride > 1) {
    out += i1 + "for (int32_t " + nm.k + " = 8; " + nm.k + " < " + std::to_string(el.stride * chunk) + "; " + nm.k + " *= 2) {\n";
    out += i2 + p + "Adds(" + nm.off + "[" + nm.k + "], " + nm.off + ", static_cast<int32_t>(" + nm.k + " / " + s + " * 4), " + nm.k + ");\n";
    out += i2 + p + "PipeBarrier<PIPE_V>();\n";
    out += i1 + "}\n";
  }
  out += i1 + "for (uint32_t " + nm.base + " = 0; " + nm.base + " < " + bound + "; " + nm.base + " += " + C + ") {\n";
  out += i2 + "uint32_t " + nm.n + " = " + bound + " - " + nm.base + " < " + C + " ? " + bound + " - " + nm.base + " : " + C + ";\n";
  out += i2 + p + "PipeBarrier<PIPE_V>();\n";
  std::set<operand> written, read;
  auto barrier_if = [&](const std::vector<operand>& srcs, const operand& dst) {
    bool dep = written.count(dst) || read.count(dst);
    for (const auto& o : srcs) dep = dep || written.count(o);
    if (dep) {
      out += i2 + p + "PipeBarrier<PIPE_V>();\n";
      written.clear();
      read.clear();
    }
    for (const auto& o : srcs) read.insert(o);
    written.insert(dst);
  };
  if (el.stride > 1) {
    out += i2 + "uint64_t " + nm.cnt + " = 0;\n";
    for (std::size_t i = 0; i < el.planes.size(); ++i) {
      const auto& [t, o] = el.planes[i];
      const int pattern = el.stride == 2 ? 1 + o : 3 + o;
      const operand d{operand::slot, static_cast<int>(i), {}};
      barrier_if({}, d);
      out += i2 + p + "GatherMask(" + render_operand(d, chunk, nm) + ", " + t + "[" + s + " * " + nm.base + "], " +
             std::to_string(pattern) + ", true, " + s + " * " + nm.n + ", {1, 1, 0, 0}, " + nm.cnt + ");\n";
    }
  }
  for (const auto& in : g.code()) {
    barrier_if(in.srcs, in.dst);
    std::string call = p + in.op + "(" + render_operand(in.dst, chunk, nm);
    for (const auto& o : in.srcs) call += ", " + render_operand(o, chunk, nm);
    if (!in.scalar.empty()) call += ", " + in.scalar;
    out += i2 + call + ", " + nm.n + ");\n";
  }
  if (el.stride > 1) {
    for (std::size_t t = 0; t < el.outputs.size(); ++t) {
      const int first = static_cast<int>(el.planes.size() + t * static_cast<std::size_t>(el.stride));
      std::vector<operand> srcs;
      for (int o = 0; o < el.stride; ++o) srcs.push_back({operand::slot, first + o, {}});
      barrier_if(srcs, {operand::tensor, 0, el.outputs[t]});
      out += i2 + p + "Gather(" + el.outputs[t] + "[" + s + " * " + nm.base + "], " + nm.buf + "[" + std::to_string(first * chunk) +
             "], " + nm.off + ".ReinterpretCast<uint32_t>(), 0, " + s + " * " + nm.n + ");\n";
    }
  }
  out += i1 + "}\n";
  sync("V_S");
  out += ind + "}";
  return out;
}

// The statement range of a field declaration (through its ';').
range field_statement(const source_file& f, int field) {
  range r = f.at(field).r;
  const std::string& t = f.text();
  std::size_t e = r.end;
  while (e < t.size() && t[e] != ';') ++e;
  return {r.begin, std::min(e + 1, t.size())};
}

}  // namespace

std::optional<std::string> element_loop_summary(const source_file& f, int loop) {
  auto el = as_element_loop(f, loop);
  if (!el) return std::nullopt;
  std::string outs;
  for (const auto& o : el->outputs) outs += (outs.empty() ? "" : ", ") + o;
  return "scalar element loop (stride " + std::to_string(el->stride) + ", " + std::to_string(el->stores.size()) + " store(s)) -> " +
         (el->stride > 1 ? "GatherMask planes, vector instructions, Gather into " : "vector instructions into ") + outs;
}

outcome vectorize_element_loop(const source_set& src, const std::string& path, int loop) {
  auto f = src.get(path);
  auto el = as_element_loop(*f, loop);
  if (!el) return outcome::fail("no vectorizable scalar element loop at this site");
  generator g(*el);
  g.run();
  const int slots = g.slots() + (el->stride > 1 ? el->stride : 0);  // the offset table: s slots of int32
  const int chunk = chunk_for(slots);
  names nm;
  nm.buf = fresh_name(*f, "vecBuf");
  nm.off = fresh_name(*f, "vecOff");
  nm.base = fresh_name(*f, "vecBase");
  nm.n = fresh_name(*f, "vecCount");
  nm.cnt = fresh_name(*f, "vecKept");
  nm.ev = fresh_name(*f, "vecEvent");
  nm.j = fresh_name(*f, "vecJ");
  nm.k = fresh_name(*f, "vecK");
  nm.scratch = fresh_name(*f, "vecScratch_");
  const std::string ind = f->indent_at(f->at(loop).r.begin);
  std::vector<text_edit> edits;
  edits.push_back({path, f->at(loop).r, render(*f, *el, g, chunk, nm, ind)});
  const int bytes = slots * chunk * 4;
  if (slots > 0) {
    // The scratch TBuf: a member after the class's last queue/buffer, initialised after its last InitBuffer.
    int last_field = -1;
    for (int fd : f->find(node_kind::field_decl)) {
      if (!f->is_ancestor(el->cls, fd)) continue;
      const std::string& t = f->at(fd).type;
      if (t.find("TQue") != std::string::npos || t.find("TBuf") != std::string::npos || t.find("TPipe") != std::string::npos) last_field = fd;
    }
    std::optional<call_info> last_init;
    for (const auto& c : f->calls("InitBuffer")) {
      if (f->is_ancestor(el->cls, c.node) && !c.statement.empty()) last_init = c;
    }
    if (last_field < 0 || !last_init) return outcome::fail("the kernel class has no queue field and InitBuffer call to add the scratch buffer after");
    const std::string p = f->api_prefix();
    edits.push_back(insert_after_statement(*f, field_statement(*f, last_field),
                                           p + "TBuf<" + p + "QuePosition::VECCALC> " + nm.scratch + ";"));
    edits.push_back(insert_after_statement(*f, last_init->statement,
                                           last_init->qualifier + "InitBuffer(" + nm.scratch + ", " + std::to_string(bytes) + ");"));
    // The host sizes its tiles from the UB left: reserve the scratch there.
    for (const auto& hp : host_paths(src, "GetCoreMemSize")) {
      auto h = src.get(hp);
      for (const auto& q : ub_queries(*h)) {
        const range scope = h->at(q.fn).r;
        if (!reaches_tiling(*h, scope, q.edges, derived_from(*h, q.edges, {q.var}))) continue;
        edits.push_back(insert_after_statement(*h, q.call.statement,
                                               q.var + " -= " + std::to_string(bytes) + ";  // UB scratch of the vectorized element loop in " + path));
      }
    }
  }
  return outcome::success(std::move(edits));
}

}  // namespace aopt::motifs::detail
