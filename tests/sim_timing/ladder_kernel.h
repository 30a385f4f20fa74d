// The fp16 Add of the calibration ladder (MODEL.md section 5), written against the AscendC API:
// rows split evenly over the blocks (remainder to the first blocks), tiles of `tile` elements,
// TQue with BUFS buffers per queue, optional 256 B pad between the x and y queues (bank-group
// offset) and optional L2 bypass hint on the inputs.
#pragma once

#include <cstdint>

#include "kernel_operator.h"

namespace ladder {

struct add_cfg {
  std::uint32_t rows = 8192, cols = 8192;
  std::uint32_t tile = 4096;  // elements per DataCopy
  bool bank_pad = false;
  bool l2_bypass = false;
  // Variants for the effect tests (effects_test.cpp):
  std::uint32_t compute_reps = 1;   // Add calls per tile (compute weight)
  std::uint32_t vec_chunk = 0;      // elements per Add call (0 = the whole tile)
  bool pipe_all = false;            // PipeBarrier<PIPE_ALL> after every stage
  std::uint32_t gm_shift = 0;       // elements added to every GM offset (misalignment)
};

template <int BUFS>
class add_kernel {
 public:
  __aicore__ void Init(GM_ADDR x, GM_ADDR y, GM_ADDR z, const add_cfg& c) {
    const std::uint32_t blocks = AscendC::GetBlockNum(), idx = AscendC::GetBlockIdx();
    const std::uint32_t base = c.rows / blocks, rem = c.rows % blocks;
    const std::uint32_t my_rows = base + (idx < rem ? 1 : 0);
    const std::uint32_t first = idx < rem ? idx * (base + 1) : rem * (base + 1) + (idx - rem) * base;
    const std::uint64_t start = static_cast<std::uint64_t>(first) * c.cols;
    len_ = static_cast<std::uint64_t>(my_rows) * c.cols;
    tile_ = c.tile;
    cfg_ = c;
    xGm_.SetGlobalBuffer(reinterpret_cast<__gm__ half*>(x) + start, len_);
    yGm_.SetGlobalBuffer(reinterpret_cast<__gm__ half*>(y) + start, len_);
    zGm_.SetGlobalBuffer(reinterpret_cast<__gm__ half*>(z) + start, len_);
    if (c.l2_bypass) {
      xGm_.SetL2CacheHint(AscendC::CacheMode::CACHE_MODE_DISABLE);
      yGm_.SetL2CacheHint(AscendC::CacheMode::CACHE_MODE_DISABLE);
    }
    pipe_.InitBuffer(xQ_, BUFS, tile_ * sizeof(half));
    if (c.bank_pad) pipe_.InitBuffer(pad_, 256);
    pipe_.InitBuffer(yQ_, BUFS, tile_ * sizeof(half));
    pipe_.InitBuffer(zQ_, BUFS, tile_ * sizeof(half));
  }
  __aicore__ void Process() {
    for (std::uint64_t off = 0; off < len_; off += tile_) {
      const std::uint32_t n = static_cast<std::uint32_t>(len_ - off < tile_ ? len_ - off : tile_);
      CopyIn(off + cfg_.gm_shift, n);
      if (cfg_.pipe_all) AscendC::PipeBarrier<PIPE_ALL>();
      Compute(n);
      if (cfg_.pipe_all) AscendC::PipeBarrier<PIPE_ALL>();
      CopyOut(off + cfg_.gm_shift, n);
      if (cfg_.pipe_all) AscendC::PipeBarrier<PIPE_ALL>();
    }
  }

