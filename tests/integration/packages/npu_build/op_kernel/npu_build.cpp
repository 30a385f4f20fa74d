// Fixture: a kernel written for the NPU build, as several cann-ops kernels are. Its output copy
// sits under `#ifndef __CCE_KT_TEST__` (the macro of CANN's CPU-debug build, which the NPU build
// does not define), and it keeps a host launch wrapper with the `<<<>>>` launch syntax, which
// only the device compiler parses, under the same guard. Built as the NPU build, it writes
// y = 2 * x; a build that defines __CCE_KT_TEST__ writes nothing. It also names the device
// compiler's scalar `min`/`max` unqualified.
#include "kernel_operator.h"
using namespace AscendC;

extern "C" __global__ __aicore__ void npu_build(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(td, tiling);
    // The device compiler's scalar min/max, named unqualified with no std in scope (as cann-ops'
    // matmul kernels in their NPU build).
    const uint32_t n = max(min(td.totalLength, 4096u), 16);
    GlobalTensor<half> xGm, yGm;
    xGm.SetGlobalBuffer((__gm__ half *)x, n);
    yGm.SetGlobalBuffer((__gm__ half *)y, n);
    TPipe pipe;
    TQue<QuePosition::VECIN, 1> inQ;
    TQue<QuePosition::VECOUT, 1> outQ;
    pipe.InitBuffer(inQ, 1, n * sizeof(half));
    pipe.InitBuffer(outQ, 1, n * sizeof(half));
    LocalTensor<half> in = inQ.AllocTensor<half>();
    DataCopy(in, xGm, n);
    inQ.EnQue(in);
    in = inQ.DeQue<half>();
    LocalTensor<half> out = outQ.AllocTensor<half>();
    Add(out, in, in, n);
    outQ.EnQue(out);
    inQ.FreeTensor(in);
    out = outQ.DeQue<half>();
#ifndef __CCE_KT_TEST__
    DataCopy(yGm, out, n);  /* the NPU build's copy-out; a launch in a comment: k<<<1, 2, 3>>>(x) */
#endif
    outQ.FreeTensor(out);
}

#ifndef __CCE_KT_TEST__
void npu_build_do(uint32_t blockDim, void *l2ctrl, void *stream, uint8_t *x, uint8_t *y, uint8_t *workspace,
                  uint8_t *tiling)
{
    npu_build<<<blockDim, l2ctrl, stream>>>(x, y, workspace,
                                            tiling);
}
#endif
