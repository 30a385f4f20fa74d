// Vector motifs: vectorize a scalar element loop, fuse Muls+Add into Axpy, hoist loop-invariant
// Duplicate/Cast, TBuf instead of TQue for VECCALC temporaries.
#include <regex>

#include "motifs_impl.h"

namespace aopt::motifs::detail {
namespace {

using search::bottleneck_class;

// The single statement of a loop body that is a call statement, or nullopt.
std::optional<call_info> only_call(const source_file& f, int body) {
  if (body < 0 || f.at(body).children.size() != 1) return std::nullopt;
  auto stmts = call_statements(f, body);
  if (stmts.size() != 1) return std::nullopt;
  return stmts[0];
}

int node_with_range(const source_file& f, range r, node_kind k) {
  for (std::size_t i = 0; i < f.nodes().size(); ++i) {
    if (f.nodes()[i].kind == k && f.nodes()[i].r == r) return static_cast<int>(i);
  }
  return -1;
}

// ---- vectorize_scalar_loop ----------------------------------------------------------------------

struct scalar_loop {
  counted_loop loop;
  std::string dst, a, b, op, count;
};

const char* op_name(char c) {
  switch (c) {
    case '+': return "Add";
    case '-': return "Sub";
    case '*': return "Mul";
    case '/': return "Div";
    default: return nullptr;
  }
}

std::optional<scalar_loop> as_scalar_loop(const source_file& f, int loop) {
  auto cl = as_counted_loop(f, loop);
  if (!cl || norm(f, cl->init) != "0") return std::nullopt;
  auto c = only_call(f, cl->body);
  if (!c || c->callee != "SetValue" || c->args.size() != 2 || norm(f, c->args[0]) != cl->var) return std::nullopt;
  const std::string e = norm(f, c->args[1]);
  const std::regex re("^(\\w+)\\.GetValue\\(" + cl->var + "\\)([-+*/])(\\w+)\\.GetValue\\(" + cl->var + "\\)$");
  std::smatch m;
  if (!std::regex_match(e, m, re)) return std::nullopt;
  const std::string dst = c->object();
  if (!simple_operand(dst)) return std::nullopt;
  return scalar_loop{*cl, dst, m[1].str(), m[3].str(), op_name(m[2].str()[0]), norm(f, cl->bound)};
}

class vectorize_scalar_loop final : public basic_motif {
 public:
  vectorize_scalar_loop()
      : basic_motif("vectorize_scalar_loop", "Replace a scalar element loop by one vector instruction",
                    "A loop dst.SetValue(i, a.GetValue(i) OP b.GetValue(i)) over n elements of UB tensors runs on "
                    "the scalar pipe, one element per iteration; Add/Sub/Mul/Div(dst, a, b, n) does the same in "
                    "n / 64 vector repeats. The general form, an element loop of float locals and stores over fp32 "
                    "tensors indexed s * i + o (interleaved data such as complex pairs, s = 1, 2, 4), becomes GatherMask "
                    "planes, vector instructions and a Gather back, in chunks of a scratch TBuf the host's UB budget "
                    "reserves. Inverse: the vector call becomes the element loop.",
                    bottleneck_class::scalar_bound) {}

  std::vector<site> match(const source_set& src) const override {
    std::vector<site> out;
    for (const auto& path : kernel_paths(src)) {
      auto f = src.get(path);
      for (int loop : f->find(node_kind::for_loop)) {
        if (auto s = as_scalar_loop(*f, loop)) {
          out.push_back(make_site(path, f->at(loop).r, true, false, "scalar " + s->op + " loop -> " + s->op + "(" + s->dst + ", ...)"));
        } else if (auto summary = element_loop_summary(*f, loop)) {
          out.push_back(make_site(path, f->at(loop).r, true, false, *summary));
        }
      }
      for (const auto& c : f->calls()) {
        if (inverse_ok(*f, c)) out.push_back(make_site(path, c.statement, false, true, c.callee + " -> scalar element loop"));
      }
    }
    return out;
  }

