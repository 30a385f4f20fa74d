// Kernel of EqualCustom: y = (x1 == x2) as bool, elementwise.
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

template <typename T, typename S>
class KernelEqual {
public:
    __aicore__ inline KernelEqual() {}
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
        unitLength_ = unitLength;
        x1Gm_.SetGlobalBuffer((__gm__ T*)x1 + offset, coreLength_);
        x2Gm_.SetGlobalBuffer((__gm__ T*)x2 + offset, coreLength_);
        yGm_.SetGlobalBuffer((__gm__ uint8_t*)y + offset, coreLength_);
        pipe_.InitBuffer(x1Queue_, BUFFER_NUM, tileLength_ * sizeof(T));
        pipe_.InitBuffer(x2Queue_, BUFFER_NUM, tileLength_ * sizeof(T));
        pipe_.InitBuffer(yQueue_, BUFFER_NUM, tileLength_ * sizeof(uint8_t));
        pipe_.InitBuffer(maskBuf_, tileLength_ * 1 / 8);
        pipe_.InitBuffer(onesBuf_, tileLength_ * sizeof(S));
        pipe_.InitBuffer(zerosBuf_, tileLength_ * sizeof(S));
        pipe_.InitBuffer(pickBuf_, tileLength_ * sizeof(S));
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
        LocalTensor<T> x1Local = x1Queue_.AllocTensor<T>();
        LocalTensor<T> x2Local = x2Queue_.AllocTensor<T>();
        CopyGmToUb(x1Local, x1Gm_[progress * tileLength_], count);
        CopyGmToUb(x2Local, x2Gm_[progress * tileLength_], count);
        x1Queue_.EnQue(x1Local);
        x2Queue_.EnQue(x2Local);
    }

    __aicore__ inline void Compute(uint32_t count)
    {
        LocalTensor<T> x1Local = x1Queue_.DeQue<T>();
        LocalTensor<T> x2Local = x2Queue_.DeQue<T>();
        LocalTensor<uint8_t> yLocal = yQueue_.AllocTensor<uint8_t>();
        // Compare works on whole 256-byte repeats: round the count up (the buffers are tile-sized).
        const uint32_t alignedCount = (count + unitLength_ - 1) / unitLength_ * unitLength_;
        LocalTensor<uint8_t> mask = maskBuf_.Get<uint8_t>();
        LocalTensor<S> ones = onesBuf_.Get<S>();
        LocalTensor<S> zeros = zerosBuf_.Get<S>();
        LocalTensor<S> picked = pickBuf_.Get<S>();
        Duplicate(ones, static_cast<S>(1), alignedCount);
        Duplicate(zeros, static_cast<S>(0), alignedCount);
        Compare(mask, x1Local, x2Local, CMPMODE::EQ, alignedCount);
        PipeBarrier<PIPE_V>();
        Select(picked, mask, ones, zeros, SELMODE::VSEL_TENSOR_TENSOR_MODE, alignedCount);
        PipeBarrier<PIPE_V>();
        Cast(yLocal, picked, RoundMode::CAST_NONE, alignedCount);
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
    TBuf<TPosition::VECCALC> maskBuf_, onesBuf_, zerosBuf_, pickBuf_;
    GlobalTensor<T> x1Gm_;
    GlobalTensor<T> x2Gm_;
    GlobalTensor<uint8_t> yGm_;
    uint32_t coreLength_ = 0;
    uint32_t tileLength_ = 0;
    uint32_t unitLength_ = 0;
};

extern "C" __global__ __aicore__ void equal_custom(GM_ADDR x1, GM_ADDR x2, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(tilingData, tiling);
    if (TILING_KEY_IS(1)) {  // float16 inputs
        KernelEqual<DTYPE_X1, half> op;
        op.Init(x1, x2, y, tilingData.totalLength, tilingData.unitLength, tilingData.unitsPerCore, tilingData.bigCoreNum, tilingData.tileLength);
        op.Process();
    } else if (TILING_KEY_IS(2)) {  // 32-bit inputs
        KernelEqual<DTYPE_X1, half> op;
        op.Init(x1, x2, y, tilingData.totalLength, tilingData.unitLength, tilingData.unitsPerCore, tilingData.bigCoreNum, tilingData.tileLength);
        op.Process();
    }
}
