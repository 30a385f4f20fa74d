// Pass motifs: vector passes over UB that real kernels make and need not make: a write that the
// next instruction overwrites before anything reads it (dead_vector_write), a value computed
// twice from unchanged operands (common_subexpression), 1 / sqrt(x) in three passes
// (sqrt_div_to_rsqrt).
#include <algorithm>
#include <regex>

#include "motifs_impl.h"

namespace aopt::motifs::detail {
namespace {

using search::bottleneck_class;

// ---- shared helpers -------------------------------------------------------------------------------

// The number of arguments of a vector op's count form: the destination, the sources other than
// the destination, a scalar (scalar ops, Duplicate, Axpy) or a round mode (Cast), the count.
std::size_t count_form_arity(const std::string& callee) {
  const vec_op_shape* op = vector_op(callee);
  if (!op) return 0;
  std::size_t n = 2;
  for (int s : op->srcs) n += s != op->dst;
  static const char* with_scalar[] = {"Adds", "Muls", "Maxs", "Mins", "LeakyRelu", "Duplicate", "Axpy", "Cast"};
  for (const char* w : with_scalar) n += callee == w;
  return n;
}

// A vector op of the count form as a statement, unqualified or AscendC::-qualified (a type
// template argument at most: `Duplicate<float>(...)`).
bool vec_call(const std::optional<call_info>& c) {
  return c && !c->statement.empty() && (c->qualifier.empty() || c->qualifier == "AscendC::") && c->template_args.size() <= 1 &&
         c->args.size() == count_form_arity(c->callee) && c->args.size() >= 3;
}

// The source tensor arguments of a vector op (the destination excluded).
std::vector<std::size_t> source_args(const call_info& c) {
  std::vector<std::size_t> out;
  const vec_op_shape* op = vector_op(c.callee);
  for (int s : op->srcs) {
    if (s != op->dst) out.push_back(static_cast<std::size_t>(s));
  }
  return out;
}

// Whether c reads its destination too (Axpy: dst += k * src).
bool reads_destination(const call_info& c) {
  const vec_op_shape* op = vector_op(c.callee);
  return op && std::find(op->srcs.begin(), op->srcs.end(), op->dst) != op->srcs.end();
}

// Whether c reads `name`: a source mentions it, or c reads its destination and that does.
bool reads(const source_file& f, const call_info& c, const std::string& name) {
  for (std::size_t s : source_args(c)) {
    if (f.mentions(c.args[s], name)) return true;
  }
  return reads_destination(c) && f.mentions(c.args[0], name);
}

// A whole-tile operand: a plain name (no offset, no member access, no cast).
bool whole_tile(const std::string& v) { return !v.empty() && simple_operand(v) && v == base_name(v) && v.find('.') == std::string::npos && v.find(':') == std::string::npos; }

// Element type of tile `name`: a local or parameter as declared_element_type reads it, else a
// LocalTensor member (a tile fetched once in Init).
std::string tile_type(const source_file& f, const std::string& name) {
  std::string t = declared_element_type(f, name);
  if (!t.empty()) return t;
  for (const auto& n : f.nodes()) {
    if (n.kind == node_kind::field_decl && n.name == name && n.type.find("LocalTensor<") != std::string::npos) return first_template_arg(n.type);
  }
  return {};
}

// The buffer (queue or TBuf object) tile `name` comes from: its declaration or assignment
// `name = obj.Get<T>(...)` / `obj.AllocTensor<T>()` / `obj.DeQue<T>()` in the function holding
// `pos`, else (a member set in Init) the one such assignment in the file. "" when unknown or
// when the tile is a view of another tensor (`= x[n]`, `= x`, `ReinterpretCast`): such tiles
// may alias, so the motifs below do not reason about them.
std::string tile_buffer(const source_file& f, const std::string& name, std::size_t pos) {
  if (!whole_tile(name)) return {};
  const std::regex re("(^|[^\\w.>])(this->)?" + name +
                      R"(\s*=\s*((this->)?\w+)\s*(\.|->)\s*(template\s+)?(Get|AllocTensor|DeQue)\s*(<[^;<>]*>)?\s*\([^;()]*\)\s*;)");
  range fn{0, 0};
  for (const auto& n : f.nodes()) {
    if ((n.kind == node_kind::function || n.kind == node_kind::method) && n.r.contains(pos)) fn = n.r;
  }
  // The objects of the buffer assignments in r, and how many assignments of the name r holds
  // in all (a second kind of assignment may re-point the tile at a view).
  struct found {
    std::vector<std::string> objs;
    std::size_t buffer_assignments = 0, assignments = 0;
  };
  auto scan = [&](range r) {
    found out;
    const std::string text(f.text_of(r));
    for (auto it = std::sregex_iterator(text.begin(), text.end(), re); it != std::sregex_iterator(); ++it) {
      std::string o = (*it)[3].str();
      if (o.rfind("this->", 0) == 0) o = o.substr(6);
      if (std::find(out.objs.begin(), out.objs.end(), o) == out.objs.end()) out.objs.push_back(o);
      ++out.buffer_assignments;
    }
    const std::regex any("(^|[^\\w.>])(this->)?" + name + R"(\s*=[^=])");
    out.assignments = static_cast<std::size_t>(std::distance(std::sregex_iterator(text.begin(), text.end(), any), std::sregex_iterator()));
    return out;
  };
  auto unique = [](const found& x) { return x.objs.size() == 1 && x.buffer_assignments == x.assignments ? x.objs[0] : std::string{}; };
  if (!fn.empty()) {
    const found local = scan(fn);
    if (local.assignments > 0) return unique(local);
  }
  return unique(scan({0, f.text().size()}));
}


// The next call after index i of the run, PIPE_V barriers skipped; run.calls.size() when the
// next statement is anything else or the run ends.
std::size_t next_call(const statement_run& run, std::size_t i) {
  for (std::size_t j = i + 1; j < run.calls.size(); ++j) {
    if (!run.calls[j]) return run.calls.size();
    if (!is_pipe_barrier(run.calls[j], "PIPE_V")) return j;
  }
  return run.calls.size();
}

// Whether the run orders its vector ops with PIPE_V barriers (the style the edits keep).
bool has_barriers(const statement_run& run) {
  for (const auto& c : run.calls) {
    if (is_pipe_barrier(c, "PIPE_V")) return true;
  }
  return false;
}

// Delete statement i of the run, with the PIPE_V barrier right after it when another barrier
// precedes it (that one still orders the neighbours).
std::vector<text_edit> delete_with_barrier(const source_file& f, const statement_run& run, std::size_t i) {
  std::vector<text_edit> edits{delete_statement(f, run.calls[i]->statement)};
  if (i > 0 && is_pipe_barrier(run.calls[i - 1], "PIPE_V") && i + 1 < run.calls.size() && is_pipe_barrier(run.calls[i + 1], "PIPE_V")) {
    edits.push_back(delete_statement(f, run.calls[i + 1]->statement));
  }
  return edits;
}

// Call c's statement text with its destination spelled `dst`.
std::string with_destination(const source_file& f, const call_info& c, const std::string& dst) {
  return std::string(f.text_of({c.statement.begin, c.args[0].begin})) + dst + std::string(f.text_of({c.args[0].end, c.statement.end}));
}

// Whether the sources of c all come from known buffers other than `buffer`.
bool sources_apart(const source_file& f, const call_info& c, const std::string& buffer) {
  for (std::size_t s : source_args(c)) {
    const std::string b = tile_buffer(f, norm(f, c.args[s]), c.statement.begin);
    if (b.empty() || b == buffer) return false;
  }
  return true;
}

// ---- dead_vector_write ---------------------------------------------------------------------------
//
// A vector op writing tile d (count n) whose next instruction (PIPE_V barriers aside) writes d
// again over the same n elements without reading it: the first write is never read and costs a
// full pass over UB. cann-ops gelu's fp16 path does `Cast(p1, x); Cast(p2, x); Mul(p2, p1, p1)`.
// Guards: both are count-form vector ops on the whole tile d (same spelling, same count); the
// overwriting op's sources come from known buffers other than d's (no view of d can be read).

// The index of the op that overwrites the write at i, or nullopt.
std::optional<std::size_t> overwritten_next(const source_file& f, const statement_run& run, std::size_t i) {
  const auto& c = run.calls[i];
  if (!vec_call(c)) return std::nullopt;
  const std::string d = norm(f, c->args[0]);
  if (!whole_tile(d)) return std::nullopt;
  const std::size_t j = next_call(run, i);
  if (j >= run.calls.size() || !vec_call(run.calls[j])) return std::nullopt;
  const call_info& w = *run.calls[j];
  if (norm(f, w.args[0]) != d || norm(f, w.args.back()) != norm(f, c->args.back()) || reads(f, w, d)) return std::nullopt;
  const std::string buffer = tile_buffer(f, d, c->statement.begin);
  if (buffer.empty() || !sources_apart(f, w, buffer)) return std::nullopt;
  return j;
}

// The inverse: a Cast at i (itself live) followed by an op writing another whole tile e of the
// same element type and count, not reading it: e is the tile a dead copy of the Cast may write.
std::string dead_write_target(const source_file& f, const statement_run& run, std::size_t i) {
  const auto& c = run.calls[i];
  if (!vec_call(c) || c->callee != "Cast" || overwritten_next(f, run, i)) return {};
  const std::size_t j = next_call(run, i);
  if (j >= run.calls.size() || !vec_call(run.calls[j]) || overwritten_next(f, run, j)) return {};
  const call_info& w = *run.calls[j];
  const std::string d = norm(f, c->args[0]), e = norm(f, w.args[0]);
  if (!whole_tile(e) || e == d || reads(f, *c, e) || reads(f, w, e) || norm(f, w.args.back()) != norm(f, c->args.back())) return {};
  if (tile_type(f, e).empty() || tile_type(f, e) != tile_type(f, d)) return {};
  const std::string buffer = tile_buffer(f, e, c->statement.begin);
  if (buffer.empty() || !sources_apart(f, w, buffer)) return {};
  return e;
}

class dead_vector_write final : public basic_motif {
 public:
  dead_vector_write()
      : basic_motif("dead_vector_write", "Delete a vector write that the next instruction overwrites unread",
                    "A vector op writing tile d whose next instruction writes d again (same elements) without "
                    "reading it costs a full pass over UB for nothing, e.g. Cast(p1, x); Cast(p2, x); "
                    "Mul(p2, p1, p1). The first write is deleted. Applies to count-form ops on whole tiles whose "
                    "overwriting op reads only tiles of other buffers. Inverse: a Cast followed by an op writing "
                    "another tile of the same type gets a copy writing that tile (dead).",
                    bottleneck_class::vector_bound) {}

