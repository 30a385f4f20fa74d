// Fixture: Sort32 as moe_soft_max_topk uses it. Each group of 32 half scores is sorted in
// descending order with its index (CreateVecIndex); y holds each group's scores in sorted order,
// read back from the 8-byte (score, index) pairs.
#include "kernel_operator.h"

using namespace AscendC;

extern "C" __global__ __aicore__ void sort32_topk(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(td, tiling);
    const uint32_t n = td.totalLength;  // a multiple of 32
    GlobalTensor<half> xGm, yGm;
    xGm.SetGlobalBuffer((__gm__ half *)x, n);
    yGm.SetGlobalBuffer((__gm__ half *)y, n);
    TPipe pipe;
    TBuf<TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, n * 16);
    LocalTensor<half> scores = buf.Get<half>();
    LocalTensor<int32_t> index = buf.Get<int32_t>()[n];
    LocalTensor<half> sorted = buf.Get<half>()[n * 4];
    DataCopy(scores, xGm, n);
    CreateVecIndex(index, (int32_t)0, n);
    SetFlag<HardEvent::MTE2_V>(EVENT_ID0);
    WaitFlag<HardEvent::MTE2_V>(EVENT_ID0);
    Sort32(sorted, scores, index.ReinterpretCast<uint32_t>(), n / 32);
    SetFlag<HardEvent::V_S>(EVENT_ID0);
    WaitFlag<HardEvent::V_S>(EVENT_ID0);
    for (uint32_t i = 0; i < n; ++i) {
        scores.SetValue(i, sorted.GetValue(i * 4));  // the score is the pair's first half
    }
    SetFlag<HardEvent::S_MTE3>(EVENT_ID0);
    WaitFlag<HardEvent::S_MTE3>(EVENT_ID0);
    DataCopy(yGm, scores, n);
}
