// Tiling-side motifs: the multi-core split (a fixed core count <-> the AIV core count), the tail
// balance of that split (remainder spread over the first cores <-> all on the last core, in the
// kernel's offsets) and the copy granularity (tile length from the whole UB <-> a small fixed UB
// budget, host side only: the kernel reads the tile length from the tiling data).
#include "flow.h"

namespace aopt::motifs::detail {

// `<platform>.GetCoreNumAiv()` with the function's PlatformAscendC variable declared before
// `pos`, else built from its TilingContext parameter; "" when neither exists.
std::string core_count_call(const source_file& f, int fn, std::size_t pos) {
  if (fn < 0) return {};
  const range scope = f.at(fn).r;
  for (const auto& n : f.nodes()) {
    if (n.kind == node_kind::var_decl && scope.contains(n.r) && n.r.end <= pos &&
        (n.type.find("PlatformAscendC") != std::string::npos || f.text_of(n.r).find("PlatformAscendC(") != std::string::npos)) {
      return n.name + ".GetCoreNumAiv()";
    }
  }
  for (const auto& n : f.nodes()) {
    if (n.kind == node_kind::parm_decl && scope.contains(n.r) && n.type.find("TilingContext") != std::string::npos && !n.name.empty()) {
      return "platform_ascendc::PlatformAscendC(" + n.name + "->GetPlatformInfo()).GetCoreNumAiv()";
    }
  }
  return {};
}

namespace {

using search::bottleneck_class;

// The fixed core count the inverse of multicore_split writes (the AscendC Add tutorial's).
constexpr int fixed_core_count = 8;
// The fixed UB budget the inverse of tile_size writes: with double-buffered queues it gives
// tiles of a few KB (5.3 KB for a two-input fp16 add), below the DMA bandwidth plateau.
constexpr int fixed_ub_budget = 32768;

bool kernel_mentions(const source_set& src, std::string_view needle) { return !kernel_paths(src, needle).empty(); }

// ---- multicore_split ----------------------------------------------------------------------------

// The place that fixes the launched core count: a literal / constant, or a GetCoreNumAiv() call.
struct core_source {
  range edit;          // bytes to replace
  bool fixed = false;  // true: a fixed count (forward applies); false: GetCoreNumAiv (inverse applies)
  std::string what;    // for the summary
  long long value = 0;
};

class multicore_split final : public basic_motif {
 public:
  multicore_split()
      : basic_motif("multicore_split", "Split the work over every AIV core",
                    "The tiling function launches a fixed, small number of cores (a literal or constant feeding "
                    "SetBlockDim) although the kernel already partitions its work by GetBlockIdx() and the tiling "
                    "fields: the core count becomes PlatformAscendC::GetCoreNumAiv(), so every vector core of the "
                    "device streams its share. Inverse: the core count becomes a fixed 8.",
                    bottleneck_class::mte2_bound) {}

  std::vector<site> match(const source_set& src) const override {
    std::vector<site> out;
    if (!kernel_mentions(src, "GetBlockIdx")) return out;  // the kernel must partition by block index
    const bool kernel_block_num = kernel_mentions(src, "GetBlockNum");
    for (const auto& path : host_paths(src, "SetBlockDim")) {
      auto f = src.get(path);
      for (const auto& c : f->calls("SetBlockDim")) {
        if (c.args.size() != 1) continue;
        const int fn = function_at(*f, c.r.begin);
        if (fn < 0) continue;
        const range scope = f->at(fn).r;
        const auto edges = flow_edges(*f, scope);
        for (const auto& cs : sources(*f, c, edges, scope, kernel_block_num)) {
          if (cs.fixed) {
            out.push_back(make_site(path, cs.edit, true, false, "core count " + cs.what + " -> GetCoreNumAiv()"));
          } else {
            out.push_back(make_site(path, cs.edit, false, true,
                                    "core count GetCoreNumAiv() -> a fixed " + std::to_string(fixed_core_count)));
          }
        }
      }
    }
    return out;
  }

  outcome apply(const source_set& src, const site& s, direction d) const override {
    auto cur = refind(src, s);
    if (!cur || (d == direction::forward ? !cur->forward : !cur->inverse)) {
      return outcome::fail(d == direction::forward ? "no fixed core count feeding SetBlockDim at this site"
                                                   : "no GetCoreNumAiv() core count feeding SetBlockDim at this site");
    }
    auto f = src.get(s.path);
    if (d == direction::inverse) return outcome::success({{s.path, s.anchor, std::to_string(fixed_core_count)}});
    const int fn = function_at(*f, s.anchor.begin);
    const std::string call = core_count_call(*f, fn, s.anchor.begin);
    if (call.empty()) {
      return outcome::fail("the tiling function has neither a PlatformAscendC variable nor a gert::TilingContext parameter "
                           "to query the core count from");
    }
    return outcome::success({{s.path, s.anchor, call}});
  }

