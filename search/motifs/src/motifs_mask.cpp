// Mask motif: a vector op split into a main call of full repeats plus a tail call with a partial
// mask <-> one call in counter mode, in the documented AscendC form:
//   SetMaskCount(); SetVectorMask<T, MaskMode::COUNTER>(0, n);
//   Op<T, false>(dst, src..., MASK_PLACEHOLDER, 1, params); SetMaskNorm(); ResetMask();
#include "flow.h"

namespace aopt::motifs::detail {
namespace {

using search::bottleneck_class;

// Ops whose mask form ends with (mask, repeatTimes, repeatParams) and whose template is
// <T, bool isSetMask>.
bool mask_form_op(std::string_view callee) {
  static const char* ops[] = {"Add", "Sub",  "Mul",  "Div",   "Max",        "Min",  "And",  "Or",   "Exp",  "Ln",       "Abs",
                              "Sqrt", "Rsqrt", "Reciprocal", "Relu", "Not", "Adds", "Muls", "Maxs", "Mins", "LeakyRelu"};
  for (const char* o : ops) {
    if (callee == o) return true;
  }
  return false;
}

// Number of arguments before (mask, repeat, params) and which of them are tensors.
std::vector<bool> leading_tensors(std::string_view callee, std::size_t nargs) {
  const vec_op_shape* op = vector_op(callee);
  std::vector<bool> out(nargs >= 3 ? nargs - 3 : 0, false);
  if (!op) return {};
  if (static_cast<std::size_t>(op->dst) < out.size()) out[static_cast<std::size_t>(op->dst)] = true;
  for (int s : op->srcs) {
    if (static_cast<std::size_t>(s) < out.size()) out[static_cast<std::size_t>(s)] = true;
  }
  return out;
}

// Element type of the op's destination tensor: its first template argument, else the declared
// LocalTensor<T> of the destination.
std::string element_type(const source_file& f, const call_info& c) {
  if (!c.template_args.empty()) return c.template_args[0];
  return first_template_arg(type_of_name(f, base_name(f.text_of(c.args.at(0)))));
}

// The per-repeat element count of `type` spelled by `m`: "256/sizeof(T)",
// "ONE_REPEAT_BYTE_SIZE/sizeof(T)", a variable or constant initialized so, or 64/128 for a
// concrete 32/16-bit type.
bool full_repeat(const source_file& f, const std::vector<flow_edge>& edges, std::string m, const std::string& type, int depth = 0) {
  m = strip_parens(m);
  for (const char* bytes : {"256", "ONE_REPEAT_BYTE_SIZE", "AscendC::ONE_REPEAT_BYTE_SIZE"}) {
    if (m == std::string(bytes) + "/sizeof(" + type + ")") return true;
  }
  long long v = 0;
  if (is_int_literal(m, &v)) {
    static const std::set<std::string> b32 = {"float", "int32_t", "uint32_t"};
    static const std::set<std::string> b16 = {"half", "bfloat16_t", "int16_t", "uint16_t"};
    return (v == 64 && b32.count(type)) || (v == 128 && b16.count(type));
  }
  if (is_identifier(m) && depth < 3) {
    if (auto k = f.integer_constant(m)) return full_repeat(f, edges, std::to_string(k->value), type, depth + 1);
    for (const auto& e : edges) {
      if (e.decl && e.lhs == m) return full_repeat(f, edges, norm(f, e.rhs), type, depth + 1);
    }
  }
  return false;
}

std::string paren_if_needed(const std::string& s) {
  if (is_identifier(s) || is_int_literal(s)) return s;
  for (char c : s) {
    if (std::string_view("+-?:<>&|=,*/%").find(c) != std::string_view::npos) return "(" + s + ")";
  }
  return s;
}

struct main_tail {
  call_info main, tail;
  range whole;          // from the main call statement to the end of the if statement
  std::string type;     // element type
  std::string n;        // total count
};

struct counter_block {
  call_info op;
  range whole;          // SetMaskCount(); ... ResetMask();
  std::string type;
  std::string n;
};

class counter_mode_mask final : public basic_motif {
 public:
  counter_mode_mask()
      : basic_motif("counter_mode_mask", "One counter-mode call instead of a main/tail split",
                    "A vector op over n elements written as a call of n / perRepeat full repeats plus a tail call "
                    "with a partial mask issues two instructions and recomputes the split on the scalar unit. In "
                    "counter mode (SetMaskCount, SetVectorMask<T, MaskMode::COUNTER>(0, n)) one call with "
                    "MASK_PLACEHOLDER and isSetMask=false covers all n elements; SetMaskNorm and ResetMask restore "
                    "the normal mask. Inverse: the counter-mode block becomes the main call plus a tail call.",
                    bottleneck_class::scalar_bound) {}

  std::vector<site> match(const source_set& src) const override {
    std::vector<site> out;
    for (const auto& path : kernel_paths(src)) {
      auto f = src.get(path);
      const auto edges = flow_edges(*f, {0, f->text().size()});
      for (const auto& m : main_tails(*f, edges)) {
        out.push_back(make_site(path, m.main.statement, true, false, m.main.callee + " main/tail split -> counter mode over " + m.n));
      }
      for (const auto& b : counter_blocks(*f)) {
        out.push_back(make_site(path, b.whole, false, true, b.op.callee + " in counter mode -> main call plus tail call"));
      }
    }
    return out;
  }

