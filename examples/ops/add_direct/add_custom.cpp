/**
 * @file add_custom.cpp
 * Kernel of the kernel-direct Add sample: z = x + y in half precision. Core i handles the
 * elements [i * blockLength, min((i + 1) * blockLength, totalLength)); it streams them through
 * UB in tiles of tileLength elements with two buffers per queue, so the copy-in of one tile
 * overlaps the add of the previous one.
 */
#include "kernel_operator.h"
#include "add_custom_tiling.h"

namespace {
constexpr int32_t BUFFER_NUM = 2;

class KernelAddDirect {
public:
    __aicore__ inline KernelAddDirect() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, GM_ADDR z, const AddCustomTilingData &tiling)
    {
        const uint32_t start = static_cast<uint32_t>(AscendC::GetBlockIdx()) * tiling.blockLength;
        myLength = start >= tiling.totalLength ? 0
                   : (tiling.totalLength - start < tiling.blockLength ? tiling.totalLength - start
                                                                     : tiling.blockLength);
        tileLength = tiling.tileLength;
        xGm.SetGlobalBuffer(reinterpret_cast<__gm__ half *>(x) + start, myLength);
        yGm.SetGlobalBuffer(reinterpret_cast<__gm__ half *>(y) + start, myLength);
        zGm.SetGlobalBuffer(reinterpret_cast<__gm__ half *>(z) + start, myLength);
        pipe.InitBuffer(inQueueX, BUFFER_NUM, tileLength * sizeof(half));
        pipe.InitBuffer(inQueueY, BUFFER_NUM, tileLength * sizeof(half));
        pipe.InitBuffer(outQueueZ, BUFFER_NUM, tileLength * sizeof(half));
    }
    __aicore__ inline void Process()
    {
        for (uint32_t done = 0; done < myLength; done += tileLength) {
            const uint32_t count = myLength - done < tileLength ? myLength - done : tileLength;
            CopyIn(done, count);
            Compute(count);
            CopyOut(done, count);
        }
    }

private:
    __aicore__ inline void CopyIn(uint32_t offset, uint32_t count)
    {
        AscendC::LocalTensor<half> xLocal = inQueueX.AllocTensor<half>();
        AscendC::LocalTensor<half> yLocal = inQueueY.AllocTensor<half>();
        AscendC::DataCopy(xLocal, xGm[offset], count);
        AscendC::DataCopy(yLocal, yGm[offset], count);
        inQueueX.EnQue(xLocal);
        inQueueY.EnQue(yLocal);
    }
    __aicore__ inline void Compute(uint32_t count)
    {
        AscendC::LocalTensor<half> xLocal = inQueueX.DeQue<half>();
        AscendC::LocalTensor<half> yLocal = inQueueY.DeQue<half>();
        AscendC::LocalTensor<half> zLocal = outQueueZ.AllocTensor<half>();
        AscendC::Add(zLocal, xLocal, yLocal, count);
        outQueueZ.EnQue<half>(zLocal);
        inQueueX.FreeTensor(xLocal);
        inQueueY.FreeTensor(yLocal);
    }
    __aicore__ inline void CopyOut(uint32_t offset, uint32_t count)
    {
        AscendC::LocalTensor<half> zLocal = outQueueZ.DeQue<half>();
        AscendC::DataCopy(zGm[offset], zLocal, count);
        outQueueZ.FreeTensor(zLocal);
    }

    AscendC::TPipe pipe;
    AscendC::TQue<AscendC::TPosition::VECIN, BUFFER_NUM> inQueueX;
    AscendC::TQue<AscendC::TPosition::VECIN, BUFFER_NUM> inQueueY;
    AscendC::TQue<AscendC::TPosition::VECOUT, BUFFER_NUM> outQueueZ;
    AscendC::GlobalTensor<half> xGm;
    AscendC::GlobalTensor<half> yGm;
    AscendC::GlobalTensor<half> zGm;
    uint32_t myLength = 0;
    uint32_t tileLength = 0;
};
}  // namespace

extern "C" __global__ __aicore__ void add_custom(GM_ADDR x, GM_ADDR y, GM_ADDR z, GM_ADDR tiling)
{
    // The host wrote the tiling struct to GM; each core reads its own copy.
    AddCustomTilingData tilingData = *reinterpret_cast<__gm__ AddCustomTilingData *>(tiling);
    KernelAddDirect op;
    op.Init(x, y, z, tilingData);
    op.Process();
}
