// Feasible Stage I: what a tiling variant must keep of the base's tiling for the kernel (which
// Stage I does not change) to run it. A screen runs only the variant's host tiling function on
// every case (no kernel: evaluation::evaluator::screen) and reports, per case, the block dim, the
// tiling key and the tiling data's scalars (one per element of each field of the operator's tiling
// class, so a uint16 array is one scalar per element and an int64 one scalar; 32-bit words when
// the class is unknown; called "words" below); the checks here compare them with the base's,
// before the variant costs an evaluation. Pure. See docs/stage1.md, "Feasible Stage I".
//
// The kernel is fixed and passed the base's run, so what held of the base's tiling and is what
// kernels rely on must hold of a variant's (each invariant is learned per case, from the base):
//   cores     the block dim is within the device's cores;
//   nonzero   the block dim and every count word (2..64 in the base, no length) stay nonzero
//             (kernels divide by them);
//   bound     a word the base kept within the case's element count stays within it (a per-core
//             or tile length past the tensor, or an unsigned remainder that wrapped around);
//   cover     a per-core length word whose product with the block dim spanned the tensor (at
//             least half of it, never past it) keeps that product in 1..element count: no core
//             reads past the tensor, no core is left with nothing;
//   partition two per-core length words m and e with m x (block dim - 1) + e = the element
//             count in every case (m != e in one at least: all cores but the last take m, the last
//             e) keep that sum and stay nonzero; the cover invariant does not apply to them (the
//             last core may take more than the others);
//   granule   a length word (>= 256 bytes in the case's element size) that was a whole number of
//             32-byte blocks stays one (DataCopy moves whole blocks);
//   share     the element count that the block dim, a count word or a product of two of them
//             divided into pieces of whole 32-byte blocks is still so divided; when the base's
//             pieces also split in two (a double buffer), the variant's must too.
//   cube      a Matmul tiling (a TCubeTiling, found in the base's words by its documented field
//             order and value ranges; its words are exempt from the invariants above) stays one
//             and fits the Cube's buffers: baseM x baseK and baseN x baseK (x dbL0A / dbL0B, in
//             the input's element size) within L0A / L0B, baseM x baseN x 4 B (x dbL0C) within
//             L0C, depthA1 / depthB1 base blocks of A and B (+ the bias row) within L1, base M/N
//             multiples of 16 and base K of 32 bytes, the used cores within the device's.
// A variant whose tiling fails (tiling_error) is infeasible as well. The checks can reject a
// variant that would have run (a length word that is really a count of blocks): the price of
// never spending an evaluation on the patterns that broke the real operators' kernels.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "aopt/stage1/tiling_template.h"

namespace aopt::stage1 {

// One case's tiling as the screen reports it.
struct tiling_facts {
  std::string case_name;
  std::int64_t block_dim = 0;
  std::int64_t tiling_key = 0;
  std::vector<std::int64_t> words;  // tiling data: one scalar per field element (or 32-bit word)
  std::int64_t elements = 0;        // element count of the case's largest input
  std::int64_t elem_bytes = 0;      // its element size
  // The UB the kernel used in this case (the base's evaluation: a screen runs no kernel); 0 when
  // unknown. With it the screen rejects a variant whose pieces grow past what the UB holds.
  std::int64_t ub_bytes = 0;
};

// A variant's screen: the tiling's facts per case, or why the tiling itself failed.
struct screen_outcome {
  bool ok = false;                  // every case tiled
  std::string status;               // "ok", "tiling_error", "compile_error", "unsupported", ...
  std::string diagnostic;
  std::vector<tiling_facts> cases;  // in the package's case order
};

// Whether two screens tiled every case alike: the same cases, block dims, keys and tiling data.
bool same_tiling(const std::vector<tiling_facts>& a, const std::vector<tiling_facts>& b);
// What same_tiling compares, as one string: equal strings, same tiling (screen_verdict::tiling).
std::string tiling_fingerprint(const std::vector<tiling_facts>& cases);

class feasibility_screen {
 public:
  // Learns the invariants from the base's screen (must be ok).
  feasibility_screen(const std::vector<tiling_facts>& base, device_limits limits);
  // Why the variant would fail, or nullopt when it keeps every invariant.
  std::optional<std::string> check(const screen_outcome& variant) const;
  // Whether the variant tiles every case exactly as the base does (same_tiling).
  bool same_as_base(const screen_outcome& variant) const { return same_tiling(variant.cases, base_); }
  std::size_t invariant_count() const { return invariants_.size(); }
  // One line per invariant ("case 'perf': word 1 != 0", ...), for reports and tests.
  std::vector<std::string> describe() const;

  struct invariant {
    // ub: the element count split by the block dim and a count word (the kernel's tile) grows
    // by no more than the UB the base left free: base UB use x growth <= the device's UB.
    enum class kind : std::uint8_t { nonzero, bound, granule, cover, share, ub, partition, cube };
    kind what = kind::nonzero;
    std::size_t case_index = 0;
    int length = -1;                  // quantity: -1 = block dim, -2 = element count, i >= 0 = word i
                                      // (cube: the TCubeTiling's first word)
    std::vector<int> divisors;        // share: quantities (-1 block dim, i word i); partition: {m}
    std::int64_t split = 1;           // share: 2 when the base's pieces split in two as well;
                                      // cube: the input's element size in bytes
  };

 private:
  std::vector<tiling_facts> base_;
  device_limits limits_;
  std::vector<invariant> invariants_;
};

}  // namespace aopt::stage1
