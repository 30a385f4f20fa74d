// RmsNormCustom kernel (expert): y = x / sqrt(mean(x^2) + epsilon) * gamma over the last axis,
// computed in fp32.
// Key 1 (rows of at most 2040 elements): rowsPerTile rows per DataCopyPad, the squares of the
// whole tile in one Mul, all row sums with a repeat-form Add fold and one WholeReduceSum, the
// mean/epsilon/Sqrt on all rows at once, one scalar sync per tile, gamma applied with one
// repeat-form Mul per 64-lane column block (gamma's repeat stride 0), the next tile's copy-in
// issued before this tile's compute.
// Key 2 (long rows): one row per tile with the next row prefetched.
#include "kernel_operator.h"
using namespace AscendC;

constexpr int32_t BUFFER_NUM = 2;

template <typename T>
class KernelRmsNormBatch {
public:
    __aicore__ inline KernelRmsNormBatch() {}
    template <typename TilingData>
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR gamma, GM_ADDR y, const TilingData& td)
    {
        uint32_t idx = GetBlockIdx();
        rowCount_ = td.rowsPerCore + (idx < td.bigCoreNum ? 1 : 0);
        uint32_t firstRow = idx * td.rowsPerCore + (idx < td.bigCoreNum ? idx : td.bigCoreNum);
        rowLength_ = td.rowLength;
        rowStride_ = td.rowStride;
        rowsPerTile_ = td.rowsPerTile;
        epsilon_ = td.epsilon;
        uint64_t offset = static_cast<uint64_t>(firstRow) * rowLength_;
        xGm_.SetGlobalBuffer((__gm__ T*)x + offset, static_cast<uint64_t>(rowCount_) * rowLength_);
        yGm_.SetGlobalBuffer((__gm__ T*)y + offset, static_cast<uint64_t>(rowCount_) * rowLength_);
        gammaGm_.SetGlobalBuffer((__gm__ T*)gamma, rowLength_);
        uint32_t tileElems = rowsPerTile_ * rowStride_;
        pipe_.InitBuffer(inQueue_, BUFFER_NUM, tileElems * sizeof(T));
        pipe_.InitBuffer(outQueue_, BUFFER_NUM, tileElems * sizeof(T));
        pipe_.InitBuffer(xfBuf_, tileElems * sizeof(float));
        pipe_.InitBuffer(sqBuf_, tileElems * sizeof(float));
        pipe_.InitBuffer(gammaBuf_, rowStride_ * sizeof(float));
        pipe_.InitBuffer(foldBuf_, rowsPerTile_ * 64 * sizeof(float));
        pipe_.InitBuffer(redBuf_, (rowsPerTile_ + 7) / 8 * 8 * sizeof(float));
    }

    __aicore__ inline void Process()
    {
        LoadGamma();
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

    __aicore__ inline uint32_t UbGapBlocks()
    {
        return (rowStride_ * sizeof(T) - (rowLength_ * sizeof(T) + 31) / 32 * 32) / 32;
    }

    __aicore__ inline void LoadGamma()
    {
        LocalTensor<T> gLocal = inQueue_.AllocTensor<T>();
        DataCopyExtParams params{1, static_cast<uint32_t>(rowLength_ * sizeof(T)), 0, 0, 0};
        DataCopyPadExtParams<T> pad{false, 0, 0, 0};
        DataCopyPad(gLocal, gammaGm_, params, pad);
        inQueue_.EnQue(gLocal);
        gLocal = inQueue_.DeQue<T>();
        LocalTensor<float> gammaF = gammaBuf_.Get<float>();
        if constexpr (std::is_same_v<T, float>) {
            DataCopy(gammaF, gLocal, rowStride_);
        } else {
            Cast(gammaF, gLocal, RoundMode::CAST_NONE, rowStride_);
        }
        inQueue_.FreeTensor(gLocal);
    }

    __aicore__ inline void CopyIn(uint32_t t)
    {
        LocalTensor<T> xLocal = inQueue_.AllocTensor<T>();
        DataCopyExtParams params{static_cast<uint16_t>(Rows(t)), static_cast<uint32_t>(rowLength_ * sizeof(T)), 0,
                                 UbGapBlocks(), 0};
        DataCopyPadExtParams<T> pad{false, 0, 0, 0};
        DataCopyPad(xLocal, xGm_[static_cast<uint64_t>(t) * rowsPerTile_ * rowLength_], params, pad);
        inQueue_.EnQue(xLocal);
    }

    __aicore__ inline void Compute(uint32_t rows)
    {
        LocalTensor<T> xLocal = inQueue_.DeQue<T>();
        LocalTensor<T> yLocal = outQueue_.AllocTensor<T>();
        LocalTensor<float> sq = sqBuf_.Get<float>();
        LocalTensor<float> fold = foldBuf_.Get<float>();
        LocalTensor<float> red = redBuf_.Get<float>();
        LocalTensor<float> gammaF = gammaBuf_.Get<float>();
        LocalTensor<float> xf;
        uint32_t n = rows * rowStride_;
        uint8_t rep = static_cast<uint8_t>(rowStride_ / 8);
        uint8_t r8 = static_cast<uint8_t>(rows);
        PipeBarrier<PIPE_V>();  // the previous tile's last instructions have read the work tiles
        if constexpr (std::is_same_v<T, float>) {
            xf = xLocal;
        } else {
            xf = xfBuf_.Get<float>();
            Cast(xf, xLocal, RoundMode::CAST_NONE, n);
            PipeBarrier<PIPE_V>();
        }
        Mul(sq, xf, xf, n);
        PipeBarrier<PIPE_V>();
        // Row sums of the squares: fold each row to 64 lanes, then one WholeReduceSum.
        LocalTensor<float> src = sq;
        uint8_t srcRep = rep;
        if (rowLength_ > 64) {
            Muls(fold, sq, 1.0f, static_cast<uint64_t>(64), r8, {1, 1, 8, rep});
            PipeBarrier<PIPE_V>();
            for (uint32_t k = 64; k < rowLength_; k += 64) {
                uint64_t m = (rowLength_ - k < 64) ? rowLength_ - k : 64;
                Add(fold, fold, sq[k], m, r8, {1, 1, 1, 8, 8, rep});
                PipeBarrier<PIPE_V>();
            }
            src = fold;
            srcRep = 8;
        }
        int32_t lanes = static_cast<int32_t>(rowLength_ < 64 ? rowLength_ : 64);
        WholeReduceSum(red, src, lanes, static_cast<int32_t>(rows), 1, 1, srcRep);
        PipeBarrier<PIPE_V>();
        Muls(red, red, 1.0f / static_cast<float>(rowLength_), rows);
        PipeBarrier<PIPE_V>();
        Adds(red, red, epsilon_, rows);
        PipeBarrier<PIPE_V>();
        Sqrt(red, red, rows);
        event_t vToS = static_cast<event_t>(GetTPipePtr()->FetchEventID(HardEvent::V_S));
        SetFlag<HardEvent::V_S>(vToS);
        WaitFlag<HardEvent::V_S>(vToS);
        LocalTensor<float> yf = std::is_same_v<T, float> ? yLocal.template ReinterpretCast<float>() : sq;
        for (uint32_t r = 0; r < rows; r++) {
            float rstd = 1.0f / red.GetValue(r);
            Muls(yf[r * rowStride_], xf[r * rowStride_], rstd, rowLength_);
        }
        PipeBarrier<PIPE_V>();
        // gamma: one instruction per 64-lane column block, one repeat per row, gamma not advancing.
        for (uint32_t k = 0; k < rowLength_; k += 64) {
            uint64_t m = (rowLength_ - k < 64) ? rowLength_ - k : 64;
            Mul(yf[k], yf[k], gammaF[k], m, r8, {1, 1, 1, rep, rep, 0});
        }
        if constexpr (!std::is_same_v<T, float>) {
            PipeBarrier<PIPE_V>();
            Cast(yLocal, yf, RoundMode::CAST_RINT, n);
        }
        outQueue_.EnQue(yLocal);
        inQueue_.FreeTensor(xLocal);
    }

    __aicore__ inline void CopyOut(uint32_t t)
    {
        LocalTensor<T> yLocal = outQueue_.DeQue<T>();
        DataCopyExtParams params{static_cast<uint16_t>(Rows(t)), static_cast<uint32_t>(rowLength_ * sizeof(T)),
                                 UbGapBlocks(), 0, 0};
        DataCopyPad(yGm_[static_cast<uint64_t>(t) * rowsPerTile_ * rowLength_], yLocal, params);
        outQueue_.FreeTensor(yLocal);
    }

    TPipe pipe_;
    TQue<QuePosition::VECIN, BUFFER_NUM> inQueue_;
    TQue<QuePosition::VECOUT, BUFFER_NUM> outQueue_;
    TBuf<QuePosition::VECCALC> xfBuf_;
    TBuf<QuePosition::VECCALC> sqBuf_;
    TBuf<QuePosition::VECCALC> gammaBuf_;
    TBuf<QuePosition::VECCALC> foldBuf_;
    TBuf<QuePosition::VECCALC> redBuf_;
    GlobalTensor<T> xGm_;
    GlobalTensor<T> gammaGm_;
    GlobalTensor<T> yGm_;
    uint32_t rowCount_ = 0;
    uint32_t rowLength_ = 0;
    uint32_t rowStride_ = 0;
    uint32_t rowsPerTile_ = 0;
    float epsilon_ = 0.0f;
};

