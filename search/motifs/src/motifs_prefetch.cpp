// Kernel motif on the tile loop: issue the copy-in of the next tile before the compute of the
// current one (prefetch_next_tile). A stage method that only fills a double-buffered queue is
// called at the top of a counted loop; when the compute stage reads results on the scalar unit
// (a V_S flag, GetValue), the scalar thread cannot issue the next copy until the compute is done,
// so the queue's second slot is never used. The prefetch form calls it once before the loop and,
// in the loop, for the next tile.
#include <algorithm>
#include <regex>

#include "motifs_impl.h"

namespace aopt::motifs::detail {

bool has_token(const source_file& f, range r, std::initializer_list<std::string_view> words) {
  for (const auto& id : f.identifiers(r)) {
    for (auto w : words) {
      if (id == w) return true;
    }
  }
  return false;
}

// The definition (method node with a body) of method `name` in f, or -1.
int method_definition(const source_file& f, const std::string& name) {
  for (int m : f.find(node_kind::method)) {
    if (f.at(m).name != name) continue;
    for (int ch : f.at(m).children) {
      if (f.at(ch).kind == node_kind::compound) return m;
    }
  }
  return -1;
}

bool is_own_call(const call_info& k) { return k.qualifier.empty() || k.qualifier == "this->"; }

// The method bodies the calls of this file's methods in `r` reach (one level).
std::vector<range> called_methods(const source_file& f, range r, int except_node) {
  std::vector<range> out;
  for (const auto& k : f.calls()) {
    if (!r.contains(k.r.begin) || k.node == except_node || !is_own_call(k)) continue;
    const int m = method_definition(f, k.callee);
    if (m >= 0) out.push_back(f.at(m).r);
  }
  return out;
}

namespace {

using search::bottleneck_class;

// The call text `call` (`P(a, b)`) with every whole-token use of `var` in its arguments
// replaced: an argument that is only `var` becomes `whole`, other uses become `inner`.
std::string substituted_call(const std::string& call, const std::string& var, const std::string& whole, const std::string& inner) {
  const std::size_t open = call.find('(');
  const std::size_t close = call.rfind(')');
  std::string out = call.substr(0, open + 1);
  std::size_t at = open + 1;
  for (const auto& [b, e] : split_args(call, open + 1, close)) {
    out.append(call, at, b - at);
    const std::string arg = call.substr(b, e - b);
    if (squeeze(arg) == var) {
      out += whole;
    } else {
      std::size_t p = 0;
      for (const auto& [id, pos] : identifiers(arg, 0, arg.size())) {
        // A member access `x.var` / `x->var` is another name.
        if (id != var || (pos > 0 && (arg[pos - 1] == '.' || (pos > 1 && arg[pos - 1] == '>' && arg[pos - 2] == '-')))) continue;
        out.append(arg, p, pos - p);
        out += inner;
        p = pos + id.size();
      }
      out.append(arg, p);
    }
    at = e;
  }
  out.append(call, at);
  return out;
}

bool mentions_var(const source_file& f, const call_info& c, const std::string& var) {
  for (const range& a : c.args) {
    if (f.mentions(a, var)) return true;
  }
  return false;
}

// The queue that producer stage `callee` fills: a method of this file that only allocates a tile
// of one queue (of at least two slots), copies into it and enqueues it; or nullopt.
std::optional<std::string> producer_queue(const source_file& f, const std::string& callee) {
  const int def = method_definition(f, callee);
  if (def < 0) return std::nullopt;
  const range pr = f.at(def).r;
  std::string queue;
  bool enqueued = false;
  std::vector<std::string> helpers;
  for (const auto& k : f.calls()) {
    if (!pr.contains(k.r.begin)) continue;
    if (k.callee == "AllocTensor" || k.callee == "EnQue") {
      if (k.object().empty() || (!queue.empty() && k.object() != queue)) return std::nullopt;
      queue = k.object();
      enqueued = enqueued || k.callee == "EnQue";
    } else if (k.callee == "DataCopy" || k.callee == "DataCopyPad") {
      continue;
    } else if (is_own_call(k) && method_definition(f, k.callee) >= 0) {
      helpers.push_back(k.callee);  // a helper of the class: must not touch queues, flags or UB
    } else {
      return std::nullopt;
    }
  }
  if (queue.empty() || !enqueued) return std::nullopt;
  for (const auto& h : helpers) {
    const range hr = f.at(method_definition(f, h)).r;
    for (const auto& k : f.calls()) {
      if (hr.contains(k.r.begin)) return std::nullopt;
    }
  }
  // The queue has at least two slots: InitBuffer(queue, n >= 2, ...).
  bool two_slots = false;
  for (const auto& k : f.calls("InitBuffer")) {
    if (k.args.size() != 3 || squeeze(f.text_of(k.args[0])) != squeeze(queue)) continue;
    const std::string n = squeeze(f.text_of(k.args[1]));
    std::optional<long long> v;
    if (auto lit = literal_value(n)) v = static_cast<long long>(*lit);
    if (auto k2 = f.integer_constant(n)) v = k2->value;
    two_slots = v && *v >= 2;
  }
  if (!two_slots) return std::nullopt;
  return queue;
}

// Whether producer call `c` may run one tile ahead in loop body `body`: it fills one queue of two
// slots (producer_queue), the body calls it only once and consumes the queue (directly or in a
// stage method it calls: DeQue and FreeTensor on the queue, no other AllocTensor), and no member
// the producer reads is written in the body or the methods it calls.
bool prefetchable_producer(const source_file& f, const call_info& c, range body) {
  const auto queue = producer_queue(f, c.callee);
  if (!queue) return false;
  for (const auto& k : f.calls()) {
    if (body.contains(k.r.begin) && k.node != c.node && k.callee == c.callee && is_own_call(k)) return false;
  }
  std::vector<range> consumers = called_methods(f, body, c.node);
  consumers.push_back(body);
  bool dequeued = false, freed = false;
  for (const auto& k : f.calls()) {
    if (k.object() != *queue) continue;
    for (const range& r : consumers) {
      if (!r.contains(k.r.begin)) continue;
      dequeued = dequeued || k.callee == "DeQue";
      freed = freed || k.callee == "FreeTensor";
      if (k.callee == "AllocTensor") return false;  // another producer of the queue
    }
  }
  if (!dequeued || !freed) return false;
  for (const auto& id : f.identifiers(f.at(method_definition(f, c.callee)).r)) {
    bool field = false;
    for (const auto& n : f.nodes()) field = field || (n.kind == node_kind::field_decl && n.name == id);
    if (!field) continue;
    for (const range& r : consumers) {
      if (assigned_in(f, id, r.begin, r.end)) return false;
    }
  }
  return true;
}

// The only statement of an if statement without else whose then-branch is a compound holding one
// call statement: {condition range, the call}.
struct guarded_call {
  int stmt = -1;
  range cond;
  call_info call;
};
std::optional<guarded_call> as_guarded_call(const source_file& f, int stmt) {
  const node& n = f.at(stmt);
  if (n.kind != node_kind::if_stmt || n.children.size() != 2) return std::nullopt;
  const int then = n.children[1];
  if (f.at(then).kind != node_kind::compound) return std::nullopt;
  const auto inner = f.statements(then);
  if (inner.size() != 1) return std::nullopt;
  for (const auto& c : call_statements(f, then)) {
    if (c.statement == f.statement_range(inner[0]) && f.statement_of(c.node) == inner[0]) {
      return guarded_call{stmt, f.at(n.children[0]).r, c};
    }
  }
  return std::nullopt;
}

// The call statement that is the whole of statement `stmt` (a child of compound `body`).
std::optional<call_info> whole_call(const source_file& f, int body, int stmt) {
  for (const auto& c : call_statements(f, body)) {
    if (c.statement == f.statement_range(stmt) && f.statement_of(c.node) == stmt) return c;
  }
  return std::nullopt;
}

// The producer stage `P(...)` at the top of a counted loop, with what makes prefetching it safe.
struct prefetch_site {
  counted_loop cl;
  range loop_stmt;
  call_info call;  // the loop's first statement
};

// A motif whose sites are for loops: `Derived` names each loop's forward form (forward_site)
// or inverse form (inverse_site), each with the loop statement's range `loop_stmt` (the site's
// anchor), and applies them (forward, inverse); it says what a site does (forward_summary,
// inverse_summary) and why a stale site does not apply (no_forward, no_inverse).
template <typename Derived>
class loop_motif : public basic_motif {
 public:
  using basic_motif::basic_motif;

