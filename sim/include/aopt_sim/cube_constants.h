// Constants of the AscendC headers that host tilings and kernels share (CANN's utility
// constants are visible on both sides): the cube fractal's edge and the data block's bytes. Included by the kernel API
// (aopt_sim/kernel/types.h) and the host tiling API (tiling/tiling_api.h).
#pragma once

#include <cstdint>

// AscendC::BLOCK_CUBE (16): rows (and fp16 columns) of one cube fractal: Mmad works on 16 x 16
// blocks (16 x 32 bytes for int8), the unit of the Nz layout and of base M/N/K. Its type differs
// by side, so each side's header declares it (AOPT_SIM_DECLARE_BLOCK_CUBE): unsigned 32-bit for
// host tilings (quant_batch_matmul_v3 notes "uint32_t 16"; weight_quant_batch_matmul_v2's
// `ops::CeilAlign(uint32_t, BLOCK_CUBE)` deduces one type from both arguments; the conv tilings
// write `static_cast<int32_t>(AscendC::BLOCK_CUBE)`), signed 32-bit in kernels. A translation unit
// that includes both sides' headers (sim's own tests) gets the type of the first one included.
#define AOPT_SIM_DECLARE_BLOCK_CUBE(type)  \
  namespace AscendC {                      \
  constexpr type BLOCK_CUBE = 16;          \
  }

namespace AscendC {
// Bytes of one data block (UB / L1 copies move whole 32-byte blocks); host tilings align with it
// (weight_quant_batch_matmul_v2's `using AscendC::ONE_BLK_SIZE;`). Unsigned 32-bit, as the tilings
// need: `ops::CeilDiv(static_cast<uint32_t>(n), ONE_BLK_SIZE)` and `ops::CeilAlign(uint32_t,
// ONE_BLK_SIZE)` deduce one type from both arguments (quant_batch_matmul_v3,
// weight_quant_batch_matmul_v2; the former notes it as "uint32_t 32").
constexpr std::uint32_t ONE_BLK_SIZE = 32;
}  // namespace AscendC
