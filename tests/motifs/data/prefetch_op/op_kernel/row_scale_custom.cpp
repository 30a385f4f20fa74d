// Fixture (prefetch_next_tile): y = x / max(|x|) per row, one row per iteration. The compute
// stage reads the row's maximum on the scalar unit, so the copy-in of the next row is issued only
// after this row's compute: the sequential tile loop the motif rewrites.
#include "kernel_operator.h"

using namespace AscendC;

constexpr int32_t BUFFER_NUM = 2;

template <typename T>
class KernelRowScale {
public:
    __aicore__ inline KernelRowScale() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, uint32_t rows, uint32_t rowLength)
    {
        rowCount_ = rows;
        rowLength_ = rowLength;
        xGm_.SetGlobalBuffer((__gm__ T*)x, static_cast<uint64_t>(rows) * rowLength);
        yGm_.SetGlobalBuffer((__gm__ T*)y, static_cast<uint64_t>(rows) * rowLength);
        pipe_.InitBuffer(inQueue_, BUFFER_NUM, rowLength_ * sizeof(T));
        pipe_.InitBuffer(outQueue_, BUFFER_NUM, rowLength_ * sizeof(T));
        pipe_.InitBuffer(absBuf_, rowLength_ * sizeof(T));
        pipe_.InitBuffer(workBuf_, rowLength_ * sizeof(T));
        pipe_.InitBuffer(maxBuf_, 32 * sizeof(T));
    }

    __aicore__ inline void Process()
    {
        for (uint32_t r = 0; r < rowCount_; r++) {
            CopyIn(r * rowLength_);
            Compute();
            CopyOut(r);
        }
    }

private:
    __aicore__ inline void CopyIn(uint64_t offset)
    {
        LocalTensor<T> xLocal = inQueue_.AllocTensor<T>();
        DataCopy(xLocal, xGm_[offset], rowLength_);
        inQueue_.EnQue(xLocal);
    }

    __aicore__ inline void Compute()
    {
        LocalTensor<T> xLocal = inQueue_.DeQue<T>();
        LocalTensor<T> yLocal = outQueue_.AllocTensor<T>();
        LocalTensor<T> absLocal = absBuf_.Get<T>();
        LocalTensor<T> work = workBuf_.Get<T>();
        LocalTensor<T> maxLocal = maxBuf_.Get<T>();
        Abs(absLocal, xLocal, rowLength_);
        PipeBarrier<PIPE_V>();
        ReduceMax(maxLocal, absLocal, work, rowLength_, false);
        event_t vToS = static_cast<event_t>(GetTPipePtr()->FetchEventID(HardEvent::V_S));
        SetFlag<HardEvent::V_S>(vToS);
        WaitFlag<HardEvent::V_S>(vToS);
        T rowMax = maxLocal.GetValue(0);
        Muls(yLocal, xLocal, static_cast<T>(1.0f / static_cast<float>(rowMax)), rowLength_);
        outQueue_.EnQue(yLocal);
        inQueue_.FreeTensor(xLocal);
    }

    __aicore__ inline void CopyOut(uint32_t r)
    {
        LocalTensor<T> yLocal = outQueue_.DeQue<T>();
        DataCopy(yGm_[static_cast<uint64_t>(r) * rowLength_], yLocal, rowLength_);
        outQueue_.FreeTensor(yLocal);
    }

    TPipe pipe_;
    TQue<QuePosition::VECIN, BUFFER_NUM> inQueue_;
    TQue<QuePosition::VECOUT, BUFFER_NUM> outQueue_;
    TBuf<QuePosition::VECCALC> absBuf_;
    TBuf<QuePosition::VECCALC> workBuf_;
    TBuf<QuePosition::VECCALC> maxBuf_;
    GlobalTensor<T> xGm_;
    GlobalTensor<T> yGm_;
    uint32_t rowCount_ = 0;
    uint32_t rowLength_ = 0;
};

extern "C" __global__ __aicore__ void row_scale_custom(GM_ADDR x, GM_ADDR y, uint32_t rows, uint32_t rowLength)
{
    KernelRowScale<DTYPE_X> op;
    op.Init(x, y, rows, rowLength);
    op.Process();
}
