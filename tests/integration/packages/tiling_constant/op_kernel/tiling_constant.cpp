// Fixture: a kernel that declares a constant of the same name as one of its tiling header's
// host constants (the array size of a tiling field) and names it unqualified. It sees only the
// tiling structs, as the real build's generated kernel_tiling.h gives them, so its own constant
// is the one it names. y = 2 * x over the product of the tiling's dims.
#include "kernel_operator.h"
using namespace AscendC;

constexpr uint32_t MAX_DIMS = 4;

extern "C" __global__ __aicore__ void tiling_constant(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(td, tiling);
    uint32_t n = 1;
    for (uint32_t i = 0; i < MAX_DIMS; ++i) {
        n *= td.dims[i];
    }
    GlobalTensor<half> xGm, yGm;
    xGm.SetGlobalBuffer((__gm__ half *)x, n);
    yGm.SetGlobalBuffer((__gm__ half *)y, n);
    TPipe pipe;
    TQue<QuePosition::VECIN, 1> q;
    pipe.InitBuffer(q, 1, n * sizeof(half));
    LocalTensor<half> t = q.AllocTensor<half>();
    DataCopy(t, xGm, n);
    q.EnQue(t);
    t = q.DeQue<half>();
    Muls(t, t, static_cast<half>(2), n);
    SetFlag<HardEvent::V_MTE3>(EVENT_ID0);
    WaitFlag<HardEvent::V_MTE3>(EVENT_ID0);
    DataCopy(yGm, t, n);
    q.FreeTensor(t);
}
