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

// A tiling scalar as the invariants read it: an int64 field may hold anything (a pointer-sized
// value, a uint64 read back as negative), and what lies beyond +-2^40 is no length or count of any
// tensor; clamped there, the products below (block dim x length, length x element size) stay
// far inside int64.
constexpr std::int64_t scalar_limit = std::int64_t{1} << 40;
std::int64_t word_at(const tiling_facts& f, std::size_t i) { return std::clamp(f.words[i], -scalar_limit, scalar_limit); }

std::optional<std::int64_t> quantity(const tiling_facts& f, int q) {
  if (q == q_block_dim) return f.block_dim;
  if (q == q_elements) return f.elements;
  if (q >= 0 && static_cast<std::size_t>(q) < f.words.size()) return word_at(f, static_cast<std::size_t>(q));
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

// TCubeTiling (the Matmul API's tiling struct) as int32 words in its documented field order.
namespace cube {
constexpr int words = 50;  // the 50 documented fields (mxTypePara last)
constexpr int used = 0, M = 1, N = 2, Ka = 3, Kb = 4, sM = 5, sN = 6, sK = 7, bM = 8, bN = 9, bK = 10, dA1 = 11,
              dB1 = 12, stM = 13, stN = 14, bias = 15, order = 17, l1 = 19, l0c = 20, stKa = 26, stKb = 27, dbA = 30,
              dbB = 31, dbC = 32;
}  // namespace cube

// Whether words [o, o + cube::words) read as a TCubeTiling.
bool is_cube_tiling(const std::vector<std::int64_t>& w, std::size_t o) {
  if (o + cube::words > w.size()) return false;
  auto at = [&](int i) { return w[o + static_cast<std::size_t>(i)]; };
  auto in = [&](int i, std::int64_t lo, std::int64_t hi) { return at(i) >= lo && at(i) <= hi; };
  return in(cube::used, 1, 4096) && at(cube::M) > 0 && at(cube::N) > 0 && at(cube::Ka) > 0 && at(cube::Kb) > 0 &&
         in(cube::sM, 1, at(cube::M)) && in(cube::sN, 1, at(cube::N)) && in(cube::sK, 1, std::max(at(cube::Ka), at(cube::Kb))) &&
         at(cube::bM) > 0 && at(cube::bM) % 16 == 0 && at(cube::bN) > 0 && at(cube::bN) % 16 == 0 && at(cube::bK) > 0 &&
         at(cube::bK) % 8 == 0 && at(cube::dA1) >= 1 && at(cube::dB1) >= 1 && at(cube::stM) >= 1 && at(cube::stN) >= 1 &&
         in(cube::bias, 0, 1) && in(cube::order, 0, 1) && at(cube::stKa) >= 1 && at(cube::stKb) >= 1 &&
         in(cube::dbA, 1, 2) && in(cube::dbB, 1, 2) && in(cube::dbC, 1, 2);
}

std::int64_t cube_l1_bytes(const std::vector<std::int64_t>& w, std::size_t o, std::int64_t esize) {
  auto at = [&](int i) { return w[o + static_cast<std::size_t>(i)]; };
  return at(cube::dA1) * at(cube::bM) * at(cube::bK) * esize + at(cube::dB1) * at(cube::bN) * at(cube::bK) * esize +
         (at(cube::bias) != 0 ? at(cube::bN) * 4 : 0);
}

// The input element size a base TCubeTiling was made for: the one its L1 size (shareL1Size, as
// GetTiling fills it) works out with, else the case's element size.
std::int64_t cube_esize(const std::vector<std::int64_t>& w, std::size_t o, std::int64_t fallback) {
  for (std::int64_t e : {2, 1, 4}) {
    if (cube_l1_bytes(w, o, e) == w[o + cube::l1]) return e;
  }
  return fallback > 0 ? fallback : 2;
}

// Why the TCubeTiling at word o of a case does not fit the device, or nullopt.
std::optional<std::string> cube_misfit(const std::vector<std::int64_t>& w, std::size_t o, std::int64_t es,
                                       const device_limits& d) {
  if (!is_cube_tiling(w, o)) {
    return "the Matmul tiling (TCubeTiling at word " + std::to_string(o) +
           ") is no longer one: a base block not a multiple of 16, a depth, step or double-buffer count out of range, "
           "or a single-core shape past the matrix";
  }
  auto at = [&](int i) { return w[o + static_cast<std::size_t>(i)]; };
  const std::string bm = std::to_string(at(cube::bM)), bn = std::to_string(at(cube::bN)), bk = std::to_string(at(cube::bK));
  if (at(cube::bK) * es % 32 != 0) return "baseK " + bk + " is not a whole number of 32-byte blocks of the input";
  if (at(cube::bM) * at(cube::bK) * es * at(cube::dbA) > d.l0a_bytes) {
    return "baseM x baseK = " + bm + " x " + bk + " (x " + std::to_string(at(cube::dbA)) + " buffers) needs " +
           std::to_string(at(cube::bM) * at(cube::bK) * es * at(cube::dbA)) + " bytes of L0A, over its " + std::to_string(d.l0a_bytes);
  }
  if (at(cube::bN) * at(cube::bK) * es * at(cube::dbB) > d.l0b_bytes) {
    return "baseN x baseK = " + bn + " x " + bk + " (x " + std::to_string(at(cube::dbB)) + " buffers) needs " +
           std::to_string(at(cube::bN) * at(cube::bK) * es * at(cube::dbB)) + " bytes of L0B, over its " + std::to_string(d.l0b_bytes);
  }
  if (at(cube::bM) * at(cube::bN) * 4 * at(cube::dbC) > d.l0c_bytes) {
    return "baseM x baseN = " + bm + " x " + bn + " of 4-byte accumulators (x " + std::to_string(at(cube::dbC)) + ") needs " +
           std::to_string(at(cube::bM) * at(cube::bN) * 4 * at(cube::dbC)) + " bytes of L0C, over its " + std::to_string(d.l0c_bytes);
  }
  if (cube_l1_bytes(w, o, es) > d.l1_bytes) {
    return "depthA1 / depthB1 base blocks of A and B need " + std::to_string(cube_l1_bytes(w, o, es)) + " bytes of L1, over its " +
           std::to_string(d.l1_bytes);
  }
  return std::nullopt;
}

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
  // Matmul tilings (TCubeTiling) in the words: at the same offset in every case of the base. Their
  // words are checked as one (cube) instead of one by one.
  std::set<int> exempt;
  if (!base_.empty()) {
    const auto& w0 = base_.front().words;
    for (std::size_t o = 0; o + cube::words <= w0.size(); ++o) {
      bool all = true;
      for (const auto& f : base_) all = all && f.words.size() == w0.size() && is_cube_tiling(f.words, o);
      if (!all) continue;
      for (std::size_t c = 0; c < base_.size(); ++c) {
        invariants_.push_back({K::cube, c, static_cast<int>(o), {}, cube_esize(base_[c].words, o, base_[c].elem_bytes)});
      }
      for (int i = 0; i < cube::words; ++i) exempt.insert(static_cast<int>(o) + i);
      o += cube::words - 1;
    }
  }
  // Per-core lengths that partition the tensor: every core but the last takes word m, the last
  // takes word e (m x (block dim - 1) + e = element count in every case, m != e in one at
  // least). Such words keep that sum, not a span each: a variant may give the last core more
  // than the others (greater_equal's blockLengthEnd), which the cover invariant would refuse.
  std::set<int> partitioned;
  if (!base_.empty() && base_.front().block_dim >= 1) {
    const std::size_t nw = base_.front().words.size();
    for (std::size_t m = 0; m < nw; ++m) {
      if (exempt.count(static_cast<int>(m))) continue;
      for (std::size_t e = 0; e < nw; ++e) {
        if (m == e || exempt.count(static_cast<int>(e))) continue;
        bool all = true, distinct = false;
        for (const auto& f : base_) {
          if (f.words.size() != nw || f.block_dim < 1) {
            all = false;
            break;
          }
          const std::int64_t wm = word_at(f, m), we = word_at(f, e);
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
      if (exempt.count(q)) continue;
      const std::int64_t w = word_at(f, i);
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
        const std::int64_t piece_bytes = f.elements / (f.block_dim * word_at(f, static_cast<std::size_t>(q))) * esize;
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
    if (inv.what == K::cube) {
      if (auto why = cube_misfit(f.words, static_cast<std::size_t>(inv.length), inv.split, limits_)) return where + *why;
      const std::int64_t used = f.words[static_cast<std::size_t>(inv.length) + cube::used];
      if (used > limits_.core_count) {
        return where + "the Matmul tiling uses " + std::to_string(used) + " cores, over the device's " + std::to_string(limits_.core_count);
      }
      continue;
    }
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
      case K::cube:
        break;
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
      case K::cube:
        s += "the Matmul tiling at word " + std::to_string(inv.length) + " fits L0A/L0B/L0C/L1 (" +
             std::to_string(inv.split) + "-byte inputs)";
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