  outcome apply(const source_set& src, const site& s, direction d) const override {
    auto cur = refind(src, s);
    if (!cur || (d == direction::forward ? !cur->forward : !cur->inverse)) {
      return outcome::fail(d == direction::forward ? "no scalar elementwise loop at this site" : "no Add/Sub/Mul/Div call at this site");
    }
    auto f = src.get(s.path);
    if (d == direction::forward) {
      const int loop = node_with_range(*f, s.anchor, node_kind::for_loop);
      auto sl = as_scalar_loop(*f, loop);
      if (!sl) return vectorize_element_loop(src, s.path, loop);
      return outcome::success({{s.path, s.anchor, f->api_prefix() + sl->op + "(" + sl->dst + ", " + sl->a + ", " + sl->b + ", " + sl->count + ");"}});
    }
    for (const auto& c : f->calls()) {
      if (!(c.statement == s.anchor) || !inverse_ok(*f, c)) continue;
      const std::string v = fresh_name(*f, "idx");
      const std::string ind = f->indent_at(c.r.begin);
      const char sym = c.callee == "Add" ? '+' : c.callee == "Sub" ? '-' : c.callee == "Mul" ? '*' : '/';
      const std::string body = arg_text(*f, c, 0) + ".SetValue(" + v + ", " + arg_text(*f, c, 1) + ".GetValue(" + v + ") " + sym + " " +
                               arg_text(*f, c, 2) + ".GetValue(" + v + "));";
      return outcome::success({{s.path, s.anchor,
                                "for (uint32_t " + v + " = 0; " + v + " < " + arg_text(*f, c, 3) + "; " + v + "++) {\n" + ind + "    " +
                                    body + "\n" + ind + "}"}});
    }
    return outcome::fail("the call changed");
  }

 private:
  static bool inverse_ok(const source_file& f, const call_info& c) {
    if (c.statement.empty() || c.args.size() != 4 || !c.template_args.empty()) return false;
    if (c.callee != "Add" && c.callee != "Sub" && c.callee != "Mul" && c.callee != "Div") return false;
    if (c.qualifier != "" && c.qualifier != "AscendC::") return false;
    for (int i = 0; i < 3; ++i) {
      const std::string a = norm(f, c.args[static_cast<std::size_t>(i)]);
      if (!simple_operand(a) || a.find('.') != std::string::npos) return false;
    }
    return true;
  }
};

// ---- fuse_vector_ops ------------------------------------------------------------------------------

struct fusion {
  call_info muls, add;
  std::string dst, src, scalar, count;
  range span;  // first statement through the last
};

class fuse_vector_ops final : public basic_motif {
 public:
  fuse_vector_ops()
      : basic_motif("fuse_vector_ops", "Fuse Muls + Add into Axpy",
                    "Muls(a, a, s, n) followed by Add(d, d, a, n) (with or without a PIPE_V barrier between) makes "
                    "two passes over UB and a pipeline bubble; Axpy(d, a, s, n) computes d += a * s in one pass. "
                    "Applies when a is dead afterwards (only freed). Inverse: Axpy split into Muls, PIPE_V barrier, "
                    "Add, clobbering its dead source.",
                    bottleneck_class::vector_bound) {}

  std::vector<site> match(const source_set& src) const override {
    std::vector<site> out;
    for (const auto& path : kernel_paths(src)) {
      auto f = src.get(path);
      for (int body : f->find(node_kind::compound)) {
        const auto stmts = call_statements(*f, body);
        for (std::size_t i = 0; i < stmts.size(); ++i) {
          if (auto fu = as_fusion(*f, stmts, i)) out.push_back(make_site(path, fu->span, true, false, "Muls + Add -> Axpy(" + fu->dst + ", ...)"));
          if (inverse_ok(*f, stmts[i])) out.push_back(make_site(path, stmts[i].statement, false, true, "Axpy -> Muls + Add"));
        }
      }
    }
    return out;
  }

  outcome apply(const source_set& src, const site& s, direction d) const override {
    auto cur = refind(src, s);
    if (!cur || (d == direction::forward ? !cur->forward : !cur->inverse)) {
      return outcome::fail(d == direction::forward ? "no Muls + Add pair at this site" : "no Axpy with a dead source at this site");
    }
    auto f = src.get(s.path);
    const std::string p = f->api_prefix();
    for (int body : f->find(node_kind::compound)) {
      const auto stmts = call_statements(*f, body);
      for (std::size_t i = 0; i < stmts.size(); ++i) {
        if (d == direction::forward) {
          auto fu = as_fusion(*f, stmts, i);
          if (fu && fu->span == s.anchor) {
            return outcome::success({{s.path, s.anchor, p + "Axpy(" + fu->dst + ", " + fu->src + ", " + fu->scalar + ", " + fu->count + ");"}});
          }
        } else if (stmts[i].statement == s.anchor && inverse_ok(*f, stmts[i])) {
          const auto& c = stmts[i];
          const std::string ind = f->indent_at(c.r.begin);
          const std::string dst = arg_text(*f, c, 0), a = arg_text(*f, c, 1), sc = arg_text(*f, c, 2), n = arg_text(*f, c, 3);
          return outcome::success({{s.path, s.anchor,
                                    p + "Muls(" + a + ", " + a + ", " + sc + ", " + n + ");\n" + ind + p + "PipeBarrier<PIPE_V>();\n" + ind + p +
                                        "Add(" + dst + ", " + dst + ", " + a + ", " + n + ");"}});
        }
      }
    }
    return outcome::fail("the statements changed");
  }

