#include "aopt/stage1/feasibility.h"

#include <algorithm>
#include <set>
#include <utility>

#include "aopt/common/error.h"

namespace aopt::stage1 {

namespace {

constexpr std::int64_t block_bytes = 32;     // DataCopy's granule
constexpr std::int64_t length_bytes = 256;   // a word this long (in elements' bytes) is a length
constexpr std::int64_t max_count = 64;       // a word in [2, max_count] that is no length is a count

constexpr int q_block_dim = -1;
constexpr int q_elements = -2;

std::optional<std::int64_t> quantity(const tiling_facts& f, int q) {
  if (q == q_block_dim) return f.block_dim;
  if (q == q_elements) return f.elements;
  if (q >= 0 && static_cast<std::size_t>(q) < f.words.size()) return f.words[static_cast<std::size_t>(q)];
  return std::nullopt;
}

std::string name_of(int q) {
  if (q == q_block_dim) return "block dim";
  if (q == q_elements) return "element count";
  return "tiling word " + std::to_string(q);
}

bool is_length(std::int64_t w, std::int64_t esize) { return w > 0 && w * esize >= length_bytes; }

// Divides `length` into `pieces` pieces of whole 32-byte blocks (each split in two as well when
// split == 2).
bool shares(std::int64_t length, std::int64_t pieces, std::int64_t split, std::int64_t esize) {
  if (pieces <= 0 || length % pieces != 0) return false;
  const std::int64_t piece = length / pieces;
  if (piece % split != 0) return false;
  return (piece / split) * esize % block_bytes == 0;
}

// The pieces a set of divisor quantities makes of a case (their product); nullopt when one is
// not in the case's facts.
std::optional<std::int64_t> pieces_of(const tiling_facts& f, const std::vector<int>& divisors) {
  std::int64_t pieces = 1;
  for (int d : divisors) {
    const auto v = quantity(f, d);
    if (!v) return std::nullopt;
    pieces *= *v;
  }
  return pieces;
}

// The most tile-sized buffers a kernel holds in UB (queues of two slots for a few inputs and an
// output, and temporaries): a piece whose bytes times this stay below the UB use is not a tile.
constexpr std::int64_t max_tiles_in_ub = 16;

// A per-core length times the block dim that spans the tensor (at least half of it, at most all).
bool covers(std::int64_t span, std::int64_t elements) { return span <= elements && 2 * span >= elements; }
// What a variant must keep of it: every core a nonzero share, none past the tensor.
bool within(std::int64_t span, std::int64_t elements) { return span > 0 && span <= elements; }

}  // namespace

bool same_tiling(const std::vector<tiling_facts>& a, const std::vector<tiling_facts>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (a[i].case_name != b[i].case_name || a[i].block_dim != b[i].block_dim || a[i].tiling_key != b[i].tiling_key ||
        a[i].words != b[i].words) {
      return false;
    }
  }
  return true;
}

std::string tiling_fingerprint(const std::vector<tiling_facts>& cases) {
  std::string out;
  for (const auto& c : cases) {
    out += c.case_name + '\0' + std::to_string(c.block_dim) + ':' + std::to_string(c.tiling_key);
    for (const auto w : c.words) out += ',' + std::to_string(w);
    out += '\n';
  }
  return out;
}

