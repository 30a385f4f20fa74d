// Kernel of MatmulReluCustom as a mixed AIC/AIV kernel (issue 38 fixture): c = relu(a x b + bias).
// Each AI Core's AIC computes its single-core tile block by block (Iterate + GetTensorC into the
// workspace, at the block's place in an M x N matrix) and tells its two AIVs (CrossCoreSetFlag
// mode 2, flag 1); each AIV waits for the block, takes half of its rows through UB, applies ReLU
// and writes them to c, then tells the AIC (mode 2, flag 2) so it never runs more than 8 blocks
// ahead (each flag counter holds 15). The AIVs' vector work overlaps the AIC's next blocks.
#include "kernel_operator.h"
#include "lib/matmul_intf.h"

using namespace AscendC;

namespace {
constexpr int32_t AHEAD = 8;
constexpr uint16_t BLOCK_READY = 1;
constexpr uint16_t BLOCK_DONE = 2;
}  // namespace

extern "C" __global__ __aicore__ void matmul_relu_custom(GM_ADDR a, GM_ADDR b, GM_ADDR bias, GM_ADDR c,
                                                         GM_ADDR workspace, GM_ADDR tiling)
{
    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_MIX_AIC_1_2);
    GET_TILING_DATA(tilingData, tiling);
    const TCubeTiling& t = tilingData.cubeTilingData;
    // The AI Core this core belongs to: an AIV's block index counts the AIVs (two per AI Core).
    const int32_t core = static_cast<int32_t>(ASCEND_IS_AIC ? GetBlockIdx() : GetBlockIdx() / GetTaskRation());
    if (core >= t.usedCoreNum) {
        return;
    }
    const int32_t mDim = (t.M + t.singleCoreM - 1) / t.singleCoreM;
    const int32_t m0 = (core % mDim) * t.singleCoreM;
    const int32_t n0 = (core / mDim) * t.singleCoreN;
    const int32_t tailM = (t.M - m0) < t.singleCoreM ? (t.M - m0) : t.singleCoreM;
    const int32_t tailN = (t.N - n0) < t.singleCoreN ? (t.N - n0) : t.singleCoreN;
    const int32_t mIter = (tailM + t.baseM - 1) / t.baseM;
    const int32_t nIter = (tailN + t.baseN - 1) / t.baseN;
    const int32_t blocks = mIter * nIter;

    GlobalTensor<float> wsGm;  // the product, M x N, before ReLU
    wsGm.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(GetUserWorkspace(workspace)));
    TPipe pipe;

    if ASCEND_IS_AIC {
        GlobalTensor<half> aGm;
        GlobalTensor<half> bGm;
        GlobalTensor<float> biasGm;
        aGm.SetGlobalBuffer(reinterpret_cast<__gm__ half*>(a));
        bGm.SetGlobalBuffer(reinterpret_cast<__gm__ half*>(b));
        biasGm.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(bias));
        using A_T = MatmulType<TPosition::GM, CubeFormat::ND, half>;
        using C_T = MatmulType<TPosition::GM, CubeFormat::ND, float>;
        using BIAS_T = MatmulType<TPosition::GM, CubeFormat::ND, float>;
        Matmul<A_T, A_T, C_T, BIAS_T> mm;
        mm.Init(&t, &pipe);
        mm.SetTensorA(aGm[static_cast<uint64_t>(m0) * t.Ka]);
        mm.SetTensorB(bGm[n0]);
        mm.SetBias(biasGm[n0]);
        mm.SetTail(tailM, tailN);
        int32_t k = 0;
        while (mm.Iterate()) {
            if (k >= AHEAD) {
                CrossCoreWaitFlag(BLOCK_DONE);  // both AIVs finished block k - AHEAD
            }
            mm.GetTensorC(wsGm[static_cast<uint64_t>(m0) * t.N + n0]);
            CrossCoreSetFlag<2, PIPE_FIX>(BLOCK_READY);
            ++k;
        }
        mm.End();
        for (int32_t i = (blocks > AHEAD ? blocks - AHEAD : 0); i < blocks; ++i) {
            CrossCoreWaitFlag(BLOCK_DONE);  // pair every AIV set with a wait
        }
        return;
    }

    // AIV: half of each block's rows.
    GlobalTensor<float> cGm;
    cGm.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(c));
    const int32_t sub = static_cast<int32_t>(GetSubBlockIdx());
    const uint32_t alignedN = (static_cast<uint32_t>(t.baseN) * sizeof(float) + 31) / 32 * 32 / sizeof(float);
    TBuf<TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, static_cast<uint32_t>(t.baseM) * alignedN * sizeof(float));
    LocalTensor<float> ub = buf.Get<float>();
    for (int32_t k = 0; k < blocks; ++k) {
        CrossCoreWaitFlag(BLOCK_READY);
        const int32_t bm0 = (k % mIter) * t.baseM;  // iterateOrder 0: along M first
        const int32_t bn0 = (k / mIter) * t.baseN;
        const int32_t rows = (tailM - bm0) < t.baseM ? (tailM - bm0) : t.baseM;
        const int32_t cols = (tailN - bn0) < t.baseN ? (tailN - bn0) : t.baseN;
        const int32_t half0 = (rows + 1) / 2;
        const int32_t r0 = sub == 0 ? 0 : half0;
        const int32_t myRows = sub == 0 ? half0 : rows - half0;
        if (myRows > 0) {
            const uint32_t rowBytes = static_cast<uint32_t>(cols) * sizeof(float);
            const uint32_t rowElems = (rowBytes + 31) / 32 * 32 / sizeof(float);
            const uint64_t at = static_cast<uint64_t>(m0 + bm0 + r0) * t.N + n0 + bn0;
            DataCopyExtParams in{static_cast<uint16_t>(myRows), rowBytes,
                                 static_cast<uint32_t>(t.N - cols) * sizeof(float), 0, 0};
            DataCopyPad(ub, wsGm[at], in, DataCopyPadExtParams<float>{false, 0, 0, 0.0f});
            SetFlag<HardEvent::MTE2_V>(EVENT_ID0);
            WaitFlag<HardEvent::MTE2_V>(EVENT_ID0);
            Relu(ub, ub, static_cast<int32_t>(static_cast<uint32_t>(myRows) * rowElems));
            SetFlag<HardEvent::V_MTE3>(EVENT_ID0);
            WaitFlag<HardEvent::V_MTE3>(EVENT_ID0);
            DataCopyExtParams out{static_cast<uint16_t>(myRows), rowBytes, 0,
                                  static_cast<uint32_t>(t.N - cols) * sizeof(float), 0};
            DataCopyPad(cGm[at], ub, out);
            SetFlag<HardEvent::MTE3_MTE2>(EVENT_ID0);
            WaitFlag<HardEvent::MTE3_MTE2>(EVENT_ID0);
        }
        CrossCoreSetFlag<2, PIPE_MTE3>(BLOCK_DONE);
    }
}
