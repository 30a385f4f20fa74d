// Kernel of MatmulReluCustom written as cann-ops' upsample family writes theirs (issue 38 fixture):
// no KERNEL_TASK_TYPE declaration, yet the code assumes the toolchain's default for a kernel that
// uses the Matmul API, MIX AIC:AIV 1:2 (the AI Core index is GetBlockIdx() / 2 and the second AIV
// of each core only joins the barrier). Each core packs its column strip of b into the workspace
// (K x stripN) and multiplies it with SetOrgShape's orgKc = N, so the product lands in c, whose
// rows are N long, while b's packed rows are stripN long. Then ReLU, element by element.
// Launched as AIV-only (sim's old default) half the cores' strips were never computed.
#include "kernel_operator.h"
#include "lib/matmul_intf.h"

using namespace AscendC;

extern "C" __global__ __aicore__ void matmul_relu_custom(GM_ADDR a, GM_ADDR b, GM_ADDR bias, GM_ADDR c,
                                                         GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(tilingData, tiling);
    const TCubeTiling& t = tilingData.cubeTilingData;
    TPipe pipe;
    using A_T = MatmulType<TPosition::GM, CubeFormat::ND, half>;
    using C_T = MatmulType<TPosition::GM, CubeFormat::ND, float>;
    Matmul<A_T, A_T, C_T, C_T> mm;
    REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, &t);
    if (GetSubBlockIdx() == 1) {
        SyncAll();
        return;
    }
    const int32_t core = static_cast<int32_t>(GetBlockIdx() / 2);
    const int32_t mDim = (t.M + t.singleCoreM - 1) / t.singleCoreM;
    const int32_t m0 = (core % mDim) * t.singleCoreM;
    const int32_t n0 = (core / mDim) * t.singleCoreN;
    const bool works = core < t.usedCoreNum;
    const int32_t tailM = works ? ((t.M - m0) < t.singleCoreM ? (t.M - m0) : t.singleCoreM) : 0;
    const int32_t tailN = works ? ((t.N - n0) < t.singleCoreN ? (t.N - n0) : t.singleCoreN) : 0;
    GlobalTensor<half> aGm, bGm, packed;
    GlobalTensor<float> biasGm, cGm;
    aGm.SetGlobalBuffer(reinterpret_cast<__gm__ half*>(a));
    bGm.SetGlobalBuffer(reinterpret_cast<__gm__ half*>(b));
    biasGm.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(bias));
    cGm.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(c));
    packed.SetGlobalBuffer(reinterpret_cast<__gm__ half*>(GetUserWorkspace(workspace)) +
                           static_cast<uint64_t>(core) * t.Kb * t.singleCoreN);
    if (works) {
        for (int32_t k = 0; k < t.Kb; ++k) {
            for (int32_t j = 0; j < tailN; ++j) {
                packed.SetValue(static_cast<uint64_t>(k) * tailN + j, bGm.GetValue(static_cast<uint64_t>(k) * t.N + n0 + j));
            }
        }
        mm.SetOrgShape(t.M, tailN, t.Ka, t.Kb, t.N);
        mm.SetTensorA(aGm[static_cast<uint64_t>(m0) * t.Ka]);
        mm.SetTensorB(packed);
        mm.SetBias(biasGm[n0]);
        mm.SetTail(tailM, tailN);
        mm.IterateAll(cGm[static_cast<uint64_t>(m0) * t.N + n0]);
        mm.End();
        for (int32_t i = 0; i < tailM; ++i) {
            for (int32_t j = 0; j < tailN; ++j) {
                const uint64_t at = static_cast<uint64_t>(m0 + i) * t.N + n0 + j;
                const float v = cGm.GetValue(at);
                cGm.SetValue(at, v > 0.0f ? v : 0.0f);
            }
        }
    }
    SyncAll();
}
