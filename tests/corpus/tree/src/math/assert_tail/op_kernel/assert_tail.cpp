// Fixture: idioms that compile on the chip: a class template calling GetBlockNum() and
// GetBlockIdx() unqualified before any `using namespace AscendC`, an ASSERT written after an
// expression with no semicolon between (it expands to nothing on the device), and the
// float16_t spelling. y = x + x.
#include "fixture_kernel.h"

template <typename T>
class KernelTwice {
public:
    __aicore__ inline void Run(GM_ADDR x, GM_ADDR y, uint32_t total)
    {
        const uint32_t length = total / GetBlockNum() ASSERT(GetBlockNum() != 0 && "block num can not be zero");
        const uint32_t offset = length * GetBlockIdx();
        FixtureUnary<T>(x + offset * sizeof(T), y + offset * sizeof(T), length, length,
                        [](const auto &dst, const auto &src, uint32_t n) { AscendC::Add(dst, src, src, n); });
    }
};

extern "C" __global__ __aicore__ void assert_tail(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(td, tiling);
    KernelTwice<float16_t> op;
    op.Run(x, y, td.totalLength);
}
