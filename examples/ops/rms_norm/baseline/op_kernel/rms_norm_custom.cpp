// RmsNormCustom kernel (baseline): y = x / sqrt(mean(x^2) + epsilon) * gamma over the last axis,
// computed in fp32. gamma is loaded once per core; then one row per iteration: copy in, square,
// ReduceSum, mean + epsilon + Sqrt on one element, read it on the scalar unit, scale, multiply
// by gamma, copy out.
#include "kernel_operator.h"
using namespace AscendC;

constexpr int32_t BUFFER_NUM = 2;

template <typename T>
class KernelRmsNorm {
public:
    __aicore__ inline KernelRmsNorm() {}
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
        for (uint32_t r = 0; r < rowCount_; r++) {
            CopyIn(r);
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
        KernelRmsNorm<DTYPE_X> op;
        op.Init(x, gamma, y, tilingData);
        op.Process();
    }
}
