// Kernels written as an AscendC operator is (C++17, kernel_operator.h only).
#include "kernels17.h"

#include "kernel_operator.h"

#if __cplusplus > 201703L
#error "kernels17.cpp must be compiled as C++17, as CANN compiles kernels"
#endif

using namespace AscendC;

namespace {

// Stand-in for the vector layer's Add: computes with a loop and records one vector instruction.
void add_like_vector(const LocalTensor<half>& z, const LocalTensor<half>& x, const LocalTensor<half>& y,
                     std::uint32_t n, aopt::sim::src_loc loc = aopt::sim::src_loc::current()) {
  half* zp = z.aopt_ptr();
  const half* xp = x.aopt_ptr();
  const half* yp = y.aopt_ptr();
  for (std::uint32_t i = 0; i < n; ++i) zp[i] = xp[i] + yp[i];
  aopt::sim::trace_rec r;
  r.kind = aopt::sim::rec_kind::vector;
  r.p = aopt::sim::pipe::v;
  r.vclass = aopt::sim::vec_class::binary;
  r.dtype_bytes = 2;
  r.repeats = (n * 2 + 255) / 256;
  r.ub_addr = z.aopt_addr();
  r.site = aopt::sim::site_of(loc, "Add");
  aopt::sim::record(r);
}

constexpr std::int32_t BUFFER_NUM = 2;

class KernelAdd {
 public:
  __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, GM_ADDR z, std::uint32_t total, std::uint32_t tile,
                              std::uint8_t bufs) {
    block_len_ = total / GetBlockNum();
    tile_ = tile;
    const std::uint64_t off = block_len_ * GetBlockIdx();
    xGm_.SetGlobalBuffer((__gm__ half*)x + off, block_len_);
    yGm_.SetGlobalBuffer((__gm__ half*)y + off, block_len_);
    zGm_.SetGlobalBuffer((__gm__ half*)z + off, block_len_);
    pipe_.InitBuffer(inX_, bufs, tile_ * sizeof(half));
    pipe_.InitBuffer(inY_, bufs, tile_ * sizeof(half));
    pipe_.InitBuffer(outZ_, bufs, tile_ * sizeof(half));
  }
  __aicore__ inline void Process() {
    const std::uint32_t loops = block_len_ / tile_;
    for (std::uint32_t i = 0; i < loops; ++i) {
      CopyIn(i);
      Compute();
      CopyOut(i);
    }
  }

 private:
  __aicore__ inline void CopyIn(std::uint32_t i) {
    LocalTensor<half> x = inX_.AllocTensor<half>();
    LocalTensor<half> y = inY_.AllocTensor<half>();
    DataCopy(x, xGm_[i * tile_], tile_);
    DataCopy(y, yGm_[i * tile_], tile_);
    inX_.EnQue(x);
    inY_.EnQue(y);
  }
  __aicore__ inline void Compute() {
    LocalTensor<half> x = inX_.DeQue<half>();
    LocalTensor<half> y = inY_.DeQue<half>();
    LocalTensor<half> z = outZ_.AllocTensor<half>();
    add_like_vector(z, x, y, tile_);
    outZ_.EnQue<half>(z);
    inX_.FreeTensor(x);
    inY_.FreeTensor(y);
  }
  __aicore__ inline void CopyOut(std::uint32_t i) {
    LocalTensor<half> z = outZ_.DeQue<half>();
    DataCopy(zGm_[i * tile_], z, tile_);
    outZ_.FreeTensor(z);
  }

  TPipe pipe_;
  TQue<QuePosition::VECIN, BUFFER_NUM> inX_, inY_;
  TQue<QuePosition::VECOUT, BUFFER_NUM> outZ_;
  GlobalTensor<half> xGm_, yGm_, zGm_;
  std::uint32_t block_len_ = 0;
  std::uint32_t tile_ = 0;
};

}  // namespace

namespace aopt::sim::test {

void k17_add_fp16(std::uint8_t* x, std::uint8_t* y, std::uint8_t* z, std::uint32_t total,
                  std::uint32_t tile, std::uint32_t buffers) {
  KernelAdd op;
  op.Init(x, y, z, total, tile, static_cast<std::uint8_t>(buffers));
  op.Process();
}

void k17_pad_rows_fp32(std::uint8_t* x, std::uint8_t* z, std::uint32_t rows, std::uint32_t cols) {
  TPipe pipe;
  TQue<QuePosition::VECIN, 1> in;
  TQue<QuePosition::VECOUT, 1> out;
  const std::uint32_t row_bytes = (cols * sizeof(float) + 31) / 32 * 32;
  pipe.InitBuffer(in, 1, row_bytes * rows);
  pipe.InitBuffer(out, 1, row_bytes * rows);
  GlobalTensor<float> xg, zg;
  xg.SetGlobalBuffer((__gm__ float*)x, rows * cols);
  zg.SetGlobalBuffer((__gm__ float*)z, rows * cols);
  LocalTensor<float> a = in.AllocTensor<float>();
  DataCopyExtParams cp{static_cast<std::uint16_t>(rows), static_cast<std::uint32_t>(cols * sizeof(float)), 0, 0, 0};
  DataCopyPadExtParams<float> pad{true, 0, 0, 0.0f};
  DataCopyPad(a, xg, cp, pad);
  in.EnQue(a);
  LocalTensor<float> b = in.DeQue<float>();
  LocalTensor<float> c = out.AllocTensor<float>();
  const std::uint32_t stride = row_bytes / sizeof(float);
  for (std::uint32_t r = 0; r < rows; ++r) {
    for (std::uint32_t k = 0; k < stride; ++k) c.SetValue(r * stride + k, b.GetValue(r * stride + k) + 1.0f);
  }
  out.EnQue(c);
  in.FreeTensor(b);
  LocalTensor<float> d = out.DeQue<float>();
  DataCopyPad(zg, d, cp);
  out.FreeTensor(d);
}

}  // namespace aopt::sim::test