  std::vector<site> match(const source_set& src) const override {
    std::vector<site> out;
    visit_kernel_run_statements(src, {}, [&](const std::string& path, const source_file& f, const statement_run& run, std::size_t i) {
      if (auto j = overwritten_next(f, run, i)) {
        out.push_back(make_site(path, run.calls[i]->statement, true, false,
                                run.calls[i]->callee + "(" + norm(f, run.calls[i]->args[0]) + ") overwritten by " + run.calls[*j]->callee + " unread"));
      }
      const std::string e = dead_write_target(f, run, i);
      if (!e.empty()) out.push_back(make_site(path, run.calls[i]->statement, false, true, "Cast copied into " + e + " (dead)"));
    });
    return out;
  }

  outcome apply(const source_set& src, const site& s, direction d) const override {
    auto cur = refind(src, s);
    if (!cur || (d == direction::forward ? !cur->forward : !cur->inverse)) {
      return outcome::fail(d == direction::forward ? "no overwritten vector write here" : "no Cast with a tile to write dead here");
    }
    auto f = src.get(s.path);
    outcome done = outcome::fail("the statements changed");
    visit_run_statements(statement_runs(*f), [&](const statement_run& run, std::size_t i) {
      if (!run.calls[i] || !(run.calls[i]->statement == s.anchor)) return false;
      const call_info& c = *run.calls[i];
      if (d == direction::forward) {
        std::vector<text_edit> edits = delete_with_barrier(*f, run, i);
        done = outcome::success(std::move(edits));
      } else {
        const std::string e = dead_write_target(*f, run, i);
        std::string copy = with_destination(*f, c, e);
        if (has_barriers(run)) copy = f->api_prefix() + "PipeBarrier<PIPE_V>();\n" + f->indent_at(c.statement.begin) + copy;
        done = outcome::success({insert_after_statement(*f, c.statement, copy)});
      }
      return true;
    });
    return done;
  }
};

// ---- common_subexpression -----------------------------------------------------------------------
//
// The same value computed twice: Op(a, S...) whose next op X(a, a, ...) updates a in place, and
// later Op(b, S...) with the same operands, S unchanged and b untouched in between. cann-ops
// gelu_grad computes x * x twice: Mul(p3, p1, p1); Muls(p3, p3, c0) ... Mul(tmp, p1, p1);
// Muls(tmp, tmp, c2). The first op writes b instead, X reads b (no longer in place), and the
// second op goes: one pass fewer, one in-place operand fewer, bit-identical results.
// Guards: straight-line calls between the two ops; every tile written or read in between comes
// from a known buffer, none from b's, none written from the buffers of S.

struct shared_value {
  std::size_t first = 0, user = 0, second = 0;  // indices into the run: Op, X, the other Op (inverse: its reader)
  std::size_t user_arg = 0;                     // X's source argument reading the value
  std::string a, b;                             // X's tile and the tile that keeps the value
};

// Buffers of the tiles `c` reads (sources) and writes (destination); false when one is unknown.
bool call_buffers(const source_file& f, const call_info& c, std::vector<std::string>& read, std::string& written) {
  for (std::size_t s : source_args(c)) {
    read.push_back(tile_buffer(f, base_name(norm(f, c.args[s])), c.statement.begin));
    if (read.back().empty()) return false;
  }
  written = tile_buffer(f, base_name(norm(f, c.args[0])), c.statement.begin);
  return !written.empty();
}

// Whether the calls strictly between `from` and `to` leave the value of Op(S) in b and S intact:
// calls only, vector ops on known buffers, none naming b or touching b's buffer, none writing a
// buffer of S. Other calls (barriers, flags) must not name b or any tile of S.
bool value_kept(const source_file& f, const statement_run& run, std::size_t from, std::size_t to, const call_info& op, const std::string& b) {
  std::vector<std::string> s_buffers;
  std::string ignored;
  if (!call_buffers(f, op, s_buffers, ignored)) return false;
  const std::string b_buffer = tile_buffer(f, b, op.statement.begin);
  if (b_buffer.empty()) return false;
  for (std::size_t k = from + 1; k < to; ++k) {
    const auto& c = run.calls[k];
    if (!c || f.mentions(c->statement, b)) return false;
    if (!vector_op(c->callee)) {
      for (std::size_t s : source_args(op)) {
        if (f.mentions(c->statement, base_name(norm(f, op.args[s])))) return false;
      }
      continue;
    }
    std::vector<std::string> read;
    std::string written;
    if (!vec_call(c) || !call_buffers(f, *c, read, written)) return false;
    if (written == b_buffer || std::find(read.begin(), read.end(), b_buffer) != read.end()) return false;
    if (std::find(s_buffers.begin(), s_buffers.end(), written) != s_buffers.end()) return false;
  }
  return true;
}

// Same callee and template arguments, the same arguments but the destination.
bool same_but_destination(const source_file& f, const call_info& x, const call_info& y) {
  if (x.callee != y.callee || x.template_args != y.template_args || x.args.size() != y.args.size()) return false;
  for (std::size_t k = 1; k < x.args.size(); ++k) {
    if (norm(f, x.args[k]) != norm(f, y.args[k])) return false;
  }
  return true;
}

// The source argument of c spelled exactly `name`, when it is the only argument naming it.
std::optional<std::size_t> sole_source(const source_file& f, const call_info& c, const std::string& name) {
  std::optional<std::size_t> at;
  for (std::size_t s : source_args(c)) {
    if (!f.mentions(c.args[s], name)) continue;
    if (at || norm(f, c.args[s]) != name) return std::nullopt;
    at = s;
  }
  return at;
}

// An op at i computing from S into a, not reading a; the tiles it reads are whole tiles.
bool pure_op(const source_file& f, const std::optional<call_info>& c, std::string& a) {
  if (!vec_call(c) || c->callee == "Duplicate") return false;
  a = norm(f, c->args[0]);
  if (!whole_tile(a) || reads(f, *c, a)) return false;
  for (std::size_t s : source_args(*c)) {
    if (!whole_tile(norm(f, c->args[s]))) return false;
  }
  return true;
}

// Forward: Op(a, S) at i, X(a, a, ...) next, and later Op(b, S).
std::optional<shared_value> as_recomputed(const source_file& f, const statement_run& run, std::size_t i) {
  shared_value v;
  if (!pure_op(f, run.calls[i], v.a)) return std::nullopt;
  const call_info& op = *run.calls[i];
  v.first = i;
  v.user = next_call(run, i);
  if (v.user >= run.calls.size() || !vec_call(run.calls[v.user])) return std::nullopt;
  const call_info& x = *run.calls[v.user];
  const auto arg = sole_source(f, x, v.a);
  if (norm(f, x.args[0]) != v.a || !arg || reads_destination(x)) return std::nullopt;
  v.user_arg = *arg;
  for (std::size_t j = v.user + 1; j < run.calls.size(); ++j) {
    const auto& c = run.calls[j];
    if (!c) return std::nullopt;
    if (!vec_call(c) || !same_but_destination(f, op, *c)) continue;
    v.b = norm(f, c->args[0]);
    if (!whole_tile(v.b) || v.b == v.a || reads(f, op, v.b)) return std::nullopt;
    if (tile_type(f, v.b).empty() || tile_type(f, v.b) != tile_type(f, v.a)) return std::nullopt;
    if (!value_kept(f, run, v.user, j, op, v.b) || f.mentions(x.statement, v.b)) return std::nullopt;
    v.second = j;
    return v;
  }
  return std::nullopt;
}

// Inverse: Op(b, S) at i, X(a, b, ...) next (a named only as its destination), and the next
// statement naming b reads it: the value is computed again there, X goes back in place.
std::optional<shared_value> as_reused(const source_file& f, const statement_run& run, std::size_t i) {
  shared_value v;
  if (!pure_op(f, run.calls[i], v.b)) return std::nullopt;
  const call_info& op = *run.calls[i];
  v.first = i;
  v.user = next_call(run, i);
  if (v.user >= run.calls.size() || !vec_call(run.calls[v.user])) return std::nullopt;
  const call_info& x = *run.calls[v.user];
  v.a = norm(f, x.args[0]);
  const auto arg = sole_source(f, x, v.b);
  if (!whole_tile(v.a) || v.a == v.b || !arg || reads(f, x, v.a) || reads(f, op, v.a)) return std::nullopt;
  v.user_arg = *arg;
  if (tile_type(f, v.b).empty() || tile_type(f, v.b) != tile_type(f, v.a)) return std::nullopt;
  for (std::size_t j = v.user + 1; j < run.calls.size(); ++j) {
    const auto& c = run.calls[j];
    if (!c) return std::nullopt;
    if (!f.mentions(c->statement, v.b)) continue;
    if (!vec_call(c) || !reads(f, *c, v.b) || !value_kept(f, run, v.user, j, op, v.b)) return std::nullopt;
    v.second = j;
    return v;
  }
  return std::nullopt;
}

class common_subexpression final : public basic_motif {
 public:
  common_subexpression()
      : basic_motif("common_subexpression", "Compute a value once when two vector ops compute it from unchanged operands",
                    "Op(a, S); X(a, a, ...) ... Op(b, S) computes Op(S) twice (e.g. x * x for two polynomials). "
                    "The first op writes b instead, X reads b, and the second op goes: one pass over UB fewer and "
                    "X no longer in place, the same values. Applies when S and b are untouched in between "
                    "(straight-line vector ops on known buffers). Inverse: Op(b, S); X(a, b, ...) with b next read "
                    "later becomes Op(a, S); X(a, a, ...) and Op(b, S) again before that reader.",
                    bottleneck_class::vector_bound) {}

