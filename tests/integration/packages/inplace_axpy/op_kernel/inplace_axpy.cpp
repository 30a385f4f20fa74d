// Fixture InplaceAxpy (tests/integration): x += alpha * y, tile by tile, written back into x.
#include "kernel_operator.h"

extern "C" __global__ __aicore__ void inplace_axpy(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(td, tiling);
    AscendC::GlobalTensor<float> xGm;
    AscendC::GlobalTensor<float> yGm;
    xGm.SetGlobalBuffer((__gm__ float *)x, td.totalLength);
    yGm.SetGlobalBuffer((__gm__ float *)y, td.totalLength);
    AscendC::TPipe pipe;
    AscendC::TQue<AscendC::TPosition::VECIN, 1> inX, inY;
    AscendC::TQue<AscendC::TPosition::VECOUT, 1> out;
    pipe.InitBuffer(inX, 1, td.tileLength * sizeof(float));
    pipe.InitBuffer(inY, 1, td.tileLength * sizeof(float));
    pipe.InitBuffer(out, 1, td.tileLength * sizeof(float));
    for (uint32_t at = 0; at < td.totalLength; at += td.tileLength) {
        const uint32_t n = td.totalLength - at < td.tileLength ? td.totalLength - at : td.tileLength;
        AscendC::LocalTensor<float> xl = inX.AllocTensor<float>();
        AscendC::LocalTensor<float> yl = inY.AllocTensor<float>();
        AscendC::DataCopy(xl, xGm[at], n);
        AscendC::DataCopy(yl, yGm[at], n);
        inX.EnQue(xl);
        inY.EnQue(yl);
        xl = inX.DeQue<float>();
        yl = inY.DeQue<float>();
        AscendC::LocalTensor<float> ol = out.AllocTensor<float>();
        AscendC::Muls(ol, yl, td.alpha, n);
        AscendC::Add(ol, xl, ol, n);
        out.EnQue(ol);
        inX.FreeTensor(xl);
        inY.FreeTensor(yl);
        ol = out.DeQue<float>();
        AscendC::DataCopy(xGm[at], ol, n);
        out.FreeTensor(ol);
    }
}
