// Kernel of SoftmaxGradRows: each core takes its rows in tiles of rowsPerTile, copies grad and y
// in, computes dx with SoftmaxGrad (the tiling's shape for a whole tile, SoftMaxShapeInfo for the
// last one) and copies it out.
#include "kernel_operator.h"

using namespace AscendC;

extern "C" __global__ __aicore__ void softmax_grad_rows(GM_ADDR grad, GM_ADDR y, GM_ADDR dx, GM_ADDR workspace,
                                                        GM_ADDR tiling)
{
    GET_TILING_DATA(t, tiling);
    const uint32_t blockIdx = GetBlockIdx();
    const uint32_t k = t.rowLength;
    const uint32_t myRows = t.rowsPerCore + (blockIdx < t.bigCoreNum ? 1 : 0);
    const uint32_t firstRow = blockIdx * t.rowsPerCore + (blockIdx < t.bigCoreNum ? blockIdx : t.bigCoreNum);

    GlobalTensor<float> gGm;
    GlobalTensor<float> yGm;
    GlobalTensor<float> dxGm;
    gGm.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(grad) + static_cast<uint64_t>(firstRow) * k);
    yGm.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(y) + static_cast<uint64_t>(firstRow) * k);
    dxGm.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(dx) + static_cast<uint64_t>(firstRow) * k);

    TPipe pipe;
    TQue<TPosition::VECIN, 1> gQue;
    TQue<TPosition::VECIN, 1> yQue;
    TQue<TPosition::VECOUT, 1> outQue;
    TBuf<TPosition::VECCALC> tmpBuf;
    const uint32_t tileBytes = t.rowsPerTile * k * sizeof(float);
    pipe.InitBuffer(gQue, 1, tileBytes);
    pipe.InitBuffer(yQue, 1, tileBytes);
    pipe.InitBuffer(outQue, 1, tileBytes);
    pipe.InitBuffer(tmpBuf, t.tmpBytes);
    for (uint32_t r = 0; r < myRows; r += t.rowsPerTile) {
        const uint32_t rows = (myRows - r) < t.rowsPerTile ? (myRows - r) : t.rowsPerTile;
        const uint32_t n = rows * k;
        LocalTensor<float> g = gQue.AllocTensor<float>();
        LocalTensor<float> yl = yQue.AllocTensor<float>();
        DataCopy(g, gGm[static_cast<uint64_t>(r) * k], n);
        DataCopy(yl, yGm[static_cast<uint64_t>(r) * k], n);
        gQue.EnQue(g);
        yQue.EnQue(yl);
        g = gQue.DeQue<float>();
        yl = yQue.DeQue<float>();
        LocalTensor<float> out = outQue.AllocTensor<float>();
        if (rows == t.rowsPerTile) {
            SoftmaxGrad<float>(out, g, yl, tmpBuf.Get<uint8_t>(), t.gradTiling);
        } else {
            SoftMaxShapeInfo shape = {rows, k, rows, k};
            SoftmaxGrad<float, false>(out, g, yl, t.gradTiling, false, shape);
        }
        gQue.FreeTensor(g);
        yQue.FreeTensor(yl);
        outQue.EnQue(out);
        out = outQue.DeQue<float>();
        DataCopy(dxGm[static_cast<uint64_t>(r) * k], out, n);
        outQue.FreeTensor(out);
    }
}