  outcome apply(const source_set& src, const site& s, direction d) const override {
    auto cur = refind(src, s);
    if (!cur || (d == direction::forward ? !cur->forward : !cur->inverse)) {
      return outcome::fail(d == direction::forward ? "no main/tail split of a vector op at this site"
                                                   : "no counter-mode block at this site");
    }
    auto f = src.get(s.path);
    const std::string p = f->api_prefix();
    const std::string ind = f->indent_at(s.anchor.begin);
    if (d == direction::forward) {
      const auto edges = flow_edges(*f, {0, f->text().size()});
      for (const auto& m : main_tails(*f, edges)) {
        if (!(m.main.statement == s.anchor)) continue;
        std::string args;
        for (std::size_t i = 0; i + 3 < m.main.args.size(); ++i) args += arg_text(*f, m.main, i) + ", ";
        const std::string text = p + "SetMaskCount();\n" + ind + p + "SetVectorMask<" + m.type + ", " + p + "MaskMode::COUNTER>(0, " +
                                 m.n + ");\n" + ind + m.main.qualifier + m.main.callee + "<" + m.type + ", false>(" + args + p +
                                 "MASK_PLACEHOLDER, 1, " + arg_text(*f, m.main, m.main.args.size() - 1) + ");\n" + ind + p +
                                 "SetMaskNorm();\n" + ind + p + "ResetMask();";
        return outcome::success({{s.path, m.whole, text}});
      }
    } else {
      for (const auto& b : counter_blocks(*f)) {
        if (!(b.whole == s.anchor)) continue;
        const std::string e = "(256 / sizeof(" + b.type + "))";
        const std::string n = paren_if_needed(b.n);
        const std::string off = n + " / " + e + " * " + e;
        const auto tensors = leading_tensors(b.op.callee, b.op.args.size());
        std::string main_args, tail_args;
        for (std::size_t i = 0; i < tensors.size(); ++i) {
          const std::string a = arg_text(*f, b.op, i);
          main_args += a + ", ";
          tail_args += (tensors[i] ? a + "[" + off + "]" : a) + ", ";
        }
        const std::string params = arg_text(*f, b.op, b.op.args.size() - 1);
        const std::string call = b.op.qualifier + b.op.callee;
        const std::string text = call + "(" + main_args + "256 / sizeof(" + b.type + "), " + n + " / " + e + ", " + params + ");\n" +
                                 ind + "if (" + n + " % " + e + " > 0) {\n" + ind + "    " + call + "(" + tail_args + n + " % " + e +
                                 ", 1, " + params + ");\n" + ind + "}";
        return outcome::success({{s.path, b.whole, text}});
      }
    }
    return outcome::fail("the vector op changed");
  }

 private:
  // Call statements directly in `compound`, keyed by their statement node.
  static std::map<int, call_info> call_stmts(const source_file& f, int compound) {
    std::map<int, call_info> out;
    for (const auto& c : call_statements(f, compound)) out.emplace(f.statement_of(c.node), c);
    return out;
  }

  // The single call statement of an if's then-branch (a compound with one statement, or one
  // statement); nullopt otherwise or when the if has an else.
  static std::optional<call_info> then_call(const source_file& f, int if_node, range& cond) {
    std::vector<int> kids;
    for (int k : f.at(if_node).children) kids.push_back(k);
    if (kids.size() != 2) return std::nullopt;
    cond = f.at(kids[0]).r;
    const int then = kids[1];
    if (f.at(then).kind == node_kind::compound) {
      const auto st = f.statements(then);
      if (st.size() != 1) return std::nullopt;
      auto cs = call_stmts(f, then);
      auto it = cs.find(st[0]);
      if (it == cs.end()) return std::nullopt;
      return it->second;
    }
    for (const auto& c : f.calls()) {
      if (c.r == f.at(then).r || (f.at(then).r.contains(c.r) && c.r.begin == f.at(then).r.begin && norm(f, c.r) == norm(f, f.at(then).r))) {
        return c;
      }
    }
    return std::nullopt;
  }

