// Fixture (spread_single_core, renamed and reformatted): the kernel of data/spread_op in LLVM
// style, `using namespace AscendC`, a tiling struct read in the entry, `this->` stage calls, an
// unsigned loop variable counted with `++tile` in the header's own spelling, no block index at all.
#include "kernel_operator.h"
using namespace AscendC;

namespace {
constexpr int32_t kSlots = 2;
}

template <typename T> class MulSubKernel {
public:
  __aicore__ inline MulSubKernel() {}
  __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, GM_ADDR z, uint32_t total, uint32_t tiles,
                              uint32_t width, uint32_t tail) {
    tiles_ = tiles;
    width_ = width;
    tail_ = tail;
    x_.SetGlobalBuffer((__gm__ T *)x, total);
    y_.SetGlobalBuffer((__gm__ T *)y, total);
    z_.SetGlobalBuffer((__gm__ T *)z, total);
    pipe_.InitBuffer(qx_, kSlots, width * sizeof(T));
    pipe_.InitBuffer(qy_, kSlots, width * sizeof(T));
    pipe_.InitBuffer(qz_, kSlots, width * sizeof(T));
  }
  __aicore__ inline void Run() {
    for (uint32_t tile = 0; tile < tiles_; ++tile) {
      const uint32_t n = tile + 1 == tiles_ ? tail_ : width_;
      this->Load(tile, n);
      this->Calc(n);
      this->Store(tile, n);
    }
  }

private:
  __aicore__ inline void Load(uint32_t tile, uint32_t n) {
    LocalTensor<T> a = qx_.AllocTensor<T>();
    LocalTensor<T> b = qy_.AllocTensor<T>();
    DataCopyExtParams p{1, static_cast<uint32_t>(n * sizeof(T)), 0, 0, 0};
    DataCopyPad(a, x_[tile * width_], p, DataCopyPadExtParams<T>{false, 0, 0, 0});
    DataCopyPad(b, y_[tile * width_], p, DataCopyPadExtParams<T>{false, 0, 0, 0});
    qx_.EnQue(a);
    qy_.EnQue(b);
  }
  __aicore__ inline void Calc(uint32_t n) {
    LocalTensor<T> a = qx_.DeQue<T>();
    LocalTensor<T> b = qy_.DeQue<T>();
    LocalTensor<T> c = qz_.AllocTensor<T>();
    Muls(c, a, static_cast<T>(2), n);
    Sub(c, c, b, n);
    qz_.EnQue<T>(c);
    qx_.FreeTensor(a);
    qy_.FreeTensor(b);
  }
  __aicore__ inline void Store(uint32_t tile, uint32_t n) {
    LocalTensor<T> c = qz_.DeQue<T>();
    DataCopyPad(z_[tile * width_], c, DataCopyExtParams{1, static_cast<uint32_t>(n * sizeof(T)), 0, 0, 0});
    qz_.FreeTensor(c);
  }

  TPipe pipe_;
  TQue<QuePosition::VECIN, kSlots> qx_, qy_;
  TQue<QuePosition::VECOUT, kSlots> qz_;
  GlobalTensor<T> x_, y_, z_;
  uint32_t tiles_ = 0, width_ = 0, tail_ = 0;
};

extern "C" __global__ __aicore__ void mul_sub_custom(GM_ADDR x, GM_ADDR y, GM_ADDR z, GM_ADDR workspace,
                                                     GM_ADDR tiling) {
  GET_TILING_DATA(td, tiling);
  MulSubKernel<DTYPE_X> k;
  k.Init(x, y, z, td.totalLength, td.tileNum, td.tileLength, td.tailLength);
  k.Run();
}
