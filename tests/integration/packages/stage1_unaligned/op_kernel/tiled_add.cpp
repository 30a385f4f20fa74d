// Kernel of TiledAdd (test fixture): each core takes totalLength / blocks elements in tileNum
// double-buffered tiles; no remainder handling (see op_host/tiled_add.cpp).
#include "kernel_operator.h"
constexpr int32_t BUFFER_NUM = 2;

class TiledAddKernel {
public:
    __aicore__ inline TiledAddKernel() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, GM_ADDR z, uint32_t totalLength, uint32_t tileNum)
    {
        coreLength = totalLength / AscendC::GetBlockNum();
        tiles = tileNum;
        tileLength = coreLength / tileNum / BUFFER_NUM;
        const uint32_t start = coreLength * AscendC::GetBlockIdx();
        xGm.SetGlobalBuffer((__gm__ DTYPE_X *)x + start, coreLength);
        yGm.SetGlobalBuffer((__gm__ DTYPE_Y *)y + start, coreLength);
        zGm.SetGlobalBuffer((__gm__ DTYPE_Z *)z + start, coreLength);
        pipe.InitBuffer(xQueue, BUFFER_NUM, tileLength * sizeof(DTYPE_X));
        pipe.InitBuffer(yQueue, BUFFER_NUM, tileLength * sizeof(DTYPE_Y));
        pipe.InitBuffer(zQueue, BUFFER_NUM, tileLength * sizeof(DTYPE_Z));
    }
    __aicore__ inline void Process()
    {
        const int32_t steps = tiles * BUFFER_NUM;
        for (int32_t i = 0; i < steps; i++) {
            AscendC::LocalTensor<DTYPE_X> xs = xQueue.AllocTensor<DTYPE_X>();
            AscendC::LocalTensor<DTYPE_Y> ys = yQueue.AllocTensor<DTYPE_Y>();
            AscendC::DataCopy(xs, xGm[i * tileLength], tileLength);
            AscendC::DataCopy(ys, yGm[i * tileLength], tileLength);
            xQueue.EnQue(xs);
            yQueue.EnQue(ys);
            AscendC::LocalTensor<DTYPE_X> xa = xQueue.DeQue<DTYPE_X>();
            AscendC::LocalTensor<DTYPE_Y> ya = yQueue.DeQue<DTYPE_Y>();
            AscendC::LocalTensor<DTYPE_Z> zs = zQueue.AllocTensor<DTYPE_Z>();
            AscendC::Add(zs, xa, ya, tileLength);
            zQueue.EnQue<DTYPE_Z>(zs);
            xQueue.FreeTensor(xa);
            yQueue.FreeTensor(ya);
            AscendC::LocalTensor<DTYPE_Z> zo = zQueue.DeQue<DTYPE_Z>();
            AscendC::DataCopy(zGm[i * tileLength], zo, tileLength);
            zQueue.FreeTensor(zo);
        }
    }

private:
    AscendC::TPipe pipe;
    AscendC::TQue<AscendC::QuePosition::VECIN, BUFFER_NUM> xQueue, yQueue;
    AscendC::TQue<AscendC::QuePosition::VECOUT, BUFFER_NUM> zQueue;
    AscendC::GlobalTensor<DTYPE_X> xGm;
    AscendC::GlobalTensor<DTYPE_Y> yGm;
    AscendC::GlobalTensor<DTYPE_Z> zGm;
    uint32_t coreLength = 0;
    uint32_t tiles = 0;
    uint32_t tileLength = 0;
};

extern "C" __global__ __aicore__ void tiled_add(GM_ADDR x, GM_ADDR y, GM_ADDR z, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(tilingData, tiling);
    TiledAddKernel op;
    op.Init(x, y, z, tilingData.totalLength, tilingData.tileNum);
    op.Process();
}
