// GeluCustom kernel (expert): y = 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))) = x / (1 + exp(-2 sqrt(2/pi) (x + 0.044715 x^3))), in fp32.
// Expert: double-buffered queues, 512 B-aligned core split and tiles, the polynomial folded into fewer instructions (x (k0 + k1 x^2)), 256 B gaps so that the operands of each vector instruction sit in different UB bank groups.
#include "kernel_operator.h"
using namespace AscendC;

constexpr int32_t BUFFER_NUM = 2;
constexpr float GELU_K0 = -1.5957691216057308f;             // -2 sqrt(2/pi)
constexpr float GELU_K1 = -1.5957691216057308f * 0.044715f;  // -2 sqrt(2/pi) * 0.044715

template <typename T>
class KernelGelu {
public:
    __aicore__ inline KernelGelu() {}
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
        xGm_.SetGlobalBuffer((__gm__ T*)x + start, blockLength_);
        yGm_.SetGlobalBuffer((__gm__ T*)y + start, blockLength_);
        pipe_.InitBuffer(inQueue_, BUFFER_NUM, tileLength_ * sizeof(T));
        // 256 B gap: the output slots start in other UB bank groups than the input slots
        pipe_.InitBuffer(gapBuf0_, 256);
        pipe_.InitBuffer(outQueue_, BUFFER_NUM, tileLength_ * sizeof(T));
        if constexpr (!std::is_same_v<T, float>) {
            pipe_.InitBuffer(xfBuf_, tileLength_ * sizeof(float));
            pipe_.InitBuffer(gapBuf1_, 256);  // and yf in other bank groups than xf
            pipe_.InitBuffer(yfBuf_, tileLength_ * sizeof(float));
        }
        pipe_.InitBuffer(gapBuf2_, 256);  // and the work tile in other bank groups again
        pipe_.InitBuffer(w0Buf_, tileLength_ * sizeof(float));
    }

    __aicore__ inline void Process()
    {
        uint32_t tiles = (blockLength_ + tileLength_ - 1) / tileLength_;
        for (uint32_t i = 0; i < tiles; i++) {
            uint32_t len = (i == tiles - 1) ? blockLength_ - i * tileLength_ : tileLength_;
            CopyIn(i, len);
            Compute(len);
            CopyOut(i, len);
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
        LocalTensor<float> w0 = w0Buf_.Get<float>();
        LocalTensor<float> xf;
        LocalTensor<float> yf;
        if constexpr (std::is_same_v<T, float>) {
            xf = xLocal.template ReinterpretCast<float>();
            yf = yLocal.template ReinterpretCast<float>();
        } else {
            xf = xfBuf_.Get<float>();
            yf = yfBuf_.Get<float>();
            Cast(xf, xLocal, RoundMode::CAST_NONE, len);
            PipeBarrier<PIPE_V>();
        }
        Mul(yf, xf, xf, len);                    // x^2 (no instruction works in place: an in-place
        // operand reads and writes the same UB bank, one extra cycle per repeat)
        PipeBarrier<PIPE_V>();
        Muls(w0, yf, GELU_K1, len);
        PipeBarrier<PIPE_V>();
        Adds(yf, w0, GELU_K0, len);              // k0 + k1 x^2
        PipeBarrier<PIPE_V>();
        Mul(w0, yf, xf, len);                    // -2 sqrt(2/pi) (x + 0.044715 x^3)
        PipeBarrier<PIPE_V>();
        Exp(yf, w0, len);
        PipeBarrier<PIPE_V>();
        Adds(w0, yf, 1.0f, len);
        PipeBarrier<PIPE_V>();
        Div(yf, xf, w0, len);
        if constexpr (!std::is_same_v<T, float>) {
            PipeBarrier<PIPE_V>();
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
    TBuf<QuePosition::VECCALC> w0Buf_;
    TBuf<QuePosition::VECCALC> gapBuf0_;
    TBuf<QuePosition::VECCALC> gapBuf1_;
    TBuf<QuePosition::VECCALC> gapBuf2_;
    GlobalTensor<T> xGm_;
    GlobalTensor<T> yGm_;
    uint32_t blockLength_ = 0;
    uint32_t tileLength_ = 0;
};

extern "C" __global__ __aicore__ void gelu_custom(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(tilingData, tiling);
    if (TILING_KEY_IS(1)) {
        KernelGelu<DTYPE_X> op;
        op.Init(x, y, tilingData);
        op.Process();
    }
}
