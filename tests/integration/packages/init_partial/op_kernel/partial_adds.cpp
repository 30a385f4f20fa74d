// Kernel of PartialAdds: y = x + 1 over each core's share in tiles; a core at or past the tiling's
// writingCores returns at once (the fixture's mishandled shapes).
#include "kernel_operator.h"

using namespace AscendC;

extern "C" __global__ __aicore__ void partial_adds(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(t, tiling);
    const uint32_t core = GetBlockIdx();
    if (core >= t.writingCores) {
        return;
    }
    const uint32_t start = core * t.perCore;
    if (start >= t.totalLength) {
        return;
    }
    const uint32_t mine = (t.totalLength - start < t.perCore) ? t.totalLength - start : t.perCore;
    GlobalTensor<float> xGm, yGm;
    xGm.SetGlobalBuffer((__gm__ float*)x + start, mine);
    yGm.SetGlobalBuffer((__gm__ float*)y + start, mine);
    TPipe pipe;
    TBuf<TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, t.tileLength * sizeof(float));
    LocalTensor<float> v = buf.Get<float>();
    for (uint32_t off = 0; off < mine; off += t.tileLength) {
        const uint32_t n = (mine - off < t.tileLength) ? mine - off : t.tileLength;
        DataCopyExtParams cp{1, static_cast<uint32_t>(n * sizeof(float)), 0, 0, 0};
        DataCopyPadExtParams<float> pad;
        DataCopyPad(v, xGm[off], cp, pad);
        PipeBarrier<PIPE_ALL>();
        Adds(v, v, 1.0f, n);
        PipeBarrier<PIPE_ALL>();
        DataCopyPad(yGm[off], v, cp);
        PipeBarrier<PIPE_ALL>();
    }
}
