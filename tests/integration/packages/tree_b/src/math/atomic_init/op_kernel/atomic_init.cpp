// Fixture AtomicInit (tree_b): every core copies all of x into y with SetAtomicAdd, in tiles of
// tileLength elements through UB (the last with DataCopyPad): y = (cores) x over an output the
// runtime cleared (InitValue(0) in the OpDef).
#include "kernel_operator.h"

extern "C" __global__ __aicore__ void atomic_init(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(td, tiling);
    AscendC::TPipe pipe;
    AscendC::TQueBind<AscendC::TPosition::VECIN, AscendC::TPosition::VECOUT, 1> inQ;
    pipe.InitBuffer(inQ, 1, td.tileLength * sizeof(float));
    AscendC::GlobalTensor<float> xGm;
    AscendC::GlobalTensor<float> yGm;
    xGm.SetGlobalBuffer((__gm__ float*)x, td.totalLength);
    yGm.SetGlobalBuffer((__gm__ float*)y, td.totalLength);
    AscendC::SetAtomicAdd<float>();
    for (uint32_t done = 0; done < td.totalLength; done += td.tileLength) {
        const uint32_t count = td.totalLength - done < td.tileLength ? td.totalLength - done : td.tileLength;
        AscendC::DataCopyExtParams params{1, static_cast<uint32_t>(count * sizeof(float)), 0, 0, 0};
        AscendC::LocalTensor<float> in = inQ.AllocTensor<float>();
        AscendC::DataCopyPad(in, xGm[done], params, AscendC::DataCopyPadExtParams<float>{false, 0, 0, 0});
        inQ.EnQue(in);
        in = inQ.DeQue<float>();
        AscendC::DataCopyPad(yGm[done], in, params);
        inQ.FreeTensor(in);
    }
    AscendC::SetAtomicNone();
}
