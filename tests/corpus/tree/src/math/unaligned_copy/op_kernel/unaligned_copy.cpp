// Fixture: a DataCopy out of 40 float16 (80 bytes, not a multiple of 32): the chip moves 64
// bytes and drops the last 16 without an error; so does the emulator, with a warning. The
// copy-in rounds up to 48 elements (16 bytes of the input's padding). y = x / 2.
#include "fixture_kernel.h"

extern "C" __global__ __aicore__ void unaligned_copy(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(td, tiling);
    const uint32_t padded = (td.totalLength + 15) / 16 * 16;
    FixtureUnary<half>(x, y, padded, td.totalLength, [](const auto &dst, const auto &src, uint32_t n) {
        AscendC::Muls(dst, src, (half)0.5, n);
    });
}
