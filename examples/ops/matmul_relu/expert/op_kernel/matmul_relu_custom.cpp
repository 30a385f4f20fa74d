// Kernel of MatmulReluCustom (expert): c = relu(a x b + bias) with a fused epilogue. Each
// baseM x baseN block of the product comes to UB (Iterate + GetTensorC), ReLU runs on it there and
// one strided copy writes the block to its place in c; a double-buffered bound queue overlaps the
// copy-out of one block with the next. MDL config (several K steps per copy into L1).
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
    using C_T = MatmulType<TPosition::VECIN, CubeFormat::ND, float>;
    using BIAS_T = MatmulType<TPosition::GM, CubeFormat::ND, float>;
    TPipe pipe;
    Matmul<A_T, A_T, C_T, BIAS_T, CFG_MDL> mm;
    REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, &t);
    mm.SetTensorA(aGm[static_cast<uint64_t>(m0) * t.Ka]);
    mm.SetTensorB(bGm[n0]);
    mm.SetBias(biasGm[n0]);
    mm.SetTail(tailM, tailN);

    const uint32_t blockElems = static_cast<uint32_t>(t.baseM) * static_cast<uint32_t>(t.baseN);
    // One bound queue (VECIN -> VECOUT) of two slots: the block is computed into a slot, ReLU
    // runs in place, the copy-out leaves from the same slot while the next block fills the other.
    TQueBind<TPosition::VECIN, TPosition::VECOUT, 2> cQueue;
    pipe.InitBuffer(cQueue, 2, blockElems * sizeof(float));
    const int32_t mIter = (tailM + t.baseM - 1) / t.baseM;
    int32_t k = 0;
    while (mm.Iterate()) {
        // iterateOrder 0: along M first.
        const int32_t bm0 = (k % mIter) * t.baseM;
        const int32_t bn0 = (k / mIter) * t.baseN;
        const int32_t rows = (tailM - bm0) < t.baseM ? (tailM - bm0) : t.baseM;
        const int32_t cols = (tailN - bn0) < t.baseN ? (tailN - bn0) : t.baseN;
        LocalTensor<float> cl = cQueue.AllocTensor<float>();
        mm.GetTensorC(cl);
        cQueue.EnQue(cl);
        cl = cQueue.DeQue<float>();
        Relu(cl, cl, static_cast<int32_t>(static_cast<uint32_t>(rows) * static_cast<uint32_t>(t.baseN)));
        cQueue.EnQue(cl);
        cl = cQueue.DeQue<float>();
        const uint32_t rowBytes = static_cast<uint32_t>(cols) * sizeof(float);
        const uint32_t rowAligned = (rowBytes + 31) / 32 * 32;
        DataCopyExtParams copyOut{static_cast<uint16_t>(rows), rowBytes,
                                  (static_cast<uint32_t>(t.baseN) * sizeof(float) - rowAligned) / 32,
                                  static_cast<uint32_t>(t.N - cols) * sizeof(float), 0};
        DataCopyPad(cGm[static_cast<uint64_t>(m0 + bm0) * t.N + n0 + bn0], cl, copyOut);
        cQueue.FreeTensor(cl);
        ++k;
    }
    mm.End();
}
