// Kernel of MatmulAoeCustom: c = a x b, one block of C per AI Core with the Matmul API.
#include "kernel_operator.h"
#include "lib/matmul_intf.h"

using namespace AscendC;

extern "C" __global__ __aicore__ void matmul_aoe_custom(GM_ADDR a, GM_ADDR b, GM_ADDR c, GM_ADDR workspace,
                                                        GM_ADDR tiling)
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
    GlobalTensor<float> cGm;
    aGm.SetGlobalBuffer(reinterpret_cast<__gm__ half*>(a));
    bGm.SetGlobalBuffer(reinterpret_cast<__gm__ half*>(b));
    cGm.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(c));

    using A_T = MatmulType<TPosition::GM, CubeFormat::ND, half>;
    using C_T = MatmulType<TPosition::GM, CubeFormat::ND, float>;
    TPipe pipe;
    Matmul<A_T, A_T, C_T, C_T, CFG_NORM> mm;
    REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, &t);
    mm.SetTensorA(aGm[static_cast<uint64_t>(m0) * t.Ka]);
    mm.SetTensorB(bGm[n0]);
    mm.SetTail(tailM, tailN);
    mm.IterateAll(cGm[static_cast<uint64_t>(m0) * t.N + n0]);
    mm.End();
}
