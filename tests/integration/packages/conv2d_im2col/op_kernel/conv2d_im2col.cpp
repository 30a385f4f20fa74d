// Kernel of Conv2dIm2col: per image, the feature map into L1 (A1) as it is (C1HWC0), the
// weights as the Cout x K matrix (K = C1 * KH * KW * 16, in im2col's column order) through Nd2Nz
// into L1 (B1) and LoadData 2D into L0B (B2: its Nz fractals are B's Zn ones); then per baseM
// output positions: LoadData 3D v2 (im2col, "same" padding) into L0A (A2), Mmad into L0C (CO1),
// Fixpipe NZ2ND to y.
#include "kernel_operator.h"

using namespace AscendC;

extern "C" __global__ __aicore__ void conv2d_im2col(GM_ADDR x, GM_ADDR w, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(t, tiling);
    const uint32_t img = GetBlockIdx();
    if (img >= t.n) {
        return;
    }
    const uint32_t hw = t.h * t.w;
    const uint32_t k = t.c1 * t.kh * t.kw * 16;
    const uint32_t fmElems = t.c1 * hw * 16;
    GlobalTensor<half> xGm;
    GlobalTensor<half> wGm;
    GlobalTensor<float> yGm;
    xGm.SetGlobalBuffer(reinterpret_cast<__gm__ half*>(x) + static_cast<uint64_t>(img) * fmElems, fmElems);
    wGm.SetGlobalBuffer(reinterpret_cast<__gm__ half*>(w), static_cast<uint64_t>(t.cout) * k);
    yGm.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(y) + static_cast<uint64_t>(img) * hw * t.cout,
                        static_cast<uint64_t>(hw) * t.cout);

    TPipe pipe;
    TQue<TPosition::A1, 1> qa1;
    TQue<TPosition::B1, 1> qb1;
    TQue<TPosition::A2, 1> qa2;
    TQue<TPosition::B2, 1> qb2;
    TQue<TPosition::CO1, 1> qc;
    pipe.InitBuffer(qa1, 1, fmElems * sizeof(half));
    pipe.InitBuffer(qb1, 1, k * t.cout * sizeof(half));
    pipe.InitBuffer(qa2, 1, t.baseM * k * sizeof(half));
    pipe.InitBuffer(qb2, 1, k * t.cout * sizeof(half));
    pipe.InitBuffer(qc, 1, t.baseM * t.cout * sizeof(float));

    LocalTensor<half> a1 = qa1.AllocTensor<half>();
    DataCopy(a1, xGm, fmElems);
    qa1.EnQue(a1);
    LocalTensor<half> b1 = qb1.AllocTensor<half>();
    DataCopy(b1, wGm, Nd2NzParams(1, static_cast<uint16_t>(t.cout), static_cast<uint16_t>(k), 0,
                                  static_cast<uint16_t>(k), static_cast<uint16_t>(t.cout), 1, 0));
    qb1.EnQue(b1);
    b1 = qb1.DeQue<half>();
    LocalTensor<half> b2 = qb2.AllocTensor<half>();
    LoadData(b2, b1, LoadData2DParams(0, static_cast<uint8_t>(k / 16 * (t.cout / 16)), 1, 0, 0, false, 0));
    qb2.EnQue(b2);
    b2 = qb2.DeQue<half>();
    a1 = qa1.DeQue<half>();

    LoadData3DParamsV2<half> im2col;
    im2col.l1H = static_cast<uint16_t>(t.h);
    im2col.l1W = static_cast<uint16_t>(t.w);
    im2col.padList[0] = static_cast<uint8_t>(t.kw / 2);
    im2col.padList[1] = static_cast<uint8_t>(t.kw / 2);
    im2col.padList[2] = static_cast<uint8_t>(t.kh / 2);
    im2col.padList[3] = static_cast<uint8_t>(t.kh / 2);
    im2col.channelSize = static_cast<uint16_t>(t.c1 * 16);
    im2col.filterW = static_cast<uint8_t>(t.kw);
    im2col.filterH = static_cast<uint8_t>(t.kh);
    im2col.kStartPt = 0;
    im2col.kExtension = static_cast<uint16_t>(k);
    for (uint32_t m0 = 0; m0 < hw; m0 += t.baseM) {
        const uint32_t rows = hw - m0 < t.baseM ? hw - m0 : t.baseM;
        const uint32_t rows16 = (rows + 15) / 16 * 16;
        LocalTensor<half> a2 = qa2.AllocTensor<half>();
        im2col.mStartPt = static_cast<uint16_t>(m0);
        im2col.mExtension = static_cast<uint16_t>(rows16);
        LoadData(a2, a1, im2col);
        qa2.EnQue(a2);
        a2 = qa2.DeQue<half>();
        LocalTensor<float> c1 = qc.AllocTensor<float>();
        MmadParams mm;
        mm.m = static_cast<uint16_t>(rows);
        mm.n = static_cast<uint16_t>(t.cout);
        mm.k = static_cast<uint16_t>(k);
        Mmad(c1, a2, b2, mm);
        qa2.FreeTensor(a2);
        qc.EnQue(c1);
        c1 = qc.DeQue<float>();
        FixpipeParamsV220 fp(static_cast<uint16_t>(t.cout), static_cast<uint16_t>(rows), static_cast<uint16_t>(rows16),
                             t.cout, false);
        Fixpipe<float, float, CFG_ROW_MAJOR>(yGm[static_cast<uint64_t>(m0) * t.cout], c1, fp);
        qc.FreeTensor(c1);
    }
    qa1.FreeTensor(a1);
    qb1.FreeTensor(b1);
    qb2.FreeTensor(b2);
}
