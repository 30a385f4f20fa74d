// Fixture: a kernel whose result depends on the contents of the input's allocation padding:
// it sums a whole 32-byte block of a 13-element float16 input (3 elements past the end). On
// the chip the padding holds whatever was there; sim fills it with junk (NaN), so the output
// check must fail. y = x, y[0] = the sum.
#include "kernel_operator.h"
using namespace AscendC;

extern "C" __global__ __aicore__ void pad_junk(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(td, tiling);
    constexpr uint32_t block = 16;
    GlobalTensor<half> xGm, yGm;
    xGm.SetGlobalBuffer((__gm__ half *)x, block);
    yGm.SetGlobalBuffer((__gm__ half *)y, block);
    TPipe pipe;
    TQue<QuePosition::VECIN, 1> inQ;
    pipe.InitBuffer(inQ, 1, block * sizeof(half));
    LocalTensor<half> in = inQ.AllocTensor<half>();
    DataCopy(in, xGm, block);
    inQ.EnQue(in);
    in = inQ.DeQue<half>();
    float sum = 0;
    for (uint32_t i = 0; i < block; ++i) {
        sum += static_cast<float>(in.GetValue(i));
    }
    in.SetValue(0, static_cast<half>(sum));
    (void)td;
    SetFlag<HardEvent::S_MTE3>(EVENT_ID0);
    WaitFlag<HardEvent::S_MTE3>(EVENT_ID0);
    DataCopy(yGm, in, block);
    inQ.FreeTensor(in);
}
