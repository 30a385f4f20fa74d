// Fixture PoolLayoutScale (tree_b): y = x + x, one core, tile by tile through one UB buffer
// (TBuf, flags between the copies and the add); the last tile moves with DataCopyPad.
#include "kernel_operator.h"

extern "C" __global__ __aicore__ void pool_layout_scale(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(td, tiling);
    AscendC::TPipe pipe;
    AscendC::TBuf<AscendC::TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, td.tileLength * sizeof(float));
    AscendC::GlobalTensor<float> src;
    AscendC::GlobalTensor<float> dst;
    src.SetGlobalBuffer((__gm__ float*)x, td.n);
    dst.SetGlobalBuffer((__gm__ float*)y, td.n);
    AscendC::LocalTensor<float> t = buf.Get<float>();
    for (uint32_t at = 0; at < td.n; at += td.tileLength) {
        const uint32_t len = td.n - at < td.tileLength ? td.n - at : td.tileLength;
        const AscendC::DataCopyExtParams move{1, static_cast<uint32_t>(len * sizeof(float)), 0, 0, 0};
        AscendC::DataCopyPad(t, src[at], move, AscendC::DataCopyPadExtParams<float>{false, 0, 0, 0});
        AscendC::SetFlag<AscendC::HardEvent::MTE2_V>(0);
        AscendC::WaitFlag<AscendC::HardEvent::MTE2_V>(0);
        AscendC::Add(t, t, t, len);
        AscendC::SetFlag<AscendC::HardEvent::V_MTE3>(0);
        AscendC::WaitFlag<AscendC::HardEvent::V_MTE3>(0);
        AscendC::DataCopyPad(dst[at], t, move);
        AscendC::SetFlag<AscendC::HardEvent::MTE3_MTE2>(0);
        AscendC::WaitFlag<AscendC::HardEvent::MTE3_MTE2>(0);
    }
}
