// ComplexMatDotCustom kernel (expert): out = matx * maty element-wise on complex numbers stored as
// interleaved fp32 (re, im), computed on the vector unit instead of a scalar loop:
//   1. GatherMask with the built-in even/odd patterns splits matx and maty into re and im planes;
//   2. re = xr*yr - xi*yi and im = xr*yi + xi*yr with four Mul, one Sub, one Add;
//   3. one Gather re-interleaves [re | im] into (re, im) pairs through an offset table that each
//      core builds once (8 scalar writes, then doubling with int32 Adds).
// Double-buffered queues.
#include "kernel_operator.h"
using namespace AscendC;

constexpr int32_t BUFFER_NUM = 2;
constexpr uint32_t GRANULE = 4;
constexpr uint8_t PATTERN_EVEN = 1;  // built-in GatherMask pattern: elements 0, 2, 4, ...
constexpr uint8_t PATTERN_ODD = 2;   // built-in GatherMask pattern: elements 1, 3, 5, ...

class KernelComplexMatDot {
public:
    __aicore__ inline KernelComplexMatDot() {}
    template <typename TilingData>
    __aicore__ inline void Init(GM_ADDR matx, GM_ADDR maty, GM_ADDR out, const TilingData& td)
    {
        uint32_t idx = GetBlockIdx();
        uint32_t units = td.unitsPerCore + (idx < td.bigCoreNum ? 1 : 0);
        uint32_t startUnit = idx * td.unitsPerCore + (idx < td.bigCoreNum ? idx : td.bigCoreNum);
        uint32_t start = startUnit * GRANULE;
        uint32_t end = start + units * GRANULE;
        if (end > td.complexLength) {
            end = td.complexLength;
        }
        blockLength_ = end > start ? end - start : 0;
        tileLength_ = td.tileLength;
        xGm_.SetGlobalBuffer((__gm__ float*)matx + 2 * start, 2 * blockLength_);
        yGm_.SetGlobalBuffer((__gm__ float*)maty + 2 * start, 2 * blockLength_);
        zGm_.SetGlobalBuffer((__gm__ float*)out + 2 * start, 2 * blockLength_);
        pipe_.InitBuffer(xQueue_, BUFFER_NUM, 2 * tileLength_ * sizeof(float));
        pipe_.InitBuffer(yQueue_, BUFFER_NUM, 2 * tileLength_ * sizeof(float));
        pipe_.InitBuffer(zQueue_, BUFFER_NUM, 2 * tileLength_ * sizeof(float));
        pipe_.InitBuffer(planeBuf_, 4 * tileLength_ * sizeof(float));
        pipe_.InitBuffer(riBuf_, 2 * tileLength_ * sizeof(float));
        pipe_.InitBuffer(offsetBuf_, 2 * tileLength_ * sizeof(uint32_t));
        pipe_.InitBuffer(tmpBuf_, tileLength_ * sizeof(float));
    }

    __aicore__ inline void Process()
    {
        BuildOffsets();
        uint32_t tiles = (blockLength_ + tileLength_ - 1) / tileLength_;
        for (uint32_t i = 0; i < tiles; i++) {
            uint32_t len = (i == tiles - 1) ? blockLength_ - i * tileLength_ : tileLength_;
            CopyIn(i, len);
            Compute(len);
            CopyOut(i, len);
        }
    }

private:
    // off[2k] = 4k (re[k]), off[2k+1] = 4(T + k) (im[k]): byte offsets into riBuf_ = [re | im].
    __aicore__ inline void BuildOffsets()
    {
        LocalTensor<int32_t> off = offsetBuf_.Get<int32_t>();
        int32_t imBase = static_cast<int32_t>(tileLength_ * sizeof(float));
        for (int32_t k = 0; k < 4; k++) {
            off.SetValue(2 * k, 4 * k);
            off.SetValue(2 * k + 1, imBase + 4 * k);
        }
        event_t sToV = static_cast<event_t>(GetTPipePtr()->FetchEventID(HardEvent::S_V));
        SetFlag<HardEvent::S_V>(sToV);
        WaitFlag<HardEvent::S_V>(sToV);
        for (uint32_t len = 8; len < 2 * tileLength_; len *= 2) {
            Adds(off[len], off, static_cast<int32_t>(len / 2 * sizeof(float)), len);
            PipeBarrier<PIPE_V>();
        }
    }

