// Fixture (renamed sync_op, kernel): qualified API calls, a float literal one, no barrier between
// the fill and the division, members reached through this->.
#include "kernel_operator.h"

constexpr int32_t SLOTS = 2;

class RecipKernel {
public:
  __aicore__ inline RecipKernel() {}
  __aicore__ inline void Setup(GM_ADDR a, GM_ADDR b, uint32_t n, uint32_t perCore, uint32_t tile) {
    uint32_t first = AscendC::GetBlockIdx() * perCore * 64;
    len = first < n ? ((n - first < perCore * 64) ? n - first : perCore * 64) : 0;
    tileElems = tile;
    aGlobal.SetGlobalBuffer((__gm__ float *)a + first, len);
    bGlobal.SetGlobalBuffer((__gm__ float *)b + first, len);
    pipeline.InitBuffer(inQ, SLOTS, tileElems * sizeof(float));
    pipeline.InitBuffer(outQ, SLOTS, tileElems * sizeof(float));
    pipeline.InitBuffer(scratch, tileElems * sizeof(float));
  }
  __aicore__ inline void Run() {
    for (uint32_t t = 0; t * tileElems < len; t++) {
      uint32_t m = (len - t * tileElems < tileElems) ? len - t * tileElems : tileElems;
      Load(t, m);
      Work(m);
      Store(t, m);
    }
  }

private:
  __aicore__ inline void Load(uint32_t t, uint32_t m) {
    AscendC::LocalTensor<float> in = inQ.AllocTensor<float>();
    AscendC::DataCopy(in, aGlobal[t * tileElems], m);
    inQ.EnQue(in);
  }
  __aicore__ inline void Work(uint32_t m) {
    AscendC::LocalTensor<float> in = inQ.DeQue<float>();
    AscendC::LocalTensor<float> out = outQ.AllocTensor<float>();
    AscendC::LocalTensor<float> unit = scratch.Get<float>();
    AscendC::Duplicate(unit, 1.0f, m);
    AscendC::Div(out, unit, in, m);
    AscendC::PipeBarrier<PIPE_ALL>();
    this->outQ.EnQue(out);
    inQ.FreeTensor(in);
  }
  __aicore__ inline void Store(uint32_t t, uint32_t m) {
    AscendC::LocalTensor<float> out = outQ.DeQue<float>();
    AscendC::DataCopy(bGlobal[t * tileElems], out, m);
    outQ.FreeTensor(out);
  }

  AscendC::TPipe pipeline;
  AscendC::TQue<AscendC::TPosition::VECIN, SLOTS> inQ;
  AscendC::TQue<AscendC::TPosition::VECOUT, SLOTS> outQ;
  AscendC::TBuf<AscendC::TPosition::VECCALC> scratch;
  AscendC::GlobalTensor<float> aGlobal, bGlobal;
  uint32_t len = 0;
  uint32_t tileElems = 0;
};

extern "C" __global__ __aicore__ void recip_op(GM_ADDR a, GM_ADDR b, GM_ADDR workspace, GM_ADDR tiling) {
  GET_TILING_DATA(td, tiling);
  RecipKernel k;
  k.Setup(a, b, td.n, td.perCore, td.tile);
  k.Run();
}
