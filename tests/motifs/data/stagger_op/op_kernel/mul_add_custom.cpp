// Fixture (stagger_ub_buffers): z = (((x * y + x) * y + x) * y + x) * y + x, eight cheap binary
// vector passes over two temporaries (vector-bound, so bank conflicts show). The idioms of real kernels: a TPipe member
// initialised with `pipe.InitBuffer`, two double-buffered input queues, an output queue and a
// two temporary TBufs all sized from the same tiling field, big and small cores, the tail tile after
// the loop, AscendC::-qualified calls.
#include "kernel_operator.h"

constexpr int32_t BUFFER_NUM = 2;

template <typename T>
class KernelMulAdd {
public:
    __aicore__ inline KernelMulAdd() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, GM_ADDR z, uint32_t smallCoreDataNum, uint32_t bigCoreDataNum,
                                uint32_t tailBlockNum, uint32_t tileDataNum)
    {
        const uint32_t core = AscendC::GetBlockIdx();
        uint64_t offset = 0;
        if (core < tailBlockNum) {
            this->coreDataNum = bigCoreDataNum;
            offset = static_cast<uint64_t>(bigCoreDataNum) * core;
        } else {
            this->coreDataNum = smallCoreDataNum;
            offset = static_cast<uint64_t>(bigCoreDataNum) * tailBlockNum +
                     static_cast<uint64_t>(smallCoreDataNum) * (core - tailBlockNum);
        }
        this->tileDataNum = tileDataNum;
        this->tileNum = (this->coreDataNum + tileDataNum - 1) / tileDataNum;
        this->tailDataNum = this->coreDataNum - (this->tileNum - 1) * tileDataNum;
        xGm.SetGlobalBuffer((__gm__ T*)x + offset, this->coreDataNum);
        yGm.SetGlobalBuffer((__gm__ T*)y + offset, this->coreDataNum);
        zGm.SetGlobalBuffer((__gm__ T*)z + offset, this->coreDataNum);
        pipe.InitBuffer(inQueueX, BUFFER_NUM, this->tileDataNum * sizeof(T));
        pipe.InitBuffer(inQueueY, BUFFER_NUM, this->tileDataNum * sizeof(T));
        pipe.InitBuffer(outQueueZ, BUFFER_NUM, this->tileDataNum * sizeof(T));
        pipe.InitBuffer(productBuf, this->tileDataNum * sizeof(T));
        pipe.InitBuffer(sumBuf, this->tileDataNum * sizeof(T));
    }
    __aicore__ inline void Process()
    {
        this->processDataNum = this->tileDataNum;
        for (uint32_t i = 0; i < this->tileNum - 1; i++) {
            CopyIn(i);
            Compute();
            CopyOut(i);
        }
        this->processDataNum = this->tailDataNum;
        CopyIn(this->tileNum - 1);
        Compute();
        CopyOut(this->tileNum - 1);
    }

private:
    __aicore__ inline void CopyIn(uint32_t progress)
    {
        AscendC::LocalTensor<T> xLocal = inQueueX.AllocTensor<T>();
        AscendC::LocalTensor<T> yLocal = inQueueY.AllocTensor<T>();
        AscendC::DataCopyExtParams params{1, static_cast<uint32_t>(this->processDataNum * sizeof(T)), 0, 0, 0};
        AscendC::DataCopyPadExtParams<T> pad{false, 0, 0, 0};
        AscendC::DataCopyPad(xLocal, xGm[progress * this->tileDataNum], params, pad);
        AscendC::DataCopyPad(yLocal, yGm[progress * this->tileDataNum], params, pad);
        inQueueX.EnQue(xLocal);
        inQueueY.EnQue(yLocal);
    }
    __aicore__ inline void Compute()
    {
        AscendC::LocalTensor<T> xLocal = inQueueX.DeQue<T>();
        AscendC::LocalTensor<T> yLocal = inQueueY.DeQue<T>();
        AscendC::LocalTensor<T> zLocal = outQueueZ.AllocTensor<T>();
        AscendC::LocalTensor<T> product = productBuf.Get<T>();
        AscendC::LocalTensor<T> sum = sumBuf.Get<T>();
        AscendC::Mul(product, xLocal, yLocal, this->processDataNum);
        AscendC::Add(sum, product, xLocal, this->processDataNum);
        AscendC::Mul(product, sum, yLocal, this->processDataNum);
        AscendC::Add(sum, product, xLocal, this->processDataNum);
        AscendC::Mul(product, sum, yLocal, this->processDataNum);
        AscendC::Add(sum, product, xLocal, this->processDataNum);
        AscendC::Mul(product, sum, yLocal, this->processDataNum);
        AscendC::Add(zLocal, product, xLocal, this->processDataNum);
        outQueueZ.EnQue<T>(zLocal);
        inQueueX.FreeTensor(xLocal);
        inQueueY.FreeTensor(yLocal);
    }
    __aicore__ inline void CopyOut(uint32_t progress)
    {
        AscendC::LocalTensor<T> zLocal = outQueueZ.DeQue<T>();
        AscendC::DataCopyExtParams params{1, static_cast<uint32_t>(this->processDataNum * sizeof(T)), 0, 0, 0};
        AscendC::DataCopyPad(zGm[progress * this->tileDataNum], zLocal, params);
        outQueueZ.FreeTensor(zLocal);
    }

private:
    AscendC::TPipe pipe;
    AscendC::TQue<AscendC::QuePosition::VECIN, BUFFER_NUM> inQueueX, inQueueY;
    AscendC::TQue<AscendC::QuePosition::VECOUT, BUFFER_NUM> outQueueZ;
    AscendC::TBuf<AscendC::QuePosition::VECCALC> productBuf, sumBuf;
    AscendC::GlobalTensor<T> xGm, yGm, zGm;
    uint32_t coreDataNum = 0;
    uint32_t tileNum = 0;
    uint32_t tileDataNum = 0;
    uint32_t tailDataNum = 0;
    uint32_t processDataNum = 0;
};

extern "C" __global__ __aicore__ void mul_add_custom(GM_ADDR x, GM_ADDR y, GM_ADDR z, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(tilingData, tiling);
    KernelMulAdd<DTYPE_X> op;
    op.Init(x, y, z, tilingData.smallCoreDataNum, tilingData.bigCoreDataNum, tilingData.tailBlockNum,
            tilingData.tileDataNum);
    op.Process();
}
