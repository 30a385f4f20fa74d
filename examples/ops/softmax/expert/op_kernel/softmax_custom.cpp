// SoftmaxCustom kernel (expert): y = exp(x - max(x)) / sum(exp(x - max(x))) over the last axis,
// computed in fp32.
// Key 1 (rows of at most 2040 elements): rowsPerTile rows per DataCopyPad (rows padded to 32 B in
// UB), row maxima and sums for the whole tile with repeat-form Max/Add folds to 64 lanes and one
// WholeReduceMax / WholeReduceSum, one Exp over the whole tile, one scalar sync per reduction per
// tile, and the next tile's copy-in issued before this tile's compute.
// Key 2 (long rows): one row per tile with the next row prefetched.
#include "kernel_operator.h"
using namespace AscendC;

constexpr int32_t BUFFER_NUM = 2;

template <typename T>
class KernelSoftmaxBatch {
public:
    __aicore__ inline KernelSoftmaxBatch() {}
    template <typename TilingData>
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, const TilingData& td)
    {
        uint32_t idx = GetBlockIdx();
        rowCount_ = td.rowsPerCore + (idx < td.bigCoreNum ? 1 : 0);
        uint32_t firstRow = idx * td.rowsPerCore + (idx < td.bigCoreNum ? idx : td.bigCoreNum);
        rowLength_ = td.rowLength;
        rowStride_ = td.rowStride;
        rowsPerTile_ = td.rowsPerTile;
        uint64_t offset = static_cast<uint64_t>(firstRow) * rowLength_;
        xGm_.SetGlobalBuffer((__gm__ T*)x + offset, static_cast<uint64_t>(rowCount_) * rowLength_);
        yGm_.SetGlobalBuffer((__gm__ T*)y + offset, static_cast<uint64_t>(rowCount_) * rowLength_);
        uint32_t tileElems = rowsPerTile_ * rowStride_;
        pipe_.InitBuffer(inQueue_, BUFFER_NUM, tileElems * sizeof(T));
        pipe_.InitBuffer(outQueue_, BUFFER_NUM, tileElems * sizeof(T));
        pipe_.InitBuffer(xfBuf_, tileElems * sizeof(float));
        pipe_.InitBuffer(foldBuf_, rowsPerTile_ * 64 * sizeof(float));
        pipe_.InitBuffer(redBuf_, (rowsPerTile_ * 2 + 7) / 8 * 8 * sizeof(float));
    }

    __aicore__ inline void Process()
    {
        uint32_t tiles = (rowCount_ + rowsPerTile_ - 1) / rowsPerTile_;
        if (tiles == 0) {
            return;
        }
        CopyIn(0);
        for (uint32_t t = 0; t < tiles; t++) {
            if (t + 1 < tiles) {
                CopyIn(t + 1);  // prefetch: the next tile's copy overlaps this tile's compute
            }
            Compute(Rows(t));
            CopyOut(t);
        }
    }

