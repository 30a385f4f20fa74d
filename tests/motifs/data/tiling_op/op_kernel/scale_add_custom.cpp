// Fixture (tiling motifs): z = x + y with the remainder of the multi-core split on the last core
// (tail_balance) and the add split into full repeats plus a partial tail call (counter_mode_mask).
#include "kernel_operator.h"

using namespace AscendC;

constexpr int32_t BUFFER_NUM = 2;

template <typename T>
class KernelScaleAdd {
public:
    __aicore__ inline KernelScaleAdd() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, GM_ADDR z, uint32_t totalLength, uint32_t unitLength,
                                uint32_t unitsPerCore, uint32_t bigCoreNum, uint32_t tileLength)
    {
        const uint32_t blockIdx = GetBlockIdx();
        const uint32_t myUnits = unitsPerCore + (blockIdx + 1 == GetBlockNum() ? bigCoreNum : 0U);
        const uint32_t firstUnit = blockIdx * unitsPerCore;
        const uint32_t offset = firstUnit * unitLength;
        coreLength_ = 0;
        if (offset < totalLength) {
            const uint32_t span = myUnits * unitLength;
            coreLength_ = (totalLength - offset < span) ? (totalLength - offset) : span;
        }
        tileLength_ = tileLength;
        xGm_.SetGlobalBuffer((__gm__ T*)x + offset, coreLength_);
        yGm_.SetGlobalBuffer((__gm__ T*)y + offset, coreLength_);
        zGm_.SetGlobalBuffer((__gm__ T*)z + offset, coreLength_);
        pipe_.InitBuffer(xQueue_, BUFFER_NUM, tileLength_ * sizeof(T));
        pipe_.InitBuffer(yQueue_, BUFFER_NUM, tileLength_ * sizeof(T));
        pipe_.InitBuffer(zQueue_, BUFFER_NUM, tileLength_ * sizeof(T));
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
        LocalTensor<T> yLocal = yQueue_.AllocTensor<T>();
        DataCopyExtParams copyParams{1, static_cast<uint32_t>(count * sizeof(T)), 0, 0, 0};
        DataCopyPadExtParams<T> padParams;
        DataCopyPad(xLocal, xGm_[progress * tileLength_], copyParams, padParams);
        DataCopyPad(yLocal, yGm_[progress * tileLength_], copyParams, padParams);
        xQueue_.EnQue(xLocal);
        yQueue_.EnQue(yLocal);
    }

    __aicore__ inline void Compute(uint32_t count)
    {
        LocalTensor<T> xLocal = xQueue_.DeQue<T>();
        LocalTensor<T> yLocal = yQueue_.DeQue<T>();
        LocalTensor<T> zLocal = zQueue_.AllocTensor<T>();
        const uint32_t perRepeat = ONE_REPEAT_BYTE_SIZE / sizeof(T);
        const BinaryRepeatParams params(1, 1, 1, 8, 8, 8);
        Add(zLocal, xLocal, yLocal, perRepeat, count / perRepeat, params);
        if (count % perRepeat > 0) {
            Add(zLocal[count / perRepeat * perRepeat], xLocal[count / perRepeat * perRepeat],
                yLocal[count / perRepeat * perRepeat], count % perRepeat, 1, params);
        }
        zQueue_.EnQue(zLocal);
        xQueue_.FreeTensor(xLocal);
        yQueue_.FreeTensor(yLocal);
    }

    __aicore__ inline void CopyOut(uint32_t progress, uint32_t count)
    {
        LocalTensor<T> zLocal = zQueue_.DeQue<T>();
        DataCopyExtParams copyParams{1, static_cast<uint32_t>(count * sizeof(T)), 0, 0, 0};
        DataCopyPad(zGm_[progress * tileLength_], zLocal, copyParams);
        zQueue_.FreeTensor(zLocal);
    }

    TPipe pipe_;
    TQue<TPosition::VECIN, BUFFER_NUM> xQueue_, yQueue_;
    TQue<TPosition::VECOUT, BUFFER_NUM> zQueue_;
    GlobalTensor<T> xGm_;
    GlobalTensor<T> yGm_;
    GlobalTensor<T> zGm_;
    uint32_t coreLength_ = 0;
    uint32_t tileLength_ = 0;
};

extern "C" __global__ __aicore__ void scale_add_custom(GM_ADDR x, GM_ADDR y, GM_ADDR z, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(tilingData, tiling);
    if (TILING_KEY_IS(1)) {
        KernelScaleAdd<DTYPE_X> op;
        op.Init(x, y, z, tilingData.totalLength, tilingData.unitLength, tilingData.unitsPerCore, tilingData.bigCoreNum,
                tilingData.tileLength);
        op.Process();
    }
}
