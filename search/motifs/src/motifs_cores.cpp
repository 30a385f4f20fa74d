// Core-count motifs: cap the launched core count of a memory-bound stream (stream_core_cap; host
// side only: the kernel already reads its share from tiling fields computed from the count), and
// deal the tile loop of a kernel written for one core over every core (spread_single_core; host
// and kernel).
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


// ---- spread_single_core ------------------------------------------------------------------------

// Work between cores that a round robin of the tile loop would break.
constexpr std::string_view cross_core_apis[] = {"SyncAll",      "SetAtomicAdd", "SetAtomicType",   "SetAtomicMax",
                                                "SetAtomicMin", "IBSet",        "IBWait",          "CrossCoreSetFlag",
                                                "CrossCoreWaitFlag"};

// The operator's launch: the only SetBlockDim call of the host files.
struct launch {
  std::string path;
  call_info call;
};
std::optional<launch> only_launch(const source_set& src) {
  std::optional<launch> out;
  for (const auto& path : host_paths(src, "SetBlockDim")) {
    auto f = src.get(path);
    for (const auto& c : f->calls("SetBlockDim")) {
      if (out || c.args.size() != 1) return std::nullopt;
      out = launch{path, c};
    }
  }
  return out;
}

bool single_core_launch(const source_file& f, const launch& l) {
  long long v = 0;
  return is_int_literal(strip_cast(norm(f, l.call.args[0])), &v) && v == 1;
}

bool inside_loop(const source_file& f, int n) {
  for (int p = f.at(n).parent; p >= 0; p = f.at(p).parent) {
    const node_kind k = f.at(p).kind;
    if (k == node_kind::for_loop || k == node_kind::while_loop || k == node_kind::do_loop) return true;
  }
  return false;
}

// Whether the loop body, or a stage method of the class it calls, copies between GM and UB.
bool copies_tiles(const source_file& f, range body) {
  std::vector<range> scope = called_methods(f, body, -1);
  scope.push_back(body);
  for (const auto& k : f.calls()) {
    if (k.callee != "DataCopy" && k.callee != "DataCopyPad") continue;
    for (const range& r : scope) {
      if (r.contains(k.r.begin)) return true;
    }
  }
  return false;
}

bool one_of(const std::string& s, std::initializer_list<std::string> forms) {
  for (const auto& x : forms) {
    if (s == x) return true;
  }
  return false;
}

// A tile loop of a kernel file in one of the two forms: from 0 by 1 (`spread` false), or from
// GetBlockIdx() by GetBlockNum() (`spread` true).
struct tile_loop {
  std::string path;
  counted_loop cl;
  range stmt;
  bool spread = false;
};

std::optional<tile_loop> as_tile_loop(const source_file& f, int loop) {
  auto cl = loop_header(f, loop);
  if (!cl || inside_loop(f, loop)) return std::nullopt;
  const range body = f.at(cl->body).r;
  // The bound: arithmetic on names and literals (members through `this->` too).
  const std::string bound = std::regex_replace(squeeze(f.text_of(cl->bound)), std::regex("->"), ".");
  if (bound.find_first_of("?<>&|=!,") != std::string::npos) return std::nullopt;
  if (has_token(f, body, {"break", "continue", "return", "goto"}) || assigned_in(f, cl->var, body.begin, body.end)) return std::nullopt;
  if (!copies_tiles(f, body)) return std::nullopt;
  const std::string init = squeeze(f.text_of(cl->init));
  const std::string step = squeeze(f.text_of(cl->step));
  long long zero = -1;
  tile_loop t{f.path(), *cl, f.statement_range(f.statement_of(loop) >= 0 ? f.statement_of(loop) : loop), false};
  if (is_int_literal(init, &zero) && zero == 0 && as_counted_loop(f, loop)) return t;
  if (one_of(init, {"GetBlockIdx()", "AscendC::GetBlockIdx()"}) &&
      one_of(step, {cl->var + "+=GetBlockNum()", cl->var + "+=AscendC::GetBlockNum()"})) {
    t.spread = true;
    return t;
  }
  return std::nullopt;
}