  std::vector<site> match(const source_set& src) const override {
    std::vector<site> out;
    for (const auto& path : kernel_paths(src, "AllocTensor")) {
      auto f = src.get(path);
      for (int loop : f->find(node_kind::for_loop)) {
        if (auto p = Derived::forward_site(*f, loop)) {
          out.push_back(make_site(path, p->loop_stmt, true, false, Derived::forward_summary(*p)));
        } else if (auto q = Derived::inverse_site(*f, loop)) {
          out.push_back(make_site(path, q->loop_stmt, false, true, Derived::inverse_summary()));
        }
      }
    }
    return out;
  }

  outcome apply(const source_set& src, const site& s, direction d) const override {
    auto cur = refind(src, s);
    if (!cur || (d == direction::forward ? !cur->forward : !cur->inverse)) {
      return outcome::fail(d == direction::forward ? Derived::no_forward : Derived::no_inverse);
    }
    auto f = src.get(s.path);
    for (int loop : f->find(node_kind::for_loop)) {
      if (d == direction::forward) {
        auto p = Derived::forward_site(*f, loop);
        if (p && p->loop_stmt == s.anchor) return Derived::forward(*f, *p);
      } else {
        auto q = Derived::inverse_site(*f, loop);
        if (q && q->loop_stmt == s.anchor) return Derived::inverse(*f, *q);
      }
    }
    return outcome::fail("the loop changed");
  }
};

class prefetch_next_tile final : public loop_motif<prefetch_next_tile> {
 public:
  prefetch_next_tile()
      : loop_motif("prefetch_next_tile", "Prefetch the next tile's copy-in before this tile's compute",
                    "A tile loop `for (i...) { CopyIn(i); Compute(); CopyOut(i); }` whose copy-in stage only fills a "
                    "queue of two slots issues the copy of tile i+1 only after the compute of tile i has been "
                    "issued; when the compute waits on the scalar unit (a reduction result read with GetValue after "
                    "a V_S flag) the scalar thread stalls and the copy of the next tile does not overlap the compute. "
                    "The copy-in of the first tile moves before the loop and each iteration first copies in tile "
                    "i+1. Inverse: the prefetching loop becomes the sequential one.",
                    bottleneck_class::serialized_pipes, false) {}


