// Fixture: idioms that compile on the chip: a class template calling GetBlockNum() and
// GetBlockIdx() unqualified before any `using namespace AscendC`, an ASSERT written after an
// expression with no semicolon between (it expands to nothing on the device), and the
// float16_t spelling. y = x + x.
#include "kernel_operator.h"

template <typename T>
class KernelTwice {
public:
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, uint32_t total)
    {
        this->length = total / GetBlockNum() ASSERT(GetBlockNum() != 0 && "block num can not be zero");
        const uint32_t offset = this->length * GetBlockIdx();
        xGm.SetGlobalBuffer((__gm__ T *)x + offset, this->length);
        yGm.SetGlobalBuffer((__gm__ T *)y + offset, this->length);
        pipe.InitBuffer(inQ, 1, this->length * sizeof(T));
        pipe.InitBuffer(outQ, 1, this->length * sizeof(T));
    }
    __aicore__ inline void Process()
    {
        AscendC::LocalTensor<T> in = inQ.template AllocTensor<T>();
        AscendC::DataCopy(in, xGm, length);
        inQ.EnQue(in);
        in = inQ.template DeQue<T>();
        AscendC::LocalTensor<T> out = outQ.template AllocTensor<T>();
        AscendC::Add(out, in, in, length);
        outQ.EnQue(out);
        inQ.FreeTensor(in);
        out = outQ.template DeQue<T>();
        AscendC::DataCopy(yGm, out, length);
        outQ.FreeTensor(out);
    }

private:
    AscendC::TPipe pipe;
    AscendC::TQue<AscendC::QuePosition::VECIN, 1> inQ;
    AscendC::TQue<AscendC::QuePosition::VECOUT, 1> outQ;
    AscendC::GlobalTensor<T> xGm, yGm;
    uint32_t length = 0;
};

extern "C" __global__ __aicore__ void assert_tail(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(td, tiling);
    KernelTwice<float16_t> op;
    op.Init(x, y, td.totalLength);
    op.Process();
}