 private:

  // Names that carry the core count into SetBlockDim: its argument, and through the initializers
  // of those variables (plain copies, conditional branches of a min written as a ternary, min()
  // arguments), transitively. Later assignments are clamps to the work count (`if (cores >
  // units) cores = units;`) and are not followed.
  static std::set<std::string> chain(const source_file& f, const call_info& c, const std::vector<flow_edge>& edges) {
    std::set<std::string> names;
    std::vector<std::string> work;
    auto add = [&](std::string s) {
      s = strip_cast(s);
      if (is_identifier(s) && names.insert(s).second) work.push_back(s);
    };
    add(norm(f, c.args[0]));
    while (!work.empty()) {
      const std::string n = work.back();
      work.pop_back();
      for (const auto& e : edges) {
        if (e.lhs != n || !e.decl) continue;
        const std::string rhs = strip_cast(norm(f, e.rhs));
        if (auto t = split_ternary(rhs)) {
          add(t->yes);
          add(t->no);
        } else if (rhs.rfind("min(", 0) == 0 || rhs.rfind("std::min(", 0) == 0 || rhs.rfind("Min(", 0) == 0) {
          const auto open = rhs.find('(');
          for (const auto& [b, e2] : split_args(rhs, open + 1, rhs.size() - 1)) add(rhs.substr(b, e2 - b));
        } else {
          add(rhs);
        }
      }
    }
    return names;
  }

  // A fixed count spelled `lit`, `CONST` or `static_cast<T>(lit|CONST)` inside `r`.
  // Named constants count only when defined outside the tiling function (namespace-scope
  // constexpr, macros): a local variable is followed through its own definition instead.
  static std::optional<core_source> fixed_count(const source_file& f, range r, range scope) {
    const std::string inner = strip_cast(norm(f, r));
    long long v = 0;
    std::string what = inner;
    if (!is_int_literal(inner, &v)) {
      if (!is_identifier(inner)) return std::nullopt;
      auto k = f.integer_constant(inner);
      if (!k || (k->decl >= 0 && scope.contains(f.at(k->decl).r))) return std::nullopt;
      v = k->value;
    }
    if (v < 1 || v > 64) return std::nullopt;
    auto tok = find_token(f, r, inner);
    if (!tok) return std::nullopt;
    return core_source{*tok, true, what, v};
  }

  // A GetCoreNumAiv() call that is the whole of `r` (possibly inside a static_cast).
  static std::optional<core_source> core_query(const source_file& f, range r) {
    for (const auto& q : f.calls("GetCoreNumAiv")) {
      if (!r.contains(q.r) || q.args.size() != 0) continue;
      if (strip_cast(norm(f, r)) != norm(f, q.r)) continue;
      return core_source{q.r, false, "GetCoreNumAiv()", 0};
    }
    return std::nullopt;
  }

  static std::vector<core_source> sources(const source_file& f, const call_info& c, const std::vector<flow_edge>& edges,
                                          range scope, bool kernel_block_num) {
    std::vector<core_source> out;
    const auto names = chain(f, c, edges);
    // The kernel learns the split from tiling fields computed from the core count, or from
    // GetBlockNum() itself.
    const bool partitioned = kernel_block_num || reaches_tiling(f, scope, edges, derived_from(f, edges, names));
    if (!partitioned) return out;
    auto consider = [&](range r) {
      std::optional<core_source> cs = fixed_count(f, r, scope);
      if (!cs) cs = core_query(f, r);
      if (!cs) return;
      for (const auto& o : out) {
        if (o.edit == cs->edit) return;
      }
      out.push_back(*cs);
    };
    // SetBlockDim(8) / SetBlockDim(platform.GetCoreNumAiv()) directly: only GetBlockNum() can
    // tell the kernel the split.
    if (kernel_block_num) consider(c.args[0]);
    for (const auto& e : edges) {
      if (!e.decl || !names.count(e.lhs)) continue;
      // A count that is accumulated (`n *= dim`) is not a fixed core count.
      bool accumulated = false;
      for (const auto& o : edges) accumulated = accumulated || (o.compound && o.lhs == e.lhs);
      if (!accumulated) consider(e.rhs);
    }
    return out;
  }
};

// ---- tile_size ------------------------------------------------------------------------------------

// A right-hand side made of literals and the file's integer constants only (sizeof and the
// integer type names allowed): a fixed budget.
bool constant_expression(const source_file& f, range r) {
  static const std::set<std::string> allowed = {"sizeof", "static_cast", "uint32_t", "uint64_t", "int32_t", "int64_t",
                                                "float", "half", "uint16_t", "int16_t", "uint8_t", "int8_t", "size_t"};
  const auto ids = f.identifiers(r);
  for (const auto& id : ids) {
    if (!allowed.count(id) && !f.integer_constant(id)) return false;
  }
  return true;
}

class tile_size final : public basic_motif {
 public:
  tile_size()
      : basic_motif("tile_size", "Size the tiles from the whole UB",
                    "The tiling function caps the UB budget the tile length is derived from at a small fixed size "
                    "(an assignment of a constant expression to the UB size after GetCoreMemSize), so every DMA "
                    "moves a few KB and pays its start-up cost many times. The cap is removed: the tile length "
                    "comes from the whole UB divided among the buffers. Host side only: the kernel reads the tile "
                    "length from the tiling data. Inverse: the UB size is capped at a fixed 32 KB budget.",
                    bottleneck_class::mte2_bound) {}