 private:
  friend class loop_motif<prefetch_next_tile>;
  static constexpr const char* no_forward = "no sequential copy-in / compute tile loop at this site";
  static constexpr const char* no_inverse = "no prefetching tile loop at this site";
  static std::string forward_summary(const prefetch_site& p) {
    return "copy in tile " + p.cl.var + " + 1 before the compute of tile " + p.cl.var;
  }
  static std::string inverse_summary() { return "copy in each tile at the top of its own iteration"; }

  struct inverse_form {
    counted_loop cl;
    range loop_stmt;
    guarded_call next;    // if (i + 1 < N) { P(..i + 1..); }
    int before = -1;      // the statement before the loop: P(..A..); or if (N > A) { P(..A..); }
    std::string plain;    // P(..i..) recovered from the prefetch call
  };

  static range loop_statement(const source_file& f, int loop) {
    const int st = f.statement_of(loop);
    return f.statement_range(st >= 0 ? st : loop);
  }

  // The statement right before `loop` in its compound, or -1.
  static int previous_statement(const source_file& f, int loop) {
    if (f.statement_of(loop) != loop) return -1;
    const auto sts = f.statements(f.at(loop).parent);
    for (std::size_t i = 1; i < sts.size(); ++i) {
      if (sts[i] == loop) return sts[i - 1];
    }
    return -1;
  }

  static std::string var_plus_one(const counted_loop& cl) { return cl.var + " + 1"; }

  static std::string start_text(const source_file& f, const counted_loop& cl, bool inner) {
    const std::string a(f.text_of(cl.init));
    return inner && !simple_operand(a) ? "(" + a + ")" : a;
  }