feasibility_screen::feasibility_screen(const std::vector<tiling_facts>& base, device_limits limits)
    : base_(base), limits_(limits) {
  using K = invariant::kind;
  // Per-core lengths that partition the tensor: every core but the last takes word m, the last
  // takes word e (m x (block dim - 1) + e = element count in every case, m != e in one at
  // least). Such words keep that sum, not a span each: a variant may give the last core more
  // than the others (greater_equal's blockLengthEnd), which the cover invariant would refuse.
  std::set<int> partitioned;
  if (!base_.empty() && base_.front().block_dim >= 1) {
    const std::size_t nw = base_.front().words.size();
    for (std::size_t m = 0; m < nw; ++m) {
      for (std::size_t e = 0; e < nw; ++e) {
        if (m == e) continue;
        bool all = true, distinct = false;
        for (const auto& f : base_) {
          if (f.words.size() != nw || f.block_dim < 1) {
            all = false;
            break;
          }
          const std::int64_t wm = f.words[m], we = f.words[e];
          all = all && wm > 0 && we > 0 && wm * (f.block_dim - 1) + we == f.elements;
          distinct = distinct || (f.block_dim >= 2 && wm != we);
        }
        if (!all || !distinct) continue;
        for (std::size_t c = 0; c < base_.size(); ++c) {
          invariants_.push_back({K::partition, c, static_cast<int>(e), {static_cast<int>(m)}, 1});
        }
        partitioned.insert(static_cast<int>(m));
        partitioned.insert(static_cast<int>(e));
      }
    }
  }
  // Count words that are 0 in some case of the base: the kernel ran that case, so it does not
  // divide by them; they are remainders (cast's tailBlockNum: 0 when the blocks share evenly).
  std::set<std::size_t> zero_somewhere;
  for (const auto& f : base_) {
    for (std::size_t i = 0; i < f.words.size(); ++i) {
      if (f.words[i] == 0) zero_somewhere.insert(i);
    }
  }
  std::set<std::vector<int>> divisor_sets_seen;
  for (std::size_t c = 0; c < base_.size(); ++c) {
    const auto& f = base_[c];
    const std::int64_t esize = f.elem_bytes > 0 ? f.elem_bytes : 1;
    std::vector<int> counts;
    if (f.block_dim >= 2) counts.push_back(q_block_dim);
    if (f.block_dim != 0) invariants_.push_back({K::nonzero, c, q_block_dim, {}, 1});
    for (std::size_t i = 0; i < f.words.size(); ++i) {
      const int q = static_cast<int>(i);
      const std::int64_t w = f.words[i];
      if (w <= f.elements) invariants_.push_back({K::bound, c, q, {}, 1});
      if (covers(f.block_dim * w, f.elements) && !partitioned.count(q)) invariants_.push_back({K::cover, c, q, {q_block_dim}, 1});
      if (is_length(w, esize)) {
        if (w * esize % block_bytes == 0) invariants_.push_back({K::granule, c, q, {}, 1});
      } else if (w >= 2 && w <= max_count && !zero_somewhere.count(i)) {
        // A count: kernels divide by it (a length or a remainder may well become 0).
        invariants_.push_back({K::nonzero, c, q, {}, 1});
        counts.push_back(q);
      }
    }
    std::vector<std::vector<int>> divisor_sets;
    for (std::size_t a = 0; a < counts.size(); ++a) {
      divisor_sets.push_back({counts[a]});
      for (std::size_t b = a + 1; b < counts.size(); ++b) divisor_sets.push_back({counts[a], counts[b]});
    }
    // A kernel that tiles by a count word (elements / block dim / tiles) holds a tile in UB: its
    // UB use grows with the tile. Needs the base's UB use, and a block dim besides the word.
    // Only for a word whose pieces are plausibly what the UB holds: the kernel's buffers are a
    // few tiles (at most max_tiles_in_ub of them), so a word whose piece is far smaller than that
    // share of the UB use counts something else (addcdiv's tailBlockNum: the cores that take
    // one block more, a remainder).
    if (f.ub_bytes > 0 && f.block_dim >= 1) {
      for (int q : counts) {
        if (q == q_block_dim) continue;
        const std::int64_t piece_bytes = f.elements / (f.block_dim * f.words[static_cast<std::size_t>(q)]) * esize;
        if (piece_bytes * max_tiles_in_ub >= f.ub_bytes) invariants_.push_back({K::ub, c, q_elements, {q_block_dim, q}, 1});
      }
    }
    // The tensor split by block counts, tile counts and alignments: what unaligned kernels assume.
    for (const auto& ds : divisor_sets) {
      const std::int64_t pieces = *pieces_of(f, ds);  // the case's own words: always known
      if (!shares(f.elements, pieces, 1, esize)) continue;
      divisor_sets_seen.insert(ds);
      invariants_.push_back({K::share, c, q_elements, ds, shares(f.elements, pieces, 2, esize) ? 2 : 1});
    }
  }
  // A split into whole pieces that one case of the base does without is not something the
  // kernel needs (the base ran that case correctly): where the others have it, it is the
  // element count's coincidence (a power of two divides by any count word that is one, such as
  // addcdiv's count of cores that take a block more). Every case is asked, also one where the
  // words of the split are no counts (cast's tile count is 1 on its tail case of 37037 fp16
  // elements, which is no whole number of blocks: the kernel copies partial blocks).
  std::set<std::vector<int>> unshared;
  for (const auto& ds : divisor_sets_seen) {
    for (const auto& f : base_) {
      const auto pieces = pieces_of(f, ds);
      if (pieces && !shares(f.elements, *pieces, 1, f.elem_bytes > 0 ? f.elem_bytes : 1)) unshared.insert(ds);
    }
  }
  invariants_.erase(std::remove_if(invariants_.begin(), invariants_.end(),
                                   [&](const invariant& inv) { return inv.what == K::share && unshared.count(inv.divisors) > 0; }),
                    invariants_.end());
}

