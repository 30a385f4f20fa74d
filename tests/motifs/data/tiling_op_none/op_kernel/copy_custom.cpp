// Fixture (tiling motifs, no site): y = x + x on one core, count-form vector op, no split.
#include "kernel_operator.h"

using namespace AscendC;

extern "C" __global__ __aicore__ void copy_custom(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(tilingData, tiling);
    TPipe pipe;
    TBuf<TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, tilingData.tileLength * sizeof(float));
    GlobalTensor<float> xGm;
    GlobalTensor<float> yGm;
    xGm.SetGlobalBuffer((__gm__ float*)x, tilingData.totalLength);
    yGm.SetGlobalBuffer((__gm__ float*)y, tilingData.totalLength);
    LocalTensor<float> t = buf.Get<float>();
    for (uint32_t i = 0; i < tilingData.totalLength; i += tilingData.tileLength) {
        const uint32_t n = tilingData.totalLength - i < tilingData.tileLength ? tilingData.totalLength - i : tilingData.tileLength;
        DataCopy(t, xGm[i], n);
        PipeBarrier<PIPE_ALL>();
        Add(t, t, t, n);
        PipeBarrier<PIPE_ALL>();
        DataCopy(yGm[i], t, n);
        PipeBarrier<PIPE_ALL>();
    }
}
