// Kernel of LogicalAndCustom: y = x1 && x2 on bool tensors (bytes 0/1), elementwise.
#include "kernel_operator.h"

using namespace AscendC;

namespace {
constexpr int32_t BUFFER_NUM = 2;
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

template <typename T>
class KernelLogicalAnd {
public:
    __aicore__ inline KernelLogicalAnd() {}
    __aicore__ inline void Init(GM_ADDR x1, GM_ADDR x2, GM_ADDR y, uint32_t totalLength, uint32_t unitLength,
                                uint32_t unitsPerCore, uint32_t bigCoreNum, uint32_t tileLength)
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

        x1Gm_.SetGlobalBuffer((__gm__ uint8_t*)x1 + offset, coreLength_);
        x2Gm_.SetGlobalBuffer((__gm__ uint8_t*)x2 + offset, coreLength_);
        yGm_.SetGlobalBuffer((__gm__ uint8_t*)y + offset, coreLength_);
        pipe_.InitBuffer(x1Queue_, BUFFER_NUM, tileLength_ * sizeof(uint8_t));
        pipe_.InitBuffer(x2Queue_, BUFFER_NUM, tileLength_ * sizeof(uint8_t));
        pipe_.InitBuffer(yQueue_, BUFFER_NUM, tileLength_ * sizeof(uint8_t));
        pipe_.InitBuffer(tmpA_, tileLength_ * sizeof(half));
        pipe_.InitBuffer(tmpB_, tileLength_ * sizeof(half));
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
        LocalTensor<uint8_t> x1Local = x1Queue_.AllocTensor<uint8_t>();
        LocalTensor<uint8_t> x2Local = x2Queue_.AllocTensor<uint8_t>();
        CopyGmToUb(x1Local, x1Gm_[progress * tileLength_], count);
        CopyGmToUb(x2Local, x2Gm_[progress * tileLength_], count);
        x1Queue_.EnQue(x1Local);
        x2Queue_.EnQue(x2Local);
    }

    __aicore__ inline void Compute(uint32_t count)
    {
        LocalTensor<uint8_t> x1Local = x1Queue_.DeQue<uint8_t>();
        LocalTensor<uint8_t> x2Local = x2Queue_.DeQue<uint8_t>();
        LocalTensor<uint8_t> yLocal = yQueue_.AllocTensor<uint8_t>();
        LocalTensor<half> a = tmpA_.Get<half>();
        LocalTensor<half> b = tmpB_.Get<half>();
        Cast(a, x1Local, RoundMode::CAST_NONE, count);
        Cast(b, x2Local, RoundMode::CAST_NONE, count);
        PipeBarrier<PIPE_V>();
        Mul(a, a, b, count);
        PipeBarrier<PIPE_V>();
        Cast(yLocal, a, RoundMode::CAST_NONE, count);
        PipeBarrier<PIPE_ALL>();
        yQueue_.EnQue(yLocal);
        x1Queue_.FreeTensor(x1Local);
        x2Queue_.FreeTensor(x2Local);
    }

    __aicore__ inline void CopyOut(uint32_t progress, uint32_t count)
    {
        LocalTensor<uint8_t> yLocal = yQueue_.DeQue<uint8_t>();
        CopyUbToGm(yGm_[progress * tileLength_], yLocal, count);
        yQueue_.FreeTensor(yLocal);
    }

    TPipe pipe_;
    TQue<TPosition::VECIN, BUFFER_NUM> x1Queue_, x2Queue_;
    TQue<TPosition::VECOUT, BUFFER_NUM> yQueue_;
    TBuf<TPosition::VECCALC> tmpA_, tmpB_;
    GlobalTensor<uint8_t> x1Gm_;
    GlobalTensor<uint8_t> x2Gm_;
    GlobalTensor<uint8_t> yGm_;
    uint32_t coreLength_ = 0;
    uint32_t tileLength_ = 0;
};

extern "C" __global__ __aicore__ void logical_and_custom(GM_ADDR x1, GM_ADDR x2, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(tilingData, tiling);
    if (TILING_KEY_IS(1)) {  // bool
        KernelLogicalAnd<uint8_t> op;
        op.Init(x1, x2, y, tilingData.totalLength, tilingData.unitLength, tilingData.unitsPerCore, tilingData.bigCoreNum, tilingData.tileLength);
        op.Process();
    }
}
