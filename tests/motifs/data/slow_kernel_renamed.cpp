// Test fixture (de-optimized forms of every motif pattern):
// z = x * 2 + y, tile by tile.
#include "kernel_operator.h"

constexpr int32_t SLOTS = 1;

template <typename T> class OtherKernel {
public:
  __aicore__ inline OtherKernel() {}
  __aicore__ inline void Init(GM_ADDR x, GM_ADDR y,
                              GM_ADDR z, uint32_t total,
                              uint32_t tile,
                              uint32_t rows) {
    total_ = total;
    len_ = tile;
    rows_ = rows;
    aGm_.SetGlobalBuffer((__gm__ T *)x, total);
    bGm_.SetGlobalBuffer((__gm__ T *)y, total);
    cGm_.SetGlobalBuffer((__gm__ T *)z, total);
    pipe.InitBuffer(qa_, SLOTS, tile * sizeof(T));
    pipe.InitBuffer(qb_, SLOTS, tile * sizeof(T));
    pipe.InitBuffer(qc_, SLOTS, tile * sizeof(T));
    pipe.InitBuffer(scratchQ_, 1, tile * sizeof(T));
    pipe.InitBuffer(fillBuf_, tile * sizeof(T));
  }
  __aicore__ inline void Process() {
    AscendC::LocalTensor<T> unit = fillBuf_.Get<T>();
    const uint32_t tiles = total_ / len_;
    for (uint32_t i = 0; i < tiles; i++) {
      AscendC::Duplicate(unit, static_cast<T>(1), len_);
      CopyIn(i);
      AscendC::PipeBarrier<PIPE_ALL>();
      Compute(unit);
      AscendC::PipeBarrier<PIPE_ALL>();
      CopyOut(i);
    }
  }

private:
  __aicore__ inline void CopyIn(uint32_t progress) {
    AscendC::LocalTensor<T> aT = qa_.AllocTensor<T>();
    AscendC::LocalTensor<T> bT = qb_.AllocTensor<T>();
    const uint32_t cols = len_ / rows_;
    for (uint32_t r = 0; r < rows_; ++r) {
      AscendC::DataCopy(aT[r * cols],
                        aGm_[progress * len_][r * cols],
                        cols);
    }
    for (uint32_t k = 0; k < len_; ++k) {
      bT.SetValue(k, bGm_[progress * len_].GetValue(k));
    }
    qa_.EnQue(aT);
    qb_.EnQue(bT);
  }
  __aicore__ inline void
  Compute(const AscendC::LocalTensor<T> &unit) {
    AscendC::LocalTensor<T> aT = qa_.DeQue<T>();
    AscendC::LocalTensor<T> bT = qb_.DeQue<T>();
    AscendC::LocalTensor<T> cT = qc_.AllocTensor<T>();
    AscendC::LocalTensor<T> work =
        scratchQ_.AllocTensor<T>();
    AscendC::Muls(aT, aT, static_cast<T>(2), len_);
    AscendC::PipeBarrier<PIPE_V>();
    AscendC::Add(bT, bT, aT, len_);
    AscendC::Mul(work, bT, unit, len_);
    AscendC::PipeBarrier<PIPE_V>();
    AscendC::Duplicate(cT, static_cast<T>(0), len_);
    AscendC::PipeBarrier<PIPE_V>();
    for (uint32_t j = 0; j < len_; j++) {
      cT.SetValue(j, work.GetValue(j) + cT.GetValue(j));
    }
    qc_.EnQue<T>(cT);
    scratchQ_.FreeTensor(work);
    qa_.FreeTensor(aT);
    qb_.FreeTensor(bT);
  }
  __aicore__ inline void CopyOut(uint32_t progress) {
    AscendC::LocalTensor<T> cT = qc_.DeQue<T>();
    AscendC::DataCopy(cGm_[progress * len_], cT, len_);
    qc_.FreeTensor(cT);
  }

  AscendC::TPipe pipe;
  AscendC::TQue<AscendC::TPosition::VECIN, SLOTS> qa_;
  AscendC::TQue<AscendC::TPosition::VECIN, SLOTS> qb_;
  AscendC::TQue<AscendC::TPosition::VECOUT, SLOTS> qc_;
  AscendC::TQue<AscendC::TPosition::VECCALC, 1> scratchQ_;
  AscendC::TBuf<AscendC::TPosition::VECCALC> fillBuf_;
  AscendC::GlobalTensor<T> aGm_;
  AscendC::GlobalTensor<T> bGm_;
  AscendC::GlobalTensor<T> cGm_;
  uint32_t total_ = 0;
  uint32_t len_ = 0;
  uint32_t rows_ = 1;
};

extern "C" __global__ __aicore__ void
fixture_kernel(GM_ADDR x, GM_ADDR y, GM_ADDR z,
               GM_ADDR workspace, GM_ADDR tiling) {
  OtherKernel<DTYPE_X> op;
  op.Init(x, y, z, 4096, 1024, 4);
  op.Process();
}
