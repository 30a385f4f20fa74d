// ForeachAddScalarCustom kernel (baseline): y_i = x_i + scalar for every tensor of the list x
// (read through ListTensorDesc), written to the list y.
// Baseline: each tensor split over all cores in turn; fp32 compute through Cast for 16-bit types.
#include "kernel_operator.h"
using namespace AscendC;

constexpr int32_t BUFFER_NUM = 2;

template <typename T>
class KernelForeachAddScalar {
public:
    __aicore__ inline KernelForeachAddScalar() {}
    template <typename TilingData>
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR scalar, GM_ADDR y, const TilingData& td)
    {
        xList_.Init(reinterpret_cast<__gm__ void*>(x));
        yList_.Init(reinterpret_cast<__gm__ void*>(y));
        tileLength_ = td.tileLength;
        pipe_.InitBuffer(inQueue_, BUFFER_NUM, tileLength_ * sizeof(T));
        pipe_.InitBuffer(outQueue_, BUFFER_NUM, tileLength_ * sizeof(T));
        pipe_.InitBuffer(xfBuf_, tileLength_ * sizeof(float));
        pipe_.InitBuffer(yfBuf_, tileLength_ * sizeof(float));
        GlobalTensor<T> scalarGm;
        scalarGm.SetGlobalBuffer((__gm__ T*)scalar, 1);
        scalar_ = static_cast<float>(scalarGm.GetValue(0));
    }

    // Every tensor is split over all the cores (in 32 B granules): core i takes its share of
    // tensor 0, then of tensor 1, ...
    template <typename TilingData>
    __aicore__ inline void Process(const TilingData& td)
    {
        uint32_t idx = GetBlockIdx();
        uint32_t cores = GetBlockNum();
        for (uint32_t t = 0; t < td.tensorNum; t++) {
            uint32_t length = td.tensorLengths[t];
            uint32_t units = (length + td.unitLength - 1) / td.unitLength;
            uint32_t per = units / cores;
            uint32_t big = units % cores;
            uint32_t myUnits = per + (idx < big ? 1 : 0);
            uint32_t start = (idx * per + (idx < big ? idx : big)) * td.unitLength;
            uint32_t end = start + myUnits * td.unitLength;
            if (end > length) {
                end = length;
            }
            if (end > start) {
                ProcessRange(t, start, end - start);
            }
        }
    }

private:
    __aicore__ inline void ProcessRange(uint32_t t, uint32_t start, uint32_t length)
    {
        xGm_.SetGlobalBuffer(xList_.GetDataPtr<T>(t) + start, length);
        yGm_.SetGlobalBuffer(yList_.GetDataPtr<T>(t) + start, length);
        uint32_t tiles = (length + tileLength_ - 1) / tileLength_;
        for (uint32_t i = 0; i < tiles; i++) {
            uint32_t len = (i == tiles - 1) ? length - i * tileLength_ : tileLength_;
            CopyIn(i, len);
            Compute(len);
            CopyOut(i, len);
        }
    }

    __aicore__ inline void CopyIn(uint32_t i, uint32_t len)
    {
        LocalTensor<T> xLocal = inQueue_.AllocTensor<T>();
        DataCopyExtParams params{1, static_cast<uint32_t>(len * sizeof(T)), 0, 0, 0};
        DataCopyPadExtParams<T> pad{false, 0, 0, 0};
        DataCopyPad(xLocal, xGm_[i * tileLength_], params, pad);
        inQueue_.EnQue(xLocal);
    }

    __aicore__ inline void Compute(uint32_t len)
    {
        LocalTensor<T> xLocal = inQueue_.DeQue<T>();
        LocalTensor<T> yLocal = outQueue_.AllocTensor<T>();
        LocalTensor<float> xf = xfBuf_.Get<float>();
        LocalTensor<float> yf = yfBuf_.Get<float>();
        if constexpr (std::is_same_v<T, float>) {
            Adds(yLocal, xLocal, scalar_, len);
        } else {
            Cast(xf, xLocal, RoundMode::CAST_NONE, len);
            PipeBarrier<PIPE_V>();
            Adds(yf, xf, scalar_, len);
            PipeBarrier<PIPE_V>();
            Cast(yLocal, yf, RoundMode::CAST_RINT, len);
        }
        outQueue_.EnQue(yLocal);
        inQueue_.FreeTensor(xLocal);
    }

    __aicore__ inline void CopyOut(uint32_t i, uint32_t len)
    {
        LocalTensor<T> yLocal = outQueue_.DeQue<T>();
        DataCopyExtParams params{1, static_cast<uint32_t>(len * sizeof(T)), 0, 0, 0};
        DataCopyPad(yGm_[i * tileLength_], yLocal, params);
        outQueue_.FreeTensor(yLocal);
    }

    TPipe pipe_;
    TQue<QuePosition::VECIN, BUFFER_NUM> inQueue_;
    TQue<QuePosition::VECOUT, BUFFER_NUM> outQueue_;
    TBuf<QuePosition::VECCALC> xfBuf_;
    TBuf<QuePosition::VECCALC> yfBuf_;
    ListTensorDesc xList_;
    ListTensorDesc yList_;
    GlobalTensor<T> xGm_;
    GlobalTensor<T> yGm_;
    uint32_t tileLength_ = 0;
    float scalar_ = 0.0f;
};

extern "C" __global__ __aicore__ void foreach_add_scalar_custom(GM_ADDR x, GM_ADDR scalar, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(tilingData, tiling);
    if (TILING_KEY_IS(1)) {
        KernelForeachAddScalar<DTYPE_X> op;
        op.Init(x, scalar, y, tilingData);
        op.Process(tilingData);
    }
}
