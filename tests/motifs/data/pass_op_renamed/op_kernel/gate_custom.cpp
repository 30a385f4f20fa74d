// Fixture (dead_vector_write, common_subexpression), renamed and reformatted (LLVM style):
// qualified calls, the fp32 work tiles members fetched once in Init, PIPE_V barriers between the
// steps, the two polynomials sharing a square of x in the other order (the second one first).
#include "kernel_operator.h"

class CubicOp {
public:
  __aicore__ inline CubicOp() {}
  __aicore__ inline void Init(GM_ADDR in, GM_ADDR out, uint32_t total, uint32_t tile) {
    total_ = total;
    tile_ = tile;
    inGm.SetGlobalBuffer((__gm__ half *)in + AscendC::GetBlockIdx() * total, total);
    outGm.SetGlobalBuffer((__gm__ half *)out + AscendC::GetBlockIdx() * total, total);
    pipe.InitBuffer(inQ, 2, tile * sizeof(half));
    pipe.InitBuffer(outQ, 2, tile * sizeof(half));
    pipe.InitBuffer(wideX, tile * sizeof(float));
    pipe.InitBuffer(wideP, tile * sizeof(float));
    pipe.InitBuffer(wideQ, tile * sizeof(float));
    v = wideX.Get<float>();
    p = wideP.Get<float>();
    q = wideQ.Get<float>();
  }
  __aicore__ inline void Process() {
    for (uint32_t t = 0; t * tile_ < total_; t++) {
      uint32_t len = total_ - t * tile_ < tile_ ? total_ - t * tile_ : tile_;
      AscendC::LocalTensor<half> a = inQ.AllocTensor<half>();
      AscendC::DataCopy(a, inGm[t * tile_], len);
      inQ.EnQue(a);
      Step(len);
      AscendC::LocalTensor<half> b = outQ.DeQue<half>();
      AscendC::DataCopy(outGm[t * tile_], b, len);
      outQ.FreeTensor(b);
    }
  }

private:
  __aicore__ inline void Step(uint32_t len) {
    AscendC::LocalTensor<half> a = inQ.DeQue<half>();
    AscendC::LocalTensor<half> b = outQ.AllocTensor<half>();
    AscendC::Cast(v, a, AscendC::RoundMode::CAST_NONE, len);
    AscendC::PipeBarrier<PIPE_V>();
    AscendC::Cast(q, a, AscendC::RoundMode::CAST_NONE, len);
    AscendC::PipeBarrier<PIPE_V>();
    AscendC::Mul(q, v, v, len);
    AscendC::PipeBarrier<PIPE_V>();
    AscendC::Muls(q, q, 0.2140644f, len);
    AscendC::PipeBarrier<PIPE_V>();
    AscendC::Adds(q, q, 1.5957691f, len);
    AscendC::PipeBarrier<PIPE_V>();
    AscendC::Mul(p, v, v, len);
    AscendC::PipeBarrier<PIPE_V>();
    AscendC::Muls(p, p, -0.0713548f, len);
    AscendC::PipeBarrier<PIPE_V>();
    AscendC::Adds(p, p, -1.5957691f, len);
    AscendC::PipeBarrier<PIPE_V>();
    AscendC::Mul(p, p, v, len);
    AscendC::PipeBarrier<PIPE_V>();
    AscendC::Add(p, q, p, len);
    AscendC::PipeBarrier<PIPE_V>();
    AscendC::Cast(b, p, AscendC::RoundMode::CAST_RINT, len);
    outQ.EnQue(b);
    inQ.FreeTensor(a);
  }

  AscendC::TPipe pipe;
  AscendC::TQue<AscendC::TPosition::VECIN, 2> inQ;
  AscendC::TQue<AscendC::TPosition::VECOUT, 2> outQ;
  AscendC::TBuf<AscendC::TPosition::VECCALC> wideX, wideP, wideQ;
  AscendC::LocalTensor<float> v, p, q;
  AscendC::GlobalTensor<half> inGm, outGm;
  uint32_t total_ = 0;
  uint32_t tile_ = 0;
};

extern "C" __global__ __aicore__ void gate_custom(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling) {
  GET_TILING_DATA(td, tiling);
  CubicOp op;
  op.Init(x, y, td.coreLength, td.tileLength);
  op.Process();
}
