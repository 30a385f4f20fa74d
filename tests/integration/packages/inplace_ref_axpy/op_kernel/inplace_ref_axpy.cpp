// Fixture InplaceRefAxpy (tests/integration): y += alpha * x, tile by tile. The input y is read
// as DTYPE_Y, the result written with the output's type, DTYPE_Y_REF, through the input's
// address `y`: a Ref parameter is one tensor, y_ref the same memory (as math/eye_fp64 does).
#include "kernel_operator.h"

extern "C" __global__ __aicore__ void inplace_ref_axpy(GM_ADDR x, GM_ADDR y, GM_ADDR y_ref, GM_ADDR workspace,
                                                       GM_ADDR tiling)
{
    GET_TILING_DATA(td, tiling);
    AscendC::GlobalTensor<DTYPE_X> xGm;
    AscendC::GlobalTensor<DTYPE_Y> yGm;
    AscendC::GlobalTensor<DTYPE_Y_REF> outGm;
    xGm.SetGlobalBuffer((__gm__ DTYPE_X *)x, td.totalLength);
    yGm.SetGlobalBuffer((__gm__ DTYPE_Y *)y, td.totalLength);
    outGm.SetGlobalBuffer((__gm__ DTYPE_Y_REF *)y, td.totalLength);
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
        AscendC::Muls(ol, xl, td.alpha, n);
        AscendC::Add(ol, yl, ol, n);
        out.EnQue(ol);
        inX.FreeTensor(xl);
        inY.FreeTensor(yl);
        ol = out.DeQue<float>();
        AscendC::DataCopy(outGm[at], ol, n);
        out.FreeTensor(ol);
    }
}
