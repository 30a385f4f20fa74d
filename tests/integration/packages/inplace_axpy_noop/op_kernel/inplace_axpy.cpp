// Fixture InplaceAxpy, a kernel that does nothing (tests/integration): it must FAIL the check,
// since its input x keeps its old content where the operator updates it in place.
#include "kernel_operator.h"

extern "C" __global__ __aicore__ void inplace_axpy(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(td, tiling);
    (void)x;
    (void)y;
    (void)td;
}
