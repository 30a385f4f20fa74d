// Fixture PositiveSelect (tree_b): y = the elements of x above 0, in order, one core, scalar. The
// GM argument after the outputs receives y's real shape: its dimension count, then its
// dimensions, as uint64 (9 words per output).
#include "kernel_operator.h"

extern "C" __global__ __aicore__ void positive_select(GM_ADDR x, GM_ADDR y, GM_ADDR shape_out, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(td, tiling);
    AscendC::GlobalTensor<float> xGm;
    AscendC::GlobalTensor<float> yGm;
    AscendC::GlobalTensor<uint64_t> shapeGm;
    xGm.SetGlobalBuffer((__gm__ float*)x, td.totalLength);
    yGm.SetGlobalBuffer((__gm__ float*)y, td.totalLength);
    shapeGm.SetGlobalBuffer((__gm__ uint64_t*)shape_out, 9);
    uint64_t kept = 0;
    for (uint32_t i = 0; i < td.totalLength; ++i) {
        const float v = xGm.GetValue(i);
        if (v > 0.0f) {
            yGm.SetValue(kept, v);
            ++kept;
        }
    }
    shapeGm.SetValue(0, 1);
    shapeGm.SetValue(1, kept);
}
