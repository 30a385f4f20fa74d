// UB bank-group conflict cost of one vector repeat (MODEL.md section 3; DEVKIT best practice
// "avoid UB bank conflicts", NPU arch 220x).
//
// UB = 192 KB = 48 banks of 4 KB (128 rows of 32 B). Bank groups: 16, three banks each; the row
// at byte address a is in bank group (a >> 5) & 15 and in bank 16 * (a >> 16) + group (so
// 0x10000 is bank 16, 0x10020 bank 17, 0x20020 bank 33, as in the official examples).
// Per cycle the vector unit reads one row from, and writes one row to, each bank group:
//   - read/read:   several rows read from one bank group queue up;
//   - write/write: several rows written to one bank group queue up;
//   - read/write:  a read and a write of the same bank cost one extra cycle.
// The cost of a repeat is max(rows read from one group, rows written to one group), +1 when a
// read and a write hit the same bank; an instruction with cost 1 is conflict-free and reports 0.
// Examples: a write with blkStride 16 -> 8; blkStride 8 -> 4; Add whose two inputs start in the
// same bank group -> 2; the same Add with one input moved by 256 B -> 0.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>

namespace aopt::sim {

// One operand of a vector instruction, as seen by one repeat.
struct bank_access {
  std::uint32_t addr = 0;        // UB byte address of the operand's first block in the repeat
  std::uint32_t blk_stride = 1;  // distance between consecutive blocks, in 32 B blocks
  std::uint32_t blocks = 8;      // blocks the operand touches per repeat (8 = 256 B)
  bool write = false;
};

inline constexpr std::uint32_t ub_bank_groups = 16;
inline constexpr std::uint32_t ub_row_bytes = 32;
inline constexpr std::uint32_t ub_bank_span_bytes = 65536;  // banks g, g+16, g+32 split UB in 3

// Cycles one repeat needs because of bank-group conflicts; 0 when conflict-free.
inline std::uint16_t bank_conflict_cycles(const bank_access* ops, std::size_t n) {
  std::uint32_t reads[ub_bank_groups] = {};
  std::uint32_t writes[ub_bank_groups] = {};
  bool read_bank[3 * ub_bank_groups + 16] = {};
  bool write_bank[3 * ub_bank_groups + 16] = {};
  // Rows already counted (an operand reading the same row twice, blkStride 0, reads it once).
  std::uint32_t seen_rows[2][64];
  std::size_t seen_n[2] = {0, 0};
  for (std::size_t k = 0; k < n; ++k) {
    const bank_access& op = ops[k];
    const std::uint32_t blocks = std::min<std::uint32_t>(op.blocks, 64);
    for (std::uint32_t b = 0; b < blocks; ++b) {
      const std::uint32_t a = op.addr + b * op.blk_stride * ub_row_bytes;
      const std::uint32_t row = a / ub_row_bytes;
      const int w = op.write ? 1 : 0;
      bool dup = false;
      for (std::size_t s = 0; s < seen_n[w]; ++s) {
        if (seen_rows[w][s] == row) {
          dup = true;
          break;
        }
      }
      if (dup) continue;
      if (seen_n[w] < 64) seen_rows[w][seen_n[w]++] = row;
      const std::uint32_t group = row & (ub_bank_groups - 1);
      const std::uint32_t bank = std::min<std::uint32_t>(a / ub_bank_span_bytes, 3) * ub_bank_groups + group;
      if (op.write) {
        ++writes[group];
        write_bank[bank] = true;
      } else {
        ++reads[group];
        read_bank[bank] = true;
      }
    }
  }
  std::uint32_t cost = 0;
  bool rw = false;
  for (std::uint32_t g = 0; g < ub_bank_groups; ++g) cost = std::max({cost, reads[g], writes[g]});
  for (std::size_t b = 0; b < sizeof read_bank; ++b) rw = rw || (read_bank[b] && write_bank[b]);
  if (rw) ++cost;
  return cost <= 1 ? 0 : static_cast<std::uint16_t>(cost);
}

template <std::size_t N>
inline std::uint16_t bank_conflict_cycles(const bank_access (&ops)[N]) {
  return bank_conflict_cycles(ops, N);
}

}  // namespace aopt::sim
