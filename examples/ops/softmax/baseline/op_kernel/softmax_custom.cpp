// SoftmaxCustom kernel (baseline): y = exp(x - max(x)) / sum(exp(x - max(x))) over the last axis,
// computed in fp32. One row per iteration: copy in, ReduceMax, read the max on the scalar unit,
// subtract and exponentiate, ReduceSum, read the sum, scale, copy out.
#include "kernel_operator.h"
using namespace AscendC;

constexpr int32_t BUFFER_NUM = 2;

template <typename T>
class KernelSoftmax {
public:
    __aicore__ inline KernelSoftmax() {}
    template <typename TilingData>
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, const TilingData& td)
    {
        uint32_t idx = GetBlockIdx();
        rowCount_ = td.rowsPerCore + (idx < td.bigCoreNum ? 1 : 0);
        uint32_t firstRow = idx * td.rowsPerCore + (idx < td.bigCoreNum ? idx : td.bigCoreNum);
        rowLength_ = td.rowLength;
        rowStride_ = td.rowStride;
        uint64_t offset = static_cast<uint64_t>(firstRow) * rowLength_;
        xGm_.SetGlobalBuffer((__gm__ T*)x + offset, static_cast<uint64_t>(rowCount_) * rowLength_);
        yGm_.SetGlobalBuffer((__gm__ T*)y + offset, static_cast<uint64_t>(rowCount_) * rowLength_);
        pipe_.InitBuffer(inQueue_, BUFFER_NUM, rowStride_ * sizeof(T));
        pipe_.InitBuffer(outQueue_, BUFFER_NUM, rowStride_ * sizeof(T));
        pipe_.InitBuffer(xfBuf_, rowStride_ * sizeof(float));
        pipe_.InitBuffer(workBuf_, rowStride_ * sizeof(float));
        pipe_.InitBuffer(redBuf_, 64 * sizeof(float));
    }

    __aicore__ inline void Process()
    {
        for (uint32_t r = 0; r < rowCount_; r++) {
            CopyIn(r);
            Compute();
            CopyOut(r);
        }
    }

private:
    __aicore__ inline void CopyIn(uint32_t r)
    {
        LocalTensor<T> xLocal = inQueue_.AllocTensor<T>();
        DataCopyExtParams params{1, static_cast<uint32_t>(rowLength_ * sizeof(T)), 0, 0, 0};
        DataCopyPadExtParams<T> pad{false, 0, 0, 0};
        DataCopyPad(xLocal, xGm_[static_cast<uint64_t>(r) * rowLength_], params, pad);
        inQueue_.EnQue(xLocal);
    }

    __aicore__ inline float ReadScalar(const LocalTensor<float>& t)
    {
        event_t vToS = static_cast<event_t>(GetTPipePtr()->FetchEventID(HardEvent::V_S));
        SetFlag<HardEvent::V_S>(vToS);
        WaitFlag<HardEvent::V_S>(vToS);
        return t.GetValue(0);
    }

    __aicore__ inline void Compute()
    {
        LocalTensor<T> xLocal = inQueue_.DeQue<T>();
        LocalTensor<T> yLocal = outQueue_.AllocTensor<T>();
        LocalTensor<float> xf = xfBuf_.Get<float>();
        LocalTensor<float> work = workBuf_.Get<float>();
        LocalTensor<float> red = redBuf_.Get<float>();
        uint32_t n = rowLength_;
        if constexpr (std::is_same_v<T, float>) {
            DataCopy(xf, xLocal, rowStride_);
        } else {
            Cast(xf, xLocal, RoundMode::CAST_NONE, n);
        }
        PipeBarrier<PIPE_V>();
        ReduceMax(red, xf, work, n, false);
        float rowMax = ReadScalar(red);
        Adds(xf, xf, -rowMax, n);
        PipeBarrier<PIPE_V>();
        Exp(xf, xf, n);
        PipeBarrier<PIPE_V>();
        ReduceSum(red, xf, work, n);
        float rowSum = ReadScalar(red);
        Muls(xf, xf, 1.0f / rowSum, n);
        PipeBarrier<PIPE_V>();
        if constexpr (std::is_same_v<T, float>) {
            DataCopy(yLocal, xf, rowStride_);
        } else {
            Cast(yLocal, xf, RoundMode::CAST_RINT, n);
        }
        outQueue_.EnQue(yLocal);
        inQueue_.FreeTensor(xLocal);
    }

    __aicore__ inline void CopyOut(uint32_t r)
    {
        LocalTensor<T> yLocal = outQueue_.DeQue<T>();
        DataCopyExtParams params{1, static_cast<uint32_t>(rowLength_ * sizeof(T)), 0, 0, 0};
        DataCopyPad(yGm_[static_cast<uint64_t>(r) * rowLength_], yLocal, params);
        outQueue_.FreeTensor(yLocal);
    }

    TPipe pipe_;
    TQue<QuePosition::VECIN, BUFFER_NUM> inQueue_;
    TQue<QuePosition::VECOUT, BUFFER_NUM> outQueue_;
    TBuf<QuePosition::VECCALC> xfBuf_;
    TBuf<QuePosition::VECCALC> workBuf_;
    TBuf<QuePosition::VECCALC> redBuf_;
    GlobalTensor<T> xGm_;
    GlobalTensor<T> yGm_;
    uint32_t rowCount_ = 0;
    uint32_t rowLength_ = 0;
    uint32_t rowStride_ = 0;
};

extern "C" __global__ __aicore__ void softmax_custom(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(tilingData, tiling);
    if (TILING_KEY_IS(1)) {
        KernelSoftmax<DTYPE_X> op;
        op.Init(x, y, tilingData);
        op.Process();
    }
}