std::optional<std::string> feasibility_screen::check(const screen_outcome& v) const {
  if (!v.ok) return "its tiling fails (" + v.status + "): " + v.diagnostic;
  if (v.cases.size() != base_.size()) {
    return "its screen reports " + std::to_string(v.cases.size()) + " case(s), the base's " + std::to_string(base_.size());
  }
  for (std::size_t c = 0; c < v.cases.size(); ++c) {
    const auto& f = v.cases[c];
    if (f.block_dim < 1 || f.block_dim > limits_.core_count) {
      return "case '" + f.case_name + "': block dim " + std::to_string(f.block_dim) + " is outside 1.." +
             std::to_string(limits_.core_count) + " (the device's cores)";
    }
    if (f.words.size() != base_[c].words.size()) {
      return "case '" + f.case_name + "': the tiling data has " + std::to_string(f.words.size()) + " words, the base's " +
             std::to_string(base_[c].words.size());
    }
  }
  using K = invariant::kind;
  for (const auto& inv : invariants_) {
    const auto& f = v.cases[inv.case_index];
    const auto& b = base_[inv.case_index];
    const std::string where = "case '" + f.case_name + "': ";
    const std::int64_t value = *quantity(f, inv.length);
    const std::int64_t esize = f.elem_bytes > 0 ? f.elem_bytes : 1;
    switch (inv.what) {
      case K::nonzero:
        if (value == 0) return where + name_of(inv.length) + " is 0 (the base's was " + std::to_string(*quantity(b, inv.length)) + ")";
        break;
      case K::bound:
        if (value > f.elements) {
          return where + name_of(inv.length) + " = " + std::to_string(value) + " exceeds the " + std::to_string(f.elements) +
                 " elements of the input (the base's was " + std::to_string(*quantity(b, inv.length)) + ")";
        }
        break;
      case K::granule:
        if (value * esize % block_bytes != 0) {
          return where + name_of(inv.length) + " = " + std::to_string(value) + " is " + std::to_string(value * esize) +
                 " bytes, not a multiple of 32 (the base's " + std::to_string(*quantity(b, inv.length)) + " was)";
        }
        break;
      case K::cover:
        if (!within(f.block_dim * value, f.elements)) {
          return where + "block dim x " + name_of(inv.length) + " = " + std::to_string(f.block_dim) + " x " +
                 std::to_string(value) + " is 0 or passes the " + std::to_string(f.elements) +
                 " elements (the base's " + std::to_string(b.block_dim) + " x " + std::to_string(*quantity(b, inv.length)) +
                 " spanned them)";
        }
        break;
      case K::partition: {
        const std::int64_t m = *quantity(f, inv.divisors.front());
        if (m <= 0 || value <= 0 || m * (f.block_dim - 1) + value != f.elements) {
          return where + name_of(inv.divisors.front()) + " x (block dim - 1) + " + name_of(inv.length) + " = " +
                 std::to_string(m) + " x " + std::to_string(f.block_dim - 1) + " + " + std::to_string(value) +
                 " is not the " + std::to_string(f.elements) + " elements (the base's " +
                 std::to_string(*quantity(b, inv.divisors.front())) + " x " + std::to_string(b.block_dim - 1) + " + " +
                 std::to_string(*quantity(b, inv.length)) + " partitioned them)";
        }
        break;
      }
      case K::ub: {
        const std::int64_t pieces = f.block_dim * *quantity(f, inv.divisors.back());
        const std::int64_t base_pieces = b.block_dim * *quantity(b, inv.divisors.back());
        if (pieces <= 0 || base_pieces <= 0 || b.elements <= 0) break;
        // Bytes of UB a piece of the variant needs, scaled from the base's use at its piece. The
        // pieces are averages: a kernel cutting its share into c fixed tiles and a smaller tail
        // holds tiles up to c / (c - 1) times the average, so the base's largest tile may be that
        // much above its average (a variant's largest is never below its own): without that
        // slack a kernel with a few tiles a core near the UB's limit could not change its core
        // count at all (addcdiv: 5 tiles a core, 96% of the UB).
        const std::int64_t base_count = *quantity(b, inv.divisors.back());
        const double tail_slack = base_count >= 2 ? static_cast<double>(base_count - 1) / static_cast<double>(base_count) : 1.0;
        const double ratio = (static_cast<double>(value) / static_cast<double>(pieces)) /
                             (static_cast<double>(b.elements) / static_cast<double>(base_pieces));
        // A base over the limit (a kernel rewrite being co-tuned: it failed for lack of UB on this
        // tiling) fits only with tiles that shrink its own use below the limit: no slack, and the
        // same or larger tiles never fit.
        const bool base_over = b.ub_bytes > limits_.ub_bytes;
        const double growth = base_over ? ratio : tail_slack * ratio;
        const double need = growth * static_cast<double>(b.ub_bytes);
        if ((growth > 1.0 || base_over) && need > static_cast<double>(limits_.ub_bytes)) {
          return where + "block dim x " + name_of(inv.divisors.back()) + " = " + std::to_string(pieces) + " makes tiles of " +
                 std::to_string(value / pieces) + " elements; at the base's " + std::to_string(b.elements / base_pieces) +
                 " the kernel used " + std::to_string(b.ub_bytes) + " bytes of UB, so these need about " +
                 std::to_string(static_cast<std::int64_t>(need)) + ", over the " + std::to_string(limits_.ub_bytes) + " it has";
        }
        break;
      }
      case K::share: {
        std::int64_t pieces = 1;
        std::int64_t base_pieces = 1;
        std::string names;
        for (int d : inv.divisors) {
          pieces *= *quantity(f, d);
          base_pieces *= *quantity(b, d);
          names += (names.empty() ? "" : " x ") + name_of(d);
        }
        if (!shares(value, pieces, inv.split, esize)) {
          return where + names + " = " + std::to_string(pieces) + " does not divide the " + name_of(inv.length) + " " +
                 std::to_string(value) + " into pieces of whole 32-byte blocks" + (inv.split == 2 ? " (split in two)" : "") +
                 "; the base's " + std::to_string(base_pieces) + " did";
        }
        break;
      }
    }
  }
  return std::nullopt;
}