// Key 2: one row per tile (long rows).
template <typename T>
class KernelRmsNormRow {
public:
    __aicore__ inline KernelRmsNormRow() {}
    template <typename TilingData>
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR gamma, GM_ADDR y, const TilingData& td)
    {
        uint32_t idx = GetBlockIdx();
        rowCount_ = td.rowsPerCore + (idx < td.bigCoreNum ? 1 : 0);
        uint32_t firstRow = idx * td.rowsPerCore + (idx < td.bigCoreNum ? idx : td.bigCoreNum);
        rowLength_ = td.rowLength;
        rowStride_ = td.rowStride;
        epsilon_ = td.epsilon;
        uint64_t offset = static_cast<uint64_t>(firstRow) * rowLength_;
        xGm_.SetGlobalBuffer((__gm__ T*)x + offset, static_cast<uint64_t>(rowCount_) * rowLength_);
        yGm_.SetGlobalBuffer((__gm__ T*)y + offset, static_cast<uint64_t>(rowCount_) * rowLength_);
        gammaGm_.SetGlobalBuffer((__gm__ T*)gamma, rowLength_);
        pipe_.InitBuffer(inQueue_, BUFFER_NUM, rowStride_ * sizeof(T));
        pipe_.InitBuffer(outQueue_, BUFFER_NUM, rowStride_ * sizeof(T));
        pipe_.InitBuffer(xfBuf_, rowStride_ * sizeof(float));
        pipe_.InitBuffer(sqBuf_, rowStride_ * sizeof(float));
        pipe_.InitBuffer(workBuf_, rowStride_ * sizeof(float));
        pipe_.InitBuffer(gammaBuf_, rowStride_ * sizeof(float));
        pipe_.InitBuffer(redBuf_, 64 * sizeof(float));
    }

    __aicore__ inline void Process()
    {
        LoadGamma();
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
    __aicore__ inline void LoadGamma()
    {
        LocalTensor<T> gLocal = inQueue_.AllocTensor<T>();
        DataCopyExtParams params{1, static_cast<uint32_t>(rowLength_ * sizeof(T)), 0, 0, 0};
        DataCopyPadExtParams<T> pad{false, 0, 0, 0};
        DataCopyPad(gLocal, gammaGm_, params, pad);
        inQueue_.EnQue(gLocal);
        gLocal = inQueue_.DeQue<T>();
        LocalTensor<float> gammaF = gammaBuf_.Get<float>();
        if constexpr (std::is_same_v<T, float>) {
            DataCopy(gammaF, gLocal, rowStride_);
        } else {
            Cast(gammaF, gLocal, RoundMode::CAST_NONE, rowLength_);
        }
        inQueue_.FreeTensor(gLocal);
    }

    __aicore__ inline void CopyIn(uint32_t r)
    {
        LocalTensor<T> xLocal = inQueue_.AllocTensor<T>();
        DataCopyExtParams params{1, static_cast<uint32_t>(rowLength_ * sizeof(T)), 0, 0, 0};
        DataCopyPadExtParams<T> pad{false, 0, 0, 0};
        DataCopyPad(xLocal, xGm_[static_cast<uint64_t>(r) * rowLength_], params, pad);
        inQueue_.EnQue(xLocal);
    }

    __aicore__ inline void Compute()
    {
        LocalTensor<T> xLocal = inQueue_.DeQue<T>();
        LocalTensor<T> yLocal = outQueue_.AllocTensor<T>();
        LocalTensor<float> xf = xfBuf_.Get<float>();
        LocalTensor<float> sq = sqBuf_.Get<float>();
        LocalTensor<float> work = workBuf_.Get<float>();
        LocalTensor<float> gammaF = gammaBuf_.Get<float>();
        LocalTensor<float> red = redBuf_.Get<float>();
        uint32_t n = rowLength_;
        if constexpr (std::is_same_v<T, float>) {
            DataCopy(xf, xLocal, rowStride_);
        } else {
            Cast(xf, xLocal, RoundMode::CAST_NONE, n);
        }
        PipeBarrier<PIPE_V>();
        Mul(sq, xf, xf, n);
        PipeBarrier<PIPE_V>();
        ReduceSum(red, sq, work, n);
        PipeBarrier<PIPE_V>();
        Muls(red, red, 1.0f / static_cast<float>(n), 8);
        PipeBarrier<PIPE_V>();
        Adds(red, red, epsilon_, 8);
        PipeBarrier<PIPE_V>();
        Sqrt(red, red, 8);
        event_t vToS = static_cast<event_t>(GetTPipePtr()->FetchEventID(HardEvent::V_S));
        SetFlag<HardEvent::V_S>(vToS);
        WaitFlag<HardEvent::V_S>(vToS);
        float rstd = 1.0f / red.GetValue(0);
        Muls(xf, xf, rstd, n);
        PipeBarrier<PIPE_V>();
        Mul(xf, xf, gammaF, n);
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
    TBuf<QuePosition::VECCALC> sqBuf_;
    TBuf<QuePosition::VECCALC> workBuf_;
    TBuf<QuePosition::VECCALC> gammaBuf_;
    TBuf<QuePosition::VECCALC> redBuf_;
    GlobalTensor<T> xGm_;
    GlobalTensor<T> gammaGm_;
    GlobalTensor<T> yGm_;
    uint32_t rowCount_ = 0;
    uint32_t rowLength_ = 0;
    uint32_t rowStride_ = 0;
    float epsilon_ = 0.0f;
};

extern "C" __global__ __aicore__ void rms_norm_custom(GM_ADDR x, GM_ADDR gamma, GM_ADDR y, GM_ADDR workspace,
                                                      GM_ADDR tiling)
{
    GET_TILING_DATA(tilingData, tiling);
    if (TILING_KEY_IS(1)) {
        KernelRmsNormBatch<DTYPE_X> op;
        op.Init(x, gamma, y, tilingData);
        op.Process();
    } else if (TILING_KEY_IS(2)) {
        KernelRmsNormRow<DTYPE_X> op;
        op.Init(x, gamma, y, tilingData);
        op.Process();
    }
}
