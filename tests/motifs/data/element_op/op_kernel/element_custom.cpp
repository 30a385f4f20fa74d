// Fixture (vectorize_scalar_loop, element loops): scalar element loops over fp32 UB tensors.
// Three qualify (interleaved complex multiply-add with a scalar, a stride-1 axpby with a float
// temporary, a stride-4 channel scale); the others must not be touched: half tensors, an output
// element left unwritten, an in-place update, a call in the expression, the loop variable used
// as a value.
#include "kernel_operator.h"
using namespace AscendC;

constexpr int32_t BUFFER_NUM = 1;

class KernelElement {
public:
    __aicore__ inline KernelElement() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, GM_ADDR z, uint32_t tileLength)
    {
        tileLength_ = tileLength;
        alpha_ = 0.5f;
        xGm_.SetGlobalBuffer((__gm__ float*)x, 4 * tileLength);
        yGm_.SetGlobalBuffer((__gm__ float*)y, 4 * tileLength);
        zGm_.SetGlobalBuffer((__gm__ float*)z, 4 * tileLength);
        pipe_.InitBuffer(xQueue_, BUFFER_NUM, 4 * tileLength_ * sizeof(float));
        pipe_.InitBuffer(yQueue_, BUFFER_NUM, 4 * tileLength_ * sizeof(float));
        pipe_.InitBuffer(zQueue_, BUFFER_NUM, 4 * tileLength_ * sizeof(float));
        pipe_.InitBuffer(hQueue_, BUFFER_NUM, tileLength_ * sizeof(half));
    }

    __aicore__ inline void ComplexMulAdd(uint32_t len)
    {
        LocalTensor<float> xLocal = xQueue_.DeQue<float>();
        LocalTensor<float> yLocal = yQueue_.DeQue<float>();
        LocalTensor<float> zLocal = zQueue_.AllocTensor<float>();
        for (uint32_t k = 0; k < len; k++) {
            float a = xLocal.GetValue(2 * k);
            float b = xLocal.GetValue(2 * k + 1);
            float c = yLocal.GetValue(2 * k);
            float d = yLocal.GetValue(2 * k + 1);
            zLocal.SetValue(2 * k, alpha_ * (a * c - b * d) + a);
            zLocal.SetValue(2 * k + 1, alpha_ * (a * d + b * c) + b);
        }
        zQueue_.EnQue(zLocal);
        xQueue_.FreeTensor(xLocal);
        yQueue_.FreeTensor(yLocal);
    }

    __aicore__ inline void Axpby(uint32_t len, float beta)
    {
        LocalTensor<float> xLocal = xQueue_.DeQue<float>();
        LocalTensor<float> yLocal = yQueue_.DeQue<float>();
        LocalTensor<float> zLocal = zQueue_.AllocTensor<float>();
        for (uint32_t i = 0; i < len; ++i) {
            float u = xLocal.GetValue(i);
            float t = u * alpha_ + yLocal.GetValue(i) * beta;
            zLocal.SetValue(i, 1.0f - t / 3.0f);
        }
        zQueue_.EnQue(zLocal);
        xQueue_.FreeTensor(xLocal);
        yQueue_.FreeTensor(yLocal);
    }

    __aicore__ inline void ScaleChannels(uint32_t pixels)
    {
        LocalTensor<float> xLocal = xQueue_.DeQue<float>();
        LocalTensor<float> zLocal = zQueue_.AllocTensor<float>();
        for (uint32_t p = 0; p < pixels; p++) {
            zLocal.SetValue(4 * p, 0.299f * xLocal.GetValue(4 * p));
            zLocal.SetValue(4 * p + 1, 0.587f * xLocal.GetValue(4 * p + 1));
            zLocal.SetValue(4 * p + 2, 0.114f * xLocal.GetValue(4 * p + 2));
            zLocal.SetValue(4 * p + 3, xLocal.GetValue(4 * p + 3));
        }
        zQueue_.EnQue(zLocal);
        xQueue_.FreeTensor(xLocal);
    }

    __aicore__ inline void NotThese(uint32_t len)
    {
        LocalTensor<float> xLocal = xQueue_.DeQue<float>();
        LocalTensor<float> zLocal = zQueue_.AllocTensor<float>();
        LocalTensor<half> hLocal = hQueue_.AllocTensor<half>();
        for (uint32_t k = 0; k < len; k++) {  // half tensors
            hLocal.SetValue(k, hLocal.GetValue(k) * hLocal.GetValue(k) + hLocal.GetValue(k));
        }
        for (uint32_t k = 0; k < len; k++) {  // the odd elements are never written
            float a = xLocal.GetValue(2 * k);
            zLocal.SetValue(2 * k, a * a);
        }
        for (uint32_t k = 0; k < len; k++) {  // in place
            zLocal.SetValue(k, zLocal.GetValue(k) * alpha_ + 1.0f);
        }
        for (uint32_t k = 0; k < len; k++) {  // a call
            zLocal.SetValue(k, Sqrt2(xLocal.GetValue(k)) + 1.0f);
        }
        for (uint32_t k = 0; k < len; k++) {  // the index as a value
            zLocal.SetValue(k, xLocal.GetValue(k) * k + 1.0f);
        }
        zQueue_.EnQue(zLocal);
        hQueue_.FreeTensor(hLocal);
        xQueue_.FreeTensor(xLocal);
    }

private:
    __aicore__ inline float Sqrt2(float v) { return v * 1.41421356f; }

    TPipe pipe_;
    TQue<QuePosition::VECIN, BUFFER_NUM> xQueue_;
    TQue<QuePosition::VECIN, BUFFER_NUM> yQueue_;
    TQue<QuePosition::VECOUT, BUFFER_NUM> zQueue_;
    TQue<QuePosition::VECCALC, BUFFER_NUM> hQueue_;
    GlobalTensor<float> xGm_;
    GlobalTensor<float> yGm_;
    GlobalTensor<float> zGm_;
    uint32_t tileLength_ = 0;
    float alpha_ = 1.0f;
};

extern "C" __global__ __aicore__ void element_custom(GM_ADDR x, GM_ADDR y, GM_ADDR z, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(tilingData, tiling);
    KernelElement op;
    op.Init(x, y, z, tilingData.tileLength);
    op.ComplexMulAdd(tilingData.tileLength);
    op.Axpby(tilingData.tileLength, 2.0f);
    op.ScaleChannels(tilingData.tileLength);
    op.NotThese(tilingData.tileLength);
}
