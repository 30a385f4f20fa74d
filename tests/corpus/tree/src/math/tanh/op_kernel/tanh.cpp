// Fixture: a kernel named like a C math function (`tanh`), as real operators are; it must
// compile and run as on the chip, where no libm is in scope. y = 2x.
#include "kernel_operator.h"
using namespace AscendC;

extern "C" __global__ __aicore__ void tanh(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(td, tiling);
    const uint32_t n = td.totalLength;
    GlobalTensor<half> xGm, yGm;
    xGm.SetGlobalBuffer((__gm__ half *)x, n);
    yGm.SetGlobalBuffer((__gm__ half *)y, n);
    TPipe pipe;
    TQue<QuePosition::VECIN, 1> inQ;
    TQue<QuePosition::VECOUT, 1> outQ;
    pipe.InitBuffer(inQ, 1, n * sizeof(half));
    pipe.InitBuffer(outQ, 1, n * sizeof(half));
    LocalTensor<half> in = inQ.AllocTensor<half>();
    DataCopy(in, xGm, n);
    inQ.EnQue(in);
    in = inQ.DeQue<half>();
    LocalTensor<half> out = outQ.AllocTensor<half>();
    Muls(out, in, (half)2.0, n);
    outQ.EnQue(out);
    inQ.FreeTensor(in);
    out = outQ.DeQue<half>();
    DataCopy(yGm, out, n);
    outQ.FreeTensor(out);
}