  std::vector<site> match(const source_set& src) const override {
    std::vector<site> out;
    visit_kernel_run_statements(src, {}, [&](const std::string& path, const source_file& f, const statement_run& run, std::size_t i) {
      const auto& c = run.calls[i];
      if (auto v = as_recomputed(f, run, i)) out.push_back(make_site(path, c->statement, true, false, c->callee + " computed again into " + v->b + ": kept in it"));
      if (auto v = as_reused(f, run, i)) out.push_back(make_site(path, c->statement, false, true, c->callee + " into " + v->b + " reused: computed twice"));
    });
    return out;
  }

  outcome apply(const source_set& src, const site& s, direction d) const override {
    auto cur = refind(src, s);
    if (!cur || (d == direction::forward ? !cur->forward : !cur->inverse)) {
      return outcome::fail(d == direction::forward ? "no value computed twice here" : "no reused value here");
    }
    auto f = src.get(s.path);
    outcome done = outcome::fail("the statements changed");
    visit_run_statements(statement_runs(*f), [&](const statement_run& run, std::size_t i) {
      if (!run.calls[i] || !(run.calls[i]->statement == s.anchor)) return false;
      const auto v = d == direction::forward ? as_recomputed(*f, run, i) : as_reused(*f, run, i);
      if (!v) return false;
      const call_info& op = *run.calls[v->first];
      const call_info& x = *run.calls[v->user];
      const std::string& to = d == direction::forward ? v->b : v->a;
      std::vector<text_edit> edits{{s.path, op.args[0], to}, {s.path, x.args[v->user_arg], to}};
      if (d == direction::forward) {
        for (auto& e : delete_with_barrier(*f, run, v->second)) edits.push_back(std::move(e));
      } else {
        std::string again = with_destination(*f, op, v->b);
        if (has_barriers(run)) again += "\n" + f->indent_at(run.calls[v->second]->statement.begin) + f->api_prefix() + "PipeBarrier<PIPE_V>();";
        edits.push_back(insert_before_statement(*f, run.calls[v->second]->statement, again));
      }
      done = outcome::success(std::move(edits));
      return true;
    });
    return done;
  }
};

// ---- sqrt_div_to_rsqrt ------------------------------------------------------------------------------
//
// 1 / sqrt(x) as three passes: Duplicate(o, 1, n); Sqrt(s, a, n); Div(y, o, s, n) (PIPE_V
// barriers only between) -> Rsqrt(y, a, n) in their place (a still holds the Sqrt's operand there): one pass, and a 4-cycle Div fewer.
// cann-ops rsqrt's fp16 path does exactly this on fp32 tiles. Guards: fp32 tiles (Rsqrt and
// Div(1, Sqrt) differ by an ulp or two of fp32, far below any tolerance; in fp16 that ulp is
// 0.001 relative, so not there); o and s dead after the Div unless they are y.
// Inverse: Rsqrt(y, a, n) -> Duplicate(y, 1, n); Sqrt(a, a, n); Div(y, y, a, n) when a is dead
// afterwards, or for the in-place Rsqrt(y, y, n) Duplicate(t, 1, n); Sqrt(y, y, n);
// Div(y, t, y, n) on an unused local tile t.

struct rsqrt_chain {
  range span;                 // the Duplicate (forward) or the Rsqrt (inverse) through the Div
  std::string y, a, t, n;     // destination, operand, temporary of the inverse, count (as written)
  std::string one;            // the Duplicate's value (forward)
  bool barriers = false;
};

std::optional<rsqrt_chain> as_sqrt_div(const source_file& f, const statement_run& run, std::size_t i) {
  const auto& dup = run.calls[i];
  if (!vec_call(dup) || dup->callee != "Duplicate") return std::nullopt;
  const std::size_t k = next_call(run, i);
  if (k >= run.calls.size()) return std::nullopt;
  const std::size_t j = next_call(run, k);
  if (j >= run.calls.size()) return std::nullopt;
  const auto& sq = run.calls[k];
  const auto& div = run.calls[j];
  if (!vec_call(sq) || sq->callee != "Sqrt" || !vec_call(div) || div->callee != "Div") return std::nullopt;
  const std::string o = norm(f, dup->args[0]), n = norm(f, dup->args[2]);
  const std::string s = norm(f, sq->args[0]), a = norm(f, sq->args[1]), y = norm(f, div->args[0]);
  for (const std::string* v : {&o, &s, &a, &y}) {
    if (!whole_tile(*v) || tile_type(f, *v) != "float") return std::nullopt;
  }
  if (scalar_value(f, dup->args[1]) != 1.0 || norm(f, sq->args[2]) != n || norm(f, div->args[3]) != n) return std::nullopt;
  if (norm(f, div->args[1]) != o || norm(f, div->args[2]) != s || o == s || o == a) return std::nullopt;
  const std::size_t end = div->statement.end;
  if ((o != y && !dead_after(f, o, end)) || (s != y && !dead_after(f, s, end))) return std::nullopt;
  rsqrt_chain c{{dup->statement.begin, end}, arg_text(f, *div, 0), arg_text(f, *sq, 1), {}, arg_text(f, *div, 3), arg_text(f, *dup, 1), false};
  for (std::size_t q = i + 1; q < j; ++q) c.barriers = c.barriers || is_pipe_barrier(run.calls[q], "PIPE_V");
  return c;
}

std::optional<rsqrt_chain> as_rsqrt(const source_file& f, const statement_run& run, std::size_t i) {
  const auto& r = run.calls[i];
  if (!vec_call(r) || r->callee != "Rsqrt" || !r->template_args.empty()) return std::nullopt;
  const std::string y = norm(f, r->args[0]), a = norm(f, r->args[1]);
  if (!whole_tile(y) || !whole_tile(a) || tile_type(f, y) != "float" || tile_type(f, a) != "float") return std::nullopt;
  rsqrt_chain c{r->statement, arg_text(f, *r, 0), arg_text(f, *r, 1), {}, arg_text(f, *r, 2), {}, has_barriers(run)};
  if (y == a) {
    c.t = unused_temporary(f, r->statement.begin, "float");
    if (c.t.empty()) return std::nullopt;
  } else if (!dead_after(f, a, r->statement.end)) {
    return std::nullopt;
  }
  return c;
}

class sqrt_div_to_rsqrt final : public basic_motif {
 public:
  sqrt_div_to_rsqrt()
      : basic_motif("sqrt_div_to_rsqrt", "Compute 1 / sqrt(x) with one Rsqrt instead of Duplicate, Sqrt and Div",
                    "Duplicate(o, 1, n); Sqrt(s, a, n); Div(y, o, s, n) makes three passes over UB, one of them a Div "
                    "(4 cycles per repeat); Rsqrt(y, a, n) makes one. fp32 tiles only (the two differ by an ulp or "
                    "two of fp32). Applies when the ones tile and the square root are dead afterwards (or are y). "
                    "Inverse: Rsqrt(y, a, n) -> Duplicate(y, 1, n); Sqrt(a, a, n); Div(y, y, a, n) when a is dead "
                    "afterwards, or with an unused local tile for the ones when the Rsqrt is in place.",
                    bottleneck_class::vector_bound) {}

