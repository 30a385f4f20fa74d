// Fixture (sqrt_div_to_rsqrt): y = 1 / sqrt(x) of an fp16 input computed in fp32 tiles as
// ones / sqrt(x): a tile filled with 1 per tile, a Sqrt in place and a Div. The fp32 input takes
// the same chain on its own tiles (typed T: no site, the element type is not known to be float).
#include "kernel_operator.h"

using namespace AscendC;

constexpr int32_t BUFFER_NUM = 2;

template <typename T>
class KernelInvSqrt {
public:
    __aicore__ inline KernelInvSqrt() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, uint32_t coreLength, uint32_t tileLength)
    {
        this->coreLength = coreLength;
        this->tileLength = tileLength;
        this->tileNum = (coreLength + tileLength - 1) / tileLength;
        xGm.SetGlobalBuffer((__gm__ T*)x + GetBlockIdx() * coreLength, coreLength);
        yGm.SetGlobalBuffer((__gm__ T*)y + GetBlockIdx() * coreLength, coreLength);
        pipe.InitBuffer(inQueueX, BUFFER_NUM, tileLength * sizeof(T));
        pipe.InitBuffer(outQueueY, BUFFER_NUM, tileLength * sizeof(T));
        if constexpr (!std::is_same_v<T, float>) {
            pipe.InitBuffer(xBuf, tileLength * sizeof(float));
            pipe.InitBuffer(onesBuf, tileLength * sizeof(float));
        }
    }

    __aicore__ inline void Process()
    {
        for (uint32_t i = 0; i < this->tileNum - 1; i++) {
            CopyIn(i, this->tileLength);
            Compute(this->tileLength);
            CopyOut(i, this->tileLength);
        }
        const uint32_t tail = this->coreLength - (this->tileNum - 1) * this->tileLength;
        CopyIn(this->tileNum - 1, tail);
        Compute(tail);
        CopyOut(this->tileNum - 1, tail);
    }

private:
    __aicore__ inline void CopyIn(uint32_t progress, uint32_t count)
    {
        LocalTensor<T> xLocal = inQueueX.AllocTensor<T>();
        DataCopy(xLocal, xGm[progress * this->tileLength], count);
        inQueueX.EnQue(xLocal);
    }

    __aicore__ inline void Compute(uint32_t count)
    {
        LocalTensor<T> xLocal = inQueueX.DeQue<T>();
        LocalTensor<T> yLocal = outQueueY.AllocTensor<T>();
        if constexpr (!std::is_same_v<T, float>) {
            LocalTensor<float> xf = xBuf.Get<float>();
            LocalTensor<float> ones = onesBuf.Get<float>();
            Cast(xf, xLocal, RoundMode::CAST_NONE, count);
            Duplicate(ones, 1.0f, count);
            Sqrt(xf, xf, count);
            Div(xf, ones, xf, count);
            Cast(yLocal, xf, RoundMode::CAST_RINT, count);
        } else {
            Duplicate(yLocal, (T)1, count);
            Sqrt(xLocal, xLocal, count);
            Div(yLocal, yLocal, xLocal, count);
        }
        outQueueY.EnQue<T>(yLocal);
        inQueueX.FreeTensor(xLocal);
    }

    __aicore__ inline void CopyOut(uint32_t progress, uint32_t count)
    {
        LocalTensor<T> yLocal = outQueueY.DeQue<T>();
        DataCopy(yGm[progress * this->tileLength], yLocal, count);
        outQueueY.FreeTensor(yLocal);
    }

    TPipe pipe;
    TQue<QuePosition::VECIN, BUFFER_NUM> inQueueX;
    TQue<QuePosition::VECOUT, BUFFER_NUM> outQueueY;
    TBuf<QuePosition::VECCALC> xBuf;
    TBuf<QuePosition::VECCALC> onesBuf;
    GlobalTensor<T> xGm;
    GlobalTensor<T> yGm;
    uint32_t coreLength = 0;
    uint32_t tileLength = 0;
    uint32_t tileNum = 0;
};

extern "C" __global__ __aicore__ void gate_custom(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(tilingData, tiling);
    KernelInvSqrt<DTYPE_X> op;
    op.Init(x, y, tilingData.coreLength, tilingData.tileLength);
    op.Process();
}