  static std::optional<prefetch_site> forward_site(const source_file& f, int loop) {
    auto cl = as_counted_loop(f, loop);
    if (!cl) return std::nullopt;
    const range body = f.at(cl->body).r;
    const auto sts = f.statements(cl->body);
    if (sts.size() < 2) return std::nullopt;
    auto c = whole_call(f, cl->body, sts.front());
    if (!c || !(c->qualifier.empty() || c->qualifier == "this->") || c->args.empty() || !mentions_var(f, *c, cl->var)) return std::nullopt;
    // The bound: arithmetic on names and literals, unchanged by the loop.
    const std::string bound(f.text_of(cl->bound));
    if (bound.find_first_of("?<>&|=!,") != std::string::npos) return std::nullopt;
    if (has_token(f, body, {"break", "continue", "return", "goto"})) return std::nullopt;
    if (assigned_in(f, cl->var, body.begin, body.end)) return std::nullopt;
    // Names of the loop (declared in it) may not feed the producer's arguments or the bound.
    std::vector<std::string> inner;
    for (const auto& n : f.nodes()) {
      if (n.kind == node_kind::var_decl && body.contains(n.r.begin)) inner.push_back(n.name);
    }
    auto loop_names_free = [&](range r) {
      for (const auto& id : f.identifiers(r)) {
        if (id == cl->var) continue;
        if (std::find(inner.begin(), inner.end(), id) != inner.end() || assigned_in(f, id, body.begin, body.end)) return false;
      }
      return true;
    };
    if (!loop_names_free(cl->bound)) return std::nullopt;
    for (const range& a : c->args) {
      if (!loop_names_free(a)) return std::nullopt;
    }
    if (!prefetchable_producer(f, *c, body)) return std::nullopt;
    // Not already prefetched: the statement before the loop is not a call of the producer.
    const int prev = previous_statement(f, loop);
    if (prev >= 0 && f.mentions(f.at(prev).r, c->callee)) return std::nullopt;
    return prefetch_site{*cl, loop_statement(f, loop), *c};
  }

  static outcome forward(const source_file& f, const prefetch_site& p) {
    const std::string ind = f.indent_at(p.call.statement.begin);
    const std::string loop_ind = f.indent_at(p.loop_stmt.begin);
    const std::string bound(f.text_of(p.cl.bound));
    const std::string call(f.text_of(p.call.r));
    const std::string next = substituted_call(call, p.cl.var, var_plus_one(p.cl), "(" + var_plus_one(p.cl) + ")");
    const std::string first = substituted_call(call, p.cl.var, start_text(f, p.cl, false), start_text(f, p.cl, true));
    // One indentation step as the file writes it: the loop body's indent beyond the loop's.
    const std::string step = ind.size() > loop_ind.size() && ind.compare(0, loop_ind.size(), loop_ind) == 0 ? ind.substr(loop_ind.size()) : "    ";
    text_edit in_loop{f.path(), p.call.statement, "if (" + var_plus_one(p.cl) + " < " + bound + ") {\n" + ind + step + next + ";\n" + ind + "}"};
    text_edit before = insert_before_statement(
        f, p.loop_stmt, "if (" + bound + " > " + std::string(f.text_of(p.cl.init)) + ") {\n" + loop_ind + step + first + ";\n" + loop_ind + "}");
    return outcome::success({before, in_loop});
  }

  // The argument texts of `c` with the prefetch offset removed: `i + 1` -> `i`, `(i + 1)` -> `i`.
  static std::optional<std::string> unshifted_call(const source_file& f, const call_info& c, const std::string& var) {
    const std::regex whole("^\\s*" + var + "\\s*\\+\\s*1\\s*$");
    const std::regex inner("\\(\\s*" + var + "\\s*\\+\\s*1\\s*\\)");
    const std::string& t = f.text();
    std::string out;
    std::size_t at = c.r.begin;
    bool shifted = false;
    for (const range& a : c.args) {
      out.append(t, at, a.begin - at);
      const std::string arg(f.text_of(a));
      std::string un = std::regex_match(arg, whole) ? var : std::regex_replace(arg, inner, var);
      shifted = shifted || un != arg;
      out += un;
      at = a.end;
    }
    out.append(t, at, c.r.end - at);
    if (!shifted) return std::nullopt;
    return out;
  }

