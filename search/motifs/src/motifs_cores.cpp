// Core-count motifs: cap the launched core count of a memory-bound stream (stream_core_cap).
// Host side only: the kernel already reads its share from tiling fields computed from the count.
#include <regex>

#include "flow.h"

namespace aopt::motifs::detail {
namespace {

using search::bottleneck_class;

// The cap the forward writes. HBM saturates well before every AIV core streams (a 910B-class
// core's MTE2 moves a few dozen GB/s); past that each extra core only adds launch and DMA
// setup. 24 is what the suite's memory-bound experts use; measured on `sim`: abs 16.8 -> 15.0 us,
// sub 28.2 -> 26.9 us, a two-input select unchanged (16 cores lost there).
constexpr int stream_cap = 24;

// A cap of `var` already present, in one of the two spellings real tiling functions use.
struct existing_cap {
  range stmt;       // the statement (or if-statement) to delete
  std::string how;  // for the summary
};

// The variable SetBlockDim reads, when it is a plain, non-const local of the tiling function.
struct block_dim_var {
  call_info call;
  std::string name;
  int fn = -1;
  int body = -1;  // the function's body compound
  std::vector<flow_edge> edges;
};

bool is_const_decl(const source_file& f, const flow_edge& decl) {
  const range r = f.at(decl.node).r;
  for (const auto& id : f.identifiers({r.begin, decl.rhs.begin})) {
    if (id == "const" || id == "constexpr" || id == "static") return true;
  }
  return false;
}

// `lit` or a named integer constant defined outside `scope` (namespace-scope constexpr, macro).
bool fixed_number(const source_file& f, const std::string& s, range scope) {
  if (is_int_literal(s)) return true;
  if (!is_identifier(s)) return false;
  auto k = f.integer_constant(s);
  return k && !(k->decl >= 0 && scope.contains(f.at(k->decl).r));
}

// `v < K ? v : K` / `K < v ? K : v` / `v > K ? K : v`, with K fixed: the cap this motif writes.
bool is_min_with_fixed(const source_file& f, const std::string& rhs, const std::string& v, range scope) {
  auto t = split_ternary(strip_parens(strip_cast(rhs)));
  if (!t) return false;
  for (const char* op : {"<", ">"}) {
    auto cmp = split_binary(strip_parens(t->cond), op);
    if (!cmp) continue;
    const std::string a = strip_parens(cmp->first), b = strip_parens(cmp->second);
    const std::string small = op[0] == '<' ? a : b;  // the branch taken when the condition holds
    const std::string other = small == a ? b : a;
    const std::string yes = strip_parens(t->yes), no = strip_parens(t->no);
    if (yes != small || no != other) continue;
    if ((a == v && fixed_number(f, b, scope)) || (b == v && fixed_number(f, a, scope))) return true;
  }
  return false;
}

std::optional<block_dim_var> as_block_dim_var(const source_file& f, const call_info& c) {
  if (c.args.size() != 1) return std::nullopt;
  block_dim_var b;
  b.call = c;
  b.name = strip_cast(norm(f, c.args[0]));
  if (!is_identifier(b.name)) return std::nullopt;
  b.fn = function_at(f, c.r.begin);
  if (b.fn < 0) return std::nullopt;
  for (int ch : f.at(b.fn).children) {
    if (f.at(ch).kind == node_kind::compound) b.body = ch;
  }
  if (b.body < 0) return std::nullopt;
  b.edges = flow_edges(f, f.at(b.fn).r);
  const flow_edge* decl = nullptr;
  for (const auto& e : b.edges) {
    if (e.decl && e.lhs == b.name) decl = &e;
  }
  if (decl == nullptr || is_const_decl(f, *decl)) return std::nullopt;
  // Declared directly in the function body: the cap statement goes into that compound.
  if (f.at(f.statement_of(decl->node)).parent != b.body) return std::nullopt;
  return b;
}

// Caps of `b.name` in the function: `v = <min of v and a fixed count>;`, or
// `if (v > w) { v = w; }` where w is itself capped by a fixed count (the experts' bytes-based cap).
std::vector<existing_cap> caps_of(const source_file& f, const block_dim_var& b) {
  std::vector<existing_cap> out;
  const range scope = f.at(b.fn).r;
  for (const auto& e : b.edges) {
    if (e.decl || e.compound || e.lhs != b.name) continue;
    if (is_min_with_fixed(f, norm(f, e.rhs), b.name, scope) && f.at(f.statement_of(e.node)).parent == b.body) {
      out.push_back({e.stmt, "a fixed cap"});
    }
  }
  for (int n : f.find(node_kind::if_stmt)) {
    if (!scope.contains(f.at(n).r) || f.at(n).parent != b.body) continue;
    static const std::regex re(R"(^if\((\w+)>(\w+)\)\{?(\w+)=(\w+);\}?$)");
    std::smatch m;
    const std::string t = norm(f, f.at(n).r);
    if (!std::regex_match(t, m, re) || m[1] != b.name || m[3] != b.name || m[2] != m[4]) continue;
    const std::string w = m[2];
    bool capped = false;
    for (const auto& e : b.edges) {
      if (e.lhs == w && is_min_with_fixed(f, norm(f, e.rhs), w, scope)) capped = true;
    }
    if (capped) out.push_back({f.at(n).r, "the cap " + w});
  }
  return out;
}

// The statement of the function body before which the cap goes: the first one that reads the
// core count for anything but its own definition (a division into per-core shares, a tiling
// setter, SetBlockDim itself), so every later use sees the capped count.
std::optional<range> first_use(const source_file& f, const block_dim_var& b) {
  auto top = [&](int node) {
    int s = f.statement_of(node);
    while (s >= 0 && f.at(s).parent != b.body) s = f.statement_of(f.at(s).parent);
    return s;
  };
  std::optional<range> best;
  auto consider = [&](int node) {
    const int s = top(node);
    if (s < 0) return;
    const range r = f.statement_range(s);
    if (!best || r.begin < best->begin) best = r;
  };
  for (const auto& e : b.edges) {
    if (e.lhs != b.name && f.mentions(e.rhs, b.name)) consider(e.node);
  }
  for (const auto& c : f.calls()) {
    if (!f.at(b.fn).r.contains(c.r)) continue;
    for (const auto& a : c.args) {
      if (f.mentions(a, b.name)) {
        consider(c.node);
        break;
      }
    }
  }
  return best;
}

class stream_core_cap final : public basic_motif {
 public:
  stream_core_cap()
      : basic_motif("stream_core_cap", "Cap the core count of a memory-bound stream",
                    "A streaming operator launches every AIV core although HBM bandwidth saturates with fewer; each "
                    "extra core adds launch and DMA setup and more cores contend for the same GM windows. The core "
                    "count feeding SetBlockDim is capped (`n = n < 24 ? n : 24;`) before the per-core shares are "
                    "computed from it. Inverse: the cap (that form, or `if (n > cap) { n = cap; }` with a cap "
                    "bounded by a constant) is removed.",
                    bottleneck_class::mte2_bound, false) {}