    __aicore__ inline void CopyIn(uint32_t i, uint32_t len)
    {
        LocalTensor<float> xLocal = xQueue_.AllocTensor<float>();
        LocalTensor<float> yLocal = yQueue_.AllocTensor<float>();
        DataCopyExtParams params{1, static_cast<uint32_t>(2 * len * sizeof(float)), 0, 0, 0};
        DataCopyPadExtParams<float> pad{false, 0, 0, 0};
        DataCopyPad(xLocal, xGm_[2 * i * tileLength_], params, pad);
        DataCopyPad(yLocal, yGm_[2 * i * tileLength_], params, pad);
        xQueue_.EnQue(xLocal);
        yQueue_.EnQue(yLocal);
    }

    __aicore__ inline void Compute(uint32_t len)
    {
        LocalTensor<float> xLocal = xQueue_.DeQue<float>();
        LocalTensor<float> yLocal = yQueue_.DeQue<float>();
        LocalTensor<float> zLocal = zQueue_.AllocTensor<float>();
        LocalTensor<float> planes = planeBuf_.Get<float>();
        LocalTensor<float> xr = planes;
        LocalTensor<float> xi = planes[tileLength_];
        LocalTensor<float> yr = planes[2 * tileLength_];
        LocalTensor<float> yi = planes[3 * tileLength_];
        LocalTensor<float> ri = riBuf_.Get<float>();
        LocalTensor<float> re = ri;
        LocalTensor<float> im = ri[tileLength_];
        LocalTensor<float> tmp = tmpBuf_.Get<float>();
        LocalTensor<uint32_t> off = offsetBuf_.Get<uint32_t>();
        // 64 floats (32 complex) per repeat.
        uint16_t repeats = static_cast<uint16_t>((2 * len + 63) / 64);
        GatherMaskParams gm{1, repeats, 8, 0};
        uint64_t kept = 0;
        PipeBarrier<PIPE_V>();  // the previous tile's last instructions have read the work tiles
        GatherMask(xr, xLocal, PATTERN_EVEN, false, 0, gm, kept);
        GatherMask(xi, xLocal, PATTERN_ODD, false, 0, gm, kept);
        GatherMask(yr, yLocal, PATTERN_EVEN, false, 0, gm, kept);
        GatherMask(yi, yLocal, PATTERN_ODD, false, 0, gm, kept);
        PipeBarrier<PIPE_V>();
        Mul(re, xr, yr, len);
        Mul(tmp, xi, yi, len);
        Mul(im, xr, yi, len);
        PipeBarrier<PIPE_V>();
        Sub(re, re, tmp, len);
        Mul(tmp, xi, yr, len);
        PipeBarrier<PIPE_V>();
        Add(im, im, tmp, len);
        PipeBarrier<PIPE_V>();
        Gather(zLocal, ri, off, 0, 2 * len);
        zQueue_.EnQue(zLocal);
        xQueue_.FreeTensor(xLocal);
        yQueue_.FreeTensor(yLocal);
    }

    __aicore__ inline void CopyOut(uint32_t i, uint32_t len)
    {
        LocalTensor<float> zLocal = zQueue_.DeQue<float>();
        DataCopyExtParams params{1, static_cast<uint32_t>(2 * len * sizeof(float)), 0, 0, 0};
        DataCopyPad(zGm_[2 * i * tileLength_], zLocal, params);
        zQueue_.FreeTensor(zLocal);
    }

    TPipe pipe_;
    TQue<QuePosition::VECIN, BUFFER_NUM> xQueue_;
    TQue<QuePosition::VECIN, BUFFER_NUM> yQueue_;
    TQue<QuePosition::VECOUT, BUFFER_NUM> zQueue_;
    TBuf<QuePosition::VECCALC> planeBuf_;
    TBuf<QuePosition::VECCALC> riBuf_;
    TBuf<QuePosition::VECCALC> offsetBuf_;
    TBuf<QuePosition::VECCALC> tmpBuf_;
    GlobalTensor<float> xGm_;
    GlobalTensor<float> yGm_;
    GlobalTensor<float> zGm_;
    uint32_t blockLength_ = 0;
    uint32_t tileLength_ = 0;
};

extern "C" __global__ __aicore__ void complex_mat_dot_custom(GM_ADDR matx, GM_ADDR maty, GM_ADDR out,
                                                             GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(tilingData, tiling);
    if (TILING_KEY_IS(1)) {
        KernelComplexMatDot op;
        op.Init(matx, maty, out, tilingData);
        op.Process();
    }
}