  static std::optional<inverse_form> inverse_site(const source_file& f, int loop) {
    auto cl = as_counted_loop(f, loop);
    if (!cl) return std::nullopt;
    const auto sts = f.statements(cl->body);
    if (sts.size() < 2) return std::nullopt;
    auto g = as_guarded_call(f, sts.front());
    if (!g || squeeze(f.text_of(g->cond)) != squeeze(cl->var + "+1<" + std::string(f.text_of(cl->bound)))) return std::nullopt;
    auto plain = unshifted_call(f, g->call, cl->var);
    if (!plain) return std::nullopt;
    // The copy-in of the first tile right before the loop, plain or guarded by the bound.
    const int prev = previous_statement(f, loop);
    if (prev < 0) return std::nullopt;
    std::optional<call_info> first;
    if (auto pg = as_guarded_call(f, prev)) {
      const std::string c = squeeze(f.text_of(pg->cond));
      const std::string b = squeeze(f.text_of(cl->bound)), a = squeeze(f.text_of(cl->init));
      if (c == b + ">" + a || c == a + "<" + b) first = pg->call;
    } else {
      first = whole_call(f, f.at(loop).parent, prev);
    }
    if (!first || first->callee != g->call.callee || first->qualifier != g->call.qualifier) return std::nullopt;
    // The pre-loop call is the loop's call at the first tile.
    const std::string first_text = substituted_call(*plain, cl->var, start_text(f, *cl, false), start_text(f, *cl, true));
    if (squeeze(f.text_of(first->r)) != squeeze(first_text)) return std::nullopt;
    return inverse_form{*cl, loop_statement(f, loop), *g, prev, *plain};
  }

  static outcome inverse(const source_file& f, const inverse_form& q) {
    return outcome::success({delete_statement(f, f.statement_range(q.before)), {f.path(), f.statement_range(q.next.stmt), q.plain + ";"}});
  }
};

// The type spelled before the loop variable in a for header (`uint32_t` of
// `for (uint32_t r = 0; ...)`); empty when the header does not declare the variable.
std::string loop_var_type(const source_file& f, const counted_loop& cl) {
  const std::string& t = f.text();
  const std::size_t open = t.find('(', f.at(cl.loop).r.begin);
  if (open == std::string::npos || open >= cl.init.begin) return {};
  const std::string head = t.substr(open + 1, cl.init.begin - open - 1);
  const auto ids = identifiers(head, 0, head.size());
  if (ids.size() < 2 || ids.back().first != cl.var) return {};
  std::string type = head.substr(0, ids.back().second);
  const auto b = type.find_first_not_of(" \t\n");
  const auto e = type.find_last_not_of(" \t\n&*");
  if (b == std::string::npos || e < b || type.find_first_of("&*") != std::string::npos) return {};
  return type.substr(b, e - b + 1);
}

// Kernel motif on a row loop around a chunk loop (prefetch_across_rows): `for (r...) { for
// (c...) { <declarations>; CopyIn(..r..c..); Compute(); } }`. When a row is one chunk (or a few)
// prefetch_next_tile on the chunk loop gains nothing: the next copy-in the compute could hide is
// the next row's. The forward form copies in the first (row, chunk) before the row loop and, in the
// chunk loop, the next chunk of this row or the first of the next row, with the declarations and
// the call repeated verbatim in a scope where the loop variables name the next position.
class prefetch_across_rows final : public loop_motif<prefetch_across_rows> {
 public:
  prefetch_across_rows()
      : loop_motif("prefetch_across_rows", "Prefetch the next (row, chunk) copy-in across the rows of a nested loop",
                    "A row loop around a chunk loop whose first stage only fills a queue of two slots "
                    "(`for (r) { for (c) { len = ...; CopyIn(r, c, len); Reduce(len); } }`) copies a chunk in only "
                    "after the previous chunk's compute was issued; when the compute reads its result on the scalar "
                    "unit (GetValue after a V_S flag) nothing overlaps, and with rows of one chunk prefetching inside "
                    "the chunk loop cannot help. The first chunk of the first row is copied in before the row loop, "
                    "and each iteration first copies in the next chunk of its row or else the first chunk of the "
                    "next row. Inverse: the sequential nest.",
                    bottleneck_class::serialized_pipes, false) {}


 private:
  friend class loop_motif<prefetch_across_rows>;
  static constexpr const char* no_forward = "no sequential row / chunk loop nest at this site";
  static constexpr const char* no_inverse = "no prefetching row / chunk loop nest at this site";
  static std::string inverse_summary() { return "copy in each chunk at the top of its own iteration"; }

  struct nest {
    counted_loop outer, inner;
    std::string outer_type, inner_type;
    range loop_stmt;
    std::vector<int> decls;  // the chunk loop's leading declaration statements
    int stage = -1;          // the statement after them: the producer call (forward) or the prefetch (inverse)
  };

