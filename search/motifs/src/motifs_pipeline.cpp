// Pipeline motifs: double buffering, PIPE_ALL barriers in the tile loop, redundant PIPE_V.
#include <set>

#include "motifs_impl.h"

namespace aopt::motifs::detail {
namespace {

using search::bottleneck_class;

// ---- double_buffer ----------------------------------------------------------------------------

class double_buffer final : public basic_motif {
 public:
  double_buffer()
      : basic_motif("double_buffer", "Double-buffer the tile queues",
                    "The slot count of the TQue buffers (the BUFFER_NUM constant or the InitBuffer count) goes "
                    "from 1 to 2, so the copy-in of tile i+1 overlaps the compute of tile i and the copy-out of "
                    "tile i-1. A host constant of the same name and value (used to size tiles from UB) changes "
                    "with it, so the UB footprint stays within bounds.",
                    bottleneck_class::serialized_pipes) {}

  std::vector<site> match(const source_set& src) const override {
    std::vector<site> out;
    for (const auto& path : kernel_paths(src, "InitBuffer")) {
      auto f = src.get(path);
      std::set<std::size_t> seen;
      for (const auto& c : f->calls("InitBuffer")) {
        if (c.args.size() != 3) continue;  // TBuf form has 2 arguments
        const std::string slot = norm(*f, c.args[1]);
        long long value = 0;
        range lit;
        std::string what;
        if (auto k = f->integer_constant(slot)) {
          value = k->value;
          lit = k->literal;
          what = "constant " + slot;
        } else if (slot == "1" || slot == "2") {
          value = slot[0] - '0';
          lit = c.args[1];
          what = "InitBuffer slot count";
        } else {
          continue;
        }
        if ((value != 1 && value != 2) || !seen.insert(lit.begin).second) continue;
        out.push_back(make_site(path, lit, value == 1, value == 2,
                                what + (value == 1 ? ": 1 -> 2 (double buffering)" : ": 2 -> 1 (single buffer)")));
      }
    }
    return out;
  }

  outcome apply(const source_set& src, const site& s, direction d) const override {
    auto cur = refind(src, s);
    if (!cur) return outcome::fail("no TQue slot count at this site any more");
    if (d == direction::forward ? !cur->forward : !cur->inverse) {
      return outcome::fail(d == direction::forward ? "the queues are already double-buffered" : "the queues are already single-buffered");
    }
    const std::string from = d == direction::forward ? "1" : "2";
    const std::string to = d == direction::forward ? "2" : "1";
    auto f = src.get(s.path);
    std::vector<text_edit> edits{{s.path, s.anchor, to}};
    const std::string lit(f->text_of(s.anchor));
    // The constant's name, when the anchor is a named constant: change the host's twin.
    for (const auto& k : f->integer_constants()) {
      if (!(k.literal == s.anchor)) continue;
      // Other kernel-side constant occurrences are the same definition; host twins follow.
      for (const auto& hp : host_paths(src, k.name)) {
        auto h = src.get(hp);
        if (auto hk = h->integer_constant(k.name); hk && hk->value == k.value) edits.push_back({hp, hk->literal, to});
      }
      // InitBuffer literal counts of the same file follow the constant too.
      break;
    }
    if (lit != from && lit.find(from) == std::string::npos) return outcome::fail("unexpected slot count '" + lit + "'");
    return outcome::success(std::move(edits));
  }
};

// ---- pipe_all_barrier --------------------------------------------------------------------------

bool is_barrier(const call_info& c, std::string_view pipe) {
  return c.callee == "PipeBarrier" && c.template_args.size() == 1 && c.template_args[0] == pipe && !c.statement.empty();
}

class pipe_all_barrier final : public basic_motif {
 public:
  pipe_all_barrier()
      : basic_motif("pipe_all_barrier", "Remove full-pipeline barriers from the tile loop",
                    "PipeBarrier<PIPE_ALL>() between the stages of the tile loop waits for every pipe to drain, "
                    "so copy-in, compute and copy-out of different tiles never overlap. The queues already order "
                    "the dependent stages (EnQue/DeQue), so the barriers are removed. Inverse: a barrier after "
                    "every stage call of the loop but the last.",
                    bottleneck_class::serialized_pipes) {}

  std::vector<site> match(const source_set& src) const override {
    std::vector<site> out;
    for (const auto& path : kernel_paths(src)) {
      auto f = src.get(path);
      for (int loop : loops_of(*f)) {
        const int body = f->loop_body(loop);
        if (body < 0) continue;
        const auto stmts = call_statements(*f, body);
        std::size_t barriers = 0, stages = 0;
        for (const auto& c : stmts) {
          if (c.callee == "PipeBarrier") {
            barriers += is_barrier(c, "PIPE_ALL");
          } else {
            ++stages;
          }
        }
        if (barriers > 0) {
          out.push_back(make_site(path, f->at(loop).r, true, false, "remove " + std::to_string(barriers) + " PIPE_ALL barrier(s) from the loop"));
        } else if (stages >= 2) {
          out.push_back(make_site(path, f->at(loop).r, false, true, "add a PIPE_ALL barrier after each of " + std::to_string(stages - 1) + " loop stage(s)"));
        }
      }
    }
    return out;
  }

