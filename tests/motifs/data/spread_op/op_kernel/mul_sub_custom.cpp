// Fixture (spread_single_core): z = 2 * x - y over tiles of one core. The idioms of kernels
// written for one core: members set in Init from tiling arguments, AscendC::-qualified calls,
// GM buffers offset by `blockLength * GetBlockIdx()` (0 on one core), the tail tile handled in the
// loop, every copy through DataCopyPad.
#include "kernel_operator.h"

constexpr int32_t BUFFER_NUM = 2;

template <typename T>
class KernelMulSub {
public:
    __aicore__ inline KernelMulSub() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, GM_ADDR z, uint32_t totalLength, uint32_t tileNum,
                                uint32_t tileLength, uint32_t tailLength)
    {
        ASSERT(AscendC::GetBlockNum() != 0 && "block dim can not be zero!");
        this->blockLength = totalLength;
        this->tileNum = tileNum;
        this->tileLength = tileLength;
        this->tailLength = tailLength;
        xGm.SetGlobalBuffer((__gm__ T*)x + this->blockLength * AscendC::GetBlockIdx(), this->blockLength);
        yGm.SetGlobalBuffer((__gm__ T*)y + this->blockLength * AscendC::GetBlockIdx(), this->blockLength);
        zGm.SetGlobalBuffer((__gm__ T*)z + this->blockLength * AscendC::GetBlockIdx(), this->blockLength);
        pipe.InitBuffer(inQueueX, BUFFER_NUM, this->tileLength * sizeof(T));
        pipe.InitBuffer(inQueueY, BUFFER_NUM, this->tileLength * sizeof(T));
        pipe.InitBuffer(outQueueZ, BUFFER_NUM, this->tileLength * sizeof(T));
    }
    __aicore__ inline void Process()
    {
        this->curLength = this->tileLength;
        for (int32_t i = 0; i < this->tileNum; i++) {
            if (i == this->tileNum - 1) {
                this->curLength = this->tailLength;
            }
            CopyIn(i);
            Compute();
            CopyOut(i);
        }
    }

private:
    __aicore__ inline void CopyIn(int32_t progress)
    {
        AscendC::LocalTensor<T> xLocal = inQueueX.AllocTensor<T>();
        AscendC::LocalTensor<T> yLocal = inQueueY.AllocTensor<T>();
        AscendC::DataCopyExtParams params{1, static_cast<uint32_t>(this->curLength * sizeof(T)), 0, 0, 0};
        AscendC::DataCopyPadExtParams<T> pad{false, 0, 0, 0};
        AscendC::DataCopyPad(xLocal, xGm[progress * this->tileLength], params, pad);
        AscendC::DataCopyPad(yLocal, yGm[progress * this->tileLength], params, pad);
        inQueueX.EnQue(xLocal);
        inQueueY.EnQue(yLocal);
    }
    __aicore__ inline void Compute()
    {
        AscendC::LocalTensor<T> xLocal = inQueueX.DeQue<T>();
        AscendC::LocalTensor<T> yLocal = inQueueY.DeQue<T>();
        AscendC::LocalTensor<T> zLocal = outQueueZ.AllocTensor<T>();
        AscendC::Muls(zLocal, xLocal, static_cast<T>(2), this->curLength);
        AscendC::Sub(zLocal, zLocal, yLocal, this->curLength);
        outQueueZ.EnQue<T>(zLocal);
        inQueueX.FreeTensor(xLocal);
        inQueueY.FreeTensor(yLocal);
    }
    __aicore__ inline void CopyOut(int32_t progress)
    {
        AscendC::LocalTensor<T> zLocal = outQueueZ.DeQue<T>();
        AscendC::DataCopyExtParams params{1, static_cast<uint32_t>(this->curLength * sizeof(T)), 0, 0, 0};
        AscendC::DataCopyPad(zGm[progress * this->tileLength], zLocal, params);
        outQueueZ.FreeTensor(zLocal);
    }

private:
    AscendC::TPipe pipe;
    AscendC::TQue<AscendC::QuePosition::VECIN, BUFFER_NUM> inQueueX, inQueueY;
    AscendC::TQue<AscendC::QuePosition::VECOUT, BUFFER_NUM> outQueueZ;
    AscendC::GlobalTensor<T> xGm, yGm, zGm;
    uint32_t blockLength = 0;
    uint32_t tileNum = 0;
    uint32_t tileLength = 0;
    uint32_t tailLength = 0;
    uint32_t curLength = 0;
};

extern "C" __global__ __aicore__ void mul_sub_custom(GM_ADDR x, GM_ADDR y, GM_ADDR z, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(tilingData, tiling);
    KernelMulSub<DTYPE_X> op;
    op.Init(x, y, z, tilingData.totalLength, tilingData.tileNum, tilingData.tileLength, tilingData.tailLength);
    op.Process();
}
