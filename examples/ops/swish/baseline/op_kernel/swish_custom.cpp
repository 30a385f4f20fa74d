// SwishCustom kernel (baseline): y = x / (1 + exp(-scale x)), in fp32.
// Baseline: double-buffered queues, but a PipeBarrier<PIPE_ALL> closes every tile (as a cautious first version does), so copy-in, compute and copy-out never overlap.
#include "kernel_operator.h"
using namespace AscendC;

constexpr int32_t BUFFER_NUM = 2;

template <typename T>
class KernelSwish {
public:
    __aicore__ inline KernelSwish() {}
    template <typename TilingData>
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, const TilingData& td)
    {
        uint32_t idx = GetBlockIdx();
        uint32_t units = td.unitsPerCore + (idx < td.bigCoreNum ? 1 : 0);
        uint32_t startUnit = idx * td.unitsPerCore + (idx < td.bigCoreNum ? idx : td.bigCoreNum);
        uint32_t start = startUnit * td.unitLength;
        uint32_t end = start + units * td.unitLength;
        if (end > td.totalLength) {
            end = td.totalLength;
        }
        blockLength_ = end > start ? end - start : 0;
        tileLength_ = td.tileLength;
        scale_ = td.scale;
        xGm_.SetGlobalBuffer((__gm__ T*)x + start, blockLength_);
        yGm_.SetGlobalBuffer((__gm__ T*)y + start, blockLength_);
        pipe_.InitBuffer(inQueue_, BUFFER_NUM, tileLength_ * sizeof(T));
        pipe_.InitBuffer(outQueue_, BUFFER_NUM, tileLength_ * sizeof(T));
        if constexpr (!std::is_same_v<T, float>) {
            pipe_.InitBuffer(xfBuf_, tileLength_ * sizeof(float));
            pipe_.InitBuffer(yfBuf_, tileLength_ * sizeof(float));
        }
    }

    __aicore__ inline void Process()
    {
        uint32_t tiles = (blockLength_ + tileLength_ - 1) / tileLength_;
        for (uint32_t i = 0; i < tiles; i++) {
            uint32_t len = (i == tiles - 1) ? blockLength_ - i * tileLength_ : tileLength_;
            CopyIn(i, len);
            Compute(len);
            CopyOut(i, len);
            PipeBarrier<PIPE_ALL>();
        }
    }

private:
    __aicore__ inline void CopyIn(uint32_t i, uint32_t len)
    {
        LocalTensor<T> xLocal = inQueue_.AllocTensor<T>();
        DataCopyExtParams params{1, static_cast<uint32_t>(len * sizeof(T)), 0, 0, 0};
        DataCopyPadExtParams<T> pad{false, 0, 0, 0};
        DataCopyPad(xLocal, xGm_[i * tileLength_], params, pad);
        inQueue_.EnQue(xLocal);
    }

    __aicore__ inline void Compute(uint32_t len)
    {
        LocalTensor<T> xLocal = inQueue_.DeQue<T>();
        LocalTensor<T> yLocal = outQueue_.AllocTensor<T>();
        LocalTensor<float> xf;
        LocalTensor<float> yf;
        if constexpr (std::is_same_v<T, float>) {
            xf = xLocal.template ReinterpretCast<float>();
            yf = yLocal.template ReinterpretCast<float>();
        } else {
            xf = xfBuf_.Get<float>();
            yf = yfBuf_.Get<float>();
            Cast(xf, xLocal, RoundMode::CAST_NONE, len);
        }
        Muls(yf, xf, -scale_, len);
        Exp(yf, yf, len);
        Adds(yf, yf, 1.0f, len);
        Div(yf, xf, yf, len);
        if constexpr (!std::is_same_v<T, float>) {
            Cast(yLocal, yf, RoundMode::CAST_RINT, len);
        }
        outQueue_.EnQue(yLocal);
        inQueue_.FreeTensor(xLocal);
    }

    __aicore__ inline void CopyOut(uint32_t i, uint32_t len)
    {
        LocalTensor<T> yLocal = outQueue_.DeQue<T>();
        DataCopyExtParams params{1, static_cast<uint32_t>(len * sizeof(T)), 0, 0, 0};
        DataCopyPad(yGm_[i * tileLength_], yLocal, params);
        outQueue_.FreeTensor(yLocal);
    }

    TPipe pipe_;
    TQue<QuePosition::VECIN, BUFFER_NUM> inQueue_;
    TQue<QuePosition::VECOUT, BUFFER_NUM> outQueue_;
    TBuf<QuePosition::VECCALC> xfBuf_;
    TBuf<QuePosition::VECCALC> yfBuf_;
    GlobalTensor<T> xGm_;
    GlobalTensor<T> yGm_;
    uint32_t blockLength_ = 0;
    uint32_t tileLength_ = 0;
    float scale_ = 0.0f;
};

extern "C" __global__ __aicore__ void swish_custom(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(tilingData, tiling);
    if (TILING_KEY_IS(1)) {
        KernelSwish<DTYPE_X> op;
        op.Init(x, y, tilingData);
        op.Process();
    }
}