 private:
  static std::optional<fusion> as_fusion(const source_file& f, const std::vector<call_info>& st, std::size_t i) {
    const call_info& m = st[i];
    if (m.callee != "Muls" || m.args.size() != 4 || !m.template_args.empty()) return std::nullopt;
    const std::string a = norm(f, m.args[0]);
    if (a != norm(f, m.args[1]) || !simple_operand(a)) return std::nullopt;
    std::size_t j = i + 1;
    if (j < st.size() && st[j].callee == "PipeBarrier" && st[j].template_args.size() == 1 && st[j].template_args[0] == "PIPE_V") ++j;
    if (j >= st.size()) return std::nullopt;
    const call_info& ad = st[j];
    if (ad.callee != "Add" || ad.args.size() != 4 || !ad.template_args.empty()) return std::nullopt;
    const std::string d = norm(f, ad.args[0]);
    const std::string x = norm(f, ad.args[1]), y = norm(f, ad.args[2]);
    if (!((x == d && y == a) || (x == a && y == d)) || d == a) return std::nullopt;
    if (norm(f, ad.args[3]) != norm(f, m.args[3])) return std::nullopt;
    // Nothing but the optional barrier between the two statements.
    for (std::size_t k = i; k < j; ++k) {
      const int s1 = f.statement_of(st[k].node), s2 = f.statement_of(st[k + 1].node);
      const auto& ch = f.at(f.at(s1).parent).children;
      bool adjacent = false;
      for (std::size_t q = 0; q + 1 < ch.size(); ++q) adjacent = adjacent || (ch[q] == s1 && ch[q + 1] == s2);
      if (!adjacent) return std::nullopt;
    }
    if (!dead_after(f, base_name(a), ad.statement.end)) return std::nullopt;
    return fusion{m, ad, d, a, norm(f, m.args[2]), norm(f, m.args[3]), {m.statement.begin, ad.statement.end}};
  }

  static bool inverse_ok(const source_file& f, const call_info& c) {
    if (c.callee != "Axpy" || c.statement.empty() || c.args.size() != 4 || !c.template_args.empty()) return false;
    const std::string a = norm(f, c.args[1]);
    return simple_operand(a) && a != norm(f, c.args[0]) && dead_after(f, base_name(a), c.statement.end);
  }
};

// ---- hoist_invariant ---------------------------------------------------------------------------

class hoist_invariant final : public basic_motif {
 public:
  hoist_invariant()
      : basic_motif("hoist_invariant", "Hoist a loop-invariant Duplicate/Cast out of the tile loop",
                    "A Duplicate or Cast inside a loop whose operands do not change in the loop (declared outside "
                    "it, not the loop variable, destination written nowhere else in the loop) fills the same UB "
                    "buffer every iteration; it moves before the loop. Inverse: a Duplicate/Cast just before a loop "
                    "that reads its destination moves to the top of the loop body.",
                    bottleneck_class::vector_bound) {}

  std::vector<site> match(const source_set& src) const override {
    std::vector<site> out;
    for (const auto& path : kernel_paths(src)) {
      auto f = src.get(path);
      for (int loop : loops_of(*f)) {
        const int body = f->loop_body(loop);
        if (body < 0) continue;
        for (const auto& c : call_statements(*f, body)) {
          if (invariant(*f, loop, body, c)) out.push_back(make_site(path, c.statement, true, false, "hoist " + c.callee + " out of the loop"));
        }
        if (auto c = before_loop(*f, loop)) out.push_back(make_site(path, c->statement, false, true, "sink " + c->callee + " into the loop"));
      }
    }
    return out;
  }

