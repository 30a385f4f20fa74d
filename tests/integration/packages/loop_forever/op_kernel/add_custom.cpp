// Integration fixture: a kernel that never finishes (the evaluator must report `timeout`).
#include "kernel_operator.h"

extern "C" __global__ __aicore__ void add_custom(GM_ADDR x, GM_ADDR y, GM_ADDR z, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(tilingData, tiling);
    volatile uint64_t spins = 0;
    for (;;) {
        spins = spins + 1;
    }
}