  std::vector<site> match(const source_set& src) const override {
    std::vector<site> out;
    for (const auto& path : host_paths(src, "GetCoreMemSize")) {
      auto f = src.get(path);
      for (const auto& q : ub_queries(*f)) {
        const range scope = f->at(q.fn).r;
        if (!reaches_tiling(*f, scope, q.edges, derived_from(*f, q.edges, {q.var}))) continue;
        bool capped = false;
        for (const auto& e : q.edges) {
          if (!is_cap(*f, q, e)) continue;
          capped = true;
          out.push_back(make_site(path, e.stmt, true, false, "drop the fixed UB budget '" + norm(*f, e.rhs) + "': tiles sized from the whole UB"));
        }
        if (!capped) {
          out.push_back(make_site(path, q.call.statement, false, true,
                                  "cap the UB budget at " + std::to_string(fixed_ub_budget) + " bytes: small fixed tiles"));
        }
      }
    }
    return out;
  }

  outcome apply(const source_set& src, const site& s, direction d) const override {
    auto cur = refind(src, s);
    if (!cur || (d == direction::forward ? !cur->forward : !cur->inverse)) {
      return outcome::fail(d == direction::forward ? "no fixed UB budget assignment at this site"
                                                   : "no uncapped GetCoreMemSize(UB) feeding the tile length at this site");
    }
    auto f = src.get(s.path);
    if (d == direction::forward) return outcome::success({delete_statement_and_comment(*f, s.anchor)});
    for (const auto& q : ub_queries(*f)) {
      if (!(q.call.statement == s.anchor)) continue;
      return outcome::success({insert_after_statement(
          *f, s.anchor, q.var + " = " + std::to_string(fixed_ub_budget) + ";  // fixed UB budget: small tiles")});
    }
    return outcome::fail("the GetCoreMemSize call changed");
  }

 private:
  // `v = <constant expression>;` after the query, in its function.
  static bool is_cap(const source_file& f, const ub_query& q, const flow_edge& e) {
    return !e.decl && !e.compound && e.lhs == q.var && e.stmt.begin >= q.call.statement.end && !f.mentions(e.rhs, q.var) &&
           constant_expression(f, e.rhs);
  }
};

// ---- tail_balance ---------------------------------------------------------------------------------

// Spellings (whitespace-free) that hold the block index / block count in a kernel file.
std::set<std::string> names_from(const source_file& f, const std::vector<flow_edge>& edges, const std::string& api) {
  std::set<std::string> out = {api + "()", "AscendC::" + api + "()"};
  for (const auto& e : edges) {
    const std::string rhs = strip_cast(norm(f, e.rhs));
    if (!e.compound && (rhs == api + "()" || rhs == "AscendC::" + api + "()")) out.insert(e.lhs);
  }
  return out;
}

bool zero_literal(const std::string& s) {
  long long v = -1;
  return is_int_literal(s, &v) && v == 0;
}
bool one_literal(const std::string& s) {
  long long v = -1;
  return is_int_literal(s, &v) && v == 1;
}
bool simple(const std::string& s) { return is_identifier(s) || s == "GetBlockIdx()" || s == "AscendC::GetBlockIdx()"; }

struct split_term {
  int cond = -1;          // the conditional_op node
  range cond_r;           // its bytes
  range paren_r;          // the parentheses around it
  range other_r;          // the other operand of the '+' around the parentheses
  std::string b, r, q;    // block index, remainder, per-core quotient (whitespace-free)
  std::string zero;       // spelling of the 0 of the count term
};

class tail_balance final : public basic_motif {
 public:
  tail_balance()
      : basic_motif("tail_balance", "Spread the split remainder over the first cores",
                    "The kernel gives the whole remainder of the multi-core split to the last core (count "
                    "`q + (idx + 1 == GetBlockNum() ? r : 0)`, offset `idx * q`), so that core runs up to twice as "
                    "long as the others. Balanced: each of the first r cores takes one more block (count "
                    "`q + (idx < r ? 1 : 0)`, offset `idx * q + (idx < r ? idx : r)`). Inverse: the remainder back "
                    "on the last core.",
                    bottleneck_class::mte2_bound) {}

