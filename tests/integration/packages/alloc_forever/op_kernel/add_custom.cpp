// Integration fixture: a kernel that allocates host memory without end (`resource_error`).
#include <cstring>
#include <vector>

#include "kernel_operator.h"

extern "C" __global__ __aicore__ void add_custom(GM_ADDR x, GM_ADDR y, GM_ADDR z, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(tilingData, tiling);
    if (AscendC::GetBlockIdx() != 0) {
        return;
    }
    std::vector<char *> hoard;
    for (;;) {
        char *block = new char[64 << 20];
        std::memset(block, 1, 64 << 20);
        hoard.push_back(block);
    }
}
