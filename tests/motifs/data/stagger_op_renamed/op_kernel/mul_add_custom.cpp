// Fixture (stagger_ub_buffers), renamed and reformatted: LLVM style, `using namespace AscendC`,
// the pipe held by pointer (`pipe_->InitBuffer`), a queue depth spelled as an expression, a
// TBuf length with a cast, the temporaries initialised in a helper method.
#include "kernel_operator.h"
using namespace AscendC;

template <typename T> class MulAddKernel {
public:
  __aicore__ inline MulAddKernel() {}
  __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, GM_ADDR z, uint32_t small_n, uint32_t big_n, uint32_t big_cores,
                              uint32_t tile_n, TPipe *pipe) {
    const uint32_t core = GetBlockIdx();
    n_ = core < big_cores ? big_n : small_n;
    const uint64_t offset = core < big_cores ? uint64_t(big_n) * core
                                             : uint64_t(big_n) * big_cores + uint64_t(small_n) * (core - big_cores);
    tile_ = tile_n;
    tiles_ = (n_ + tile_ - 1) / tile_;
    x_.SetGlobalBuffer((__gm__ T *)x + offset, n_);
    y_.SetGlobalBuffer((__gm__ T *)y + offset, n_);
    z_.SetGlobalBuffer((__gm__ T *)z + offset, n_);
    pipe_ = pipe;
    pipe_->InitBuffer(qx_, 1 + 1, tile_ * sizeof(T));
    pipe_->InitBuffer(qy_, 1 + 1, tile_ * sizeof(T));
    pipe_->InitBuffer(qz_, 1 + 1, tile_ * sizeof(T));
    InitTemps();
  }
  __aicore__ inline void Process() {
    for (uint32_t t = 0; t < tiles_; ++t) {
      len_ = t + 1 < tiles_ ? tile_ : n_ - t * tile_;
      this->CopyIn(t);
      this->Compute();
      this->CopyOut(t);
    }
  }

private:
  __aicore__ inline void InitTemps() {
    pipe_->InitBuffer(product_, static_cast<uint32_t>(tile_ * sizeof(T)));
    pipe_->InitBuffer(sum_, static_cast<uint32_t>(tile_ * sizeof(T)));
  }
  __aicore__ inline void CopyIn(uint32_t t) {
    LocalTensor<T> a = qx_.AllocTensor<T>();
    LocalTensor<T> b = qy_.AllocTensor<T>();
    DataCopyExtParams p{1, static_cast<uint32_t>(len_ * sizeof(T)), 0, 0, 0};
    DataCopyPadExtParams<T> pad{false, 0, 0, 0};
    DataCopyPad(a, x_[t * tile_], p, pad);
    DataCopyPad(b, y_[t * tile_], p, pad);
    qx_.EnQue(a);
    qy_.EnQue(b);
  }
  __aicore__ inline void Compute() {
    LocalTensor<T> a = qx_.DeQue<T>();
    LocalTensor<T> b = qy_.DeQue<T>();
    LocalTensor<T> c = qz_.AllocTensor<T>();
    LocalTensor<T> p = product_.Get<T>();
    LocalTensor<T> s = sum_.Get<T>();
    Mul(p, a, b, len_);
    Add(s, p, a, len_);
    Mul(p, s, b, len_);
    Add(s, p, a, len_);
    Mul(p, s, b, len_);
    Add(s, p, a, len_);
    Mul(p, s, b, len_);
    Add(c, p, a, len_);
    qz_.EnQue<T>(c);
    qx_.FreeTensor(a);
    qy_.FreeTensor(b);
  }
  __aicore__ inline void CopyOut(uint32_t t) {
    LocalTensor<T> c = qz_.DeQue<T>();
    DataCopyExtParams p{1, static_cast<uint32_t>(len_ * sizeof(T)), 0, 0, 0};
    DataCopyPad(z_[t * tile_], c, p);
    qz_.FreeTensor(c);
  }

  TPipe *pipe_ = nullptr;
  TQue<QuePosition::VECIN, 2> qx_, qy_;
  TQue<QuePosition::VECOUT, 2> qz_;
  TBuf<QuePosition::VECCALC> product_, sum_;
  GlobalTensor<T> x_, y_, z_;
  uint32_t n_ = 0, tile_ = 0, tiles_ = 0, len_ = 0;
};

extern "C" __global__ __aicore__ void mul_add_custom(GM_ADDR x, GM_ADDR y, GM_ADDR z, GM_ADDR workspace,
                                                     GM_ADDR tiling) {
  GET_TILING_DATA(td, tiling);
  TPipe pipe;
  MulAddKernel<DTYPE_X> op;
  op.Init(x, y, z, td.smallCoreDataNum, td.bigCoreDataNum, td.tailBlockNum, td.tileDataNum, &pipe);
  op.Process();
}
