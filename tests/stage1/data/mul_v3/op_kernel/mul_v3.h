/**
 * @file mul_v3.h
 * Kernel class of MulV3: each core multiplies its contiguous range through UB tiles.
 */
#ifndef MUL_V3_H
#define MUL_V3_H
#include "kernel_operator.h"
#include "mul_v3_tiling_data.h"
#include "mul_v3_tiling_key.h"

namespace NsMulV3 {
using namespace AscendC;

constexpr uint32_t BLOCK_BYTES = 32;

template <typename T, int32_t BUFFER_NUM>
class MulV3 {
public:
    __aicore__ inline MulV3() {}
    __aicore__ inline void Init(GM_ADDR x1, GM_ADDR x2, GM_ADDR y, const MulV3TilingData *tiling, TPipe *pipe)
    {
        const int64_t blockIdx = GetBlockIdx();
        const int64_t offset = blockIdx * tiling->perCoreNum;
        coreNum_ = (blockIdx == GetBlockNum() - 1) ? tiling->lastCoreNum : tiling->perCoreNum;
        tileNum_ = tiling->tileNum;
        x1Gm_.SetGlobalBuffer((__gm__ T *)x1 + offset, coreNum_);
        x2Gm_.SetGlobalBuffer((__gm__ T *)x2 + offset, coreNum_);
        yGm_.SetGlobalBuffer((__gm__ T *)y + offset, coreNum_);
        pipe->InitBuffer(inQueue1_, BUFFER_NUM, tileNum_ * sizeof(T));
        pipe->InitBuffer(inQueue2_, BUFFER_NUM, tileNum_ * sizeof(T));
        pipe->InitBuffer(outQueue_, BUFFER_NUM, tileNum_ * sizeof(T));
    }
    __aicore__ inline void Process()
    {
        const int64_t loops = (coreNum_ + tileNum_ - 1) / tileNum_;
        for (int64_t i = 0; i < loops; i++) {
            const uint32_t count = static_cast<uint32_t>(i + 1 == loops ? coreNum_ - i * tileNum_ : tileNum_);
            CopyIn(i, count);
            Compute(count);
            CopyOut(i, count);
        }
    }

private:
    __aicore__ inline void CopyIn(int64_t i, uint32_t count)
    {
        LocalTensor<T> a = inQueue1_.template AllocTensor<T>();
        LocalTensor<T> b = inQueue2_.template AllocTensor<T>();
        DataCopyExtParams params{1, static_cast<uint32_t>(count * sizeof(T)), 0, 0, 0};
        DataCopyPadExtParams<T> pad{false, 0, 0, 0};
        DataCopyPad(a, x1Gm_[i * tileNum_], params, pad);
        DataCopyPad(b, x2Gm_[i * tileNum_], params, pad);
        inQueue1_.EnQue(a);
        inQueue2_.EnQue(b);
    }
    __aicore__ inline void Compute(uint32_t count)
    {
        LocalTensor<T> a = inQueue1_.template DeQue<T>();
        LocalTensor<T> b = inQueue2_.template DeQue<T>();
        LocalTensor<T> c = outQueue_.template AllocTensor<T>();
        Mul(c, a, b, count);
        outQueue_.EnQue(c);
        inQueue1_.FreeTensor(a);
        inQueue2_.FreeTensor(b);
    }
    __aicore__ inline void CopyOut(int64_t i, uint32_t count)
    {
        LocalTensor<T> c = outQueue_.template DeQue<T>();
        DataCopyExtParams params{1, static_cast<uint32_t>(count * sizeof(T)), 0, 0, 0};
        DataCopyPad(yGm_[i * tileNum_], c, params);
        outQueue_.FreeTensor(c);
    }

    TQue<QuePosition::VECIN, BUFFER_NUM> inQueue1_;
    TQue<QuePosition::VECIN, BUFFER_NUM> inQueue2_;
    TQue<QuePosition::VECOUT, BUFFER_NUM> outQueue_;
    GlobalTensor<T> x1Gm_;
    GlobalTensor<T> x2Gm_;
    GlobalTensor<T> yGm_;
    int64_t coreNum_ = 0;
    int64_t tileNum_ = 0;
};
}  // namespace NsMulV3
#endif  // MUL_V3_H
