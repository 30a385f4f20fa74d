// Compute motifs: cheaper forms of elementwise chains on UB: an algebraically cheaper chain
// (sigmoid_gate_direct) and an in-place operand moved into a dead temporary (inplace_to_dead_temp).
#include <algorithm>
#include <cmath>

#include "motifs_impl.h"

namespace aopt::motifs::detail {
namespace {

using search::bottleneck_class;

// ---- sigmoid_gate_direct --------------------------------------------------------------------------
//
// x * sigmoid(-k * x) = x / (1 + exp(k * x)) computed the "stable" way, on |x| with the sign
// restored by min(x, 0):
//   Abs(t, x, n); Muls(y, t, k, n); Exp(y, y, n); Adds(y, y, 1, n);
//   Mins(x, x, 0, n) (anywhere after Abs, before Add); Div(y, t, y, n); Add(y, y, x, n)
// (PIPE_V barriers anywhere between). Identity: with h(x) = x / (1 + exp(k x)),
// h(-a) = h(a) - a, so h(x) = h(|x|) + min(x, 0) for every k. The direct form, ping-ponging
// between the freed temporary and y so that no operand is in place (in-place operands cost a
// bank-conflict cycle per repeat on sim):
//   Muls(t, x, k, n); Exp(y, t, n); Adds(t, y, 1, n); Div(y, x, t, n)
// makes 4 passes instead of 7.
// Numerics: the direct form is the more accurate one. The stable form cancels for x < 0
// (|x| r + x with r -> 1): its result carries an absolute error of up to half an ulp of |x|,
// which in fp16 (0.002 at |x| in [2, 4), 0.004 in [4, 8)) exceeds the usual fp16 atol, so an
// fp16 kernel's own outputs (the evaluation's reference) differ from the direct form beyond
// tolerance (measured on cann-ops fast_gelu, fp16, inputs in [-6, 6]: 1.0% of the elements beyond
// rtol = atol = 0.002, 0.1% allowed). In fp32 that error is below 1e-6 relative to |x|. Where
// exp(k x) overflows (|k x| > 88.7 in fp32) the direct form returns x / inf = 0 for a true value
// of at most (88.7 / |k|) e^-88.7. The motif therefore applies to tensors declared
// LocalTensor<float> only, with a coefficient not known to be below 1e-6 in magnitude.

struct gate_chain {
  range span;                     // first statement through the last
  std::string x, t, y, k, one, n; // operand spellings (t: the temporary, or "" when unknown)
  bool barriers = false;          // PIPE_V barriers in the span (the rewrite keeps the style)
};

// The calls of `run` from index i on, skipping PIPE_V barriers; stops at any other statement.
std::vector<std::size_t> calls_from(const statement_run& run, std::size_t i, std::size_t want, bool& barriers) {
  std::vector<std::size_t> out;
  for (std::size_t j = i; j < run.calls.size() && out.size() < want; ++j) {
    if (!run.calls[j]) break;
    if (is_pipe_barrier(run.calls[j], "PIPE_V")) {
      if (!out.empty()) barriers = true;
      continue;
    }
    out.push_back(j);
  }
  return out;
}

bool count_form(const std::optional<call_info>& c, const char* callee, std::size_t args) {
  return c && c->callee == callee && c->args.size() == args && c->template_args.empty() && (c->qualifier.empty() || c->qualifier == "AscendC::");
}

// Whether the rewrite is within fp32 tolerance (see above): fp32 tiles, |k| not tiny.
bool safe_coefficient(const source_file& f, range k, const std::string& y) {
  const auto v = scalar_value(f, k);
  return declared_element_type(f, base_name(y)) == "float" && (!v || std::fabs(*v) >= 1e-6);
}

// The stable form starting at call index i of `run`.
std::optional<gate_chain> as_stable_gate(const source_file& f, const statement_run& run, std::size_t i) {
  bool bar = false;
  const auto idx = calls_from(run, i, 7, bar);
  if (idx.size() != 7) return std::nullopt;
  auto at = [&](std::size_t q) -> const std::optional<call_info>& { return run.calls[idx[q]]; };
  auto a = [&](std::size_t q, std::size_t arg) { return norm(f, at(q)->args[arg]); };
  if (!count_form(at(0), "Abs", 3)) return std::nullopt;
  const std::string t = a(0, 0), x = a(0, 1), n = a(0, 2);
  if (!simple_operand(t) || !simple_operand(x) || base_name(t) == base_name(x)) return std::nullopt;
  // The Mins(x, x, 0, n) may sit at any position 1..5 of the chain; the rest keep their order.
  std::size_t mins = 0;
  for (std::size_t q = 1; q < 6; ++q) {
    if (count_form(at(q), "Mins", 4) && a(q, 0) == x && a(q, 1) == x && a(q, 3) == n && scalar_value(f, at(q)->args[2]) == 0.0) mins = q;
  }
  if (mins == 0) return std::nullopt;
  std::vector<std::size_t> rest;
  for (std::size_t q = 1; q < 7; ++q) {
    if (q != mins) rest.push_back(q);
  }
  const auto& muls = at(rest[0]);
  const auto& ex = at(rest[1]);
  const auto& adds = at(rest[2]);
  const auto& div = at(rest[3]);
  const auto& add = at(rest[4]);
  if (!count_form(muls, "Muls", 4) || !count_form(ex, "Exp", 3) || !count_form(adds, "Adds", 4) || !count_form(div, "Div", 4) ||
      !count_form(add, "Add", 4)) {
    return std::nullopt;
  }
  const std::string y = norm(f, muls->args[0]);
  if (!simple_operand(y) || base_name(y) == base_name(x) || base_name(y) == base_name(t)) return std::nullopt;
  if (norm(f, muls->args[1]) != t || norm(f, muls->args[3]) != n) return std::nullopt;
  if (norm(f, ex->args[0]) != y || norm(f, ex->args[1]) != y || norm(f, ex->args[2]) != n) return std::nullopt;
  if (norm(f, adds->args[0]) != y || norm(f, adds->args[1]) != y || norm(f, adds->args[3]) != n) return std::nullopt;
  if (scalar_value(f, adds->args[2]) != 1.0) return std::nullopt;
  if (norm(f, div->args[0]) != y || norm(f, div->args[1]) != t || norm(f, div->args[2]) != y || norm(f, div->args[3]) != n) return std::nullopt;
  const std::string s1 = norm(f, add->args[1]), s2 = norm(f, add->args[2]);
  if (norm(f, add->args[0]) != y || !((s1 == y && s2 == x) || (s1 == x && s2 == y)) || norm(f, add->args[3]) != n) return std::nullopt;
  // The direct form leaves x unchanged (not min(x, 0)) and t unwritten: both must be dead.
  const std::size_t end = add->statement.end;
  if (!dead_after(f, base_name(x), end) || !dead_after(f, base_name(t), end)) return std::nullopt;
  if (!safe_coefficient(f, muls->args[2], y)) return std::nullopt;
  return gate_chain{{at(0)->statement.begin, end}, arg_text(f, *at(0), 1), arg_text(f, *at(0), 0), arg_text(f, *muls, 0),
                    arg_text(f, *muls, 2), arg_text(f, *adds, 2), arg_text(f, *at(0), 2), bar};
}

// The direct form at call index i of `run`: Muls(e, x, k, n); Exp(g, e, n); Adds(d, g, 1, n);
// Div(y, x, d, n), each step reading the previous one's result (e, g, d, y: any tiles but x, in
// place or ping-ponged), x dead afterwards (the stable form clobbers it with min(x, 0)). The
// temporary of the stable form: the first of d, e, g that is not y and is dead afterwards, else
// an unused local tensor of the function.
std::optional<gate_chain> as_direct_gate(const source_file& f, const statement_run& run, std::size_t i) {
  bool bar = false;
  const auto idx = calls_from(run, i, 4, bar);
  if (idx.size() != 4) return std::nullopt;
  const auto& muls = run.calls[idx[0]];
  const auto& ex = run.calls[idx[1]];
  const auto& adds = run.calls[idx[2]];
  const auto& div = run.calls[idx[3]];
  if (!count_form(muls, "Muls", 4) || !count_form(ex, "Exp", 3) || !count_form(adds, "Adds", 4) || !count_form(div, "Div", 4)) {
    return std::nullopt;
  }
  const std::string e = norm(f, muls->args[0]), x = norm(f, muls->args[1]), n = norm(f, muls->args[3]);
  const std::string g = norm(f, ex->args[0]), d = norm(f, adds->args[0]), y = norm(f, div->args[0]);
  if (norm(f, ex->args[1]) != e || norm(f, ex->args[2]) != n) return std::nullopt;
  if (norm(f, adds->args[1]) != g || norm(f, adds->args[3]) != n || scalar_value(f, adds->args[2]) != 1.0) return std::nullopt;
  if (norm(f, div->args[1]) != x || norm(f, div->args[2]) != d || norm(f, div->args[3]) != n) return std::nullopt;
  const std::string elem = declared_element_type(f, base_name(x));
  for (const std::string* v : {&x, &e, &g, &d, &y}) {
    if (!simple_operand(*v) || declared_element_type(f, base_name(*v)) != elem) return std::nullopt;
    if (v != &x && base_name(*v) == base_name(x)) return std::nullopt;
  }
  const std::size_t end = div->statement.end;
  if (elem.empty() || !dead_after(f, base_name(x), end)) return std::nullopt;
  std::string t;
  const std::pair<const std::string*, std::size_t> temps[] = {{&d, idx[2]}, {&e, idx[0]}, {&g, idx[1]}};
  for (const auto& [v, call] : temps) {
    if (t.empty() && base_name(*v) != base_name(y) && dead_after(f, base_name(*v), end)) t = arg_text(f, *run.calls[call], 0);
  }
  if (t.empty()) t = unused_temporary(f, muls->statement.begin, elem);
  if (t.empty() || !safe_coefficient(f, muls->args[2], y)) return std::nullopt;
  return gate_chain{{muls->statement.begin, end}, arg_text(f, *muls, 1), t, arg_text(f, *div, 0), arg_text(f, *muls, 2),
                    arg_text(f, *adds, 2), arg_text(f, *muls, 3), bar};
}

std::string join_statements(const source_file& f, std::size_t at, const std::vector<std::string>& calls, bool barriers) {
  const std::string p = f.api_prefix(), ind = f.indent_at(at);
  std::string out;
  for (std::size_t i = 0; i < calls.size(); ++i) {
    if (i > 0) out += "\n" + ind + (barriers ? p + "PipeBarrier<PIPE_V>();\n" + ind : "");
    out += p + calls[i] + ";";
  }
  return out;
}

class sigmoid_gate_direct final : public basic_motif {
 public:
  sigmoid_gate_direct()
      : basic_motif("sigmoid_gate_direct", "Compute x * sigmoid(a * x) directly instead of on |x| with the sign restored",
                    "x / (1 + exp(k * x)) written in the overflow-safe form Abs(t, x), Muls(y, t, k), Exp, Adds(y, y, 1), "
                    "Div(y, t, y) plus Mins(x, x, 0) and Add(y, y, x) makes seven vector passes over UB, several in "
                    "place; the direct form Muls(t, x, k), Exp(y, t), Adds(t, y, 1), Div(y, x, t) makes four, none "
                    "in place. Exact identity (h(-a) = h(a) - a) and more accurate: the stable form cancels for x < 0, "
                    "an error fp16 tolerances do not absorb, so fp32 tiles only. Applies when x and the temporary "
                    "are dead afterwards. Inverse: the direct form (in place or ping-ponged) becomes the stable form "
                    "on a dead temporary of the chain or an unused local tensor, clobbering x with min(x, 0).",
                    bottleneck_class::vector_bound) {}

