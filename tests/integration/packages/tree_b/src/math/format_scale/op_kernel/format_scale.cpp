// Fixture FormatScale (tree_b): y = 3 x, its code chosen by the parameters' formats in the
// preprocessor, the tree's matmul idiom (mat_mul_v3, gemm_v2, batch_mat_mul_v3): the kernel
// defines FORMAT_FRACTAL_NZ empty when the build has not, and compares
// `#if defined(FORMAT_X) && FORMAT_X == FORMAT_FRACTAL_NZ`. The OpDef gives x ND and y FRACTAL_NZ:
// only those branches compile. A format name is also an `int` template argument (conv3d's idiom).
#include "kernel_operator.h"

#ifndef FORMAT_FRACTAL_NZ
#define FORMAT_FRACTAL_NZ
#endif

#if defined(FORMAT_X) && FORMAT_X == FORMAT_FRACTAL_NZ
#error "FORMAT_X is ND: FORMAT_FRACTAL_NZ must not match"
#elif defined(FORMAT_X) && FORMAT_X == FORMAT_ND
constexpr float kScale = 3.0f;
#else
#error "FORMAT_X matched no FORMAT_* name"
#endif

#if defined(FORMAT_Y) && FORMAT_Y == FORMAT_FRACTAL_NZ
constexpr int kYFormat = FORMAT_Y;
#else
#error "FORMAT_Y is FRACTAL_NZ in the OpDef"
#endif

template <int xFormat, int yFormat>
__aicore__ inline float ScaleOf()
{
    static_assert(xFormat == FORMAT_ND && yFormat != FORMAT_NCDHW, "formats as the OpDef gives them");
    return kScale;
}

extern "C" __global__ __aicore__ void format_scale(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(td, tiling);
    const float scale = ScaleOf<FORMAT_X, kYFormat>();
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
        AscendC::Muls(out, in, scale, count);
        outQ.EnQue(out);
        inQ.FreeTensor(in);
        out = outQ.DeQue<float>();
        AscendC::DataCopyPad(yGm[done], out, params);
        outQ.FreeTensor(out);
    }
}
