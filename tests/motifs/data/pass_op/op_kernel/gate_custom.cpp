// Fixture (dead_vector_write, common_subexpression): the cubic y = x (c0 x^2 + c1) + (c2 x^2 + c3)
// of an fp16 input, evaluated in fp32 tiles. The fp16 path casts the input twice although the
// second cast's tile is overwritten by the next Mul before anything reads it, and squares x twice
// (once per polynomial). The fp32 path evaluates the same cubic by Horner's rule.
#include "kernel_operator.h"

using namespace AscendC;

constexpr int32_t BUFFER_NUM = 2;

template <typename T>
class KernelCubic {
public:
    __aicore__ inline KernelCubic() {}
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
            pipe.InitBuffer(wBuf, tileLength * sizeof(float));
            pipe.InitBuffer(uBuf, tileLength * sizeof(float));
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
            LocalTensor<float> wf = wBuf.Get<float>();
            LocalTensor<float> uf = uBuf.Get<float>();
            Cast(xf, xLocal, RoundMode::CAST_NONE, count);
            Cast(wf, xLocal, RoundMode::CAST_NONE, count);
            Mul(wf, xf, xf, count);
            Muls(wf, wf, this->c0, count);
            Adds(wf, wf, this->c1, count);
            Mul(wf, wf, xf, count);
            Mul(uf, xf, xf, count);
            Muls(uf, uf, this->c2, count);
            Adds(uf, uf, this->c3, count);
            Add(wf, wf, uf, count);
            Cast(yLocal, wf, RoundMode::CAST_RINT, count);
        } else {
            Muls(yLocal, xLocal, (T)this->c0, count);
            Adds(yLocal, yLocal, (T)this->c2, count);
            Mul(yLocal, yLocal, xLocal, count);
            Adds(yLocal, yLocal, (T)this->c1, count);
            Mul(yLocal, yLocal, xLocal, count);
            Adds(yLocal, yLocal, (T)this->c3, count);
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
    TBuf<QuePosition::VECCALC> wBuf;
    TBuf<QuePosition::VECCALC> uBuf;
    GlobalTensor<T> xGm;
    GlobalTensor<T> yGm;
    uint32_t coreLength = 0;
    uint32_t tileLength = 0;
    uint32_t tileNum = 0;
    float c0 = -0.0713548f;
    float c1 = -1.5957691f;
    float c2 = 0.2140644f;
    float c3 = 1.5957691f;
};

extern "C" __global__ __aicore__ void gate_custom(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(tilingData, tiling);
    KernelCubic<DTYPE_X> op;
    op.Init(x, y, tilingData.coreLength, tilingData.tileLength);
    op.Process();
}
