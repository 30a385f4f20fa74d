// Fixture (sqrt_div_to_rsqrt), renamed and reformatted (LLVM style): an fp32-only kernel,
// qualified calls, PIPE_V barriers, the ones written into the output tile (Duplicate<float>) and
// the square root taken in place in the input tile, which is only freed afterwards.
#include "kernel_operator.h"

class InvSqrtOp {
public:
  __aicore__ inline InvSqrtOp() {}
  __aicore__ inline void Init(GM_ADDR in, GM_ADDR out, uint32_t total, uint32_t tile) {
    total_ = total;
    tile_ = tile;
    inGm.SetGlobalBuffer((__gm__ float *)in + AscendC::GetBlockIdx() * total, total);
    outGm.SetGlobalBuffer((__gm__ float *)out + AscendC::GetBlockIdx() * total, total);
    pipe.InitBuffer(inQ, 2, tile * sizeof(float));
    pipe.InitBuffer(outQ, 2, tile * sizeof(float));
  }
  __aicore__ inline void Process() {
    for (uint32_t t = 0; t * tile_ < total_; t++) {
      uint32_t len = total_ - t * tile_ < tile_ ? total_ - t * tile_ : tile_;
      AscendC::LocalTensor<float> a = inQ.AllocTensor<float>();
      AscendC::DataCopy(a, inGm[t * tile_], len);
      inQ.EnQue(a);
      Step(len);
      AscendC::LocalTensor<float> b = outQ.DeQue<float>();
      AscendC::DataCopy(outGm[t * tile_], b, len);
      outQ.FreeTensor(b);
    }
  }

private:
  __aicore__ inline void Step(uint32_t len) {
    AscendC::LocalTensor<float> v = inQ.DeQue<float>();
    AscendC::LocalTensor<float> r = outQ.AllocTensor<float>();
    AscendC::Duplicate<float>(r, 1.0f, len);
    AscendC::PipeBarrier<PIPE_V>();
    AscendC::Sqrt(v, v, len);
    AscendC::PipeBarrier<PIPE_V>();
    AscendC::Div(r, r, v, len);
    outQ.EnQue(r);
    inQ.FreeTensor(v);
  }

  AscendC::TPipe pipe;
  AscendC::TQue<AscendC::TPosition::VECIN, 2> inQ;
  AscendC::TQue<AscendC::TPosition::VECOUT, 2> outQ;
  AscendC::GlobalTensor<float> inGm, outGm;
  uint32_t total_ = 0;
  uint32_t tile_ = 0;
};

extern "C" __global__ __aicore__ void gate_custom(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling) {
  GET_TILING_DATA(td, tiling);
  InvSqrtOp op;
  op.Init(x, y, td.coreLength, td.tileLength);
  op.Process();
}
