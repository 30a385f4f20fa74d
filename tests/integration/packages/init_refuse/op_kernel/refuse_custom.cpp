// Kernel of RefuseCustom: y = ln(x), elementwise (a fixture of `aopt init` whose tiling refuses every probe).
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
class KernelRefuse {
public:
    __aicore__ inline KernelRefuse() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, uint32_t totalLength, uint32_t unitLength,
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

        xGm_.SetGlobalBuffer((__gm__ T*)x + offset, coreLength_);
        yGm_.SetGlobalBuffer((__gm__ T*)y + offset, coreLength_);
        pipe_.InitBuffer(xQueue_, BUFFER_NUM, tileLength_ * sizeof(T));
        pipe_.InitBuffer(yQueue_, BUFFER_NUM, tileLength_ * sizeof(T));
        if constexpr (!std::is_same<T, C>::value) {
            pipe_.InitBuffer(tmpA_, tileLength_ * sizeof(C));
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
        LocalTensor<T> xLocal = xQueue_.AllocTensor<T>();
        CopyGmToUb(xLocal, xGm_[progress * tileLength_], count);
        xQueue_.EnQue(xLocal);
    }

    __aicore__ inline void Compute(uint32_t count)
    {
        LocalTensor<T> xLocal = xQueue_.DeQue<T>();
        LocalTensor<T> yLocal = yQueue_.AllocTensor<T>();
        if constexpr (std::is_same<T, C>::value) {
            Ln(yLocal, xLocal, count);
        } else {
            LocalTensor<C> work = tmpA_.Get<C>();
            Cast(work, xLocal, RoundMode::CAST_NONE, count);
            PipeBarrier<PIPE_V>();
            Ln(work, work, count);
            PipeBarrier<PIPE_V>();
            Cast(yLocal, work, RoundMode::CAST_RINT, count);
        }
        yQueue_.EnQue(yLocal);
        xQueue_.FreeTensor(xLocal);
    }

    __aicore__ inline void CopyOut(uint32_t progress, uint32_t count)
    {
        LocalTensor<T> yLocal = yQueue_.DeQue<T>();
        CopyUbToGm(yGm_[progress * tileLength_], yLocal, count);
        yQueue_.FreeTensor(yLocal);
    }

    TPipe pipe_;
    TQue<TPosition::VECIN, BUFFER_NUM> xQueue_;
    TQue<TPosition::VECOUT, BUFFER_NUM> yQueue_;
    TBuf<TPosition::VECCALC> tmpA_;
    GlobalTensor<T> xGm_;
    GlobalTensor<T> yGm_;
    uint32_t coreLength_ = 0;
    uint32_t tileLength_ = 0;
};

extern "C" __global__ __aicore__ void refuse_custom(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(tilingData, tiling);
    if (TILING_KEY_IS(1)) {  // compute in the input dtype
        KernelRefuse<DTYPE_X, DTYPE_X> op;
        op.Init(x, y, tilingData.totalLength, tilingData.unitLength, tilingData.unitsPerCore, tilingData.bigCoreNum, tilingData.tileLength);
        op.Process();
    } else if (TILING_KEY_IS(2)) {  // half precision: compute in float32
        KernelRefuse<DTYPE_X, float> op;
        op.Init(x, y, tilingData.totalLength, tilingData.unitLength, tilingData.unitsPerCore, tilingData.bigCoreNum, tilingData.tileLength);
        op.Process();
    }
}
