// Fixture (enque_pipe_all, div_to_reciprocal): y = 1 / x as a division of a tile of ones, and a
// full-pipeline barrier closing the compute stage before the hand-off to the copy-out.
#include "kernel_operator.h"

using namespace AscendC;

constexpr int32_t BUFFER_NUM = 2;

template <typename T>
class KernelInv {
public:
    __aicore__ inline KernelInv() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, uint32_t totalLength, uint32_t unitLength, uint32_t unitsPerCore,
                                uint32_t bigCoreNum, uint32_t tileLength)
    {
        const uint32_t blockIdx = GetBlockIdx();
        const uint32_t myUnits = unitsPerCore + (blockIdx < bigCoreNum ? 1U : 0U);
        const uint32_t offset = (blockIdx * unitsPerCore + (blockIdx < bigCoreNum ? blockIdx : bigCoreNum)) * unitLength;
        coreLength_ = 0;
        if (offset < totalLength) {
            const uint32_t span = myUnits * unitLength;
            coreLength_ = (totalLength - offset < span) ? (totalLength - offset) : span;
        }
        tileLength_ = tileLength;
        xGm_.SetGlobalBuffer((__gm__ T*)x + offset, coreLength_);
        yGm_.SetGlobalBuffer((__gm__ T*)y + offset, coreLength_);
        pipe_.InitBuffer(xQueue_, BUFFER_NUM, tileLength_ * sizeof(T));
        pipe_.InitBuffer(yQueue_, BUFFER_NUM, tileLength_ * sizeof(T));
        pipe_.InitBuffer(onesBuf_, tileLength_ * sizeof(T));
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
        LocalTensor<T> xLocal = xQueue_.AllocTensor<T>();
        DataCopy(xLocal, xGm_[progress * tileLength_], count);
        xQueue_.EnQue(xLocal);
    }

    __aicore__ inline void Compute(uint32_t count)
    {
        LocalTensor<T> xLocal = xQueue_.DeQue<T>();
        LocalTensor<T> yLocal = yQueue_.AllocTensor<T>();
        LocalTensor<T> ones = onesBuf_.Get<T>();
        Duplicate(ones, static_cast<T>(1), count);
        PipeBarrier<PIPE_V>();
        Div(yLocal, ones, xLocal, count);
        PipeBarrier<PIPE_ALL>();
        yQueue_.EnQue(yLocal);
        xQueue_.FreeTensor(xLocal);
    }

    __aicore__ inline void CopyOut(uint32_t progress, uint32_t count)
    {
        LocalTensor<T> yLocal = yQueue_.DeQue<T>();
        DataCopy(yGm_[progress * tileLength_], yLocal, count);
        yQueue_.FreeTensor(yLocal);
    }

    TPipe pipe_;
    TQue<TPosition::VECIN, BUFFER_NUM> xQueue_;
    TQue<TPosition::VECOUT, BUFFER_NUM> yQueue_;
    TBuf<TPosition::VECCALC> onesBuf_;
    GlobalTensor<T> xGm_;
    GlobalTensor<T> yGm_;
    uint32_t coreLength_ = 0;
    uint32_t tileLength_ = 0;
};

extern "C" __global__ __aicore__ void inv_custom(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(tilingData, tiling);
    if (TILING_KEY_IS(1)) {
        KernelInv<DTYPE_X> op;
        op.Init(x, y, tilingData.totalLength, tilingData.unitLength, tilingData.unitsPerCore, tilingData.bigCoreNum,
                tilingData.tileLength);
        op.Process();
    }
}
