// ArangeCustom kernel (baseline): y[i] = start + i * step. Each core builds the index vector
// 0..tileLength-1 once (CreateVecIndex, fp32), then per tile y = index * step + (start + first *
// step), cast to the output type, copied out. Single-buffered output queue.
#include "kernel_operator.h"
using namespace AscendC;

template <typename T>
class KernelArange {
public:
    __aicore__ inline KernelArange() {}
    template <typename TilingData>
    __aicore__ inline void Init(GM_ADDR y, const TilingData& td)
    {
        uint32_t idx = GetBlockIdx();
        uint32_t units = td.unitsPerCore + (idx < td.bigCoreNum ? 1 : 0);
        uint32_t startUnit = idx * td.unitsPerCore + (idx < td.bigCoreNum ? idx : td.bigCoreNum);
        first_ = startUnit * td.unitLength;
        uint32_t end = first_ + units * td.unitLength;
        if (end > td.totalLength) {
            end = td.totalLength;
        }
        blockLength_ = end > first_ ? end - first_ : 0;
        tileLength_ = td.tileLength;
        start_ = td.start;
        step_ = td.step;
        yGm_.SetGlobalBuffer((__gm__ T*)y + first_, blockLength_);
        pipe_.InitBuffer(outQueue_, 1, tileLength_ * sizeof(T));
        pipe_.InitBuffer(indexBuf_, tileLength_ * sizeof(float));
        pipe_.InitBuffer(valueBuf_, tileLength_ * sizeof(float));
    }

    __aicore__ inline void Process()
    {
        LocalTensor<float> index = indexBuf_.Get<float>();
        CreateVecIndex(index, 0.0f, tileLength_);
        PipeBarrier<PIPE_V>();
        uint32_t tiles = (blockLength_ + tileLength_ - 1) / tileLength_;
        for (uint32_t i = 0; i < tiles; i++) {
            uint32_t len = (i == tiles - 1) ? blockLength_ - i * tileLength_ : tileLength_;
            Compute(i, len);
            CopyOut(i, len);
        }
    }

private:
    __aicore__ inline void Compute(uint32_t i, uint32_t len)
    {
        LocalTensor<float> index = indexBuf_.Get<float>();
        LocalTensor<float> value = valueBuf_.Get<float>();
        LocalTensor<T> yLocal = outQueue_.AllocTensor<T>();
        float base = start_ + static_cast<float>(first_ + i * tileLength_) * step_;
        Muls(value, index, step_, len);
        PipeBarrier<PIPE_V>();
        Adds(value, value, base, len);
        PipeBarrier<PIPE_V>();
        if constexpr (std::is_same_v<T, float>) {
            DataCopy(yLocal, value, (len + 7) / 8 * 8);
        } else if constexpr (std::is_same_v<T, int32_t>) {
            Cast(yLocal, value, RoundMode::CAST_RINT, len);
        } else {
            Cast(yLocal, value, RoundMode::CAST_RINT, len);
        }
        outQueue_.EnQue(yLocal);
    }

    __aicore__ inline void CopyOut(uint32_t i, uint32_t len)
    {
        LocalTensor<T> yLocal = outQueue_.DeQue<T>();
        DataCopyExtParams params{1, static_cast<uint32_t>(len * sizeof(T)), 0, 0, 0};
        DataCopyPad(yGm_[i * tileLength_], yLocal, params);
        outQueue_.FreeTensor(yLocal);
    }

    TPipe pipe_;
    TQue<QuePosition::VECOUT, 1> outQueue_;
    TBuf<QuePosition::VECCALC> indexBuf_;
    TBuf<QuePosition::VECCALC> valueBuf_;
    GlobalTensor<T> yGm_;
    uint32_t first_ = 0;
    uint32_t blockLength_ = 0;
    uint32_t tileLength_ = 0;
    float start_ = 0.0f;
    float step_ = 1.0f;
};

extern "C" __global__ __aicore__ void arange_custom(GM_ADDR start, GM_ADDR end, GM_ADDR step, GM_ADDR y,
                                                    GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(tilingData, tiling);
    if (TILING_KEY_IS(1)) {
        KernelArange<DTYPE_Y> op;
        op.Init(y, tilingData);
        op.Process();
    }
}
