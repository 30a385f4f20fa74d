// Fixture: 13 float16 (26 bytes) moved as one 32-byte block each way: the copy-in reads 6
// bytes of the input's allocation padding and the copy-out writes into the output's, as
// kernels do on the chip (device allocations are padded). y = 2x.
#include "fixture_kernel.h"

extern "C" __global__ __aicore__ void pad_overread(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(td, tiling);
    constexpr uint32_t blockElems = 32 / sizeof(half);
    const uint32_t n = (td.totalLength + blockElems - 1) / blockElems * blockElems;
    FixtureUnary<half>(x, y, n, n, [](const auto &dst, const auto &src, uint32_t c) {
        AscendC::Muls(dst, src, (half)2.0, c);
    });
}
