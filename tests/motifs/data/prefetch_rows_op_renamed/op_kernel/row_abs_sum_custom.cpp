// Fixture (prefetch_across_rows), renamed and in LLVM style: the same row / chunk nest with
// `this->` calls, pre-increments, `AscendC::`-qualified calls, a row range that does not start at
// zero, a 64-bit loop variable, two declarations before the copy-in (the second uses the first)
// and the chunk count as a member.
#include "kernel_operator.h"

namespace {
constexpr int32_t kDepth = 2;
} // namespace

template <typename T> class AbsRowSummer {
public:
  __aicore__ inline AbsRowSummer() {}
  __aicore__ inline void Init(GM_ADDR src, GM_ADDR dst, uint32_t first,
                              uint32_t last, uint32_t width, uint32_t piece) {
    lo = first;
    hi = last;
    width_ = width;
    piece_ = piece;
    pieces_ = (width + piece - 1) / piece;
    src_.SetGlobalBuffer((__gm__ T *)src, static_cast<uint64_t>(last) * width);
    dst_.SetGlobalBuffer((__gm__ T *)dst, last);
    pipe.InitBuffer(srcQ, kDepth, piece_ * sizeof(T));
    pipe.InitBuffer(dstQ, 1, 32 * sizeof(T));
    pipe.InitBuffer(mag, piece_ * sizeof(T));
    pipe.InitBuffer(scratch, piece_ * sizeof(T));
    pipe.InitBuffer(acc, 32 * sizeof(T));
  }

  __aicore__ inline void Run() {
    for (uint64_t row = lo; row < hi; ++row) {
      float sum = 0.0f;
      for (uint32_t k = 1; k < pieces_ + 1; ++k) {
        const uint64_t start = (k - 1) * static_cast<uint64_t>(piece_);
        const uint32_t n = static_cast<uint32_t>(width_ - start < piece_ ? width_ - start : piece_);
        this->Fetch(row * width_ + start, n);
        sum += this->PieceSum(n);
      }
      this->Emit(row, sum);
    }
  }

private:
  __aicore__ inline void Fetch(uint64_t at, uint32_t n) {
    AscendC::LocalTensor<T> in = srcQ.AllocTensor<T>();
    AscendC::DataCopyExtParams params{1, static_cast<uint32_t>(n * sizeof(T)), 0, 0, 0};
    AscendC::DataCopyPadExtParams<T> pad{false, 0, 0, 0};
    AscendC::DataCopyPad(in, src_[at], params, pad);
    srcQ.EnQue(in);
  }

  __aicore__ inline float PieceSum(uint32_t n) {
    AscendC::LocalTensor<T> in = srcQ.DeQue<T>();
    AscendC::LocalTensor<T> m = mag.Get<T>();
    AscendC::LocalTensor<T> work = scratch.Get<T>();
    AscendC::LocalTensor<T> s = acc.Get<T>();
    AscendC::Abs(m, in, n);
    AscendC::PipeBarrier<PIPE_V>();
    AscendC::ReduceSum(s, m, work, n);
    srcQ.FreeTensor(in);
    event_t ev = static_cast<event_t>(
        AscendC::GetTPipePtr()->FetchEventID(AscendC::HardEvent::V_S));
    AscendC::SetFlag<AscendC::HardEvent::V_S>(ev);
    AscendC::WaitFlag<AscendC::HardEvent::V_S>(ev);
    return static_cast<float>(s.GetValue(0));
  }

  __aicore__ inline void Emit(uint64_t row, float sum) {
    AscendC::LocalTensor<T> out = dstQ.AllocTensor<T>();
    out.SetValue(0, static_cast<T>(sum));
    event_t ev = static_cast<event_t>(
        AscendC::GetTPipePtr()->FetchEventID(AscendC::HardEvent::S_MTE3));
    AscendC::SetFlag<AscendC::HardEvent::S_MTE3>(ev);
    AscendC::WaitFlag<AscendC::HardEvent::S_MTE3>(ev);
    AscendC::DataCopyExtParams params{1, static_cast<uint32_t>(sizeof(T)), 0, 0, 0};
    AscendC::DataCopyPad(dst_[row], out, params);
    dstQ.FreeTensor(out);
  }

  AscendC::TPipe pipe;
  AscendC::TQue<AscendC::QuePosition::VECIN, kDepth> srcQ;
  AscendC::TQue<AscendC::QuePosition::VECOUT, 1> dstQ;
  AscendC::TBuf<AscendC::QuePosition::VECCALC> mag;
  AscendC::TBuf<AscendC::QuePosition::VECCALC> scratch;
  AscendC::TBuf<AscendC::QuePosition::VECCALC> acc;
  AscendC::GlobalTensor<T> src_;
  AscendC::GlobalTensor<T> dst_;
  uint32_t lo = 0;
  uint32_t hi = 0;
  uint32_t width_ = 0;
  uint32_t piece_ = 0;
  uint32_t pieces_ = 0;
};

extern "C" __global__ __aicore__ void row_abs_sum_custom(GM_ADDR src, GM_ADDR dst, uint32_t first,
                                                         uint32_t last, uint32_t width,
                                                         uint32_t piece) {
  AbsRowSummer<DTYPE_X> op;
  op.Init(src, dst, first, last, width, piece);
  op.Run();
}
