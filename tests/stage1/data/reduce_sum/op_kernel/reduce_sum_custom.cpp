// ReduceSumCustom kernel (baseline): y = sum of x over one axis.
// x is viewed as [outer, reduce, inner]; computation in fp32.
// Baseline: rows reduced one at a time (one copy and one ReduceSum/ReduceMax per row chunk, partials combined on the scalar unit); inner reductions accumulate a block of rows per copy.
#include "kernel_operator.h"
using namespace AscendC;

constexpr int32_t BUFFER_NUM = 2;

template <typename TilingData>
__aicore__ inline void SplitUnits(const TilingData& td, uint32_t& first, uint32_t& count)
{
    uint32_t idx = GetBlockIdx();
    count = td.unitsPerCore + (idx < td.bigCoreNum ? 1 : 0);
    first = idx * td.unitsPerCore + (idx < td.bigCoreNum ? idx : td.bigCoreNum);
}

// Tiling key 1 (and 3): reduction of contiguous rows, one row at a time.
template <typename T>
class KernelRow {
public:
    __aicore__ inline KernelRow() {}
    template <typename TilingData>
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, const TilingData& td)
    {
        SplitUnits(td, firstRow_, rowCount_);
        reduceLength_ = td.reduceLength;
        tileLength_ = td.tileLength;
        outBatch_ = td.outBatch;
        scale_ = td.scale;
        xGm_.SetGlobalBuffer((__gm__ T*)x + static_cast<uint64_t>(firstRow_) * reduceLength_);
        yGm_.SetGlobalBuffer((__gm__ T*)y + firstRow_, rowCount_);
        pipe_.InitBuffer(inQueue_, BUFFER_NUM, tileLength_ * sizeof(T));
        pipe_.InitBuffer(outQueue_, 1, outBatch_ * sizeof(T));
        pipe_.InitBuffer(xfBuf_, tileLength_ * sizeof(float));
        pipe_.InitBuffer(workBuf_, tileLength_ * sizeof(float));
        pipe_.InitBuffer(redBuf_, 64 * sizeof(float));
    }

    __aicore__ inline void Process()
    {
        uint32_t chunks = (reduceLength_ + tileLength_ - 1) / tileLength_;
        for (uint32_t b = 0; b < rowCount_; b += outBatch_) {
            uint32_t rows = (rowCount_ - b < outBatch_) ? rowCount_ - b : outBatch_;
            LocalTensor<T> yLocal = outQueue_.AllocTensor<T>();
            for (uint32_t r = 0; r < rows; r++) {
                float acc = 0.0f;
                for (uint32_t c = 0; c < chunks; c++) {
                    uint32_t len = (c == chunks - 1) ? reduceLength_ - c * tileLength_ : tileLength_;
                    CopyIn(static_cast<uint64_t>(b + r) * reduceLength_ + c * tileLength_, len);
                    float part = ReduceChunk(len);
                    acc += part;
                }
                yLocal.SetValue(r, static_cast<T>(acc));
            }
            outQueue_.EnQue(yLocal);
            CopyOut(b, rows);
        }
    }

