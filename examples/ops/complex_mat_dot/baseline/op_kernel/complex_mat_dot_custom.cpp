// ComplexMatDotCustom kernel (baseline): out = matx * maty element-wise on complex numbers stored
// as interleaved fp32 (re, im). As in the public operator, the complex product is computed on the
// scalar unit: each tile is copied into UB, then a GetValue/SetValue loop computes
// (a + bi)(c + di) = (ac - bd) + (ad + bc)i per element, and the tile is copied out.
#include "kernel_operator.h"
using namespace AscendC;

constexpr int32_t BUFFER_NUM = 1;
constexpr uint32_t GRANULE = 4;

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
    }

    __aicore__ inline void Process()
    {
        uint32_t tiles = (blockLength_ + tileLength_ - 1) / tileLength_;
        for (uint32_t i = 0; i < tiles; i++) {
            uint32_t len = (i == tiles - 1) ? blockLength_ - i * tileLength_ : tileLength_;
            CopyIn(i, len);
            Compute(len);
            CopyOut(i, len);
        }
    }

private:
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
        // The scalar unit reads what MTE2 wrote: wait for the copies.
        event_t mte2ToS = static_cast<event_t>(GetTPipePtr()->FetchEventID(HardEvent::MTE2_S));
        SetFlag<HardEvent::MTE2_S>(mte2ToS);
        WaitFlag<HardEvent::MTE2_S>(mte2ToS);
        // ... and must not overwrite the output tile before the previous copy-out has read it.
        event_t mte3ToS = static_cast<event_t>(GetTPipePtr()->FetchEventID(HardEvent::MTE3_S));
        SetFlag<HardEvent::MTE3_S>(mte3ToS);
        WaitFlag<HardEvent::MTE3_S>(mte3ToS);
        for (uint32_t k = 0; k < len; k++) {
            float a = xLocal.GetValue(2 * k);
            float b = xLocal.GetValue(2 * k + 1);
            float c = yLocal.GetValue(2 * k);
            float d = yLocal.GetValue(2 * k + 1);
            zLocal.SetValue(2 * k, a * c - b * d);
            zLocal.SetValue(2 * k + 1, a * d + b * c);
        }
        zQueue_.EnQue(zLocal);
        xQueue_.FreeTensor(xLocal);
        yQueue_.FreeTensor(yLocal);
    }

    __aicore__ inline void CopyOut(uint32_t i, uint32_t len)
    {
        LocalTensor<float> zLocal = zQueue_.DeQue<float>();
        event_t sToMte3 = static_cast<event_t>(GetTPipePtr()->FetchEventID(HardEvent::S_MTE3));
        SetFlag<HardEvent::S_MTE3>(sToMte3);
        WaitFlag<HardEvent::S_MTE3>(sToMte3);
        DataCopyExtParams params{1, static_cast<uint32_t>(2 * len * sizeof(float)), 0, 0, 0};
        DataCopyPad(zGm_[2 * i * tileLength_], zLocal, params);
        zQueue_.FreeTensor(zLocal);
    }

    TPipe pipe_;
    TQue<QuePosition::VECIN, BUFFER_NUM> xQueue_;
    TQue<QuePosition::VECIN, BUFFER_NUM> yQueue_;
    TQue<QuePosition::VECOUT, BUFFER_NUM> zQueue_;
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
