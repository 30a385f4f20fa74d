// Test fixture without any motif pattern: one core writes a constant.
#include "kernel_operator.h"

extern "C" __global__ __aicore__ void plain_kernel(GM_ADDR z, GM_ADDR workspace, GM_ADDR tiling)
{
    AscendC::GlobalTensor<float> zGm;
    zGm.SetGlobalBuffer((__gm__ float *)z, 8);
    zGm.SetValue(0, 1.0f);
}
