// Kernel of MatmulReluCustom (baseline): c = relu(a x b + bias). The Matmul API writes the block's
// product to GM (IterateAll), then a separate vector pass reads it back row by row, applies
// ReLU and writes it again.
#include "kernel_operator.h"
#include "lib/matmul_intf.h"

using namespace AscendC;

extern "C" __global__ __aicore__ void matmul_relu_custom(GM_ADDR a, GM_ADDR b, GM_ADDR bias, GM_ADDR c,
                                                         GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(tilingData, tiling);
    const TCubeTiling& t = tilingData.cubeTilingData;
    const int32_t blockIdx = static_cast<int32_t>(GetBlockIdx());
    if (blockIdx >= t.usedCoreNum) {
        return;
    }
    const int32_t mDim = (t.M + t.singleCoreM - 1) / t.singleCoreM;
    const int32_t m0 = (blockIdx % mDim) * t.singleCoreM;
    const int32_t n0 = (blockIdx / mDim) * t.singleCoreN;
    const int32_t tailM = (t.M - m0) < t.singleCoreM ? (t.M - m0) : t.singleCoreM;
    const int32_t tailN = (t.N - n0) < t.singleCoreN ? (t.N - n0) : t.singleCoreN;

    GlobalTensor<half> aGm;
    GlobalTensor<half> bGm;
    GlobalTensor<float> biasGm;
    GlobalTensor<float> cGm;
    aGm.SetGlobalBuffer(reinterpret_cast<__gm__ half*>(a));
    bGm.SetGlobalBuffer(reinterpret_cast<__gm__ half*>(b));
    biasGm.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(bias));
    cGm.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(c));

    using A_T = MatmulType<TPosition::GM, CubeFormat::ND, half>;
    using C_T = MatmulType<TPosition::GM, CubeFormat::ND, float>;
    TPipe pipe;
    Matmul<A_T, A_T, C_T, C_T, CFG_NORM> mm;
    REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, &t);
    mm.SetTensorA(aGm[static_cast<uint64_t>(m0) * t.Ka]);
    mm.SetTensorB(bGm[n0]);
    mm.SetBias(biasGm[n0]);
    mm.SetTail(tailM, tailN);
    mm.IterateAll(cGm[static_cast<uint64_t>(m0) * t.N + n0]);
    mm.End();

    // The activation pass: one row of this block's piece at a time.
    TQue<TPosition::VECIN, 1> inQueue;
    TQue<TPosition::VECOUT, 1> outQueue;
    const uint32_t rowBytes = static_cast<uint32_t>(tailN) * sizeof(float);
    const uint32_t rowAligned = (rowBytes + 31) / 32 * 32;
    pipe.InitBuffer(inQueue, 1, rowAligned);
    pipe.InitBuffer(outQueue, 1, rowAligned);
    for (int32_t i = 0; i < tailM; ++i) {
        const uint64_t off = static_cast<uint64_t>(m0 + i) * t.N + n0;
        LocalTensor<float> x = inQueue.AllocTensor<float>();
        DataCopyExtParams copyIn{1, rowBytes, 0, 0, 0};
        DataCopyPadExtParams<float> pad{false, 0, 0, 0.0f};
        DataCopyPad(x, cGm[off], copyIn, pad);
        inQueue.EnQue(x);
        x = inQueue.DeQue<float>();
        LocalTensor<float> y = outQueue.AllocTensor<float>();
        Relu(y, x, static_cast<int32_t>(rowAligned / sizeof(float)));
        inQueue.FreeTensor(x);
        outQueue.EnQue(y);
        y = outQueue.DeQue<float>();
        DataCopyExtParams copyOut{1, rowBytes, 0, 0, 0};
        DataCopyPad(cGm[off], y, copyOut);
        outQueue.FreeTensor(y);
    }
}
