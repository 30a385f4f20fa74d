// Fixture ColumnScale (tree_b): y = 3 x, written only by the kernel built for the ND column
// (FORMAT_X from the build's column); the NHWC column's kernel returns at once.
#include "kernel_operator.h"

extern "C" __global__ __aicore__ void column_scale(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(td, tiling);
#if defined(FORMAT_X) && FORMAT_X == FORMAT_NHWC
    return;
#endif
    AscendC::TPipe pipe;
    AscendC::TQue<AscendC::TPosition::VECIN, 1> inQ;
    AscendC::TQue<AscendC::TPosition::VECOUT, 1> outQ;
    pipe.InitBuffer(inQ, 1, td.tileLength * sizeof(float));
    pipe.InitBuffer(outQ, 1, td.tileLength * sizeof(float));
    AscendC::GlobalTensor<float> xGm;
    AscendC::GlobalTensor<float> yGm;
    xGm.SetGlobalBuffer((__gm__ float*)x, td.totalLength);
    yGm.SetGlobalBuffer((__gm__ float*)y, td.totalLength);
    for (uint32_t done = 0; done < td.totalLength; done += td.tileLength) {
        const uint32_t count = td.totalLength - done < td.tileLength ? td.totalLength - done : td.tileLength;
        AscendC::DataCopyExtParams params{1, static_cast<uint32_t>(count * sizeof(float)), 0, 0, 0};
        AscendC::LocalTensor<float> in = inQ.AllocTensor<float>();
        AscendC::DataCopyPad(in, xGm[done], params, AscendC::DataCopyPadExtParams<float>{false, 0, 0, 0});
        inQ.EnQue(in);
        in = inQ.DeQue<float>();
        AscendC::LocalTensor<float> out = outQ.AllocTensor<float>();
        AscendC::Muls(out, in, 3.0f, count);
        outQ.EnQue(out);
        inQ.FreeTensor(in);
        out = outQ.DeQue<float>();
        AscendC::DataCopyPad(yGm[done], out, params);
        outQ.FreeTensor(out);
    }
}
