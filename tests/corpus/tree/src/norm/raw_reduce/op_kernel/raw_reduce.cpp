// Fixture: the register-level idiom of the norm family. Under `__CCE_AICORE__ == 220` it includes
// the internal impl/dav_c220 header, sums each 64-float row with the raw `vcadd` on `__ubuf__`
// pointers (ONE_REPEAT_FLOAT_SIZE / ONE_BLK_FLOAT_NUM as the repeat stride), reads the maximum
// back through get_max_min_cnt(), offsets GM by the global `block_idx`, and rounds through the
// int32 -> half deq Cast after SetDeqScale. y = round((x - row mean) / max(x)) / 4, in half.
#include "kernel_operator.h"
#if __CCE_AICORE__ == 220
#include "impl/dav_c220/kernel_operator_reg_others_impl.h"
#endif

using namespace AscendC;

extern "C" __global__ __aicore__ void raw_reduce(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(td, tiling);
    const uint32_t n = td.totalLength;  // a multiple of 64
    const uint32_t rows = n / ONE_REPEAT_FLOAT_SIZE;
    GlobalTensor<half> xGm, yGm;
    xGm.SetGlobalBuffer((__gm__ half *)x + block_idx * n, n);
    yGm.SetGlobalBuffer((__gm__ half *)y + block_idx * n, n);
    TPipe pipe;
    TBuf<TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, n * 10 + 1024);
    LocalTensor<half> xh = buf.Get<half>();
    LocalTensor<float> xf = buf.Get<float>()[n];
    LocalTensor<float> sums = xf[n];
    LocalTensor<float> work = sums[ONE_REPEAT_FLOAT_SIZE];
    DataCopy(xh, xGm, n);
    SetFlag<HardEvent::MTE2_V>(EVENT_ID0);
    WaitFlag<HardEvent::MTE2_V>(EVENT_ID0);
    Cast(xf, xh, RoundMode::CAST_NONE, n);
    PipeBarrier<PIPE_V>();
    AscendCUtils::SetMask<float>(ONE_REPEAT_FLOAT_SIZE);
#if __CCE_AICORE__ == 220
    vcadd((__ubuf__ float *)sums.GetPhyAddr(), (__ubuf__ float *)xf.GetPhyAddr(), rows, 1, 1,
          ONE_REPEAT_FLOAT_SIZE / ONE_BLK_FLOAT_NUM, false);
#endif
    ResetMask();
    PipeBarrier<PIPE_V>();
    ReduceMax(work, xf, work[ONE_REPEAT_FLOAT_SIZE], n);
    SetFlag<HardEvent::V_S>(EVENT_ID0);
    WaitFlag<HardEvent::V_S>(EVENT_ID0);
    uint64_t reg = get_max_min_cnt();
    const float mx = *reinterpret_cast<float *>(&reg);
    for (uint32_t r = 0; r < rows; ++r) {
        const float mean = sums.GetValue(r) / ONE_REPEAT_FLOAT_SIZE;
        Adds(xf[r * ONE_REPEAT_FLOAT_SIZE], xf[r * ONE_REPEAT_FLOAT_SIZE], -mean, ONE_REPEAT_FLOAT_SIZE);
    }
    PipeBarrier<PIPE_V>();
    Muls(xf, xf, 4.0f / mx, n);
    PipeBarrier<PIPE_V>();
    LocalTensor<int32_t> xi = xf.ReinterpretCast<int32_t>();
    Cast(xi, xf, RoundMode::CAST_RINT, n);
    PipeBarrier<PIPE_V>();
    SetDeqScale((half)0.25f);
    Cast(xh, xi, RoundMode::CAST_NONE, n);
    SetFlag<HardEvent::V_MTE3>(EVENT_ID0);
    WaitFlag<HardEvent::V_MTE3>(EVENT_ID0);
    DataCopy(yGm, xh, n);
}