  std::vector<site> match(const source_set& src) const override {
    std::vector<site> out;
    if (kernel_paths(src, "GetBlockIdx").empty()) return out;  // the kernel partitions by block index
    for (const auto& path : host_paths(src, "SetBlockDim")) {
      auto f = src.get(path);
      for (const auto& c : f->calls("SetBlockDim")) {
        auto b = as_block_dim_var(*f, c);
        if (!b) continue;
        const auto caps = caps_of(*f, *b);
        for (const auto& cap : caps) out.push_back(make_site(path, cap.stmt, false, true, "remove " + cap.how + " of " + b->name));
        if (!caps.empty()) continue;
        if (auto at = first_use(*f, *b)) {
          out.push_back(make_site(path, *at, true, false, "cap " + b->name + " at " + std::to_string(stream_cap) + " cores"));
        }
      }
    }
    return out;
  }

  outcome apply(const source_set& src, const site& s, direction d) const override {
    auto cur = refind(src, s);
    if (!cur || (d == direction::forward ? !cur->forward : !cur->inverse)) {
      return outcome::fail(d == direction::forward ? "no uncapped core count feeding SetBlockDim at this site"
                                                   : "no core-count cap at this site");
    }
    auto f = src.get(s.path);
    if (d == direction::inverse) return outcome::success({delete_statement(*f, s.anchor)});
    for (const auto& c : f->calls("SetBlockDim")) {
      auto b = as_block_dim_var(*f, c);
      if (!b) continue;
      auto at = first_use(*f, *b);
      if (!at || !(*at == s.anchor)) continue;
      const std::string k = std::to_string(stream_cap);
      return outcome::success({insert_before_statement(*f, s.anchor, b->name + " = " + b->name + " < " + k + " ? " + b->name + " : " + k + ";")});
    }
    return outcome::fail("the core count changed");
  }
};

}  // namespace

void add_core_motifs(std::vector<std::unique_ptr<motif>>& v) { v.push_back(std::make_unique<stream_core_cap>()); }

}  // namespace aopt::motifs::detail
