// Fixture (sigmoid_gate_direct): fp32 y = x * sigmoid(1.5 x) in the overflow-safe form, on |x|
// with the sign restored by min(x, 0): seven vector passes per tile and a temporary tile.
#include "kernel_operator.h"

using namespace AscendC;

constexpr int32_t BUFFER_NUM = 2;

class KernelGate {
public:
    __aicore__ inline KernelGate() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, uint32_t coreLength, uint32_t tileLength)
    {
        coreLength_ = coreLength;
        tileLength_ = tileLength;
        xGm_.SetGlobalBuffer((__gm__ float*)x + GetBlockIdx() * coreLength, coreLength);
        yGm_.SetGlobalBuffer((__gm__ float*)y + GetBlockIdx() * coreLength, coreLength);
        pipe_.InitBuffer(xQueue_, BUFFER_NUM, tileLength_ * sizeof(float));
        pipe_.InitBuffer(yQueue_, BUFFER_NUM, tileLength_ * sizeof(float));
        pipe_.InitBuffer(absBuf_, tileLength_ * sizeof(float));
    }

    __aicore__ inline void Process()
    {
        const uint32_t tileNum = (coreLength_ + tileLength_ - 1) / tileLength_;
        for (uint32_t i = 0; i < tileNum; ++i) {
            const uint32_t count = (i + 1 == tileNum) ? coreLength_ - i * tileLength_ : tileLength_;
            CopyIn(i, count);
            Compute(count);
            CopyOut(i, count);
        }
    }

private:
    __aicore__ inline void CopyIn(uint32_t progress, uint32_t count)
    {
        LocalTensor<float> xLocal = xQueue_.AllocTensor<float>();
        DataCopy(xLocal, xGm_[progress * tileLength_], count);
        xQueue_.EnQue(xLocal);
    }

    __aicore__ inline void Compute(uint32_t count)
    {
        LocalTensor<float> xLocal = xQueue_.DeQue<float>();
        LocalTensor<float> yLocal = yQueue_.AllocTensor<float>();
        LocalTensor<float> absX = absBuf_.Get<float>();
        float slope = -1.5f;
        float zero = 0;
        Abs(absX, xLocal, count);
        PipeBarrier<PIPE_V>();
        Mins(xLocal, xLocal, zero, count);
        PipeBarrier<PIPE_V>();
        Muls(yLocal, absX, slope, count);
        PipeBarrier<PIPE_V>();
        Exp(yLocal, yLocal, count);
        PipeBarrier<PIPE_V>();
        Adds(yLocal, yLocal, static_cast<float>(1), count);
        PipeBarrier<PIPE_V>();
        Div(yLocal, absX, yLocal, count);
        PipeBarrier<PIPE_V>();
        Add(yLocal, yLocal, xLocal, count);
        yQueue_.EnQue(yLocal);
        xQueue_.FreeTensor(xLocal);
    }

    __aicore__ inline void CopyOut(uint32_t progress, uint32_t count)
    {
        LocalTensor<float> yLocal = yQueue_.DeQue<float>();
        DataCopy(yGm_[progress * tileLength_], yLocal, count);
        yQueue_.FreeTensor(yLocal);
    }

    TPipe pipe_;
    TQue<TPosition::VECIN, BUFFER_NUM> xQueue_;
    TQue<TPosition::VECOUT, BUFFER_NUM> yQueue_;
    TBuf<TPosition::VECCALC> absBuf_;
    GlobalTensor<float> xGm_;
    GlobalTensor<float> yGm_;
    uint32_t coreLength_ = 0;
    uint32_t tileLength_ = 0;
};

extern "C" __global__ __aicore__ void gate_custom(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(tilingData, tiling);
    KernelGate op;
    op.Init(x, y, tilingData.coreLength, tilingData.tileLength);
    op.Process();
}
