// Fixture: a kernel named like a C math function (`tanh`), as real operators are; it must
// compile and run as on the chip, where no libm is in scope. y = 2x.
#include "fixture_kernel.h"

extern "C" __global__ __aicore__ void tanh(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(td, tiling);
    FixtureUnary<half>(x, y, td.totalLength, td.totalLength, [](const auto &dst, const auto &src, uint32_t n) {
        AscendC::Muls(dst, src, (half)2.0, n);
    });
}
