// Fixture (compute_in_input_type): y = x / (1 + exp(-k x)), a gate whose half path casts each tile
// up to float, runs the chain there and casts back, while the float path runs the same chain on
// the element type. The idioms of real kernels: `if constexpr (!std::is_same_v<T, float>)` around
// the float-up path in the compute stage, the same test in Init around the float temporaries,
// AscendC::-qualified calls, the tail tile after the loop.
#include "kernel_operator.h"

constexpr int32_t BUFFER_NUM = 2;

template <typename T>
class KernelSoftGate {
public:
    __aicore__ inline KernelSoftGate() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, uint32_t coreDataNum, uint32_t tileDataNum, float k)
    {
        this->coreDataNum = coreDataNum;
        this->tileDataNum = tileDataNum;
        this->k = k;
        this->tileNum = (coreDataNum + tileDataNum - 1) / tileDataNum;
        this->tailDataNum = coreDataNum - (this->tileNum - 1) * tileDataNum;
        xGm.SetGlobalBuffer((__gm__ T*)x + coreDataNum * AscendC::GetBlockIdx(), coreDataNum);
        yGm.SetGlobalBuffer((__gm__ T*)y + coreDataNum * AscendC::GetBlockIdx(), coreDataNum);
        pipe.InitBuffer(inQueueX, BUFFER_NUM, tileDataNum * sizeof(T));
        pipe.InitBuffer(outQueueY, BUFFER_NUM, tileDataNum * sizeof(T));
        if constexpr (!std::is_same_v<T, float>) {
            pipe.InitBuffer(xBuf, tileDataNum * sizeof(float));
            pipe.InitBuffer(yBuf, tileDataNum * sizeof(float));
        }
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
        AscendC::DataCopy(xLocal, xGm[progress * this->tileDataNum], this->processDataNum);
        inQueueX.EnQue(xLocal);
    }
    __aicore__ inline void Compute()
    {
        AscendC::LocalTensor<T> xLocal = inQueueX.DeQue<T>();
        AscendC::LocalTensor<T> yLocal = outQueueY.AllocTensor<T>();
        if constexpr (!std::is_same_v<T, float>) {
            AscendC::LocalTensor<float> xf = xBuf.Get<float>();
            AscendC::LocalTensor<float> yf = yBuf.Get<float>();
            AscendC::Cast(xf, xLocal, AscendC::RoundMode::CAST_NONE, this->processDataNum);
            AscendC::Muls(yf, xf, -this->k, this->processDataNum);
            AscendC::Exp(yf, yf, this->processDataNum);
            AscendC::Adds(yf, yf, 1.0f, this->processDataNum);
            AscendC::Div(yf, xf, yf, this->processDataNum);
            AscendC::Cast(yLocal, yf, AscendC::RoundMode::CAST_RINT, this->processDataNum);
        } else {
            AscendC::Muls(yLocal, xLocal, static_cast<T>(-this->k), this->processDataNum);
            AscendC::Exp(yLocal, yLocal, this->processDataNum);
            AscendC::Adds(yLocal, yLocal, static_cast<T>(1.0f), this->processDataNum);
            AscendC::Div(yLocal, xLocal, yLocal, this->processDataNum);
        }
        outQueueY.EnQue<T>(yLocal);
        inQueueX.FreeTensor(xLocal);
    }
    __aicore__ inline void CopyOut(uint32_t progress)
    {
        AscendC::LocalTensor<T> yLocal = outQueueY.DeQue<T>();
        AscendC::DataCopy(yGm[progress * this->tileDataNum], yLocal, this->processDataNum);
        outQueueY.FreeTensor(yLocal);
    }

private:
    AscendC::TPipe pipe;
    AscendC::TQue<AscendC::QuePosition::VECIN, BUFFER_NUM> inQueueX;
    AscendC::TQue<AscendC::QuePosition::VECOUT, BUFFER_NUM> outQueueY;
    AscendC::TBuf<AscendC::QuePosition::VECCALC> xBuf, yBuf;
    AscendC::GlobalTensor<T> xGm, yGm;
    uint32_t coreDataNum = 0;
    uint32_t tileNum = 0;
    uint32_t tileDataNum = 0;
    uint32_t tailDataNum = 0;
    uint32_t processDataNum = 0;
    float k = 1.0f;
};

extern "C" __global__ __aicore__ void soft_gate(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    KernelSoftGate<DTYPE_X> op;
    op.Init(x, y, 8192, 2048, 1.5f);
    op.Process();
}