  std::vector<site> match(const source_set& src) const override {
    std::vector<site> out;
    visit_kernel_run_statements(src, "Exp", [&](const std::string& path, const source_file& f, const statement_run& run, std::size_t i) {
      if (auto g = as_stable_gate(f, run, i)) out.push_back(make_site(path, g->span, true, false, "stable gate on |" + g->x + "| -> direct " + g->y + " = x / (1 + exp(k x))"));
      if (auto g = as_direct_gate(f, run, i)) out.push_back(make_site(path, g->span, false, true, "direct gate " + g->y + " -> stable form on " + g->t));
    });
    return out;
  }

  outcome apply(const source_set& src, const site& s, direction d) const override {
    auto cur = refind(src, s);
    if (!cur || (d == direction::forward ? !cur->forward : !cur->inverse)) {
      return outcome::fail(d == direction::forward ? "no stable sigmoid-gate chain at this site" : "no direct sigmoid gate with a temporary at this site");
    }
    auto f = src.get(s.path);
    outcome done = outcome::fail("the statements changed");
    visit_run_statements(statement_runs(*f), [&](const statement_run& run, std::size_t i) {
      auto g = d == direction::forward ? as_stable_gate(*f, run, i) : as_direct_gate(*f, run, i);
      if (!g || !(g->span == s.anchor)) return false;
      const std::string &x = g->x, &t = g->t, &y = g->y, &k = g->k, &one = g->one, &n = g->n;
      std::vector<std::string> calls;
      if (d == direction::forward) {
        calls = {"Muls(" + t + ", " + x + ", " + k + ", " + n + ")", "Exp(" + y + ", " + t + ", " + n + ")",
                 "Adds(" + t + ", " + y + ", " + one + ", " + n + ")", "Div(" + y + ", " + x + ", " + t + ", " + n + ")"};
      } else {
        const std::string zero = "static_cast<" + declared_element_type(*f, base_name(x)) + ">(0)";
        calls = {"Abs(" + t + ", " + x + ", " + n + ")",          "Muls(" + y + ", " + t + ", " + k + ", " + n + ")",
                 "Exp(" + y + ", " + y + ", " + n + ")",          "Adds(" + y + ", " + y + ", " + one + ", " + n + ")",
                 "Mins(" + x + ", " + x + ", " + zero + ", " + n + ")", "Div(" + y + ", " + t + ", " + y + ", " + n + ")",
                 "Add(" + y + ", " + y + ", " + x + ", " + n + ")"};
      }
      done = outcome::success({{s.path, s.anchor, join_statements(*f, s.anchor.begin, calls, g->barriers)}});
      return true;
    });
    return done;
  }
};

// ---- inplace_to_dead_temp -------------------------------------------------------------------------
//
// An in-place single-source vector op Op(a, a, ...) of one cycle per repeat (not Exp, Ln, Sqrt)
// whose result is read by one later statement C (the first to name a after it) pays a
// bank-conflict cycle per repeat on sim (reading and writing the same bank). When another tile t of the same element type is dead from C on (its
// last read is before C), Op can write t instead: Op(t, a, ...) moves down to just before C (a
// is not named in between) and C reads t. Results are bit-identical (same operations on the same
// values). Measured on cann-ops fast_gelu (Mins(x, x, 0) -> Mins(tmp, x, 0) after the Div that
// last reads tmp): 11.38 -> 10.94 us, simulated.

bool single_source_op(const std::optional<call_info>& c) {
  if (!c || c->statement.empty() || !c->template_args.empty() || (!c->qualifier.empty() && c->qualifier != "AscendC::")) return false;
  const vec_op_shape* op = vector_op(c->callee);
  if (!op || op->srcs != std::vector<int>{1} || c->callee == "Cast") return false;
  // Exp, Ln and Sqrt take 2-4 cycles per repeat on their own: the conflict cycle is hidden
  // (measured: the suite's fast_gelu, Exp(w0, w0) -> Exp(xf, w0), 55.46 us both ways).
  if (c->callee == "Exp" || c->callee == "Ln" || c->callee == "Sqrt") return false;
  return c->args.size() == 3 || c->args.size() == 4;
}

// The only argument of c spelled `name` (a source, not the destination), or -1.
int only_source_arg(const source_file& f, const call_info& c, const std::string& name) {
  int at = -1;
  for (std::size_t k = 0; k < c.args.size(); ++k) {
    if (f.mentions(c.args[k], name)) {
      if (at >= 0 || norm(f, c.args[k]) != name) return -1;
      at = static_cast<int>(k);
    }
  }
  const vec_op_shape* op = vector_op(c.callee);
  if (at <= 0 || !op || std::find(op->srcs.begin(), op->srcs.end(), at) == op->srcs.end()) return -1;
  return at;
}

struct temp_reuse {
  std::size_t op = 0, reader = 0;  // indices into the run
  std::string a, t;                // the in-place tile and the dead tile that takes the result
  int reader_arg = -1;
};

// A LocalTensor local of the function, of element type `elem`, other than `a`, named in the run
// before index `before` with the same count as the op (so it holds at least that many elements)
// and dead from the start of statement `from` on.
std::string dead_tile(const source_file& f, const statement_run& run, std::size_t before, const std::string& a, const std::string& elem,
                      const std::string& count, std::size_t from) {
  std::vector<std::string> seen;
  for (std::size_t k = 0; k < before; ++k) {
    const auto& c = run.calls[k];
    if (!c || !vector_op(c->callee) || c->args.size() < 3 || norm(f, c->args.back()) != count) continue;
    for (const auto& arg : c->args) {
      const std::string v = norm(f, arg);
      if (v == a || !simple_operand(v) || v.find('.') != std::string::npos || declared_element_type(f, v) != elem) continue;
      if (std::find(seen.begin(), seen.end(), v) == seen.end()) seen.push_back(v);
    }
  }
  for (const auto& v : seen) {
    if (dead_after(f, v, from)) return v;
  }
  return {};
}

std::optional<temp_reuse> as_temp_reuse(const source_file& f, const statement_run& run, std::size_t i) {
  const auto& op = run.calls[i];
  if (!single_source_op(op)) return std::nullopt;
  const std::string a = norm(f, op->args[0]);
  if (a != norm(f, op->args[1]) || a != base_name(a) || !simple_operand(a) || a.find('.') != std::string::npos) return std::nullopt;
  const std::string elem = declared_element_type(f, a);
  if (elem.empty()) return std::nullopt;
  // The first later statement naming a: a vector op reading it once as a source. Only call
  // statements in between (straight-line code).
  for (std::size_t j = i + 1; j < run.calls.size(); ++j) {
    const auto& c = run.calls[j];
    if (!c) return std::nullopt;
    if (!f.mentions(c->statement, a)) continue;
    const int arg = only_source_arg(f, *c, a);
    if (arg < 0 || !dead_after(f, a, c->statement.end)) return std::nullopt;
    const std::string t = dead_tile(f, run, i, a, elem, norm(f, op->args.back()), c->statement.begin);
    if (t.empty() || f.mentions(c->statement, t)) return std::nullopt;
    return temp_reuse{i, j, a, t, arg};
  }
  return std::nullopt;
}

// The optimized form: Op(t, a, ...) then (a PIPE_V barrier optional) C reading t, t and a dead
// after C: back to Op(a, a, ...) and C reading a, in place.
std::optional<temp_reuse> as_temp_use(const source_file& f, const statement_run& run, std::size_t i) {
  const auto& op = run.calls[i];
  if (!single_source_op(op)) return std::nullopt;
  const std::string t = norm(f, op->args[0]), a = norm(f, op->args[1]);
  if (t == a || t != base_name(t) || a != base_name(a) || !simple_operand(t) || !simple_operand(a)) return std::nullopt;
  if (t.find('.') != std::string::npos || a.find('.') != std::string::npos) return std::nullopt;
  if (declared_element_type(f, t).empty() || declared_element_type(f, t) != declared_element_type(f, a)) return std::nullopt;
  std::size_t j = i + 1;
  if (j < run.calls.size() && is_pipe_barrier(run.calls[j], "PIPE_V")) ++j;
  if (j >= run.calls.size() || !run.calls[j]) return std::nullopt;
  const auto& c = *run.calls[j];
  const int arg = only_source_arg(f, c, t);
  if (arg < 0 || f.mentions(c.statement, a) || !dead_after(f, t, c.statement.end) || !dead_after(f, a, c.statement.end)) return std::nullopt;
  return temp_reuse{i, j, a, t, arg};
}

class inplace_to_dead_temp final : public basic_motif {
 public:
  inplace_to_dead_temp()
      : basic_motif("inplace_to_dead_temp", "Write an in-place vector op into a dead temporary next to its reader",
                    "An in-place single-source vector op Op(a, a, ...) reads and writes the same UB bank: one extra "
                    "cycle per repeat. When a tile t of the same type is dead by the time the result is read, "
                    "Op(t, a, ...) moves to just before its reader, which reads t: the same values, no in-place "
                    "operand. Applies when a is dead after the reader and t was used with the same count. Inverse: "
                    "Op(t, a, ...) right before its only reader goes back in place, Op(a, a, ...), the reader "
                    "reading a.",
                    bottleneck_class::vector_bound, false) {}