private:
    __aicore__ inline uint32_t Rows(uint32_t t)
    {
        uint32_t first = t * rowsPerTile_;
        return (rowCount_ - first < rowsPerTile_) ? rowCount_ - first : rowsPerTile_;
    }

    __aicore__ inline void CopyIn(uint32_t t)
    {
        LocalTensor<T> xLocal = inQueue_.AllocTensor<T>();
        DataCopyExtParams params{static_cast<uint16_t>(Rows(t)), static_cast<uint32_t>(rowLength_ * sizeof(T)), 0,
                                 static_cast<uint32_t>((rowStride_ * sizeof(T) - (rowLength_ * sizeof(T) + 31) / 32 * 32) / 32), 0};
        DataCopyPadExtParams<T> pad{false, 0, 0, 0};
        DataCopyPad(xLocal, xGm_[static_cast<uint64_t>(t) * rowsPerTile_ * rowLength_], params, pad);
        inQueue_.EnQue(xLocal);
    }

    // Reduces each of `rows` rows of xf (pitch rowStride_) to one value: fold to 64 lanes into
    // foldBuf_, then one whole-repeat reduction per row. Results land in redBuf_ (max: value/index
    // pairs, sum: one value per row).
    template <bool IS_MAX>
    __aicore__ inline void RowReduce(const LocalTensor<float>& xf, uint32_t rows)
    {
        LocalTensor<float> fold = foldBuf_.Get<float>();
        LocalTensor<float> red = redBuf_.Get<float>();
        uint8_t rep = static_cast<uint8_t>(rowStride_ / 8);
        uint8_t r8 = static_cast<uint8_t>(rows);
        LocalTensor<float> src = xf;
        uint8_t srcRep = rep;
        uint32_t lanes = rowLength_ < 64 ? rowLength_ : 64;
        if (rowLength_ > 64) {
            Muls(fold, xf, 1.0f, static_cast<uint64_t>(64), r8, {1, 1, 8, rep});
            PipeBarrier<PIPE_V>();
            for (uint32_t k = 64; k < rowLength_; k += 64) {
                uint64_t m = (rowLength_ - k < 64) ? rowLength_ - k : 64;
                if constexpr (IS_MAX) {
                    Max(fold, fold, xf[k], m, r8, {1, 1, 1, 8, 8, rep});
                } else {
                    Add(fold, fold, xf[k], m, r8, {1, 1, 1, 8, 8, rep});
                }
                PipeBarrier<PIPE_V>();
            }
            src = fold;
            srcRep = 8;
        }
        if constexpr (IS_MAX) {
            WholeReduceMax(red, src, static_cast<int32_t>(lanes), static_cast<int32_t>(rows), 1, 1, srcRep);
        } else {
            WholeReduceSum(red, src, static_cast<int32_t>(lanes), static_cast<int32_t>(rows), 1, 1, srcRep);
        }
        event_t vToS = static_cast<event_t>(GetTPipePtr()->FetchEventID(HardEvent::V_S));
        SetFlag<HardEvent::V_S>(vToS);
        WaitFlag<HardEvent::V_S>(vToS);
    }

    __aicore__ inline void Compute(uint32_t rows)
    {
        LocalTensor<T> xLocal = inQueue_.DeQue<T>();
        LocalTensor<T> yLocal = outQueue_.AllocTensor<T>();
        LocalTensor<float> red = redBuf_.Get<float>();
        LocalTensor<float> xf;
        uint32_t n = rows * rowStride_;
        PipeBarrier<PIPE_V>();  // the previous tile's last instructions have read the work tiles
        if constexpr (std::is_same_v<T, float>) {
            xf = yLocal;  // compute in place in the output slot
            DataCopy(xf, xLocal, n);
        } else {
            xf = xfBuf_.Get<float>();
            Cast(xf, xLocal, RoundMode::CAST_NONE, n);
        }
        PipeBarrier<PIPE_V>();
        RowReduce<true>(xf, rows);
        for (uint32_t r = 0; r < rows; r++) {
            float rowMax = red.GetValue(2 * r);  // (value, index) pairs
            Adds(xf[r * rowStride_], xf[r * rowStride_], -rowMax, rowLength_);
        }
        PipeBarrier<PIPE_V>();
        Exp(xf, xf, n);
        PipeBarrier<PIPE_V>();
        RowReduce<false>(xf, rows);
        for (uint32_t r = 0; r < rows; r++) {
            float rowSum = red.GetValue(r);
            Muls(xf[r * rowStride_], xf[r * rowStride_], 1.0f / rowSum, rowLength_);
        }
        if constexpr (!std::is_same_v<T, float>) {
            PipeBarrier<PIPE_V>();
            Cast(yLocal, xf, RoundMode::CAST_RINT, n);
        }
        outQueue_.EnQue(yLocal);
        inQueue_.FreeTensor(xLocal);
    }

    __aicore__ inline void CopyOut(uint32_t t)
    {
        LocalTensor<T> yLocal = outQueue_.DeQue<T>();
        DataCopyExtParams params{static_cast<uint16_t>(Rows(t)), static_cast<uint32_t>(rowLength_ * sizeof(T)),
                                 static_cast<uint32_t>((rowStride_ * sizeof(T) - (rowLength_ * sizeof(T) + 31) / 32 * 32) / 32), 0, 0};
        DataCopyPad(yGm_[static_cast<uint64_t>(t) * rowsPerTile_ * rowLength_], yLocal, params);
        outQueue_.FreeTensor(yLocal);
    }

    TPipe pipe_;
    TQue<QuePosition::VECIN, BUFFER_NUM> inQueue_;
    TQue<QuePosition::VECOUT, BUFFER_NUM> outQueue_;
    TBuf<QuePosition::VECCALC> xfBuf_;
    TBuf<QuePosition::VECCALC> foldBuf_;
    TBuf<QuePosition::VECCALC> redBuf_;
    GlobalTensor<T> xGm_;
    GlobalTensor<T> yGm_;
    uint32_t rowCount_ = 0;
    uint32_t rowLength_ = 0;
    uint32_t rowStride_ = 0;
    uint32_t rowsPerTile_ = 0;
};

// Key 2: one row per tile (long rows).
template <typename T>
class KernelSoftmaxRow {
public:
    __aicore__ inline KernelSoftmaxRow() {}
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
        if (rowCount_ == 0) {
            return;
        }
        CopyIn(0);
        for (uint32_t r = 0; r < rowCount_; r++) {
            if (r + 1 < rowCount_) {
                CopyIn(r + 1);  // prefetch: the next row's copy overlaps this row's compute
            }
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
        KernelSoftmaxBatch<DTYPE_X> op;
        op.Init(x, y, tilingData);
        op.Process();
    } else if (TILING_KEY_IS(2)) {
        KernelSoftmaxRow<DTYPE_X> op;
        op.Init(x, y, tilingData);
        op.Process();
    }
}