std::vector<std::string> feasibility_screen::describe() const {
  std::vector<std::string> out;
  using K = invariant::kind;
  for (const auto& inv : invariants_) {
    std::string s = "case '" + base_[inv.case_index].case_name + "': ";
    switch (inv.what) {
      case K::nonzero: s += name_of(inv.length) + " != 0"; break;
      case K::bound: s += name_of(inv.length) + " <= element count"; break;
      case K::granule: s += name_of(inv.length) + " in whole 32-byte blocks"; break;
      case K::cover: s += "0 < block dim x " + name_of(inv.length) + " <= element count"; break;
      case K::partition:
        s += name_of(inv.divisors.front()) + " x (block dim - 1) + " + name_of(inv.length) + " = element count, both > 0";
        break;
      case K::ub:
        s += "tiles of element count / (block dim x " + name_of(inv.divisors.back()) + ") fit the UB (the base used " +
             std::to_string(base_[inv.case_index].ub_bytes) + " bytes)";
        break;
      case K::share: {
        std::string names;
        for (int d : inv.divisors) names += (names.empty() ? "" : " x ") + name_of(d);
        s += names + " divides the " + name_of(inv.length) + " into whole 32-byte blocks" + (inv.split == 2 ? ", split in two" : "");
        break;
      }
    }
    out.push_back(std::move(s));
  }
  return out;
}

}  // namespace aopt::stage1