private:
    __aicore__ inline void CopyIn(uint64_t offset, uint32_t len)
    {
        LocalTensor<T> xLocal = inQueue_.AllocTensor<T>();
        DataCopyExtParams params{1, static_cast<uint32_t>(len * sizeof(T)), 0, 0, 0};
        DataCopyPadExtParams<T> pad{false, 0, 0, 0};
        DataCopyPad(xLocal, xGm_[offset], params, pad);
        inQueue_.EnQue(xLocal);
    }

    __aicore__ inline float ReduceChunk(uint32_t len)
    {
        LocalTensor<T> xLocal = inQueue_.DeQue<T>();
        LocalTensor<float> xf = xfBuf_.Get<float>();
        LocalTensor<float> workLocal = workBuf_.Get<float>();
        LocalTensor<float> redLocal = redBuf_.Get<float>();
        if constexpr (std::is_same_v<T, float>) {
            DataCopy(xf, xLocal, (len + 7) / 8 * 8);
        } else {
            Cast(xf, xLocal, RoundMode::CAST_NONE, len);
        }
        PipeBarrier<PIPE_V>();
        ReduceSum(redLocal, xf, workLocal, len);
        inQueue_.FreeTensor(xLocal);
        event_t vToS = static_cast<event_t>(GetTPipePtr()->FetchEventID(HardEvent::V_S));
        SetFlag<HardEvent::V_S>(vToS);
        WaitFlag<HardEvent::V_S>(vToS);
        return redLocal.GetValue(0);
    }

    __aicore__ inline void CopyOut(uint32_t first, uint32_t rows)
    {
        LocalTensor<T> yLocal = outQueue_.DeQue<T>();
        event_t sToMte3 = static_cast<event_t>(GetTPipePtr()->FetchEventID(HardEvent::S_MTE3));
        SetFlag<HardEvent::S_MTE3>(sToMte3);
        WaitFlag<HardEvent::S_MTE3>(sToMte3);
        DataCopyExtParams params{1, static_cast<uint32_t>(rows * sizeof(T)), 0, 0, 0};
        DataCopyPad(yGm_[first], yLocal, params);
        outQueue_.FreeTensor(yLocal);
    }

    TPipe pipe_;
    TQue<QuePosition::VECIN, BUFFER_NUM> inQueue_;
    TQue<QuePosition::VECOUT, 1> outQueue_;
    TBuf<QuePosition::VECCALC> xfBuf_;
    TBuf<QuePosition::VECCALC> workBuf_;
    TBuf<QuePosition::VECCALC> redBuf_;
    GlobalTensor<T> xGm_;
    GlobalTensor<T> yGm_;
    uint32_t firstRow_ = 0;
    uint32_t rowCount_ = 0;
    uint32_t reduceLength_ = 0;
    uint32_t tileLength_ = 0;
    uint32_t outBatch_ = 0;
    float scale_ = 1.0f;
};

// Tiling key 2: reduction over a middle axis; the inner dims are reduced element-wise, a block of
// rowsPerTile reduce rows x tileLength inner elements per copy.
template <typename T>
class KernelInner {
public:
    __aicore__ inline KernelInner() {}
    template <typename TilingData>
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, const TilingData& td)
    {
        SplitUnits(td, firstUnit_, unitCount_);
        reduceLength_ = td.reduceLength;
        innerLength_ = td.innerLength;
        tileLength_ = td.tileLength;
        rowsPerTile_ = td.rowsPerTile;
        innerChunks_ = (innerLength_ + tileLength_ - 1) / tileLength_;
        scale_ = td.scale;
        xGm_.SetGlobalBuffer((__gm__ T*)x);
        yGm_.SetGlobalBuffer((__gm__ T*)y);
        pipe_.InitBuffer(inQueue_, BUFFER_NUM, rowsPerTile_ * tileLength_ * sizeof(T));
        pipe_.InitBuffer(outQueue_, BUFFER_NUM, tileLength_ * sizeof(T));
        pipe_.InitBuffer(xfBuf_, rowsPerTile_ * tileLength_ * sizeof(float));
        pipe_.InitBuffer(accBuf_, tileLength_ * sizeof(float));
    }

    __aicore__ inline void Process()
    {
        for (uint32_t u = firstUnit_; u < firstUnit_ + unitCount_; u++) {
            uint32_t o = u / innerChunks_;
            uint32_t c = u % innerChunks_;
            uint32_t len = (c == innerChunks_ - 1) ? innerLength_ - c * tileLength_ : tileLength_;
            uint64_t base = static_cast<uint64_t>(o) * reduceLength_ * innerLength_ + c * tileLength_;
            LocalTensor<float> accLocal = accBuf_.Get<float>();
            PipeBarrier<PIPE_V>();  // the previous unit's Finish has read the accumulator
            Duplicate(accLocal, 0.0f, tileLength_);
            PipeBarrier<PIPE_V>();
            for (uint32_t r = 0; r < reduceLength_; r += rowsPerTile_) {
                uint32_t rows = (reduceLength_ - r < rowsPerTile_) ? reduceLength_ - r : rowsPerTile_;
                CopyIn(base + static_cast<uint64_t>(r) * innerLength_, rows, len);
                Accumulate(rows, len);
            }
            Finish(static_cast<uint64_t>(o) * innerLength_ + c * tileLength_, len);
        }
    }

