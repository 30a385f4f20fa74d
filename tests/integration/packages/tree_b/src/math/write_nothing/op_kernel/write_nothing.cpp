// Fixture WriteNothing (tree_b): reads its tiling and writes nothing.
#include "kernel_operator.h"

extern "C" __global__ __aicore__ void write_nothing(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(td, tiling);
    (void)td;
}
