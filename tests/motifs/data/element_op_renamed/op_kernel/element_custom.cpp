// Fixture (vectorize_scalar_loop; renamed, LLVM-formatted copy): scalar element
// loops over fp32 UB tensors. Three qualify (interleaved complex
// multiply-add with a scalar, a stride-1 axpby with a float
// temporary, a stride-4 channel scale); the others must not be
// touched: half tensors, an output element left unwritten, an
// in-place update, a call in the expression, the loop variable used
// as a value.
#include "kernel_operator.h"
using namespace AscendC;

constexpr int32_t BUFFER_NUM = 1;

class ElemOp {
public:
  __aicore__ inline ElemOp() {}
  __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, GM_ADDR z,
                              uint32_t tileLength) {
    tileLength_ = tileLength;
    gain = 0.5f;
    xGm_.SetGlobalBuffer((__gm__ float *)x, 4 * tileLength);
    yGm_.SetGlobalBuffer((__gm__ float *)y, 4 * tileLength);
    zGm_.SetGlobalBuffer((__gm__ float *)z, 4 * tileLength);
    tp.InitBuffer(xQueue_, BUFFER_NUM,
                  4 * tileLength_ * sizeof(float));
    tp.InitBuffer(yQueue_, BUFFER_NUM,
                  4 * tileLength_ * sizeof(float));
    tp.InitBuffer(zQueue_, BUFFER_NUM,
                  4 * tileLength_ * sizeof(float));
    tp.InitBuffer(hQueue_, BUFFER_NUM, tileLength_ * sizeof(half));
  }

  __aicore__ inline void ComplexMulAdd(uint32_t len) {
    LocalTensor<float> srcA = xQueue_.DeQue<float>();
    LocalTensor<float> srcB = yQueue_.DeQue<float>();
    LocalTensor<float> dstT = zQueue_.AllocTensor<float>();
    for (uint32_t n = 0; n < len; n++) {
      float a = srcA.GetValue(2 * n);
      float b = srcA.GetValue(1 + n * 2);
      float c = srcB.GetValue(2 * n);
      float d = srcB.GetValue(2 * n + 1);
      dstT.SetValue(2 * n, gain * (a * c - b * d) + a);
      dstT.SetValue(2 * n + 1, gain * (a * d + b * c) + b);
    }
    zQueue_.EnQue(dstT);
    xQueue_.FreeTensor(srcA);
    yQueue_.FreeTensor(srcB);
  }

  __aicore__ inline void Axpby(uint32_t len, float beta) {
    LocalTensor<float> srcA = xQueue_.DeQue<float>();
    LocalTensor<float> srcB = yQueue_.DeQue<float>();
    LocalTensor<float> dstT = zQueue_.AllocTensor<float>();
    for (uint32_t i = 0; i < len; ++i) {
      float xv = srcA.GetValue(i);
      float acc = xv * gain + srcB.GetValue(i) * beta;
      dstT.SetValue(i, 1.0f - acc / 3.0f);
    }
    zQueue_.EnQue(dstT);
    xQueue_.FreeTensor(srcA);
    yQueue_.FreeTensor(srcB);
  }

  __aicore__ inline void ScaleChannels(uint32_t pixels) {
    LocalTensor<float> srcA = xQueue_.DeQue<float>();
    LocalTensor<float> dstT = zQueue_.AllocTensor<float>();
    for (uint32_t px = 0; px < pixels; px++) {
      dstT.SetValue(4 * px, 0.299f * srcA.GetValue(4 * px));
      dstT.SetValue(4 * px + 1, 0.587f * srcA.GetValue(4 * px + 1));
      dstT.SetValue(px * 4 + 2, 0.114f * srcA.GetValue(px * 4 + 2));
      dstT.SetValue(4 * px + 3, srcA.GetValue(4 * px + 3));
    }
    zQueue_.EnQue(dstT);
    xQueue_.FreeTensor(srcA);
  }

  __aicore__ inline void NotThese(uint32_t len) {
    LocalTensor<float> srcA = xQueue_.DeQue<float>();
    LocalTensor<float> dstT = zQueue_.AllocTensor<float>();
    LocalTensor<half> hLocal = hQueue_.AllocTensor<half>();
    for (uint32_t n = 0; n < len; n++) { // half tensors
      hLocal.SetValue(n, hLocal.GetValue(n) * hLocal.GetValue(n) +
                             hLocal.GetValue(n));
    }
    for (uint32_t n = 0; n < len;
         n++) { // the odd elements are never written
      float a = srcA.GetValue(2 * n);
      dstT.SetValue(2 * n, a * a);
    }
    for (uint32_t n = 0; n < len; n++) { // in place
      dstT.SetValue(n, dstT.GetValue(n) * gain + 1.0f);
    }
    for (uint32_t n = 0; n < len; n++) { // a call
      dstT.SetValue(n, Sqrt2(srcA.GetValue(n)) + 1.0f);
    }
    for (uint32_t n = 0; n < len; n++) { // the index as a value
      dstT.SetValue(n, srcA.GetValue(n) * n + 1.0f);
    }
    zQueue_.EnQue(dstT);
    hQueue_.FreeTensor(hLocal);
    xQueue_.FreeTensor(srcA);
  }

private:
  __aicore__ inline float Sqrt2(float v) { return v * 1.41421356f; }

  TPipe tp;
  TQue<QuePosition::VECIN, BUFFER_NUM> xQueue_;
  TQue<QuePosition::VECIN, BUFFER_NUM> yQueue_;
  TQue<QuePosition::VECOUT, BUFFER_NUM> zQueue_;
  TQue<QuePosition::VECCALC, BUFFER_NUM> hQueue_;
  GlobalTensor<float> xGm_;
  GlobalTensor<float> yGm_;
  GlobalTensor<float> zGm_;
  uint32_t tileLength_ = 0;
  float gain = 1.0f;
};

extern "C" __global__ __aicore__ void
element_custom(GM_ADDR x, GM_ADDR y, GM_ADDR z, GM_ADDR workspace,
               GM_ADDR tiling) {
  GET_TILING_DATA(tilingData, tiling);
  ElemOp op;
  op.Init(x, y, z, tilingData.tileLength);
  op.ComplexMulAdd(tilingData.tileLength);
  op.Axpby(tilingData.tileLength, 2.0f);
  op.ScaleChannels(tilingData.tileLength);
  op.NotThese(tilingData.tileLength);
}
