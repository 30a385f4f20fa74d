// Fixture: 13 float16 (26 bytes) moved as one 32-byte block each way: the copy-in reads 6
// bytes of the input's allocation padding and the copy-out writes into the output's, as
// kernels do on the chip (device allocations are padded). y = 2x.
#include "kernel_operator.h"
using namespace AscendC;

extern "C" __global__ __aicore__ void pad_overread(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(td, tiling);
    constexpr uint32_t blockElems = 32 / sizeof(half);
    const uint32_t n = (td.totalLength + blockElems - 1) / blockElems * blockElems;
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
