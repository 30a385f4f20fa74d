// Kernel of CastCustom: y = x converted to y's dtype with the requested rounding (baseline).
#include "kernel_operator.h"

using namespace AscendC;

namespace {
constexpr int32_t BUFFER_NUM = 1;
}  // namespace

// GM -> UB for `count` elements; lengths that are not a multiple of 32 bytes go through
// DataCopyPad (a contiguous DataCopy would silently drop the tail).
template <typename T>
__aicore__ inline void CopyGmToUb(const LocalTensor<T>& dst, const GlobalTensor<T>& src, uint32_t count)
{
    const uint32_t bytes = count * static_cast<uint32_t>(sizeof(T));
    if (bytes % 32 == 0) {
        DataCopy(dst, src, count);
    } else {
        DataCopyExtParams copyParams{1, bytes, 0, 0, 0};
        DataCopyPadExtParams<T> padParams;
        DataCopyPad(dst, src, copyParams, padParams);
    }
}

// UB -> GM for `count` elements, with the same tail rule.
template <typename T>
__aicore__ inline void CopyUbToGm(const GlobalTensor<T>& dst, const LocalTensor<T>& src, uint32_t count)
{
    const uint32_t bytes = count * static_cast<uint32_t>(sizeof(T));
    if (bytes % 32 == 0) {
        DataCopy(dst, src, count);
    } else {
        DataCopyExtParams copyParams{1, bytes, 0, 0, 0};
        DataCopyPad(dst, src, copyParams);
    }
}

// round_mode attribute -> AscendC rounding mode of a narrowing Cast.
__aicore__ inline RoundMode ToRoundMode(uint32_t mode)
{
    switch (mode) {
        case 1:
            return RoundMode::CAST_ROUND;
        case 2:
            return RoundMode::CAST_FLOOR;
        case 3:
            return RoundMode::CAST_CEIL;
        case 4:
            return RoundMode::CAST_TRUNC;
        case 5:
            return RoundMode::CAST_ODD;
        default:
            return RoundMode::CAST_RINT;
    }
}

template <typename TI, typename TO, bool NARROW>
class KernelCast {
public:
    __aicore__ inline KernelCast() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, uint32_t totalLength, uint32_t unitLength,
                                uint32_t unitsPerCore, uint32_t bigCoreNum, uint32_t tileLength, uint32_t roundMode)
    {
        const uint32_t blockIdx = GetBlockIdx();
        const uint32_t myUnits = unitsPerCore + (blockIdx < bigCoreNum ? 1U : 0U);
        const uint32_t firstUnit = blockIdx * unitsPerCore + (blockIdx < bigCoreNum ? blockIdx : bigCoreNum);
        const uint32_t offset = firstUnit * unitLength;
        coreLength_ = 0;
        if (offset < totalLength) {
            const uint32_t span = myUnits * unitLength;
            coreLength_ = (totalLength - offset < span) ? (totalLength - offset) : span;
        }
        tileLength_ = tileLength;
        roundMode_ = ToRoundMode(roundMode);
        xGm_.SetGlobalBuffer((__gm__ TI*)x + offset, coreLength_);
        yGm_.SetGlobalBuffer((__gm__ TO*)y + offset, coreLength_);
        pipe_.InitBuffer(xQueue_, BUFFER_NUM, tileLength_ * sizeof(TI));
        pipe_.InitBuffer(yQueue_, BUFFER_NUM, tileLength_ * sizeof(TO));
    }

    __aicore__ inline void Process()
    {
        if (coreLength_ == 0) {
            return;
        }

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
        LocalTensor<TI> xLocal = xQueue_.AllocTensor<TI>();
        CopyGmToUb(xLocal, xGm_[progress * tileLength_], count);
        xQueue_.EnQue(xLocal);
    }

    __aicore__ inline void Compute(uint32_t count)
    {
        LocalTensor<TI> xLocal = xQueue_.DeQue<TI>();
        LocalTensor<TO> yLocal = yQueue_.AllocTensor<TO>();
        if constexpr (NARROW) {
            Cast(yLocal, xLocal, roundMode_, count);
        } else {
            Cast(yLocal, xLocal, RoundMode::CAST_NONE, count);
        }
        yQueue_.EnQue(yLocal);
        xQueue_.FreeTensor(xLocal);
    }

    __aicore__ inline void CopyOut(uint32_t progress, uint32_t count)
    {
        LocalTensor<TO> yLocal = yQueue_.DeQue<TO>();
        CopyUbToGm(yGm_[progress * tileLength_], yLocal, count);
        yQueue_.FreeTensor(yLocal);
    }

    TPipe pipe_;
    TQue<TPosition::VECIN, BUFFER_NUM> xQueue_;
    TQue<TPosition::VECOUT, BUFFER_NUM> yQueue_;
    GlobalTensor<TI> xGm_;
    GlobalTensor<TO> yGm_;
    uint32_t coreLength_ = 0;
    uint32_t tileLength_ = 0;
    RoundMode roundMode_ = RoundMode::CAST_RINT;
};

extern "C" __global__ __aicore__ void cast_custom(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(tilingData, tiling);
    if (TILING_KEY_IS(1)) {  // widening
        KernelCast<DTYPE_X, DTYPE_Y, false> op;
        op.Init(x, y, tilingData.totalLength, tilingData.unitLength, tilingData.unitsPerCore, tilingData.bigCoreNum, tilingData.tileLength, tilingData.roundMode);
        op.Process();
    } else if (TILING_KEY_IS(2)) {  // narrowing
        KernelCast<DTYPE_X, DTYPE_Y, true> op;
        op.Init(x, y, tilingData.totalLength, tilingData.unitLength, tilingData.unitsPerCore, tilingData.bigCoreNum, tilingData.tileLength, tilingData.roundMode);
        op.Process();
    }
}