  outcome apply(const source_set& src, const site& s, direction d) const override {
    auto cur = refind(src, s);
    if (!cur) return outcome::fail("no loop at this site any more");
    if (d == direction::forward ? !cur->forward : !cur->inverse) {
      return outcome::fail(d == direction::forward ? "the loop has no PIPE_ALL barrier" : "the loop already has PIPE_ALL barriers or fewer than two stages");
    }
    auto f = src.get(s.path);
    int loop = -1;
    for (std::size_t i = 0; i < f->nodes().size(); ++i) {
      const auto k = f->nodes()[i].kind;
      if ((k == node_kind::for_loop || k == node_kind::while_loop) && f->nodes()[i].r == s.anchor) loop = static_cast<int>(i);
    }
    const auto stmts = call_statements(*f, f->loop_body(loop));
    std::vector<text_edit> edits;
    if (d == direction::forward) {
      for (const auto& c : stmts) {
        if (is_barrier(c, "PIPE_ALL")) edits.push_back(delete_statement(*f, c.statement));
      }
    } else {
      const std::string stmt = f->api_prefix() + "PipeBarrier<PIPE_ALL>();";
      for (std::size_t i = 0; i + 1 < stmts.size(); ++i) edits.push_back(insert_after_statement(*f, stmts[i].statement, stmt));
    }
    return outcome::success(std::move(edits));
  }
};

// ---- redundant_pipe_v --------------------------------------------------------------------------

struct vec_stmt {
  call_info call;
  std::set<std::string> writes, reads;
};

std::optional<vec_stmt> as_vec_stmt(const source_file& f, const call_info& c) {
  const vec_op_shape* op = vector_op(c.callee);
  if (!op || c.statement.empty() || c.args.size() < 2) return std::nullopt;
  vec_stmt v{c, {}, {}};
  v.writes.insert(base_name(f.text_of(c.args[static_cast<std::size_t>(op->dst)])));
  for (int i : op->srcs) v.reads.insert(base_name(f.text_of(c.args[static_cast<std::size_t>(i)])));
  return v;
}

bool independent(const vec_stmt& a, const vec_stmt& b) {
  for (const auto& w : a.writes) {
    if (b.reads.count(w) || b.writes.count(w)) return false;
  }
  for (const auto& r : a.reads) {
    if (b.writes.count(r)) return false;
  }
  return true;
}

class redundant_pipe_v final : public basic_motif {
 public:
  redundant_pipe_v()
      : basic_motif("redundant_pipe_v", "Drop PIPE_V barriers between independent vector ops",
                    "A PipeBarrier<PIPE_V>() between two vector instructions where the second neither reads nor "
                    "writes a tensor the first writes (and does not overwrite one it reads) only stalls the vector "
                    "pipe. Removed. Inverse: such a barrier inserted between two independent vector ops.",
                    bottleneck_class::vector_bound) {}

  std::vector<site> match(const source_set& src) const override {
    std::vector<site> out;
    for (const auto& path : kernel_paths(src)) {
      auto f = src.get(path);
      for (int body : f->find(node_kind::compound)) {
        const auto stmts = call_statements(*f, body);
        for (std::size_t i = 0; i + 1 < stmts.size(); ++i) {
          // Only statements that are adjacent in the compound (nothing between them).
          auto a = as_vec_stmt(*f, stmts[i]);
          if (!a) continue;
          if (is_barrier(stmts[i + 1], "PIPE_V") && i + 2 < stmts.size()) {
            auto b = as_vec_stmt(*f, stmts[i + 2]);
            if (b && adjacent(*f, stmts[i], stmts[i + 1]) && adjacent(*f, stmts[i + 1], stmts[i + 2]) && independent(*a, *b)) {
              out.push_back(make_site(path, stmts[i + 1].statement, true, false,
                                      "remove the PIPE_V barrier between " + a->call.callee + " and " + b->call.callee));
            }
          }
          auto b = as_vec_stmt(*f, stmts[i + 1]);
          if (b && adjacent(*f, stmts[i], stmts[i + 1]) && independent(*a, *b)) {
            out.push_back(make_site(path, {stmts[i].statement.end, stmts[i].statement.end}, false, true,
                                    "insert a PIPE_V barrier between " + a->call.callee + " and " + b->call.callee));
          }
        }
      }
    }
    return out;
  }

  outcome apply(const source_set& src, const site& s, direction d) const override {
    auto cur = refind(src, s);
    if (!cur || (d == direction::forward ? !cur->forward : !cur->inverse)) {
      return outcome::fail(d == direction::forward ? "no redundant PIPE_V barrier at this site"
                                                   : "no pair of independent vector ops at this site");
    }
    auto f = src.get(s.path);
    if (d == direction::forward) return outcome::success({delete_statement(*f, s.anchor)});
    // Anchor: the end of the first statement.
    range first{s.anchor.begin, s.anchor.end};
    for (const auto& c : f->calls()) {
      if (!c.statement.empty() && c.statement.end == s.anchor.end) first = c.statement;
    }
    return outcome::success({insert_after_statement(*f, first, f->api_prefix() + "PipeBarrier<PIPE_V>();")});
  }

 private:
  // No other statement between a and b in their compound.
  static bool adjacent(const source_file& f, const call_info& a, const call_info& b) {
    const int sa = f.statement_of(a.node);
    const int sb = f.statement_of(b.node);
    if (sa < 0 || sb < 0 || f.at(sa).parent != f.at(sb).parent) return false;
    const auto& ch = f.at(f.at(sa).parent).children;
    for (std::size_t i = 0; i + 1 < ch.size(); ++i) {
      if (ch[i] == sa) return ch[i + 1] == sb;
    }
    return false;
  }
};

}  // namespace

void add_pipeline_motifs(std::vector<std::unique_ptr<motif>>& v) {
  v.push_back(std::make_unique<double_buffer>());
  v.push_back(std::make_unique<pipe_all_barrier>());
  v.push_back(std::make_unique<redundant_pipe_v>());
}

}  // namespace aopt::motifs::detail
