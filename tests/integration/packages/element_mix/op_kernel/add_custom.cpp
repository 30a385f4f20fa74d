/**
 * @file add_custom.cpp
 * Test fixture element_mix (the AddCustom interface, fp32): three scalar element loops per tile,
 * the forms vectorize_scalar_loop rewrites: an interleaved complex multiply-add (stride 2), a
 * per-channel scale of groups of four (stride 4) and an axpby with a float temporary (stride 1).
 * The loops hand data to each other through UB, so a vectorized loop between scalar ones must
 * keep the scalar unit's view of it.
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
        AscendC::LocalTensor<float> xLocal = inQueueX.DeQue<float>();
        AscendC::LocalTensor<float> yLocal = inQueueY.DeQue<float>();
        AscendC::LocalTensor<float> zLocal = outQueueZ.AllocTensor<float>();
        // The scalar unit reads what MTE2 wrote and must not overwrite z before its copy-out.
        event_t mte2ToS = static_cast<event_t>(AscendC::GetTPipePtr()->FetchEventID(AscendC::HardEvent::MTE2_S));
        AscendC::SetFlag<AscendC::HardEvent::MTE2_S>(mte2ToS);
        AscendC::WaitFlag<AscendC::HardEvent::MTE2_S>(mte2ToS);
        event_t mte3ToS = static_cast<event_t>(AscendC::GetTPipePtr()->FetchEventID(AscendC::HardEvent::MTE3_S));
        AscendC::SetFlag<AscendC::HardEvent::MTE3_S>(mte3ToS);
        AscendC::WaitFlag<AscendC::HardEvent::MTE3_S>(mte3ToS);
        const uint32_t pairs = count / 2;
        for (uint32_t k = 0; k < pairs; k++) {
            float a = xLocal.GetValue(2 * k);
            float b = xLocal.GetValue(2 * k + 1);
            float c = yLocal.GetValue(2 * k);
            float d = yLocal.GetValue(2 * k + 1);
            zLocal.SetValue(2 * k, alpha * (a * c - b * d) + a);
            zLocal.SetValue(2 * k + 1, alpha * (a * d + b * c) + b);
        }
        const uint32_t pixels = count / 4;
        for (uint32_t p = 0; p < pixels; p++) {
            yLocal.SetValue(4 * p, 0.299f * zLocal.GetValue(4 * p));
            yLocal.SetValue(4 * p + 1, 0.587f * zLocal.GetValue(4 * p + 1));
            yLocal.SetValue(4 * p + 2, 0.114f * zLocal.GetValue(4 * p + 2));
            yLocal.SetValue(4 * p + 3, zLocal.GetValue(4 * p + 3));
        }
        const float beta = 0.25f;
        for (uint32_t i = 0; i < count; i++) {
            float u = yLocal.GetValue(i);
            float t = u * alpha + xLocal.GetValue(i) * beta;
            zLocal.SetValue(i, 1.0f - t / 3.0f);
        }
        event_t sToMte3 = static_cast<event_t>(AscendC::GetTPipePtr()->FetchEventID(AscendC::HardEvent::S_MTE3));
        AscendC::SetFlag<AscendC::HardEvent::S_MTE3>(sToMte3);
        AscendC::WaitFlag<AscendC::HardEvent::S_MTE3>(sToMte3);
        outQueueZ.EnQue<float>(zLocal);
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
    float alpha = 0.5f;
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
