// Fixture (prefetch_across_rows): y[r] = sum of |x[r, :]| over rows cut into chunks of at most
// chunkLength_ elements. Each chunk's partial sum is read on the scalar unit, so the copy-in of
// the next chunk waits for this chunk's reduction; with rows of one chunk the next copy-in worth
// overlapping belongs to the next row: the sequential row / chunk nest the motif rewrites.
#include "kernel_operator.h"

using namespace AscendC;

constexpr int32_t BUFFER_NUM = 2;

template <typename T>
class KernelRowAbsSum {
public:
    __aicore__ inline KernelRowAbsSum() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, uint32_t rows, uint32_t rowLength, uint32_t chunkLength)
    {
        rowCount_ = rows;
        rowLength_ = rowLength;
        chunkLength_ = chunkLength;
        xGm_.SetGlobalBuffer((__gm__ T*)x, static_cast<uint64_t>(rows) * rowLength);
        yGm_.SetGlobalBuffer((__gm__ T*)y, rows);
        pipe_.InitBuffer(inQueue_, BUFFER_NUM, chunkLength_ * sizeof(T));
        pipe_.InitBuffer(outQueue_, 1, 32 * sizeof(T));
        pipe_.InitBuffer(absBuf_, chunkLength_ * sizeof(T));
        pipe_.InitBuffer(workBuf_, chunkLength_ * sizeof(T));
        pipe_.InitBuffer(sumBuf_, 32 * sizeof(T));
    }

    __aicore__ inline void Process()
    {
        uint32_t chunks = (rowLength_ + chunkLength_ - 1) / chunkLength_;
        for (uint32_t r = 0; r < rowCount_; r++) {
            float total = 0.0f;
            for (uint32_t c = 0; c < chunks; c++) {
                uint32_t count = (c + 1 == chunks) ? rowLength_ - c * chunkLength_ : chunkLength_;
                CopyIn(static_cast<uint64_t>(r) * rowLength_ + c * chunkLength_, count);
                total += ChunkSum(count);
            }
            CopyOut(r, total);
        }
    }

private:
    __aicore__ inline void CopyIn(uint64_t offset, uint32_t count)
    {
        LocalTensor<T> xLocal = inQueue_.AllocTensor<T>();
        DataCopyExtParams params{1, static_cast<uint32_t>(count * sizeof(T)), 0, 0, 0};
        DataCopyPadExtParams<T> pad{false, 0, 0, 0};
        DataCopyPad(xLocal, xGm_[offset], params, pad);
        inQueue_.EnQue(xLocal);
    }

    __aicore__ inline float ChunkSum(uint32_t count)
    {
        LocalTensor<T> xLocal = inQueue_.DeQue<T>();
        LocalTensor<T> absLocal = absBuf_.Get<T>();
        LocalTensor<T> work = workBuf_.Get<T>();
        LocalTensor<T> sumLocal = sumBuf_.Get<T>();
        Abs(absLocal, xLocal, count);
        PipeBarrier<PIPE_V>();
        ReduceSum(sumLocal, absLocal, work, count);
        inQueue_.FreeTensor(xLocal);
        event_t vToS = static_cast<event_t>(GetTPipePtr()->FetchEventID(HardEvent::V_S));
        SetFlag<HardEvent::V_S>(vToS);
        WaitFlag<HardEvent::V_S>(vToS);
        return static_cast<float>(sumLocal.GetValue(0));
    }

    __aicore__ inline void CopyOut(uint32_t r, float total)
    {
        LocalTensor<T> yLocal = outQueue_.AllocTensor<T>();
        yLocal.SetValue(0, static_cast<T>(total));
        event_t sToMte3 = static_cast<event_t>(GetTPipePtr()->FetchEventID(HardEvent::S_MTE3));
        SetFlag<HardEvent::S_MTE3>(sToMte3);
        WaitFlag<HardEvent::S_MTE3>(sToMte3);
        DataCopyExtParams params{1, static_cast<uint32_t>(sizeof(T)), 0, 0, 0};
        DataCopyPad(yGm_[r], yLocal, params);
        outQueue_.FreeTensor(yLocal);
    }

    TPipe pipe_;
    TQue<QuePosition::VECIN, BUFFER_NUM> inQueue_;
    TQue<QuePosition::VECOUT, 1> outQueue_;
    TBuf<QuePosition::VECCALC> absBuf_;
    TBuf<QuePosition::VECCALC> workBuf_;
    TBuf<QuePosition::VECCALC> sumBuf_;
    GlobalTensor<T> xGm_;
    GlobalTensor<T> yGm_;
    uint32_t rowCount_ = 0;
    uint32_t rowLength_ = 0;
    uint32_t chunkLength_ = 0;
};

extern "C" __global__ __aicore__ void row_abs_sum_custom(GM_ADDR x, GM_ADDR y, uint32_t rows, uint32_t rowLength,
                                                         uint32_t chunkLength)
{
    KernelRowAbsSum<DTYPE_X> op;
    op.Init(x, y, rows, rowLength, chunkLength);
    op.Process();
}
