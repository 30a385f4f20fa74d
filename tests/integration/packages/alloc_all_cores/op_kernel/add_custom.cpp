// Integration fixture: every emulated core allocates host memory without end, all at once
// (`resource_error`, whichever thread hits the limit first and however it fails).
#include <cstring>
#include <vector>

#include "kernel_operator.h"

extern "C" __global__ __aicore__ void add_custom(GM_ADDR x, GM_ADDR y, GM_ADDR z, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(tilingData, tiling);
    std::vector<char *> hoard;
    for (;;) {
        char *block = new char[16 << 20];
        std::memset(block, 1, 16 << 20);
        hoard.push_back(block);
    }
}
