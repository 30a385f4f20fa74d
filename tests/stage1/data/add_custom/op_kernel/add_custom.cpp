/**
 * @file add_custom.cpp
 * Kernel of AddCustom: z = x + y. Each core copies its range through UB in tiles, double
 * buffered (BUFFER_NUM = 2) so the copy-in of tile i+1 overlaps the add of tile i. The last
 * tile of the last core may end off a 32-byte boundary: it moves with DataCopyPad.
 */
#include "kernel_operator.h"

constexpr int32_t BUFFER_NUM = 2;
constexpr uint32_t BLOCK_BYTES = 32;

template <typename T>
class KernelAdd {
public:
    __aicore__ inline KernelAdd() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, GM_ADDR z, const AddCustomTilingData &tiling)
    {
        const uint32_t blockIdx = AscendC::GetBlockIdx();
        uint32_t offset = 0;
        uint32_t length = 0;
        if (blockIdx < tiling.formerNum) {
            offset = blockIdx * tiling.formerLength;
            length = tiling.formerLength;
        } else {
            offset = tiling.formerNum * tiling.formerLength + (blockIdx - tiling.formerNum) * tiling.tailLength;
            length = tiling.tailLength;
        }
        // The last core's share may run past the data: keep only the valid elements.
        validLength = offset >= tiling.totalLength ? 0
                      : (tiling.totalLength - offset < length ? tiling.totalLength - offset : length);
        tileLength = tiling.tileLength;
        xGm.SetGlobalBuffer((__gm__ T *)x + offset, validLength);
        yGm.SetGlobalBuffer((__gm__ T *)y + offset, validLength);
        zGm.SetGlobalBuffer((__gm__ T *)z + offset, validLength);
        pipe.InitBuffer(inQueueX, BUFFER_NUM, tileLength * sizeof(T));
        pipe.InitBuffer(inQueueY, BUFFER_NUM, tileLength * sizeof(T));
        pipe.InitBuffer(outQueueZ, BUFFER_NUM, tileLength * sizeof(T));
    }
    __aicore__ inline void Process()
    {
        const uint32_t tiles = (validLength + tileLength - 1) / tileLength;
        for (uint32_t i = 0; i < tiles; i++) {
            const uint32_t count = (i + 1 == tiles) ? validLength - i * tileLength : tileLength;
            CopyIn(i, count);
            Compute(count);
            CopyOut(i, count);
        }
    }

private:
    __aicore__ inline bool Aligned(uint32_t count) const
    {
        return (count * sizeof(T)) % BLOCK_BYTES == 0;
    }
    __aicore__ inline void CopyIn(uint32_t progress, uint32_t count)
    {
        AscendC::LocalTensor<T> xLocal = inQueueX.AllocTensor<T>();
        AscendC::LocalTensor<T> yLocal = inQueueY.AllocTensor<T>();
        if (Aligned(count)) {
            AscendC::DataCopy(xLocal, xGm[progress * tileLength], count);
            AscendC::DataCopy(yLocal, yGm[progress * tileLength], count);
        } else {
            AscendC::DataCopyExtParams params{1, static_cast<uint32_t>(count * sizeof(T)), 0, 0, 0};
            AscendC::DataCopyPadExtParams<T> pad{false, 0, 0, 0};
            AscendC::DataCopyPad(xLocal, xGm[progress * tileLength], params, pad);
            AscendC::DataCopyPad(yLocal, yGm[progress * tileLength], params, pad);
        }
        inQueueX.EnQue(xLocal);
        inQueueY.EnQue(yLocal);
    }
    __aicore__ inline void Compute(uint32_t count)
    {
        AscendC::LocalTensor<T> xLocal = inQueueX.DeQue<T>();
        AscendC::LocalTensor<T> yLocal = inQueueY.DeQue<T>();
        AscendC::LocalTensor<T> zLocal = outQueueZ.AllocTensor<T>();
        AscendC::Add(zLocal, xLocal, yLocal, count);
        outQueueZ.EnQue<T>(zLocal);
        inQueueX.FreeTensor(xLocal);
        inQueueY.FreeTensor(yLocal);
    }
    __aicore__ inline void CopyOut(uint32_t progress, uint32_t count)
    {
        AscendC::LocalTensor<T> zLocal = outQueueZ.DeQue<T>();
        if (Aligned(count)) {
            AscendC::DataCopy(zGm[progress * tileLength], zLocal, count);
        } else {
            AscendC::DataCopyExtParams params{1, static_cast<uint32_t>(count * sizeof(T)), 0, 0, 0};
            AscendC::DataCopyPad(zGm[progress * tileLength], zLocal, params);
        }
        outQueueZ.FreeTensor(zLocal);
    }

    AscendC::TPipe pipe;
    AscendC::TQue<AscendC::TPosition::VECIN, BUFFER_NUM> inQueueX;
    AscendC::TQue<AscendC::TPosition::VECIN, BUFFER_NUM> inQueueY;
    AscendC::TQue<AscendC::TPosition::VECOUT, BUFFER_NUM> outQueueZ;
    AscendC::GlobalTensor<T> xGm;
    AscendC::GlobalTensor<T> yGm;
    AscendC::GlobalTensor<T> zGm;
    uint32_t validLength = 0;
    uint32_t tileLength = 0;
};

extern "C" __global__ __aicore__ void add_custom(GM_ADDR x, GM_ADDR y, GM_ADDR z, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(tilingData, tiling);
    if (TILING_KEY_IS(1)) {
        KernelAdd<DTYPE_X> op;
        op.Init(x, y, z, tilingData);
        op.Process();
    }
}
