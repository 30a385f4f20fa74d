// Fixture OrigDtypeScale (tree_b): y = 2 x, its code chosen by x's dtype in the preprocessor
// (`#if ORIG_DTYPE_X == DT_BF16`, the tree's idiom) and compared in code with an unqualified
// DT_* name (`if (ORIG_DTYPE_X == DT_INT4)`). x is float32: only the DT_FLOAT branch compiles.
#include "kernel_operator.h"

#if ORIG_DTYPE_X == DT_BF16
#error "ORIG_DTYPE_X is float32: DT_BF16 must not match"
#elif ORIG_DTYPE_X == DT_FLOAT16
#error "ORIG_DTYPE_X is float32: DT_FLOAT16 must not match"
#elif defined(DT_FLOAT) && ORIG_DTYPE_X == DT_FLOAT
constexpr float kScale = 2.0f;
#else
#error "ORIG_DTYPE_X matched no DT_* name"
#endif

extern "C" __global__ __aicore__ void orig_dtype_scale(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    if (ORIG_DTYPE_X == DT_INT4) {
        return;
    }
    GET_TILING_DATA(td, tiling);
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
        AscendC::Muls(out, in, kScale, count);
        outQ.EnQue(out);
        inQ.FreeTensor(in);
        out = outQ.DeQue<float>();
        AscendC::DataCopyPad(yGm[done], out, params);
        outQ.FreeTensor(out);
    }
}