  struct forward_form : nest {
    call_info call;
  };

  static std::string forward_summary(const forward_form& p) {
    return "copy in the next chunk (" + p.inner.var + " + 1, or the next row " + p.outer.var + " + 1) before the compute of this one";
  }

  struct inverse_form : nest {
    int before = -1;   // the first copy-in before the row loop
    std::string call;  // the producer call, as the prefetch repeats it
  };

  // The row / chunk nest at `loop`: the outer counted loop's body holds exactly one for statement,
  // a counted loop over chunks whose body starts with declarations followed by `stage` and at
  // least one more statement; both headers declare their variables.
  static std::optional<nest> as_nest(const source_file& f, int loop) {
    auto oc = as_counted_loop(f, loop);
    if (!oc || f.statement_of(loop) != loop) return std::nullopt;
    int inner = -1;
    for (int st : f.statements(oc->body)) {
      if (f.at(st).kind != node_kind::for_loop) continue;
      if (inner >= 0) return std::nullopt;
      inner = st;
    }
    if (inner < 0) return std::nullopt;
    auto ic = as_counted_loop(f, inner);
    if (!ic) return std::nullopt;
    nest n{*oc, *ic, loop_var_type(f, *oc), loop_var_type(f, *ic), f.statement_range(loop), {}, -1};
    if (n.outer_type.empty() || n.inner_type.empty() || oc->var == ic->var) return std::nullopt;
    const auto sts = f.statements(ic->body);
    std::size_t k = 0;
    while (k < sts.size() && f.at(sts[k]).kind == node_kind::decl_stmt) n.decls.push_back(sts[k++]);
    if (k + 1 >= sts.size()) return std::nullopt;
    n.stage = sts[k];
    return n;
  }

  static std::vector<std::string> declared_names(const source_file& f, range r) {
    std::vector<std::string> out;
    for (const auto& n : f.nodes()) {
      if (n.kind == node_kind::var_decl && r.contains(n.r.begin)) out.push_back(n.name);
    }
    return out;
  }

  static bool contains(const std::vector<std::string>& v, const std::string& s) { return std::find(v.begin(), v.end(), s) != v.end(); }

  static std::optional<forward_form> forward_site(const source_file& f, int loop) {
    auto n = as_nest(f, loop);
    if (!n) return std::nullopt;
    auto c = whole_call(f, n->inner.body, n->stage);
    if (!c || !is_own_call(*c) || c->args.empty()) return std::nullopt;
    const range obody = f.at(n->outer.body).r;
    const range ibody = f.at(n->inner.body).r;
    for (range b : {n->outer.bound, n->inner.bound}) {
      if (std::string(f.text_of(b)).find_first_of("?<>&|=!,") != std::string::npos) return std::nullopt;
    }
    if (has_token(f, obody, {"break", "continue", "return", "goto"})) return std::nullopt;
    if (assigned_in(f, n->outer.var, obody.begin, obody.end) || assigned_in(f, n->inner.var, ibody.begin, ibody.end)) return std::nullopt;
    // The declarations only compute (no calls: they are repeated for the next position).
    std::vector<range> repeated;
    for (int d : n->decls) repeated.push_back(f.statement_range(d));
    for (const auto& k : f.calls()) {
      for (const range& r : repeated) {
        if (r.contains(k.r.begin)) return std::nullopt;
      }
    }
    repeated.push_back(c->r);
    // Names other than the loop variables and the leading declarations hold still in the row
    // loop and are visible before it; the chunk loop's bounds do not depend on the row.
    const auto inner_names = declared_names(f, obody);
    std::vector<std::string> leading;
    for (int d : n->decls) {
      for (const auto& nm : declared_names(f, f.statement_range(d))) leading.push_back(nm);
    }
    auto invariant = [&](const std::string& id) { return !contains(inner_names, id) && !assigned_in(f, id, obody.begin, obody.end); };
    for (const range& r : repeated) {
      for (const auto& id : f.identifiers(r)) {
        if (id == n->outer.var || id == n->inner.var || contains(leading, id)) continue;
        if (!invariant(id)) return std::nullopt;
      }
    }
    for (range b : {n->inner.bound, n->inner.init, n->outer.bound}) {
      for (const auto& id : f.identifiers(b)) {
        if (id == n->outer.var || id == n->inner.var || !invariant(id)) return std::nullopt;
      }
    }
    if (!prefetchable_producer(f, *c, obody)) return std::nullopt;
    // Only the chunk loop touches the queue: nothing else in the row loop allocates, dequeues or
    // frees its tiles.
    const auto queue = producer_queue(f, c->callee);
    for (const auto& k : f.calls()) {
      if (!obody.contains(k.r.begin) || ibody.contains(k.r.begin)) continue;
      if (k.object() == *queue) return std::nullopt;
      if (!is_own_call(k)) continue;
      const int m = method_definition(f, k.callee);
      if (m >= 0 && f.mentions(f.at(m).r, *queue)) return std::nullopt;
    }
    // Not already prefetched: the statement before the row loop does not call the producer.
    const auto sts = f.statements(f.at(loop).parent);
    for (std::size_t i = 1; i < sts.size(); ++i) {
      if (sts[i] == loop && f.mentions(f.at(sts[i - 1]).r, c->callee)) return std::nullopt;
    }
    forward_form out;
    static_cast<nest&>(out) = *n;
    out.call = *c;
    return out;
  }