 private:
  __aicore__ void CopyIn(std::uint64_t off, std::uint32_t n) {
    AscendC::LocalTensor<half> xl = xQ_.template AllocTensor<half>();
    AscendC::LocalTensor<half> yl = yQ_.template AllocTensor<half>();
    AscendC::DataCopy(xl, xGm_[off], n);
    AscendC::DataCopy(yl, yGm_[off], n);
    xQ_.EnQue(xl);
    yQ_.EnQue(yl);
  }
  __aicore__ void Compute(std::uint32_t n) {
    AscendC::LocalTensor<half> xl = xQ_.template DeQue<half>();
    AscendC::LocalTensor<half> yl = yQ_.template DeQue<half>();
    AscendC::LocalTensor<half> zl = zQ_.template AllocTensor<half>();
    const std::uint32_t chunk = cfg_.vec_chunk != 0 ? cfg_.vec_chunk : n;
    for (std::uint32_t r = 0; r < cfg_.compute_reps; ++r)
      for (std::uint32_t i = 0; i < n; i += chunk) AscendC::Add(zl[i], xl[i], yl[i], n - i < chunk ? n - i : chunk);
    zQ_.EnQue(zl);
    xQ_.FreeTensor(xl);
    yQ_.FreeTensor(yl);
  }
  __aicore__ void CopyOut(std::uint64_t off, std::uint32_t n) {
    AscendC::LocalTensor<half> zl = zQ_.template DeQue<half>();
    AscendC::DataCopy(zGm_[off], zl, n);
    zQ_.FreeTensor(zl);
  }

  AscendC::TPipe pipe_;
  AscendC::TQue<AscendC::TPosition::VECIN, BUFS> xQ_, yQ_;
  AscendC::TQue<AscendC::TPosition::VECOUT, BUFS> zQ_;
  AscendC::TBuf<AscendC::TPosition::VECCALC> pad_;
  AscendC::GlobalTensor<half> xGm_, yGm_, zGm_;
  std::uint64_t len_ = 0;
  std::uint32_t tile_ = 0;
  add_cfg cfg_;
};

// Case 0: the scalar element loop (GetValue/SetValue), single buffered.
class scalar_add_kernel {
 public:
  __aicore__ void Init(GM_ADDR x, GM_ADDR y, GM_ADDR z, std::uint64_t len, std::uint32_t tile) {
    len_ = len;
    tile_ = tile;
    xGm_.SetGlobalBuffer(reinterpret_cast<__gm__ half*>(x), len);
    yGm_.SetGlobalBuffer(reinterpret_cast<__gm__ half*>(y), len);
    zGm_.SetGlobalBuffer(reinterpret_cast<__gm__ half*>(z), len);
    pipe_.InitBuffer(xQ_, 1, tile * sizeof(half));
    pipe_.InitBuffer(yQ_, 1, tile * sizeof(half));
    pipe_.InitBuffer(zQ_, 1, tile * sizeof(half));
  }
  __aicore__ void Process() {
    for (std::uint64_t off = 0; off < len_; off += tile_) {
      AscendC::LocalTensor<half> xl = xQ_.AllocTensor<half>();
      AscendC::LocalTensor<half> yl = yQ_.AllocTensor<half>();
      AscendC::DataCopy(xl, xGm_[off], tile_);
      AscendC::DataCopy(yl, yGm_[off], tile_);
      xQ_.EnQue(xl);
      yQ_.EnQue(yl);
      xl = xQ_.DeQue<half>();
      yl = yQ_.DeQue<half>();
      AscendC::LocalTensor<half> zl = zQ_.AllocTensor<half>();
      for (std::uint32_t i = 0; i < tile_; ++i) {
        const float a = static_cast<float>(xl.GetValue(i));
        const float b = static_cast<float>(yl.GetValue(i));
        zl.SetValue(i, static_cast<half>(a + b));
      }
      zQ_.EnQue(zl);
      xQ_.FreeTensor(xl);
      yQ_.FreeTensor(yl);
      zl = zQ_.DeQue<half>();
      AscendC::DataCopy(zGm_[off], zl, tile_);
      zQ_.FreeTensor(zl);
    }
  }

 private:
  AscendC::TPipe pipe_;
  AscendC::TQue<AscendC::TPosition::VECIN, 1> xQ_, yQ_;
  AscendC::TQue<AscendC::TPosition::VECOUT, 1> zQ_;
  AscendC::GlobalTensor<half> xGm_, yGm_, zGm_;
  std::uint64_t len_ = 0;
  std::uint32_t tile_ = 0;
};

}  // namespace ladder
