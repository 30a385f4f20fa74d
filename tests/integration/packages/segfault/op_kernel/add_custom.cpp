// Integration fixture: a kernel that dereferences a null pointer (`runtime_error`, SIGSEGV).
#include "kernel_operator.h"

extern "C" __global__ __aicore__ void add_custom(GM_ADDR x, GM_ADDR y, GM_ADDR z, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(tilingData, tiling);
    volatile int *nowhere = nullptr;
    *nowhere = 42;
}
