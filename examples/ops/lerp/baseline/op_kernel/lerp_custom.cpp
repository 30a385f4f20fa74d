// Kernel of LerpCustom: y = start + weight * (end - start), elementwise.
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

template <typename T, typename C>
class KernelLerp {
public:
    __aicore__ inline KernelLerp() {}
    __aicore__ inline void Init(GM_ADDR start, GM_ADDR end, GM_ADDR weight, GM_ADDR y, uint32_t totalLength, uint32_t unitLength,
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

        startGm_.SetGlobalBuffer((__gm__ T*)start + offset, coreLength_);
        endGm_.SetGlobalBuffer((__gm__ T*)end + offset, coreLength_);
        weightGm_.SetGlobalBuffer((__gm__ T*)weight + offset, coreLength_);
        yGm_.SetGlobalBuffer((__gm__ T*)y + offset, coreLength_);
        pipe_.InitBuffer(startQueue_, BUFFER_NUM, tileLength_ * sizeof(T));
        pipe_.InitBuffer(endQueue_, BUFFER_NUM, tileLength_ * sizeof(T));
        pipe_.InitBuffer(weightQueue_, BUFFER_NUM, tileLength_ * sizeof(T));
        pipe_.InitBuffer(yQueue_, BUFFER_NUM, tileLength_ * sizeof(T));
        if constexpr (!std::is_same<T, C>::value) {
            pipe_.InitBuffer(tmpA_, tileLength_ * sizeof(C));
            pipe_.InitBuffer(tmpB_, tileLength_ * sizeof(C));
            pipe_.InitBuffer(tmpC_, tileLength_ * sizeof(C));
        }
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
        LocalTensor<T> startLocal = startQueue_.AllocTensor<T>();
        LocalTensor<T> endLocal = endQueue_.AllocTensor<T>();
        LocalTensor<T> weightLocal = weightQueue_.AllocTensor<T>();
        CopyGmToUb(startLocal, startGm_[progress * tileLength_], count);
        CopyGmToUb(endLocal, endGm_[progress * tileLength_], count);
        CopyGmToUb(weightLocal, weightGm_[progress * tileLength_], count);
        startQueue_.EnQue(startLocal);
        endQueue_.EnQue(endLocal);
        weightQueue_.EnQue(weightLocal);
    }

    __aicore__ inline void Compute(uint32_t count)
    {
        LocalTensor<T> startLocal = startQueue_.DeQue<T>();
        LocalTensor<T> endLocal = endQueue_.DeQue<T>();
        LocalTensor<T> weightLocal = weightQueue_.DeQue<T>();
        LocalTensor<T> yLocal = yQueue_.AllocTensor<T>();
        if constexpr (std::is_same<T, C>::value) {
            Sub(endLocal, endLocal, startLocal, count);
            PipeBarrier<PIPE_V>();
            Mul(endLocal, endLocal, weightLocal, count);
            PipeBarrier<PIPE_V>();
            Add(yLocal, startLocal, endLocal, count);
        } else {
            LocalTensor<C> s = tmpA_.Get<C>();
            LocalTensor<C> e = tmpB_.Get<C>();
            LocalTensor<C> w = tmpC_.Get<C>();
            Cast(s, startLocal, RoundMode::CAST_NONE, count);
            Cast(e, endLocal, RoundMode::CAST_NONE, count);
            Cast(w, weightLocal, RoundMode::CAST_NONE, count);
            PipeBarrier<PIPE_V>();
            Sub(e, e, s, count);
            PipeBarrier<PIPE_V>();
            Mul(e, e, w, count);
            PipeBarrier<PIPE_V>();
            Add(e, s, e, count);
            PipeBarrier<PIPE_V>();
            Cast(yLocal, e, RoundMode::CAST_RINT, count);
        }
        yQueue_.EnQue(yLocal);
        startQueue_.FreeTensor(startLocal);
        endQueue_.FreeTensor(endLocal);
        weightQueue_.FreeTensor(weightLocal);
    }

    __aicore__ inline void CopyOut(uint32_t progress, uint32_t count)
    {
        LocalTensor<T> yLocal = yQueue_.DeQue<T>();
        CopyUbToGm(yGm_[progress * tileLength_], yLocal, count);
        yQueue_.FreeTensor(yLocal);
    }

    TPipe pipe_;
    TQue<TPosition::VECIN, BUFFER_NUM> startQueue_, endQueue_, weightQueue_;
    TQue<TPosition::VECOUT, BUFFER_NUM> yQueue_;
    TBuf<TPosition::VECCALC> tmpA_, tmpB_, tmpC_;
    GlobalTensor<T> startGm_;
    GlobalTensor<T> endGm_;
    GlobalTensor<T> weightGm_;
    GlobalTensor<T> yGm_;
    uint32_t coreLength_ = 0;
    uint32_t tileLength_ = 0;
};

extern "C" __global__ __aicore__ void lerp_custom(GM_ADDR start, GM_ADDR end, GM_ADDR weight, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(tilingData, tiling);
    if (TILING_KEY_IS(1)) {  // float32
        KernelLerp<DTYPE_START, DTYPE_START> op;
        op.Init(start, end, weight, y, tilingData.totalLength, tilingData.unitLength, tilingData.unitsPerCore, tilingData.bigCoreNum, tilingData.tileLength);
        op.Process();
    } else if (TILING_KEY_IS(2)) {  // float16 through float32
        KernelLerp<DTYPE_START, float> op;
        op.Init(start, end, weight, y, tilingData.totalLength, tilingData.unitLength, tilingData.unitsPerCore, tilingData.bigCoreNum, tilingData.tileLength);
        op.Process();
    }
}