  outcome apply(const source_set& src, const site& s, direction d) const override {
    auto cur = refind(src, s);
    if (!cur || (d == direction::forward ? !cur->forward : !cur->inverse)) {
      return outcome::fail(d == direction::forward ? "no loop-invariant Duplicate/Cast at this site" : "no Duplicate/Cast just before a loop here");
    }
    auto f = src.get(s.path);
    const std::string stmt(f->text_of(s.anchor));
    for (int loop : loops_of(*f)) {
      const range loop_stmt = f->statement_range(f->statement_of(loop) >= 0 ? f->statement_of(loop) : loop);
      if (d == direction::forward && f->at(loop).r.contains(s.anchor)) {
        const int body = f->loop_body(loop);
        if (f->at(body).r.begin > s.anchor.begin || f->at(f->statement_of(node_at(*f, s.anchor))).parent != body) continue;
        return outcome::success({delete_statement(*f, s.anchor), insert_before_statement(*f, loop_stmt, stmt)});
      }
      if (d == direction::inverse) {
        auto c = before_loop(*f, loop);
        if (!c || !(c->statement == s.anchor)) continue;
        const int body = f->loop_body(loop);
        const auto& ch = f->at(body).children;
        text_edit ins = ch.empty() ? text_edit{s.path, {f->at(body).r.begin + 1, f->at(body).r.begin + 1}, "\n" + f->indent_at(loop_stmt.begin) + "    " + stmt}
                                   : insert_before_statement(*f, f->statement_range(ch.front()), stmt);
        return outcome::success({delete_statement(*f, s.anchor), ins});
      }
    }
    return outcome::fail("the loop changed");
  }

