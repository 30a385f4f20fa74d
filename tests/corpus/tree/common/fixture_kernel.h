// Kernel side shared by the corpus fixtures (tests/corpus): one tile through UB. Copies `in`
// elements of x in, runs `compute(out, in, count)` over them, copies `out` elements to y.
#pragma once
#include "kernel_operator.h"

template <typename T, typename F>
__aicore__ inline void FixtureUnary(GM_ADDR x, GM_ADDR y, uint32_t in, uint32_t out, F compute)
{
    AscendC::GlobalTensor<T> xGm, yGm;
    xGm.SetGlobalBuffer((__gm__ T *)x, in);
    yGm.SetGlobalBuffer((__gm__ T *)y, out);
    AscendC::TPipe pipe;
    AscendC::TQue<AscendC::QuePosition::VECIN, 1> inQ;
    AscendC::TQue<AscendC::QuePosition::VECOUT, 1> outQ;
    pipe.InitBuffer(inQ, 1, in * sizeof(T));
    pipe.InitBuffer(outQ, 1, in * sizeof(T));
    AscendC::LocalTensor<T> src = inQ.template AllocTensor<T>();
    AscendC::DataCopy(src, xGm, in);
    inQ.EnQue(src);
    src = inQ.template DeQue<T>();
    AscendC::LocalTensor<T> dst = outQ.template AllocTensor<T>();
    compute(dst, src, in);
    outQ.EnQue(dst);
    inQ.FreeTensor(src);
    dst = outQ.template DeQue<T>();
    AscendC::DataCopy(yGm, dst, out);
    outQ.FreeTensor(dst);
}
