// Fixture (tiling motifs): z = x + y with the remainder of the multi-core split
// on the last core (tail_balance) and the add split into full repeats plus a
// partial tail call (counter_mode_mask).
#include "kernel_operator.h"

using namespace AscendC;

constexpr int32_t BUFFER_NUM = 2;

template <typename T> class KernelAxpby {
public:
  __aicore__ inline KernelAxpby() {}
  __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, GM_ADDR z, uint32_t numel,
                              uint32_t blockElems, uint32_t perCore,
                              uint32_t restBlocks, uint32_t chunk) {
    const uint32_t blk = GetBlockIdx();
    const uint32_t mine =
        perCore + (GetBlockNum() - 1 == blk ? restBlocks : 0u);
    const uint32_t first = perCore * blk;
    const uint32_t offset = first * blockElems;
    coreLength_ = 0;
    if (offset < numel) {
      const uint32_t span = mine * blockElems;
      coreLength_ = (numel - offset < span) ? (numel - offset) : span;
    }
    chunk_ = chunk;
    xGm_.SetGlobalBuffer((__gm__ T *)x + offset, coreLength_);
    yGm_.SetGlobalBuffer((__gm__ T *)y + offset, coreLength_);
    zGm_.SetGlobalBuffer((__gm__ T *)z + offset, coreLength_);
    pipe_.InitBuffer(xQueue_, BUFFER_NUM, chunk_ * sizeof(T));
    pipe_.InitBuffer(yQueue_, BUFFER_NUM, chunk_ * sizeof(T));
    pipe_.InitBuffer(zQueue_, BUFFER_NUM, chunk_ * sizeof(T));
  }

  __aicore__ inline void Process() {
    const uint32_t tileNum = (coreLength_ + chunk_ - 1) / chunk_;
    for (uint32_t i = 0; i < tileNum; ++i) {
      const uint32_t n = (i + 1 == tileNum) ? coreLength_ - i * chunk_ : chunk_;
      CopyIn(i, n);
      Compute(n);
      CopyOut(i, n);
    }
  }

private:
  __aicore__ inline void CopyIn(uint32_t progress, uint32_t n) {
    LocalTensor<T> a = xQueue_.AllocTensor<T>();
    LocalTensor<T> b = yQueue_.AllocTensor<T>();
    DataCopyExtParams copyParams{1, static_cast<uint32_t>(n * sizeof(T)), 0, 0,
                                 0};
    DataCopyPadExtParams<T> padParams;
    DataCopyPad(a, xGm_[progress * chunk_], copyParams, padParams);
    DataCopyPad(b, yGm_[progress * chunk_], copyParams, padParams);
    xQueue_.EnQue(a);
    yQueue_.EnQue(b);
  }

  __aicore__ inline void Compute(uint32_t n) {
    LocalTensor<T> a = xQueue_.DeQue<T>();
    LocalTensor<T> b = yQueue_.DeQue<T>();
    LocalTensor<T> c = zQueue_.AllocTensor<T>();
    const uint32_t lanes = ONE_REPEAT_BYTE_SIZE / sizeof(T);
    const BinaryRepeatParams rp(1, 1, 1, 8, 8, 8);
    Add(c, a, b, lanes, n / lanes, rp);
    if (n % lanes != 0) {
      Add(c[n / lanes * lanes], a[n / lanes * lanes], b[n / lanes * lanes],
          n % lanes, 1, rp);
    }
    zQueue_.EnQue(c);
    xQueue_.FreeTensor(a);
    yQueue_.FreeTensor(b);
  }

  __aicore__ inline void CopyOut(uint32_t progress, uint32_t n) {
    LocalTensor<T> c = zQueue_.DeQue<T>();
    DataCopyExtParams copyParams{1, static_cast<uint32_t>(n * sizeof(T)), 0, 0,
                                 0};
    DataCopyPad(zGm_[progress * chunk_], c, copyParams);
    zQueue_.FreeTensor(c);
  }

  TPipe pipe_;
  TQue<TPosition::VECIN, BUFFER_NUM> xQueue_, yQueue_;
  TQue<TPosition::VECOUT, BUFFER_NUM> zQueue_;
  GlobalTensor<T> xGm_;
  GlobalTensor<T> yGm_;
  GlobalTensor<T> zGm_;
  uint32_t coreLength_ = 0;
  uint32_t chunk_ = 0;
};

extern "C" __global__ __aicore__ void axpby_custom(GM_ADDR x, GM_ADDR y,
                                                   GM_ADDR z, GM_ADDR workspace,
                                                   GM_ADDR tiling) {
  GET_TILING_DATA(tilingData, tiling);
  if (TILING_KEY_IS(1)) {
    KernelAxpby<DTYPE_X> op;
    op.Init(x, y, z, tilingData.numel, tilingData.blockElems,
            tilingData.perCore, tilingData.restBlocks, tilingData.chunk);
    op.Process();
  }
}
