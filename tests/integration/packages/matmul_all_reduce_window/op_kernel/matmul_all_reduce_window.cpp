// Kernel of MatmulAllReduceWindow (fixture of the HCCL API on one rank): every AIC computes its
// block of a x b with the Matmul API into the HCCL WindowsIn, the AICs meet (CrossCoreSetFlag
// mode 0), and the AllReduce prepared before the compute (commit = false, "HCCL使用说明": the
// compute-then-communicate order) is committed and waited for: on one rank it copies the window
// into c. Every AIC issues the collective, as MC2 operators do; only one core's is served.
#include "kernel_operator.h"
#include "lib/matmul_intf.h"
#include "lib/hccl/hccl.h"

using namespace AscendC;

extern "C" __global__ __aicore__ void matmul_all_reduce_window(GM_ADDR a, GM_ADDR b, GM_ADDR c, GM_ADDR workspace,
                                                               GM_ADDR tiling)
{
    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_MIX_AIC_1_2);
    if ASCEND_IS_AIV {
        return;
    }
    GET_TILING_DATA(tilingData, tiling);
    const TCubeTiling& t = tilingData.cubeTilingData;
    auto* raw = reinterpret_cast<__gm__ MatmulAllReduceWindowTilingData*>(tiling);

    Hccl hccl;
    hccl.Init(GetHcclContext<HCCL_GROUP_ID_0>(), &raw->mc2InitTiling);
    if (hccl.SetCcTiling(&raw->mc2CcTiling) != HCCL_SUCCESS) {
        return;
    }
    GM_ADDR window = hccl.GetWindowsInAddr(hccl.GetRankId());
    const HcclHandle handle = hccl.AllReduce<false>(window, c, static_cast<uint64_t>(t.M) * t.N,
                                                    HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM);

    const int32_t core = static_cast<int32_t>(GetBlockIdx());
    TPipe pipe;
    if (core < t.usedCoreNum) {
        const int32_t mDim = (t.M + t.singleCoreM - 1) / t.singleCoreM;
        const int32_t m0 = (core % mDim) * t.singleCoreM;
        const int32_t n0 = (core / mDim) * t.singleCoreN;
        const int32_t tailM = (t.M - m0) < t.singleCoreM ? (t.M - m0) : t.singleCoreM;
        const int32_t tailN = (t.N - n0) < t.singleCoreN ? (t.N - n0) : t.singleCoreN;
        GlobalTensor<half> aGm;
        GlobalTensor<half> bGm;
        GlobalTensor<float> winGm;
        aGm.SetGlobalBuffer(reinterpret_cast<__gm__ half*>(a));
        bGm.SetGlobalBuffer(reinterpret_cast<__gm__ half*>(b));
        winGm.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(window));
        using A_T = MatmulType<TPosition::GM, CubeFormat::ND, half>;
        using C_T = MatmulType<TPosition::GM, CubeFormat::ND, float>;
        Matmul<A_T, A_T, C_T, C_T> mm;
        mm.Init(&t, &pipe);
        mm.SetTensorA(aGm[static_cast<uint64_t>(m0) * t.Ka]);
        mm.SetTensorB(bGm[n0]);
        mm.SetTail(tailM, tailN);
        mm.IterateAll(winGm[static_cast<uint64_t>(m0) * t.N + n0]);
        mm.End();
    }
    CrossCoreSetFlag<0x0, PIPE_FIX>(0x8);  // every AIC's block is in the window
    CrossCoreWaitFlag(0x8);
    hccl.Commit(handle);
    hccl.Wait(handle);
    CrossCoreSetFlag<0x0, PIPE_FIX>(0x9);  // no core finalizes before the copy is done
    CrossCoreWaitFlag(0x9);
    hccl.Finalize();
}
