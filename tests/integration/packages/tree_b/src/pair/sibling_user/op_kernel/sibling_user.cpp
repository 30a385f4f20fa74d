// Fixture SiblingUser (tree_b): y = x + x in chunks through one UB buffer.
#include "kernel_operator.h"

extern "C" __global__ __aicore__ void sibling_user(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(td, tiling);
    AscendC::TPipe pipe;
    AscendC::TBuf<AscendC::TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, td.chunk * sizeof(float));
    AscendC::LocalTensor<float> t = buf.Get<float>();
    AscendC::GlobalTensor<float> src;
    AscendC::GlobalTensor<float> dst;
    src.SetGlobalBuffer((__gm__ float*)x, td.elements);
    dst.SetGlobalBuffer((__gm__ float*)y, td.elements);
    uint32_t at = 0;
    while (at < td.elements) {
        const uint32_t n = td.elements - at > td.chunk ? td.chunk : td.elements - at;
        const AscendC::DataCopyExtParams one{1, static_cast<uint32_t>(n * sizeof(float)), 0, 0, 0};
        AscendC::DataCopyPad(t, src[at], one, AscendC::DataCopyPadExtParams<float>{false, 0, 0, 0});
        AscendC::PipeBarrier<PIPE_ALL>();
        AscendC::Add(t, t, t, n);
        AscendC::PipeBarrier<PIPE_ALL>();
        AscendC::DataCopyPad(dst[at], t, one);
        AscendC::PipeBarrier<PIPE_ALL>();
        at += n;
    }
}
