// Fixture (inplace_to_dead_temp): y = x / (1 + |x|) + max(z, 0) on two fp16 inputs. The clamp of
// z is computed in place early, although the tile of 1 + |x| is dead by the time its result is
// read (the last Add).
#include "kernel_operator.h"

using namespace AscendC;

constexpr int32_t BUFFER_NUM = 2;

template <typename T>
class KernelSoftsignPlusRelu {
public:
    __aicore__ inline KernelSoftsignPlusRelu() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR z, GM_ADDR y, uint32_t coreLength, uint32_t tileLength)
    {
        coreLength_ = coreLength;
        tileLength_ = tileLength;
        xGm_.SetGlobalBuffer((__gm__ T*)x + GetBlockIdx() * coreLength, coreLength);
        zGm_.SetGlobalBuffer((__gm__ T*)z + GetBlockIdx() * coreLength, coreLength);
        yGm_.SetGlobalBuffer((__gm__ T*)y + GetBlockIdx() * coreLength, coreLength);
        pipe_.InitBuffer(xQueue_, BUFFER_NUM, tileLength_ * sizeof(T));
        pipe_.InitBuffer(zQueue_, BUFFER_NUM, tileLength_ * sizeof(T));
        pipe_.InitBuffer(yQueue_, BUFFER_NUM, tileLength_ * sizeof(T));
        pipe_.InitBuffer(denBuf_, tileLength_ * sizeof(T));
    }

    __aicore__ inline void Process()
    {
        const uint32_t tileNum = (coreLength_ + tileLength_ - 1) / tileLength_;
        for (uint32_t i = 0; i < tileNum; ++i) {
            const uint32_t count = (i + 1 == tileNum) ? coreLength_ - i * tileLength_ : tileLength_;
            LocalTensor<T> xIn = xQueue_.AllocTensor<T>();
            LocalTensor<T> zIn = zQueue_.AllocTensor<T>();
            DataCopy(xIn, xGm_[i * tileLength_], count);
            DataCopy(zIn, zGm_[i * tileLength_], count);
            xQueue_.EnQue(xIn);
            zQueue_.EnQue(zIn);
            Compute(count);
            LocalTensor<T> yOut = yQueue_.DeQue<T>();
            DataCopy(yGm_[i * tileLength_], yOut, count);
            yQueue_.FreeTensor(yOut);
        }
    }

private:
    __aicore__ inline void Compute(uint32_t count)
    {
        LocalTensor<T> xLocal = xQueue_.DeQue<T>();
        LocalTensor<T> zLocal = zQueue_.DeQue<T>();
        LocalTensor<T> yLocal = yQueue_.AllocTensor<T>();
        LocalTensor<T> den = denBuf_.Get<T>();
        const T one = 1;
        const T zero = 0;
        Abs(den, xLocal, count);
        PipeBarrier<PIPE_V>();
        Maxs(zLocal, zLocal, zero, count);
        PipeBarrier<PIPE_V>();
        Adds(den, den, one, count);
        PipeBarrier<PIPE_V>();
        Div(yLocal, xLocal, den, count);
        PipeBarrier<PIPE_V>();
        Add(yLocal, yLocal, zLocal, count);
        yQueue_.EnQue(yLocal);
        xQueue_.FreeTensor(xLocal);
        zQueue_.FreeTensor(zLocal);
    }

    TPipe pipe_;
    TQue<TPosition::VECIN, BUFFER_NUM> xQueue_;
    TQue<TPosition::VECIN, BUFFER_NUM> zQueue_;
    TQue<TPosition::VECOUT, BUFFER_NUM> yQueue_;
    TBuf<TPosition::VECCALC> denBuf_;
    GlobalTensor<T> xGm_;
    GlobalTensor<T> zGm_;
    GlobalTensor<T> yGm_;
    uint32_t coreLength_ = 0;
    uint32_t tileLength_ = 0;
};

extern "C" __global__ __aicore__ void gate_custom(GM_ADDR x, GM_ADDR z, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(tilingData, tiling);
    KernelSoftsignPlusRelu<DTYPE_X> op;
    op.Init(x, z, y, tilingData.coreLength, tilingData.tileLength);
    op.Process();
}