  std::vector<site> match(const source_set& src) const override {
    std::vector<site> out;
    visit_kernel_run_statements(src, {}, [&](const std::string& path, const source_file& f, const statement_run& run, std::size_t i) {
      if (auto c = as_sqrt_div(f, run, i)) out.push_back(make_site(path, c->span, true, false, "1 / sqrt(" + c->a + ") in three passes -> Rsqrt into " + c->y));
      if (auto c = as_rsqrt(f, run, i)) out.push_back(make_site(path, c->span, false, true, "Rsqrt(" + c->y + ", " + c->a + ") -> Duplicate, Sqrt, Div"));
    });
    return out;
  }

  outcome apply(const source_set& src, const site& s, direction d) const override {
    auto cur = refind(src, s);
    if (!cur || (d == direction::forward ? !cur->forward : !cur->inverse)) {
      return outcome::fail(d == direction::forward ? "no Duplicate(1), Sqrt, Div chain here" : "no fp32 Rsqrt with a tile for the ones here");
    }
    auto f = src.get(s.path);
    outcome done = outcome::fail("the statements changed");
    visit_run_statements(statement_runs(*f), [&](const statement_run& run, std::size_t i) {
      auto c = d == direction::forward ? as_sqrt_div(*f, run, i) : as_rsqrt(*f, run, i);
      if (!c || !(c->span == s.anchor)) return false;
      const std::string p = f->api_prefix();
      std::string text;
      if (d == direction::forward) {
        text = p + "Rsqrt(" + c->y + ", " + c->a + ", " + c->n + ");";
      } else {
        const std::string ones = c->t.empty() ? c->y : c->t, root = c->t.empty() ? c->a : c->y;
        const std::string sep = "\n" + f->indent_at(c->span.begin) + (c->barriers ? p + "PipeBarrier<PIPE_V>();\n" + f->indent_at(c->span.begin) : "");
        text = p + "Duplicate(" + ones + ", 1.0f, " + c->n + ");" + sep + p + "Sqrt(" + root + ", " + root + ", " + c->n + ");" + sep + p + "Div(" + c->y +
               ", " + ones + ", " + root + ", " + c->n + ");";
      }
      done = outcome::success({{s.path, s.anchor, text}});
      return true;
    });
    return done;
  }
};

}  // namespace

void add_pass_motifs(std::vector<std::unique_ptr<motif>>& v) {
  v.push_back(std::make_unique<dead_vector_write>());
  v.push_back(std::make_unique<common_subexpression>());
  v.push_back(std::make_unique<sqrt_div_to_rsqrt>());
}

}  // namespace aopt::motifs::detail