 private:
  static int node_at(const source_file& f, range stmt) {
    for (const auto& c : f.calls()) {
      if (c.statement == stmt) return c.node;
    }
    return -1;
  }
  static bool hoistable_call(const call_info& c) {
    return (c.callee == "Duplicate" && c.args.size() == 3) || (c.callee == "Cast" && c.args.size() == 4);
  }
  static bool invariant(const source_file& f, int loop, int body, const call_info& c) {
    if (!hoistable_call(c)) return false;
    auto cl = as_counted_loop(f, loop);
    const range lr = f.at(loop).r;
    // Names declared inside the loop (including its header) or assigned in it.
    std::vector<std::string> inner;
    for (std::size_t i = 0; i < f.nodes().size(); ++i) {
      const node& n = f.nodes()[i];
      if (n.kind == node_kind::var_decl && lr.contains(n.r.begin)) inner.push_back(n.name);
    }
    if (cl) inner.push_back(cl->var);
    for (const auto& arg : c.args) {
      for (const auto& id : f.identifiers(arg)) {
        for (const auto& v : inner) {
          if (id == v) return false;
        }
      }
    }
    // Assignments in the loop to any operand name.
    for (int b : f.find(node_kind::binary_op)) {
      if (!f.at(body).r.contains(f.at(b).r.begin)) continue;
      const std::string t(f.text_of(b));
      const auto eq = t.find('=');
      if (eq == std::string::npos || (eq + 1 < t.size() && t[eq + 1] == '=') || (eq > 0 && std::string("<>!=").find(t[eq - 1]) != std::string::npos)) continue;
      const std::string lhs = base_name(std::string_view(t).substr(0, eq));
      for (const auto& arg : c.args) {
        if (f.mentions(arg, lhs)) return false;
      }
    }
    // The destination is written by no other call of the loop.
    const std::string dst = base_name(f.text_of(c.args[0]));
    for (const auto& o : f.calls()) {
      if (o.r == c.r || !f.at(body).r.contains(o.r.begin) || o.args.empty()) continue;
      if (vector_op(o.callee) && base_name(f.text_of(o.args[0])) == dst) return false;
      if ((o.callee == "DataCopy" || o.callee == "DataCopyPad" || o.callee == "SetValue") && base_name(f.text_of(o.args[0])) == dst) return false;
    }
    return true;
  }
  // The Duplicate/Cast statement right before `loop` in the same compound, whose destination
  // the loop reads, if any.
  static std::optional<call_info> before_loop(const source_file& f, int loop) {
    const int st = f.statement_of(loop);
    if (st != loop) return std::nullopt;
    const auto& ch = f.at(f.at(loop).parent).children;
    int prev = -1;
    for (std::size_t i = 1; i < ch.size(); ++i) {
      if (ch[i] == loop) prev = ch[i - 1];
    }
    if (prev < 0) return std::nullopt;
    for (const auto& c : call_statements(f, f.at(loop).parent)) {
      if (f.statement_of(c.node) != prev || !hoistable_call(c)) continue;
      const int body = f.loop_body(loop);
      if (body < 0 || !f.mentions(f.at(body).r, base_name(f.text_of(c.args[0])))) return std::nullopt;
      return c;
    }
    return std::nullopt;
  }
};

// ---- tbuf_temps --------------------------------------------------------------------------------

struct temp_queue {
  int field = -1;
  std::string name;
  range type;         // "TQue<POS, N>" or "TBuf<POS>" bytes inside the field declaration
  std::string position;
  std::string depth;  // TQue only
};

std::optional<temp_queue> as_temp(const source_file& f, int field, std::string_view kind) {
  const node& n = f.at(field);
  for (const auto& o : f.nodes()) {
    if (o.kind == node_kind::field_decl && o.r.begin == n.r.begin && o.name != n.name) return std::nullopt;  // shared declaration
  }
  const std::string_view t = f.text_of(n.r);
  for (const auto& [id, pos] : identifiers(f.text(), n.r.begin, n.r.end)) {
    if (id != kind) continue;
    std::size_t lt = skip_space(f.text(), pos + id.size());
    if (lt >= n.r.end || f.text()[lt] != '<') return std::nullopt;
    int depth = 0;
    std::size_t gt = std::string::npos;
    for (std::size_t i = lt; i < n.r.end; ++i) {
      if (f.text()[i] == '<') ++depth;
      if (f.text()[i] == '>' && --depth == 0) {
        gt = i;
        break;
      }
    }
    if (gt == std::string::npos) return std::nullopt;
    auto targs = split_args(f.text(), lt + 1, gt);
    temp_queue q{field, n.name, {pos, gt + 1}, {}, {}};
    q.position = std::string(f.text_of({targs.at(0).first, targs.at(0).second}));
    if (q.position.find("VECCALC") == std::string::npos) return std::nullopt;
    if (kind == "TQue") {
      if (targs.size() != 2) return std::nullopt;
      q.depth = std::string(f.text_of({targs[1].first, targs[1].second}));
    } else if (targs.size() != 1) {
      return std::nullopt;
    }
    (void)t;
    return q;
  }
  return std::nullopt;
}

class tbuf_temps final : public basic_motif {
 public:
  tbuf_temps()
      : basic_motif("tbuf_temps", "TBuf instead of a TQue for VECCALC temporaries",
                    "A VECCALC temporary held in a TQue pays AllocTensor/FreeTensor bookkeeping (scalar work and "
                    "queue slots) every tile although it never travels between pipes; a TBuf hands out the same UB "
                    "with Get<T>() once. Inverse: the TBuf becomes a one-slot TQue, Get becomes AllocTensor and the "
                    "tensor is freed at the end of the function that takes it.",
                    bottleneck_class::scalar_bound) {}

  std::vector<site> match(const source_set& src) const override {
    std::vector<site> out;
    for (const auto& path : kernel_paths(src, "VECCALC")) {
      auto f = src.get(path);
      for (int fd : f->find(node_kind::field_decl)) {
        if (auto q = as_temp(*f, fd, "TQue"); q && forward_ok(*f, *q)) out.push_back(make_site(path, q->type, true, false, q->name + ": TQue -> TBuf"));
        if (auto q = as_temp(*f, fd, "TBuf"); q && inverse_ok(*f, *q)) out.push_back(make_site(path, q->type, false, true, q->name + ": TBuf -> TQue"));
      }
    }
    return out;
  }