private:
    __aicore__ inline void CopyIn(uint64_t offset, uint32_t rows, uint32_t len)
    {
        LocalTensor<T> xLocal = inQueue_.AllocTensor<T>();
        uint32_t lenBytes = len * sizeof(T);
        uint32_t rowBytes = (lenBytes + 31) / 32 * 32;
        DataCopyExtParams params{static_cast<uint16_t>(rows), lenBytes,
                                 static_cast<uint32_t>((innerLength_ - len) * sizeof(T)),
                                 static_cast<uint32_t>((tileLength_ * sizeof(T) - rowBytes) / 32), 0};
        DataCopyPadExtParams<T> pad{false, 0, 0, 0};
        DataCopyPad(xLocal, xGm_[offset], params, pad);
        inQueue_.EnQue(xLocal);
    }

    __aicore__ inline void Accumulate(uint32_t rows, uint32_t len)
    {
        LocalTensor<T> xLocal = inQueue_.DeQue<T>();
        LocalTensor<float> accLocal = accBuf_.Get<float>();
        LocalTensor<float> xf;
        if constexpr (std::is_same_v<T, float>) {
            xf = xLocal;
        } else {
            xf = xfBuf_.Get<float>();
            Cast(xf, xLocal, RoundMode::CAST_NONE, rows * tileLength_);
            PipeBarrier<PIPE_V>();
        }
        for (uint32_t r = 0; r < rows; r++) {
            Add(accLocal, accLocal, xf[r * tileLength_], len);
            PipeBarrier<PIPE_V>();
        }
        inQueue_.FreeTensor(xLocal);
    }

    __aicore__ inline void Finish(uint64_t offset, uint32_t len)
    {
        LocalTensor<float> accLocal = accBuf_.Get<float>();
        LocalTensor<T> yLocal = outQueue_.AllocTensor<T>();
        if constexpr (std::is_same_v<T, float>) {
            DataCopy(yLocal, accLocal, tileLength_);
        } else {
            Cast(yLocal, accLocal, RoundMode::CAST_RINT, tileLength_);
        }
        outQueue_.EnQue(yLocal);
        yLocal = outQueue_.DeQue<T>();
        DataCopyExtParams params{1, static_cast<uint32_t>(len * sizeof(T)), 0, 0, 0};
        DataCopyPad(yGm_[offset], yLocal, params);
        outQueue_.FreeTensor(yLocal);
    }

    TPipe pipe_;
    TQue<QuePosition::VECIN, BUFFER_NUM> inQueue_;
    TQue<QuePosition::VECOUT, BUFFER_NUM> outQueue_;
    TBuf<QuePosition::VECCALC> xfBuf_;
    TBuf<QuePosition::VECCALC> accBuf_;
    GlobalTensor<T> xGm_;
    GlobalTensor<T> yGm_;
    uint32_t firstUnit_ = 0;
    uint32_t unitCount_ = 0;
    uint32_t reduceLength_ = 0;
    uint32_t innerLength_ = 0;
    uint32_t tileLength_ = 0;
    uint32_t rowsPerTile_ = 0;
    uint32_t innerChunks_ = 0;
    float scale_ = 1.0f;
};

extern "C" __global__ __aicore__ void reduce_sum_custom(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(tilingData, tiling);
    if (TILING_KEY_IS(1)) {
        KernelRow<DTYPE_X> op;
        op.Init(x, y, tilingData);
        op.Process();
    } else if (TILING_KEY_IS(2)) {
        KernelInner<DTYPE_X> op;
        op.Init(x, y, tilingData);
        op.Process();
    }
}
