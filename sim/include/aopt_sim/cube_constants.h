// Constants of the AscendC headers that host tilings and kernels share (CANN's utility
// constants are visible on both sides): the cube fractal's edge and the data block's bytes. Included by the kernel API
// (aopt_sim/kernel/types.h) and the host tiling API (tiling/tiling_api.h).
#pragma once

#include <cstdint>

namespace AscendC {
// Rows (and fp16 columns) of one cube fractal: Mmad works on 16 x 16 blocks (16 x 32 bytes for
// int8), the unit of the Nz layout and of base M/N/K.
constexpr std::int32_t BLOCK_CUBE = 16;
// Bytes of one data block (UB / L1 copies move whole 32-byte blocks); host tilings align with it
// (weight_quant_batch_matmul_v2's `using AscendC::ONE_BLK_SIZE;`). Unsigned 32-bit, as the tilings
// need: `ops::CeilDiv(static_cast<uint32_t>(n), ONE_BLK_SIZE)` and `ops::CeilAlign(uint32_t,
// ONE_BLK_SIZE)` deduce one type from both arguments (quant_batch_matmul_v3,
// weight_quant_batch_matmul_v2; the former notes it as "uint32_t 32").
constexpr std::uint32_t ONE_BLK_SIZE = 32;
}  // namespace AscendC