  std::vector<site> match(const source_set& src) const override {
    std::vector<site> out;
    for (const auto& path : kernel_paths(src, "GetBlockIdx")) {
      auto f = src.get(path);
      const auto t = terms(*f);
      for (const auto& c : t.balanced_counts) {
        if (balanced_offset(t, c)) out.push_back(make_site(path, c.cond_r, false, true, "give the remainder " + c.r + " to the last core"));
      }
      for (const auto& c : t.last_core_counts) {
        if (offset_product(*f, t, c)) out.push_back(make_site(path, c.cond_r, true, false, "spread the remainder " + c.r + " over the first cores"));
      }
    }
    return out;
  }

  outcome apply(const source_set& src, const site& s, direction d) const override {
    auto cur = refind(src, s);
    if (!cur || (d == direction::forward ? !cur->forward : !cur->inverse)) {
      return outcome::fail(d == direction::forward ? "no last-core remainder at this site" : "no balanced remainder at this site");
    }
    auto f = src.get(s.path);
    const auto t = terms(*f);
    if (d == direction::inverse) {
      for (const auto& c : t.balanced_counts) {
        if (!(c.cond_r == s.anchor)) continue;
        const auto off = balanced_offset(t, c);
        return outcome::success({{s.path, c.cond_r, c.b + " + 1 == " + f->api_prefix() + "GetBlockNum() ? " + c.r + " : " + c.zero},
                                 {s.path, {off->other_r.end, off->paren_r.end}, ""}});
      }
    } else {
      for (const auto& c : t.last_core_counts) {
        if (!(c.cond_r == s.anchor)) continue;
        const auto prod = offset_product(*f, t, c);
        std::string one = c.zero;
        one[one.find('0')] = '1';
        return outcome::success({{s.path, c.cond_r, c.b + " < " + c.r + " ? " + one + " : " + c.zero},
                                 {s.path, {prod->end, prod->end}, " + (" + c.b + " < " + c.r + " ? " + c.b + " : " + c.r + ")"}});
      }
    }
    return outcome::fail("the split changed");
  }

 private:
  struct all_terms {
    std::vector<split_term> balanced_counts, balanced_offsets, last_core_counts;
  };

  // Fills the paren/other-operand context of a conditional: `other + (cond)` or `(cond) + other`.
  static bool context(const source_file& f, int cond, split_term& st) {
    int p = f.at(cond).parent;
    while (p >= 0 && f.at(p).kind == node_kind::unexposed_expr) p = f.at(p).parent;
    if (p < 0 || f.at(p).kind != node_kind::paren_expr) return false;
    st.paren_r = f.at(p).r;
    int b = f.at(p).parent;
    while (b >= 0 && f.at(b).kind == node_kind::unexposed_expr && f.at(b).r == st.paren_r) b = f.at(b).parent;
    if (b < 0 || f.at(b).kind != node_kind::binary_op) return false;
    const range br = f.at(b).r;
    const std::string& t = f.text();
    if (br.end == st.paren_r.end) {  // other + (cond)
      std::size_t plus = st.paren_r.begin;
      while (plus > br.begin && std::isspace(static_cast<unsigned char>(t[plus - 1]))) --plus;
      if (plus == br.begin || t[plus - 1] != '+') return false;
      const auto o = trim(t, br.begin, plus - 1);
      st.other_r = {o.first, o.second};
    } else if (br.begin == st.paren_r.begin) {  // (cond) + other
      const std::size_t plus = skip_space(t, st.paren_r.end);
      if (plus >= br.end || t[plus] != '+') return false;
      const auto o = trim(t, plus + 1, br.end);
      st.other_r = {o.first, o.second};
    } else {
      return false;
    }
    return true;
  }

