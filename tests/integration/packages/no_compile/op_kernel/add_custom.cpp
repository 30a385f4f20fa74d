// Integration fixture: a kernel that does not compile (`compile_error` with the compiler's message).
#include "kernel_operator.h"

extern "C" __global__ __aicore__ void add_custom(GM_ADDR x, GM_ADDR y, GM_ADDR z, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(tilingData, tiling);
    AopttUndeclaredThing<DTYPE_X> op;
    op.Process();
}
