// Rewind test fixture (an optimized kernel): z = x + y, double-buffered, tile by tile.
#include "kernel_operator.h"

constexpr int32_t BUFFER_NUM = 2;

template <typename T>
class KernelRewindFixture {
public:
    __aicore__ inline KernelRewindFixture() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, GM_ADDR z, uint32_t total, uint32_t tile)
    {
        total_ = total;
        tile_ = tile;
        xGm.SetGlobalBuffer((__gm__ T *)x, total);
        yGm.SetGlobalBuffer((__gm__ T *)y, total);
        zGm.SetGlobalBuffer((__gm__ T *)z, total);
        pipe.InitBuffer(inQueueX, BUFFER_NUM, tile * sizeof(T));
        pipe.InitBuffer(inQueueY, BUFFER_NUM, tile * sizeof(T));
        pipe.InitBuffer(outQueueZ, BUFFER_NUM, tile * sizeof(T));
    }
    __aicore__ inline void Process()
    {
        const uint32_t tiles = total_ / tile_;
        for (uint32_t i = 0; i < tiles; i++) {
            CopyIn(i);
            Compute();
            CopyOut(i);
        }
    }

private:
    __aicore__ inline void CopyIn(uint32_t progress)
    {
        AscendC::LocalTensor<T> xLocal = inQueueX.AllocTensor<T>();
        AscendC::LocalTensor<T> yLocal = inQueueY.AllocTensor<T>();
        AscendC::DataCopy(xLocal, xGm[progress * tile_], tile_);
        AscendC::DataCopy(yLocal, yGm[progress * tile_], tile_);
        inQueueX.EnQue(xLocal);
        inQueueY.EnQue(yLocal);
    }
    __aicore__ inline void Compute()
    {
        AscendC::LocalTensor<T> xLocal = inQueueX.DeQue<T>();
        AscendC::LocalTensor<T> yLocal = inQueueY.DeQue<T>();
        AscendC::LocalTensor<T> zLocal = outQueueZ.AllocTensor<T>();
        AscendC::Add(zLocal, xLocal, yLocal, tile_);
        outQueueZ.EnQue<T>(zLocal);
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
    AscendC::GlobalTensor<T> xGm;
    AscendC::GlobalTensor<T> yGm;
    AscendC::GlobalTensor<T> zGm;
    uint32_t total_ = 0;
    uint32_t tile_ = 0;
};

extern "C" __global__ __aicore__ void rewind_fixture(GM_ADDR x, GM_ADDR y, GM_ADDR z, GM_ADDR workspace, GM_ADDR tiling)
{
    KernelRewindFixture<DTYPE_X> op;
    op.Init(x, y, z, 4096, 1024);
    op.Process();
}
