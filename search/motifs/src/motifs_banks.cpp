// UB bank-group motifs: place a kernel's UB buffers so that the operands of one vector
// instruction fall in different bank groups (stagger_ub_buffers).
//
// The UB's rows of 32 B are dealt over 16 bank groups ((addr >> 5) & 15); one repeat of a vector
// instruction reads 256 B (8 rows) of each source, so two sources whose start addresses differ by
// a multiple of 512 B read the same eight groups and the repeat takes two cycles instead of one;
// only a difference of 256 B (mod 512) is conflict-free (MODEL.md, "Bank conflicts"; DEVKIT best
// practice "avoid UB bank conflicts"). Buffers sized from the UB by a tiling (a tile of N elements
// in every buffer) start at multiples of the same size, so most pairs conflict. The forward
// rounds each InitBuffer length up to 512 B and adds 256 B / num (num: the queue's slots), so each
// InitBuffer takes 256 B (mod 512) more than a multiple of 512: consecutive buffers alternate
// between the two halves of the group cycle, and so do the same slots of consecutive
// double-buffered queues (the x and y tiles an Add reads together).
#include <cctype>

#include "flow.h"

namespace aopt::motifs::detail {
namespace {

using search::bottleneck_class;

// The spelling the forward writes around a length S; `num` is the slot count of a queue's
// InitBuffer ("" for a TBuf's).
std::string slot_share(std::string_view num) {
  if (num.empty()) return "";
  const std::string n(num);
  return " / " + (simple_operand(n) ? n : "(" + n + ")");
}
std::string staggered(std::string_view size, std::string_view num) {
  return "((" + std::string(size) + ") + 511) / 512 * 512 + 256" + slot_share(num);
}

// The length S inside a staggered spelling, byte for byte as written, or nullopt.
std::optional<std::string> unstaggered(std::string_view t, std::string_view num) {
  std::size_t i = 0;
  auto open = [&] {
    while (i < t.size() && std::isspace(static_cast<unsigned char>(t[i]))) ++i;
    if (i >= t.size() || t[i] != '(') return false;
    ++i;
    return true;
  };
  if (!open() || !open()) return std::nullopt;
  const std::size_t begin = i;
  int depth = 1;
  for (; i < t.size() && depth > 0; ++i) {
    if (t[i] == '(') ++depth;
    if (t[i] == ')') --depth;
  }
  if (depth != 0) return std::nullopt;
  const std::size_t end = i - 1;  // the ')' closing S
  if (squeeze(t.substr(end)) != squeeze(")+511)/512*512+256" + slot_share(num))) return std::nullopt;
  return std::string(t.substr(begin, end - begin));
}

// `<pipe>.InitBuffer(que, num, len)` / `<pipe>->InitBuffer(buf, len)`: member calls whose last
// argument is the length.
std::vector<call_info> init_buffers(const source_file& f) {
  std::vector<call_info> out;
  for (auto& c : f.calls("InitBuffer")) {
    if (c.object().empty() || c.args.size() < 2 || c.args.size() > 3) continue;
    out.push_back(std::move(c));
  }
  return out;
}

// The slot count argument of a queue's InitBuffer, "" for a TBuf's.
std::string_view num_of(const source_file& f, const call_info& c) { return c.args.size() == 3 ? f.text_of(c.args[1]) : std::string_view(); }

class stagger_ub_buffers final : public basic_motif {
 public:
  stagger_ub_buffers()
      : basic_motif("stagger_ub_buffers", "Stagger UB buffers over the bank groups",
                    "Buffers sized from the UB by the tiling start at multiples of one tile size, so the sources of "
                    "a vector instruction often sit in the same UB bank groups and each repeat waits a cycle "
                    "(aiv_vec_bankgroup_cflt_ratio). Every InitBuffer length of the kernel file is rounded up to "
                    "512 B plus 256 B / slots: consecutive buffers, and the same slots of consecutive queues, "
                    "alternate between the two halves of the 16-group cycle. Uses up to 767 B more UB per buffer (a tiling that gives the "
                    "whole UB away needs a smaller tile: Stage I is rerun on the rewritten kernel). Not when the "
                    "kernel sizes anything by a tensor's length (GetSize/GetLength). Inverse: the lengths as "
                    "they were.",
                    bottleneck_class::bank_conflict) {}

  std::vector<site> match(const source_set& src) const override {
    std::vector<site> out;
    bool vector_work = false, sized_by_tensor = false;
    for (const auto& p : kernel_paths(src)) {
      for (const auto& c : src.get(p)->calls()) {
        if (vector_op(c.callee) != nullptr) vector_work = true;
        if (c.callee == "GetSize" || c.callee == "GetLength") sized_by_tensor = true;
      }
    }
    for (const auto& p : kernel_paths(src, "InitBuffer")) {
      auto f = src.get(p);
      const auto calls = init_buffers(*f);
      if (calls.size() < 2) continue;
      std::size_t done = 0;
      for (const auto& c : calls) done += unstaggered(f->text_of(c.args.back()), num_of(*f, c)) ? 1 : 0;
      const std::string n = std::to_string(calls.size());
      if (done == calls.size()) {
        out.push_back(make_site(p, calls.front().r, false, true, "the " + n + " InitBuffer lengths as they were (no stagger)"));
      } else if (done == 0 && vector_work && !sized_by_tensor) {
        out.push_back(make_site(p, calls.front().r, true, false, "stagger the " + n + " InitBuffer lengths (round up to 512 B, add 256 B per buffer)"));
      }
    }
    return out;
  }

  outcome apply(const source_set& src, const site& s, direction d) const override {
    auto cur = refind(src, s);
    if (!cur || (d == direction::forward ? !cur->forward : !cur->inverse)) {
      return outcome::fail(d == direction::forward ? "no unstaggered InitBuffer lengths in this file"
                                                   : "not every InitBuffer length of this file is staggered");
    }
    auto f = src.get(s.path);
    std::vector<text_edit> edits;
    for (const auto& c : init_buffers(*f)) {
      const range len = c.args.back();
      const std::string_view text = f->text_of(len);
      if (d == direction::forward) {
        edits.push_back({s.path, len, staggered(text, num_of(*f, c))});
      } else {
        edits.push_back({s.path, len, *unstaggered(text, num_of(*f, c))});
      }
    }
    return outcome::success(std::move(edits));
  }
};

}  // namespace

void add_bank_motifs(std::vector<std::unique_ptr<motif>>& v) { v.push_back(std::make_unique<stagger_ub_buffers>()); }

}  // namespace aopt::motifs::detail
