// Fixture (prefetch_next_tile), renamed and in LLVM style: the same row loop with `this->`
// calls, a pre-increment, a start that is not zero, tile indices in a 64-bit expression and a
// helper method in the copy-in stage.
#include "kernel_operator.h"

namespace {
constexpr int32_t kSlots = 2;
} // namespace

template <typename T> class RowScaler {
public:
  __aicore__ inline RowScaler() {}
  __aicore__ inline void Init(GM_ADDR src, GM_ADDR dst, uint32_t first,
                              uint32_t last, uint32_t width) {
    begin = first;
    end = last;
    width_ = width;
    src_.SetGlobalBuffer((__gm__ T *)src, static_cast<uint64_t>(last) * width);
    dst_.SetGlobalBuffer((__gm__ T *)dst, static_cast<uint64_t>(last) * width);
    pipe.InitBuffer(srcQ, kSlots, width_ * sizeof(T));
    pipe.InitBuffer(dstQ, kSlots, width_ * sizeof(T));
    pipe.InitBuffer(tmp, width_ * sizeof(T));
    pipe.InitBuffer(scratch, width_ * sizeof(T));
    pipe.InitBuffer(peak, 32 * sizeof(T));
  }

  __aicore__ inline void Run() {
    for (uint32_t row = begin + 1; row < end; ++row) {
      this->Load(static_cast<uint64_t>(row - 1) * width_);
      this->Scale();
      this->Store(row - 1);
    }
  }

private:
  __aicore__ inline uint32_t Width() const { return width_; }

  __aicore__ inline void Load(uint64_t at) {
    AscendC::LocalTensor<T> in = srcQ.AllocTensor<T>();
    AscendC::DataCopy(in, src_[at], Width());
    srcQ.EnQue(in);
  }

  __aicore__ inline void Scale() {
    AscendC::LocalTensor<T> in = srcQ.DeQue<T>();
    AscendC::LocalTensor<T> out = dstQ.AllocTensor<T>();
    AscendC::LocalTensor<T> mag = tmp.Get<T>();
    AscendC::LocalTensor<T> work = scratch.Get<T>();
    AscendC::LocalTensor<T> top = peak.Get<T>();
    AscendC::Abs(mag, in, width_);
    AscendC::PipeBarrier<PIPE_V>();
    AscendC::ReduceMax(top, mag, work, width_, false);
    event_t ev = static_cast<event_t>(
        AscendC::GetTPipePtr()->FetchEventID(AscendC::HardEvent::V_S));
    AscendC::SetFlag<AscendC::HardEvent::V_S>(ev);
    AscendC::WaitFlag<AscendC::HardEvent::V_S>(ev);
    T m = top.GetValue(0);
    AscendC::Muls(out, in, static_cast<T>(1.0f / static_cast<float>(m)), width_);
    dstQ.EnQue(out);
    srcQ.FreeTensor(in);
  }

  __aicore__ inline void Store(uint32_t row) {
    AscendC::LocalTensor<T> out = dstQ.DeQue<T>();
    AscendC::DataCopy(dst_[static_cast<uint64_t>(row) * width_], out, width_);
    dstQ.FreeTensor(out);
  }

  AscendC::TPipe pipe;
  AscendC::TQue<AscendC::QuePosition::VECIN, kSlots> srcQ;
  AscendC::TQue<AscendC::QuePosition::VECOUT, kSlots> dstQ;
  AscendC::TBuf<AscendC::QuePosition::VECCALC> tmp;
  AscendC::TBuf<AscendC::QuePosition::VECCALC> scratch;
  AscendC::TBuf<AscendC::QuePosition::VECCALC> peak;
  AscendC::GlobalTensor<T> src_;
  AscendC::GlobalTensor<T> dst_;
  uint32_t begin = 0;
  uint32_t end = 0;
  uint32_t width_ = 0;
};

extern "C" __global__ __aicore__ void row_scale_custom(GM_ADDR src, GM_ADDR dst,
                                                       uint32_t first,
                                                       uint32_t last,
                                                       uint32_t width) {
  RowScaler<DTYPE_X> op;
  op.Init(src, dst, first, last, width);
  op.Run();
}
