// Fixture PrivateScale: y = 2 x over every element of the NDC1HWC0 storage, in tiles.
#include "kernel_operator.h"

extern "C" __global__ __aicore__ void private_scale(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(td, tiling);
    AscendC::TPipe pipe;
    AscendC::TQue<AscendC::TPosition::VECIN, 1> inQ;
    AscendC::TQue<AscendC::TPosition::VECOUT, 1> outQ;
    pipe.InitBuffer(inQ, 1, td.tileLength * sizeof(half));
    pipe.InitBuffer(outQ, 1, td.tileLength * sizeof(half));
    AscendC::GlobalTensor<half> xGm;
    AscendC::GlobalTensor<half> yGm;
    xGm.SetGlobalBuffer((__gm__ half*)x, td.totalLength);
    yGm.SetGlobalBuffer((__gm__ half*)y, td.totalLength);
    for (uint32_t done = 0; done < td.totalLength; done += td.tileLength) {
        const uint32_t count = td.totalLength - done < td.tileLength ? td.totalLength - done : td.tileLength;
        AscendC::DataCopyExtParams params{1, static_cast<uint32_t>(count * sizeof(half)), 0, 0, 0};
        AscendC::LocalTensor<half> in = inQ.AllocTensor<half>();
        AscendC::DataCopyPad(in, xGm[done], params, AscendC::DataCopyPadExtParams<half>{false, 0, 0, 0});
        inQ.EnQue(in);
        in = inQ.DeQue<half>();
        AscendC::LocalTensor<half> out = outQ.AllocTensor<half>();
        AscendC::Muls(out, in, static_cast<half>(2.0f), count);
        outQ.EnQue(out);
        inQ.FreeTensor(in);
        out = outQ.DeQue<half>();
        AscendC::DataCopyPad(yGm[done], out, params);
        outQ.FreeTensor(out);
    }
}
