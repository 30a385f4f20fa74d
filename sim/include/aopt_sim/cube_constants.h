// Constants of the AscendC headers that host tilings and kernels share (CANN's utility
// constants are visible on both sides): the cube fractal's edge. Included by the kernel API
// (aopt_sim/kernel/types.h) and the host tiling API (tiling/tiling_api.h).
#pragma once

#include <cstdint>

namespace AscendC {
// Rows (and fp16 columns) of one cube fractal: Mmad works on 16 x 16 blocks (16 x 32 bytes for
// int8), the unit of the Nz layout and of base M/N/K.
constexpr std::int32_t BLOCK_CUBE = 16;
}  // namespace AscendC
