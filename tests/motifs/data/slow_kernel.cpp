// Test fixture (de-optimized forms of every motif pattern): z = x * 2 + y, tile by tile.
#include "kernel_operator.h"

constexpr int32_t BUFFER_NUM = 1;

template <typename T>
class KernelFixture {
public:
    __aicore__ inline KernelFixture() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, GM_ADDR z, uint32_t total, uint32_t tile, uint32_t rows)
    {
        total_ = total;
        tile_ = tile;
        rows_ = rows;
        xGm.SetGlobalBuffer((__gm__ T *)x, total);
        yGm.SetGlobalBuffer((__gm__ T *)y, total);
        zGm.SetGlobalBuffer((__gm__ T *)z, total);
        pipe.InitBuffer(inQueueX, BUFFER_NUM, tile * sizeof(T));
        pipe.InitBuffer(inQueueY, BUFFER_NUM, tile * sizeof(T));
        pipe.InitBuffer(outQueueZ, BUFFER_NUM, tile * sizeof(T));
        pipe.InitBuffer(tmpQueue, 1, tile * sizeof(T));
        pipe.InitBuffer(onesBuf, tile * sizeof(T));
    }
    __aicore__ inline void Process()
    {
        AscendC::LocalTensor<T> ones = onesBuf.Get<T>();
        const uint32_t tiles = total_ / tile_;
        for (uint32_t i = 0; i < tiles; i++) {
            AscendC::Duplicate(ones, static_cast<T>(1), tile_);
            CopyIn(i);
            AscendC::PipeBarrier<PIPE_ALL>();
            Compute(ones);
            AscendC::PipeBarrier<PIPE_ALL>();
            CopyOut(i);
        }
    }

private:
    __aicore__ inline void CopyIn(uint32_t progress)
    {
        AscendC::LocalTensor<T> xLocal = inQueueX.AllocTensor<T>();
        AscendC::LocalTensor<T> yLocal = inQueueY.AllocTensor<T>();
        const uint32_t cols = tile_ / rows_;
        for (uint32_t r = 0; r < rows_; ++r) {
            AscendC::DataCopy(xLocal[r * cols], xGm[progress * tile_][r * cols], cols);
        }
        for (uint32_t k = 0; k < tile_; ++k) {
            yLocal.SetValue(k, yGm[progress * tile_].GetValue(k));
        }
        inQueueX.EnQue(xLocal);
        inQueueY.EnQue(yLocal);
    }
    __aicore__ inline void Compute(const AscendC::LocalTensor<T> &ones)
    {
        AscendC::LocalTensor<T> xLocal = inQueueX.DeQue<T>();
        AscendC::LocalTensor<T> yLocal = inQueueY.DeQue<T>();
        AscendC::LocalTensor<T> zLocal = outQueueZ.AllocTensor<T>();
        AscendC::LocalTensor<T> tmp = tmpQueue.AllocTensor<T>();
        AscendC::Muls(xLocal, xLocal, static_cast<T>(2), tile_);
        AscendC::PipeBarrier<PIPE_V>();
        AscendC::Add(yLocal, yLocal, xLocal, tile_);
        AscendC::Mul(tmp, yLocal, ones, tile_);
        AscendC::PipeBarrier<PIPE_V>();
        AscendC::Duplicate(zLocal, static_cast<T>(0), tile_);
        AscendC::PipeBarrier<PIPE_V>();
        for (uint32_t j = 0; j < tile_; j++) {
            zLocal.SetValue(j, tmp.GetValue(j) + zLocal.GetValue(j));
        }
        outQueueZ.EnQue<T>(zLocal);
        tmpQueue.FreeTensor(tmp);
        inQueueX.FreeTensor(xLocal);
        inQueueY.FreeTensor(yLocal);
    }
    __aicore__ inline void CopyOut(uint32_t progress)
    {
        AscendC::LocalTensor<T> zLocal = outQueueZ.DeQue<T>();
        AscendC::DataCopy(zGm[progress * tile_], zLocal, tile_);
        outQueueZ.FreeTensor(zLocal);
    }

    AscendC::TPipe pipe;
    AscendC::TQue<AscendC::TPosition::VECIN, BUFFER_NUM> inQueueX;
    AscendC::TQue<AscendC::TPosition::VECIN, BUFFER_NUM> inQueueY;
    AscendC::TQue<AscendC::TPosition::VECOUT, BUFFER_NUM> outQueueZ;
    AscendC::TQue<AscendC::TPosition::VECCALC, 1> tmpQueue;
    AscendC::TBuf<AscendC::TPosition::VECCALC> onesBuf;
    AscendC::GlobalTensor<T> xGm;
    AscendC::GlobalTensor<T> yGm;
    AscendC::GlobalTensor<T> zGm;
    uint32_t total_ = 0;
    uint32_t tile_ = 0;
    uint32_t rows_ = 1;
};

extern "C" __global__ __aicore__ void fixture_kernel(GM_ADDR x, GM_ADDR y, GM_ADDR z, GM_ADDR workspace, GM_ADDR tiling)
{
    KernelFixture<DTYPE_X> op;
    op.Init(x, y, z, 4096, 1024, 4);
    op.Process();
}