  static std::vector<main_tail> main_tails(const source_file& f, const std::vector<flow_edge>& edges) {
    std::vector<main_tail> out;
    for (int comp : f.find(node_kind::compound)) {
      const auto st = f.statements(comp);
      const auto cs = call_stmts(f, comp);
      for (std::size_t i = 0; i + 1 < st.size(); ++i) {
        auto it = cs.find(st[i]);
        if (it == cs.end() || f.at(st[i + 1]).kind != node_kind::if_stmt) continue;
        const call_info& m = it->second;
        if (!mask_form_op(m.callee) || m.args.size() < 5) continue;
        range cond_r;
        auto tc = then_call(f, st[i + 1], cond_r);
        if (!tc || tc->callee != m.callee || tc->args.size() != m.args.size() || tc->template_args != m.template_args) continue;
        const std::size_t k = m.args.size();
        const auto tensors = leading_tensors(m.callee, k);
        if (tensors.empty() || !tensors[0]) continue;
        const std::string type = element_type(f, m);
        if (type.empty()) continue;
        // Tail offset from the destination: tail dst = main dst [o].
        const std::string d0 = norm(f, m.args[0]);
        const std::string d1 = norm(f, tc->args[0]);
        if (d1.size() < d0.size() + 2 || d1.compare(0, d0.size() + 1, d0 + "[") != 0 || d1.back() != ']') continue;
        const std::string o = d1.substr(d0.size() + 1, d1.size() - d0.size() - 2);
        bool same = true;
        for (std::size_t a = 1; a < tensors.size(); ++a) {
          const std::string x = norm(f, m.args[a]);
          const std::string y = norm(f, tc->args[a]);
          same = same && (tensors[a] ? y == x + "[" + o + "]" : y == x);
        }
        const std::string mask = norm(f, m.args[k - 3]);
        const std::string rep = norm(f, m.args[k - 2]);
        const std::string tail = norm(f, tc->args[k - 3]);
        if (!same || norm(f, tc->args[k - 2]) != "1" || norm(f, tc->args[k - 1]) != norm(f, m.args[k - 1])) continue;
        if (!full_repeat(f, edges, mask, type)) continue;
        // The tail starts where the full repeats end.
        const std::string pm = paren_if_needed(strip_parens(mask));
        const std::string pr = paren_if_needed(strip_parens(rep));
        const std::string so = strip_parens(o);
        const bool mul_only = strip_parens(rep).find_first_of("+-?:<>&|=,") == std::string::npos;
        if (so != pr + "*" + pm && so != pm + "*" + pr && !(mul_only && so == strip_parens(rep) + "*" + pm)) continue;
        // The if tests the tail count.
        const std::string c = strip_parens(norm(f, cond_r));
        const std::string pt = paren_if_needed(strip_parens(tail));
        bool tests_tail = c == strip_parens(tail);
        for (const std::string& x : {pt, strip_parens(tail)}) {
          if (x == pt || strip_parens(tail).find_first_of("+-?:<>&|=,") == std::string::npos) {
            tests_tail = tests_tail || c == x + ">0" || c == "0<" + x || c == x + "!=0" || c == "0!=" + x;
          }
        }
        if (!tests_tail) continue;
        // Total count: N when the split is N / E and N % E, else main + tail.
        std::string n;
        auto q = split_binary(strip_parens(rep), "/", true);
        auto r = split_binary(strip_parens(tail), "%", true);
        if (q && r && q->first == r->first && strip_parens(q->second) == strip_parens(r->second) && strip_parens(q->second) == strip_parens(mask)) {
          n = strip_parens(q->first);
        } else {
          n = pr + " * " + pm + " + " + pt;
        }
        const std::size_t end = f.statement_range(st[i + 1]).end;
        out.push_back({m, *tc, {m.statement.begin, end}, type, n});
      }
    }
    return out;
  }

  static std::vector<counter_block> counter_blocks(const source_file& f) {
    std::vector<counter_block> out;
    for (int comp : f.find(node_kind::compound)) {
      const auto st = f.statements(comp);
      const auto cs = call_stmts(f, comp);
      auto call = [&](std::size_t i) -> const call_info* {
        auto it = cs.find(st[i]);
        return it == cs.end() ? nullptr : &it->second;
      };
      for (std::size_t i = 0; i + 4 < st.size(); ++i) {
        const call_info* a = call(i);
        const call_info* b = call(i + 1);
        const call_info* op = call(i + 2);
        const call_info* c = call(i + 3);
        const call_info* d = call(i + 4);
        if (!a || !b || !op || !c || !d) continue;
        if (a->callee != "SetMaskCount" || b->callee != "SetVectorMask" || c->callee != "SetMaskNorm" || d->callee != "ResetMask") continue;
        if (b->template_args.size() != 2 || (b->template_args[1] != "MaskMode::COUNTER" && b->template_args[1] != "AscendC::MaskMode::COUNTER")) continue;
        if (b->args.empty() || b->args.size() > 2 || (b->args.size() == 2 && norm(f, b->args[0]) != "0")) continue;
        if (!mask_form_op(op->callee) || op->args.size() < 5 || op->template_args.size() != 2 || op->template_args[1] != "false") continue;
        const std::size_t k = op->args.size();
        const std::string mask = norm(f, op->args[k - 3]);
        if ((mask != "MASK_PLACEHOLDER" && mask != "AscendC::MASK_PLACEHOLDER") || norm(f, op->args[k - 2]) != "1") continue;
        if (leading_tensors(op->callee, k).empty()) continue;
        const std::string type = b->template_args[0];
        if (op->template_args[0] != type) continue;
        out.push_back({*op, {a->statement.begin, d->statement.end}, type, strip_parens(std::string(f.text_of(b->args.back())))});
      }
    }
    return out;
  }
};

}  // namespace

void add_mask_motifs(std::vector<std::unique_ptr<motif>>& v) { v.push_back(std::make_unique<counter_mode_mask>()); }

}  // namespace aopt::motifs::detail
