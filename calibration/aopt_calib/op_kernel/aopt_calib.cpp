/**
 * @file aopt_calib.cpp
 * Kernel of AoptCalib (calibration/README.md). Per tile: copy x (and y) in, compute z, copy z
 * out, through queues of `bufferNum` slots. What "compute" is depends on the mode:
 *   0 add      z = x + y once (the Add ladder of MODEL.md section 5)
 *   1 copy     z = x, a UB->UB copy (a copy-only stream: MTE2 and MTE3 time)
 *   2 adds     z = x + 1, `rounds` times (unary class)
 *   3 add      z = x + y, `rounds` times (binary class)
 *   4 exp      z = exp(x), `rounds` times (exp_ln class)
 *   5 scalar   z[i] = x[i] + y[i] element by element with GetValue/SetValue (ladder case 0)
 * The x slot is 256 bytes longer than a tile so y starts 8 bank groups away from x, and in mode
 * 3 z starts in the next 64 KB bank span: the repeated Add runs conflict-free and its vector
 * time is the binary class's cycles per repeat alone. The ladder modes keep Huawei's layout.
 */
#include "kernel_operator.h"

constexpr uint32_t PAD_BYTES = 256;
constexpr uint32_t BANK_SPAN_BYTES = 65536;  // UB banks g, g+16, g+32 split it in three spans

template <typename T>
class KernelCalib {
public:
    __aicore__ inline KernelCalib() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, GM_ADDR z, const AoptCalibTilingData &tiling)
    {
        const uint32_t offset = AscendC::GetBlockIdx() * tiling.blockLength;
        mode = tiling.mode;
        blockLength = tiling.blockLength;
        tileLength = tiling.tileLength;
        rounds = tiling.rounds;
        xGm.SetGlobalBuffer((__gm__ T *)x + offset, blockLength);
        yGm.SetGlobalBuffer((__gm__ T *)y + offset, blockLength);
        zGm.SetGlobalBuffer((__gm__ T *)z + offset, blockLength);
        pipe.InitBuffer(inQueueX, tiling.bufferNum, tileLength * sizeof(T) + PAD_BYTES);
        pipe.InitBuffer(inQueueY, tiling.bufferNum, tileLength * sizeof(T));
        // Mode 3: z goes to the second 64 KB bank span, away from the banks x and y are read from.
        const uint32_t used = tiling.bufferNum * (2 * tileLength * sizeof(T) + PAD_BYTES);
        if (mode == 3 && used < BANK_SPAN_BYTES) {
            pipe.InitBuffer(padBuf, BANK_SPAN_BYTES - used);
        }
        pipe.InitBuffer(outQueueZ, tiling.bufferNum, tileLength * sizeof(T));
    }
    __aicore__ inline void Process()
    {
        const uint32_t tiles = blockLength / tileLength;
        for (uint32_t i = 0; i < tiles; i++) {
            CopyIn(i);
            Compute();
            CopyOut(i);
        }
    }

private:
    __aicore__ inline bool NeedsY() const { return mode == 0 || mode == 3 || mode == 5; }
    __aicore__ inline void CopyIn(uint32_t progress)
    {
        AscendC::LocalTensor<T> xLocal = inQueueX.AllocTensor<T>();
        AscendC::DataCopy(xLocal, xGm[progress * tileLength], tileLength);
        inQueueX.EnQue(xLocal);
        if (NeedsY()) {
            AscendC::LocalTensor<T> yLocal = inQueueY.AllocTensor<T>();
            AscendC::DataCopy(yLocal, yGm[progress * tileLength], tileLength);
            inQueueY.EnQue(yLocal);
        }
    }
    __aicore__ inline void Compute()
    {
        AscendC::LocalTensor<T> xLocal = inQueueX.DeQue<T>();
        AscendC::LocalTensor<T> zLocal = outQueueZ.AllocTensor<T>();
        if (NeedsY()) {
            AscendC::LocalTensor<T> yLocal = inQueueY.DeQue<T>();
            ComputeWithY(zLocal, xLocal, yLocal);
            inQueueY.FreeTensor(yLocal);
        } else {
            ComputeX(zLocal, xLocal);
        }
        outQueueZ.EnQue<T>(zLocal);
        inQueueX.FreeTensor(xLocal);
    }
    __aicore__ inline void ComputeWithY(AscendC::LocalTensor<T> &z, AscendC::LocalTensor<T> &x, AscendC::LocalTensor<T> &y)
    {
        if (mode == 5) {
            for (uint32_t j = 0; j < tileLength; j++) {
                z.SetValue(j, static_cast<T>(static_cast<float>(x.GetValue(j)) + static_cast<float>(y.GetValue(j))));
            }
            return;
        }
        const uint32_t times = mode == 0 ? 1 : rounds;
        for (uint32_t r = 0; r < times; r++) {
            AscendC::Add(z, x, y, tileLength);
        }
    }
    __aicore__ inline void ComputeX(AscendC::LocalTensor<T> &z, AscendC::LocalTensor<T> &x)
    {
        if (mode == 1) {
            AscendC::DataCopy(z, x, tileLength);
            return;
        }
        for (uint32_t r = 0; r < rounds; r++) {
            if (mode == 2) {
                AscendC::Adds(z, x, static_cast<T>(1.0f), tileLength);
            } else {
                AscendC::Exp(z, x, tileLength);
            }
        }
    }
    __aicore__ inline void CopyOut(uint32_t progress)
    {
        AscendC::LocalTensor<T> zLocal = outQueueZ.DeQue<T>();
        AscendC::DataCopy(zGm[progress * tileLength], zLocal, tileLength);
        outQueueZ.FreeTensor(zLocal);
    }

    AscendC::TPipe pipe;
    AscendC::TQue<AscendC::TPosition::VECIN, 2> inQueueX;
    AscendC::TQue<AscendC::TPosition::VECIN, 2> inQueueY;
    AscendC::TQue<AscendC::TPosition::VECOUT, 2> outQueueZ;
    AscendC::TBuf<AscendC::TPosition::VECCALC> padBuf;
    AscendC::GlobalTensor<T> xGm;
    AscendC::GlobalTensor<T> yGm;
    AscendC::GlobalTensor<T> zGm;
    uint32_t mode = 0;
    uint32_t blockLength = 0;
    uint32_t tileLength = 0;
    uint32_t rounds = 1;
};

extern "C" __global__ __aicore__ void aopt_calib(GM_ADDR x, GM_ADDR y, GM_ADDR z, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(tilingData, tiling);
    if (TILING_KEY_IS(1)) {
        KernelCalib<DTYPE_X> op;
        op.Init(x, y, z, tilingData);
        op.Process();
    }
}
