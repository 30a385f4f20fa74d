// Fixture: a Cube-unit kernel (Mmad on L0 buffers): the corpus classifies it "cube" from its
// source without building it.
#include "kernel_operator.h"
using namespace AscendC;

extern "C" __global__ __aicore__ void cube_mm(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    LocalTensor<float> c;
    LocalTensor<half> a, b;
    MmadParams params;
    Mmad(c, a, b, params);
}