  // The repeated block's lines: the loop variables bound to `outer_at` / `inner_at` (those the
  // declarations and the call use), the declarations, the call; each line starts with `ind`.
  static std::string repeated_lines(const source_file& f, const nest& n, const std::string& call, const std::string& outer_at,
                                    const std::string& inner_at, const std::string& ind) {
    std::string out;
    bool uses_outer = false, uses_inner = false;
    for (int d : n.decls) {
      uses_outer = uses_outer || f.mentions(f.statement_range(d), n.outer.var);
      uses_inner = uses_inner || f.mentions(f.statement_range(d), n.inner.var);
    }
    for (const auto& id : identifiers(call, 0, call.size())) {
      uses_outer = uses_outer || id.first == n.outer.var;
      uses_inner = uses_inner || id.first == n.inner.var;
    }
    if (uses_outer) out += ind + n.outer_type + " " + n.outer.var + " = " + outer_at + ";\n";
    if (uses_inner) out += ind + n.inner_type + " " + n.inner.var + " = " + inner_at + ";\n";
    for (int d : n.decls) out += ind + std::string(f.text_of(f.statement_range(d))) + "\n";
    out += ind + call + ";\n";
    return out;
  }

  static std::string first_condition(const source_file& f, const nest& n) {
    return std::string(f.text_of(n.outer.bound)) + " > " + std::string(f.text_of(n.outer.init)) + " && " +
           std::string(f.text_of(n.inner.bound)) + " > " + std::string(f.text_of(n.inner.init));
  }

  static std::string next_condition(const source_file& f, const nest& n) {
    return n.inner.var + " + 1 < " + std::string(f.text_of(n.inner.bound)) + " || " + n.outer.var + " + 1 < " +
           std::string(f.text_of(n.outer.bound));
  }

  static outcome forward(const source_file& f, const forward_form& p) {
    const std::string ind = f.indent_at(p.call.statement.begin);
    const std::string inner_ind = f.indent_at(f.statement_range(p.inner.loop).begin);
    const std::string loop_ind = f.indent_at(p.loop_stmt.begin);
    const std::string step =
        ind.size() > inner_ind.size() && ind.compare(0, inner_ind.size(), inner_ind) == 0 ? ind.substr(inner_ind.size()) : "    ";
    const std::string call(f.text_of(p.call.r));
    const std::string ib(f.text_of(p.inner.bound));
    const std::string ia(f.text_of(p.inner.init));
    const std::string first = "if (" + first_condition(f, p) + ") {\n" +
                              repeated_lines(f, p, call, std::string(f.text_of(p.outer.init)), ia, loop_ind + step) + loop_ind + "}";
    const std::string rn = fresh_name(f, p.outer.var + "Next");
    const std::string cn = fresh_name(f, p.inner.var + "Next");
    const std::string more = p.inner.var + " + 1 < " + ib;
    const std::string block = repeated_lines(f, p, call, rn, cn, ind + step + step);
    std::string next = "if (" + next_condition(f, p) + ") {\n";
    if (block.find(" " + p.outer.var + " = " + rn + ";") != std::string::npos) {
      next += ind + step + "const " + p.outer_type + " " + rn + " = " + more + " ? " + p.outer.var + " : " + p.outer.var + " + 1;\n";
    }
    if (block.find(" " + p.inner.var + " = " + cn + ";") != std::string::npos) {
      next += ind + step + "const " + p.inner_type + " " + cn + " = " + more + " ? " + p.inner.var + " + 1 : " + ia + ";\n";
    }
    next += ind + step + "{\n" + block + ind + step + "}\n" + ind + "}";
    return outcome::success({insert_before_statement(f, p.loop_stmt, first), {f.path(), p.call.statement, next}});
  }