  std::vector<site> match(const source_set& src) const override {
    std::vector<site> out;
    visit_kernel_run_statements(src, {}, [&](const std::string& path, const source_file& f, const statement_run& run, std::size_t i) {
      if (auto r = as_temp_reuse(f, run, i)) {
        out.push_back(make_site(path, run.calls[i]->statement, true, false, run.calls[i]->callee + "(" + r->a + ", " + r->a + ") -> " + r->t));
      }
      if (auto r = as_temp_use(f, run, i)) {
        out.push_back(make_site(path, run.calls[i]->statement, false, true, run.calls[i]->callee + "(" + r->t + ", " + r->a + ") -> in place"));
      }
    });
    return out;
  }

  outcome apply(const source_set& src, const site& s, direction d) const override {
    auto cur = refind(src, s);
    if (!cur || (d == direction::forward ? !cur->forward : !cur->inverse)) {
      return outcome::fail(d == direction::forward ? "no in-place op with a dead temporary here" : "no op writing a temporary read once here");
    }
    auto f = src.get(s.path);
    outcome done = outcome::fail("the statements changed");
    visit_run_statements(statement_runs(*f), [&](const statement_run& run, std::size_t i) {
      if (!run.calls[i] || !(run.calls[i]->statement == s.anchor)) return false;
      const auto r = d == direction::forward ? as_temp_reuse(*f, run, i) : as_temp_use(*f, run, i);
      if (!r) return false;
      const call_info& op = *run.calls[r->op];
      const call_info& reader = *run.calls[r->reader];
      const std::string to = d == direction::forward ? r->t : r->a;
      std::vector<text_edit> edits{{s.path, reader.args[static_cast<std::size_t>(r->reader_arg)], to}};
      // Adjacent (a PIPE_V barrier at most between): rename in place; else move the op down.
      bool adjacent = true;
      for (std::size_t k = r->op + 1; k < r->reader; ++k) adjacent = adjacent && is_pipe_barrier(run.calls[k], "PIPE_V");
      if (adjacent) {
        edits.push_back({s.path, op.args[0], to});
      } else {
        std::string moved = std::string(f->text_of({op.statement.begin, op.args[0].begin})) + to + std::string(f->text_of({op.args[0].end, op.statement.end}));
        bool barriers = false;
        for (const auto& c : run.calls) barriers = barriers || is_pipe_barrier(c, "PIPE_V");
        if (barriers) moved += "\n" + f->indent_at(reader.r.begin) + f->api_prefix() + "PipeBarrier<PIPE_V>();";
        edits.push_back(delete_statement(*f, op.statement));
        // A PIPE_V barrier right after the op, with another (or nothing) before it, served only
        // the op: it goes too (the one before still orders the neighbours).
        const bool before = r->op == 0 || is_pipe_barrier(run.calls[r->op - 1], "PIPE_V");
        if (before && is_pipe_barrier(run.calls[r->op + 1], "PIPE_V")) edits.push_back(delete_statement(*f, run.calls[r->op + 1]->statement));
        edits.push_back(insert_before_statement(*f, reader.statement, moved));
      }
      done = outcome::success(std::move(edits));
      return true;
    });
    return done;
  }
};

}  // namespace

void add_compute_motifs(std::vector<std::unique_ptr<motif>>& v) {
  v.push_back(std::make_unique<sigmoid_gate_direct>());
  v.push_back(std::make_unique<inplace_to_dead_temp>());
}

}  // namespace aopt::motifs::detail
