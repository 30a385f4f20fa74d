// Fixture: a DataCopy out of 40 float16 (80 bytes, not a multiple of 32): the chip moves 64
// bytes and drops the last 16 without an error; so does the emulator, with a warning. The
// copy-in rounds up to 48 elements (16 bytes of the input's padding). y = x - x/2.
#include "kernel_operator.h"
using namespace AscendC;

extern "C" __global__ __aicore__ void unaligned_copy(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(td, tiling);
    const uint32_t n = td.totalLength;
    const uint32_t padded = (n + 15) / 16 * 16;
    GlobalTensor<half> xGm, yGm;
    xGm.SetGlobalBuffer((__gm__ half *)x, padded);
    yGm.SetGlobalBuffer((__gm__ half *)y, n);
    TPipe pipe;
    TQue<QuePosition::VECIN, 1> inQ;
    TQue<QuePosition::VECOUT, 1> outQ;
    pipe.InitBuffer(inQ, 1, padded * sizeof(half));
    pipe.InitBuffer(outQ, 1, padded * sizeof(half));
    LocalTensor<half> in = inQ.AllocTensor<half>();
    DataCopy(in, xGm, padded);
    inQ.EnQue(in);
    in = inQ.DeQue<half>();
    LocalTensor<half> out = outQ.AllocTensor<half>();
    Muls(out, in, (half)0.5, padded);
    outQ.EnQue(out);
    inQ.FreeTensor(in);
    out = outQ.DeQue<half>();
    DataCopy(yGm, out, n);
    outQ.FreeTensor(out);
}
