// Kernel helper shared by the fixture tree's scale operators: y = factor * x on one core.
#pragma once
#include "kernel_operator.h"

template <typename T>
__aicore__ inline void FixtureScale(GM_ADDR x, GM_ADDR y, uint32_t total, float factor)
{
    AscendC::GlobalTensor<T> xGm;
    AscendC::GlobalTensor<T> yGm;
    xGm.SetGlobalBuffer((__gm__ T *)x, total);
    yGm.SetGlobalBuffer((__gm__ T *)y, total);
    AscendC::TPipe pipe;
    AscendC::TBuf<AscendC::TPosition::VECCALC> buf;
    const uint32_t bytes = (total * sizeof(T) + 31) / 32 * 32;
    pipe.InitBuffer(buf, bytes);
    AscendC::LocalTensor<T> t = buf.Get<T>();
    AscendC::DataCopy(t, xGm, bytes / sizeof(T));
    AscendC::PipeBarrier<PIPE_ALL>();
    AscendC::Muls(t, t, (T)factor, total);
    AscendC::PipeBarrier<PIPE_ALL>();
    AscendC::DataCopy(yGm, t, bytes / sizeof(T));
}