  // The last statement of compound `block` as a whole call, with the statements before it.
  static std::optional<std::pair<call_info, std::vector<int>>> block_call(const source_file& f, int block) {
    if (block < 0 || f.at(block).kind != node_kind::compound) return std::nullopt;
    const auto sts = f.statements(block);
    if (sts.empty()) return std::nullopt;
    auto c = whole_call(f, block, sts.back());
    if (!c) return std::nullopt;
    return std::make_pair(*c, std::vector<int>(sts.begin(), sts.end() - 1));
  }

  // Whether `sts` are the repeated block's statements before the call: loop-variable bindings,
  // then the chunk loop's declarations, text for text.
  static bool repeats_decls(const source_file& f, const nest& n, const std::vector<int>& sts) {
    if (sts.size() < n.decls.size() || sts.size() > n.decls.size() + 2) return false;
    const std::size_t bind = sts.size() - n.decls.size();
    for (std::size_t i = 0; i < bind; ++i) {
      const std::string t = squeeze(f.text_of(f.statement_range(sts[i])));
      if (t.rfind(squeeze(n.outer_type + " " + n.outer.var + " ="), 0) != 0 && t.rfind(squeeze(n.inner_type + " " + n.inner.var + " ="), 0) != 0) {
        return false;
      }
    }
    for (std::size_t i = 0; i < n.decls.size(); ++i) {
      if (norm(f, f.statement_range(sts[bind + i])) != norm(f, f.statement_range(n.decls[i]))) return false;
    }
    return true;
  }

  static std::optional<inverse_form> inverse_site(const source_file& f, int loop) {
    auto n = as_nest(f, loop);
    if (!n) return std::nullopt;
    const node& g = f.at(n->stage);
    if (g.kind != node_kind::if_stmt || g.children.size() != 2) return std::nullopt;
    if (norm(f, f.at(g.children[0]).r) != squeeze(next_condition(f, *n))) return std::nullopt;
    const int then = g.children[1];
    if (f.at(then).kind != node_kind::compound) return std::nullopt;
    const auto outer_sts = f.statements(then);
    if (outer_sts.empty()) return std::nullopt;
    auto in = block_call(f, outer_sts.back());
    if (!in || !is_own_call(in->first) || !repeats_decls(f, *n, in->second)) return std::nullopt;
    // The first copy-in right before the row loop.
    const auto sts = f.statements(f.at(loop).parent);
    int before = -1;
    for (std::size_t i = 1; i < sts.size(); ++i) {
      if (sts[i] == loop) before = sts[i - 1];
    }
    if (before < 0) return std::nullopt;
    const node& b = f.at(before);
    if (b.kind != node_kind::if_stmt || b.children.size() != 2 || norm(f, f.at(b.children[0]).r) != squeeze(first_condition(f, *n))) {
      return std::nullopt;
    }
    auto first = block_call(f, b.children[1]);
    if (!first || norm(f, first->first.r) != norm(f, in->first.r) || !repeats_decls(f, *n, first->second)) return std::nullopt;
    inverse_form out;
    static_cast<nest&>(out) = *n;
    out.before = before;
    out.call = std::string(f.text_of(in->first.r));
    return out;
  }

  static outcome inverse(const source_file& f, const inverse_form& q) {
    return outcome::success({delete_statement(f, f.statement_range(q.before)), {f.path(), f.statement_range(q.stage), q.call + ";"}});
  }
};

}  // namespace

void add_prefetch_motifs(std::vector<std::unique_ptr<motif>>& v) {
  v.push_back(std::make_unique<prefetch_next_tile>());
  v.push_back(std::make_unique<prefetch_across_rows>());
}

}  // namespace aopt::motifs::detail