  static all_terms terms(const source_file& f) {
    all_terms out;
    const auto edges = flow_edges(f, {0, f.text().size()});
    const auto idx = names_from(f, edges, "GetBlockIdx");
    const auto num = names_from(f, edges, "GetBlockNum");
    std::set<std::size_t> seen;
    for (int n : f.find(node_kind::conditional_op)) {
      if (!seen.insert(f.at(n).r.begin).second) continue;
      auto tern = split_ternary(norm(f, f.at(n).r));
      if (!tern) continue;
      split_term st;
      st.cond = n;
      st.cond_r = f.at(n).r;
      if (!context(f, n, st)) continue;
      const std::string other = norm(f, st.other_r);
      if (auto lt = split_binary(tern->cond, "<")) {
        if (!idx.count(lt->first) || !simple(lt->second)) continue;
        st.b = lt->first;
        st.r = lt->second;
        if (one_literal(tern->yes) && zero_literal(tern->no)) {
          st.q = other;
          st.zero = tern->no;
          out.balanced_counts.push_back(st);
        } else if (tern->yes == st.b && tern->no == st.r) {
          // other is `b * q` or `q * b`.
          auto mul = split_binary(other, "*");
          if (!mul) continue;
          if (mul->first == st.b) st.q = mul->second;
          else if (mul->second == st.b) st.q = mul->first;
          else continue;
          out.balanced_offsets.push_back(st);
        }
      } else if (auto eq = split_binary(tern->cond, "==")) {
        // idx + 1 == num, num == idx + 1, idx == num - 1, num - 1 == idx
        std::string b;
        for (const auto& [x, y] : {std::pair{eq->first, eq->second}, std::pair{eq->second, eq->first}}) {
          auto plus = split_binary(x, "+");
          auto minus = split_binary(y, "-");
          if (plus && one_literal(plus->second) && idx.count(plus->first) && num.count(y)) b = plus->first;
          if (minus && one_literal(minus->second) && num.count(minus->first) && idx.count(x)) b = x;
        }
        if (b.empty() || !simple(tern->yes) || !zero_literal(tern->no)) continue;
        st.b = b;
        st.r = tern->yes;
        st.q = other;
        st.zero = tern->no;
        out.last_core_counts.push_back(st);
      }
    }
    return out;
  }

  static std::optional<split_term> balanced_offset(const all_terms& t, const split_term& count) {
    for (const auto& o : t.balanced_offsets) {
      if (o.b == count.b && o.r == count.r && o.q == count.q) return o;
    }
    return std::nullopt;
  }

  // The `b * q` offset product of the function holding the last-core count, not already
  // followed by a balance term, in a place where appending `+ (...)` keeps its meaning.
  static std::optional<range> offset_product(const source_file& f, const all_terms& t, const split_term& c) {
    const int fn = function_at(f, c.cond_r.begin);
    if (fn < 0) return std::nullopt;
    const range scope = f.at(fn).r;
    const std::string& text = f.text();
    std::set<std::size_t> seen;
    for (int n : f.find(node_kind::binary_op)) {
      const range r = f.at(n).r;
      if (!scope.contains(r) || !seen.insert(r.begin).second) continue;
      const std::string s = norm(f, r);
      if (s != c.b + "*" + c.q && s != c.q + "*" + c.b) continue;
      bool balanced = false;
      for (const auto& o : t.balanced_offsets) balanced = balanced || o.other_r == r;
      if (balanced) continue;
      const std::size_t after = skip_space(text, r.end);
      std::size_t before = r.begin;
      while (before > 0 && std::isspace(static_cast<unsigned char>(text[before - 1]))) --before;
      const char a = after < text.size() ? text[after] : ';';
      const char b = before > 0 ? text[before - 1] : '=';
      if (std::string_view(";),+").find(a) == std::string_view::npos) continue;
      if (std::string_view("=(,").find(b) == std::string_view::npos) continue;
      if (b == '=' && before >= 2 && std::string_view("=!<>").find(text[before - 2]) != std::string_view::npos) continue;
      return r;
    }
    return std::nullopt;
  }
};

}  // namespace

void add_tiling_motifs(std::vector<std::unique_ptr<motif>>& v) {
  v.push_back(std::make_unique<multicore_split>());
  v.push_back(std::make_unique<tail_balance>());
  v.push_back(std::make_unique<tile_size>());
}

}  // namespace aopt::motifs::detail