  outcome apply(const source_set& src, const site& s, direction d) const override {
    auto cur = refind(src, s);
    if (!cur || (d == direction::forward ? !cur->forward : !cur->inverse)) {
      return outcome::fail(d == direction::forward ? "no VECCALC TQue used only for temporaries here" : "no VECCALC TBuf used through Get<T>() here");
    }
    auto f = src.get(s.path);
    std::optional<temp_queue> q;
    for (int fd : f->find(node_kind::field_decl)) {
      auto t = as_temp(*f, fd, d == direction::forward ? "TQue" : "TBuf");
      if (t && t->type == s.anchor) q = t;
    }
    if (!q) return outcome::fail("the declaration changed");
    std::vector<text_edit> edits;
    const std::string_view kind_text = f->text_of({q->type.begin, q->type.begin + 4});
    (void)kind_text;
    if (d == direction::forward) {
      edits.push_back({s.path, q->type, "TBuf<" + q->position + ">"});
      for (const auto& c : f->calls()) {
        if (c.callee == "InitBuffer" && c.args.size() == 3 && base_name(f->text_of(c.args[0])) == q->name) {
          edits.push_back({s.path, {c.args[1].begin, c.args[2].begin}, ""});
        } else if (c.callee == "AllocTensor" && base_name(c.object()) == q->name) {
          edits.push_back({s.path, {callee_pos(*f, c, "AllocTensor"), c.r.end}, "Get<" + c.template_args.at(0) + ">()"});
        } else if (c.callee == "FreeTensor" && base_name(c.object()) == q->name) {
          edits.push_back(delete_statement(*f, c.statement));
        }
      }
    } else {
      edits.push_back({s.path, q->type, "TQue<" + q->position + ", 1>"});
      for (const auto& c : f->calls()) {
        if (c.callee == "InitBuffer" && c.args.size() == 2 && base_name(f->text_of(c.args[0])) == q->name) {
          edits.push_back({s.path, {c.args[1].begin, c.args[1].begin}, "1, "});
        } else if (c.callee == "Get" && base_name(c.object()) == q->name) {
          edits.push_back({s.path, {callee_pos(*f, c, "Get"), c.r.end}, "AllocTensor<" + c.template_args.at(0) + ">()"});
          // Free the tensor at the end of the enclosing function body.
          const int decl = f->enclosing(c.node, node_kind::var_decl);
          int fn = f->enclosing(c.node, node_kind::method);
          if (fn < 0) fn = f->enclosing(c.node, node_kind::function);
          int body = -1;
          for (int ch : f->at(fn).children) {
            if (f->at(ch).kind == node_kind::compound) body = ch;
          }
          const auto& stmts = f->at(body).children;
          const std::string freed = c.object() + ".FreeTensor(" + f->at(decl).name + ");";
          const int last = stmts.back();
          if (f->at(last).kind == node_kind::return_stmt) {
            edits.push_back(insert_before_statement(*f, f->statement_range(last), freed));
          } else {
            edits.push_back(insert_after_statement(*f, f->statement_range(last), freed));
          }
        }
      }
    }
    return outcome::success(std::move(edits));
  }

 private:
  static std::size_t callee_pos(const source_file& f, const call_info& c, const std::string& name) {
    for (const auto& [id, pos] : identifiers(f.text(), c.r.begin, c.r.end)) {
      if (id == name) return pos;
    }
    return c.r.begin;
  }
  static bool forward_ok(const source_file& f, const temp_queue& q) {
    bool init = false;
    for (const auto& c : f.calls()) {
      if (base_name(c.object()) != q.name) {
        if (c.callee == "InitBuffer" && !c.args.empty() && base_name(f.text_of(c.args[0])) == q.name) init = c.args.size() == 3;
        continue;
      }
      if (c.callee == "EnQue" || c.callee == "DeQue" || c.template_args.size() > 1) return false;
      if (c.callee == "AllocTensor" && c.template_args.size() != 1) return false;
      if (c.callee == "FreeTensor" && c.statement.empty()) return false;
    }
    return init;
  }
  static bool inverse_ok(const source_file& f, const temp_queue& q) {
    bool init = false, got = false;
    for (const auto& c : f.calls()) {
      if (c.callee == "InitBuffer" && !c.args.empty() && base_name(f.text_of(c.args[0])) == q.name) init = c.args.size() == 2;
      if (base_name(c.object()) != q.name) continue;
      if (c.callee != "Get" || c.template_args.size() != 1 || !c.args.empty()) return false;
      // `LocalTensor<T> t = q.Get<T>();` inside a function body.
      const int decl = f.enclosing(c.node, node_kind::var_decl);
      if (decl < 0 || (f.enclosing(c.node, node_kind::method) < 0 && f.enclosing(c.node, node_kind::function) < 0)) return false;
      got = true;
    }
    return init && got;
  }
};

}  // namespace

void add_vector_motifs(std::vector<std::unique_ptr<motif>>& v) {
  v.push_back(std::make_unique<vectorize_scalar_loop>());
  v.push_back(std::make_unique<fuse_vector_ops>());
  v.push_back(std::make_unique<hoist_invariant>());
  v.push_back(std::make_unique<tbuf_temps>());
}

}  // namespace aopt::motifs::detail