// The kernel's one tile loop, with the GetBlockIdx / GetBlockNum calls of the kernel files
// outside its header, when the kernel has exactly one and does no cross-core work.
struct kernel_tiles {
  tile_loop loop;
  std::vector<std::pair<std::string, call_info>> block_calls;  // (path, call) outside the header
};
std::optional<kernel_tiles> the_tile_loop(const source_set& src) {
  std::optional<kernel_tiles> out;
  std::vector<std::pair<std::string, call_info>> calls;
  for (const auto& path : kernel_paths(src, "AllocTensor")) {
    auto f = src.get(path);
    for (auto api : cross_core_apis) {
      if (!f->calls(std::string(api)).empty()) return std::nullopt;
    }
    for (int loop : f->find(node_kind::for_loop)) {
      auto t = as_tile_loop(*f, loop);
      if (!t) continue;
      if (out) return std::nullopt;  // several candidates: which one is the tile loop is unclear
      out = kernel_tiles{*t, {}};
    }
  }
  if (!out) return std::nullopt;
  for (const auto& path : kernel_paths(src, "GetBlock")) {
    auto f = src.get(path);
    for (const char* api : {"GetBlockIdx", "GetBlockNum"}) {
      for (const auto& c : f->calls(api)) {
        const bool header = path == out->loop.path && (out->loop.cl.init.contains(c.r) || out->loop.cl.step.contains(c.r));
        if (!header) out->block_calls.emplace_back(path, c);
      }
    }
  }
  return out;
}

class spread_single_core final : public basic_motif {
 public:
  spread_single_core()
      : basic_motif("spread_single_core", "Deal the tile loop of a one-core kernel over every AIV core",
                    "The tiling function launches one core (SetBlockDim(1)) and the kernel walks every tile of the "
                    "tensor in one loop: all but one vector core of the device stay idle. The loop becomes a round "
                    "robin (`for (i = GetBlockIdx(); i < N; i += GetBlockNum())`), the launch uses every AIV core "
                    "(PlatformAscendC::GetCoreNumAiv()), and the kernel's other GetBlockIdx() / GetBlockNum() calls, "
                    "0 and 1 on one core, are written as those numbers. Tiles are independent: the outputs are "
                    "checked. Inverse: the loop from 0 by 1 on one core.",
                    bottleneck_class::load_imbalance, false) {}

  std::vector<site> match(const source_set& src) const override {
    std::vector<site> out;
    auto l = only_launch(src);
    auto k = the_tile_loop(src);
    if (!l || !k) return out;
    auto hf = src.get(l->path);
    const bool one = single_core_launch(*hf, *l);
    const std::string& v = k->loop.cl.var;
    if (!k->loop.spread && one && !core_count_call(*hf, function_at(*hf, l->call.r.begin), l->call.r.begin).empty()) {
      out.push_back(make_site(k->loop.path, k->loop.stmt, true, false,
                              "tile loop `" + v + "` dealt round robin over every AIV core; SetBlockDim(1) -> GetCoreNumAiv()"));
    } else if (k->loop.spread && !one && k->block_calls.empty()) {
      out.push_back(make_site(k->loop.path, k->loop.stmt, false, true, "tile loop `" + v + "` from 0 by 1 on one core; SetBlockDim(1)"));
    }
    return out;
  }

  outcome apply(const source_set& src, const site& s, direction d) const override {
    auto cur = refind(src, s);
    if (!cur || (d == direction::forward ? !cur->forward : !cur->inverse)) {
      return outcome::fail(d == direction::forward ? "no one-core launch with a tile loop from 0 by 1 at this site"
                                                   : "no round-robin tile loop on a multi-core launch at this site");
    }
    auto l = only_launch(src);
    auto k = the_tile_loop(src);
    auto hf = src.get(l->path);
    const std::string& v = k->loop.cl.var;
    std::vector<text_edit> edits;
    if (d == direction::inverse) {
      edits.push_back({k->loop.path, k->loop.cl.init, "0"});
      edits.push_back({k->loop.path, k->loop.cl.step, v + "++"});
      edits.push_back({l->path, l->call.args[0], "1"});
      return outcome::success(std::move(edits));
    }
    edits.push_back({k->loop.path, k->loop.cl.init, "AscendC::GetBlockIdx()"});
    edits.push_back({k->loop.path, k->loop.cl.step, v + " += AscendC::GetBlockNum()"});
    for (const auto& [path, c] : k->block_calls) edits.push_back({path, c.r, c.callee == "GetBlockIdx" ? "0" : "1"});
    edits.push_back({l->path, l->call.args[0], core_count_call(*hf, function_at(*hf, l->call.r.begin), l->call.r.begin)});
    return outcome::success(std::move(edits));
  }
};

}  // namespace

void add_core_motifs(std::vector<std::unique_ptr<motif>>& v) {
  v.push_back(std::make_unique<stream_core_cap>());
  v.push_back(std::make_unique<spread_single_core>());
}

}  // namespace aopt::motifs::detail
