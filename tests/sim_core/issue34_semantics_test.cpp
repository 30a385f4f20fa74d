// Issue 34: kernel-core semantics that follow the AscendC documentation (basic_api TQue/TQueBind):
// queues and buffers passed by value, the TQueBind VECIN/VECOUT reuse (EnQue of a DeQue'd tensor,
// with the positions naming the pipes), and the TBufHandle forms (AllocBuffer, EnQue, DeQue(),
// FreeBuffer).
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "kernel_operator.h"
#include "sim_core_test_util.h"

using namespace AscendC;
using spipe = aopt::sim::pipe;
using aopt::sim::rec_kind;
using aopt::sim::test::gm_buffer;
using aopt::sim::test::run;

namespace {

constexpr std::uint32_t n = 64;

// A helper that takes its queue and its buffer by value, as kernels do (`void Stage(TQue<...> q,
// TBuf<> b)`): the copies hold the same UB buffers.
template <class Q, class B>
void add_one_by_value(Q q, B calc, const GlobalTensor<float>& x, const GlobalTensor<float>& y) {
  LocalTensor<float> in = q.template AllocTensor<float>();
  DataCopy(in, x, n);
  q.EnQue(in);
  in = q.template DeQue<float>();
  LocalTensor<float> tmp = calc.template Get<float>();
  Adds(tmp, in, 1.0f, n);
  q.FreeTensor(in);
  SetFlag<HardEvent::V_MTE3>(0);
  WaitFlag<HardEvent::V_MTE3>(0);
  DataCopy(y, tmp, n);
}

std::vector<float> ramp() {
  std::vector<float> v(n);
  for (std::uint32_t i = 0; i < n; ++i) v[i] = static_cast<float>(i) * 0.5f;
  return v;
}

TEST(Issue34Queue, QueueAndBufferPassedByValue) {
  static_assert(std::is_copy_constructible_v<TQue<TPosition::VECIN, 1>>);
  static_assert(std::is_copy_constructible_v<TQueBind<TPosition::VECIN, TPosition::VECOUT, 1>>);
  static_assert(std::is_copy_constructible_v<TBuf<TPosition::VECCALC>>);
  gm_buffer x(n * 4, "x"), y(n * 4, "y");
  const auto in = ramp();
  for (std::uint32_t i = 0; i < n; ++i) x.as<float>()[i] = in[i];
  auto r = run(1, [&] {
    TPipe pipe;
    TQue<TPosition::VECIN, 1> q;
    TBuf<TPosition::VECCALC> calc;
    pipe.InitBuffer(q, 1, n * 4);
    pipe.InitBuffer(calc, n * 4);
    GlobalTensor<float> gx, gy;
    gx.SetGlobalBuffer(x.as<float>(), n);
    gy.SetGlobalBuffer(y.as<float>(), n);
    add_one_by_value(q, calc, gx, gy);
    // The copy's buffer is the original's: the same UB address.
    TBuf<TPosition::VECCALC> copy = calc;
    if (copy.Get<float>().GetPhyAddr() != calc.Get<float>().GetPhyAddr()) {
      aopt::sim::fail(aopt::sim::hw_error_kind::invalid_use, "copy moved", aopt::sim::src_loc::current(), "t");
    }
  });
  ASSERT_FALSE(r.error.has_value()) << r.error->to_string();
  for (std::uint32_t i = 0; i < n; ++i) EXPECT_EQ(y.as<float>()[i], in[i] + 1.0f) << i;
}

// The documented reuse of one TQueBind<VECIN, VECOUT> buffer: copy in, compute in place, copy out.
TEST(Issue34Queue, TQueBindReuseEnQuesADeQuedTensorWithThePositionsPipes) {
  gm_buffer x(n * 4, "x"), y(n * 4, "y");
  const auto in = ramp();
  for (std::uint32_t i = 0; i < n; ++i) x.as<float>()[i] = in[i];
  auto r = run(1, [&] {
    TPipe pipe;
    TQueBind<TPosition::VECIN, TPosition::VECOUT, 1> q;
    pipe.InitBuffer(q, 1, n * 4);
    GlobalTensor<float> gx, gy;
    gx.SetGlobalBuffer(x.as<float>(), n);
    gy.SetGlobalBuffer(y.as<float>(), n);
    LocalTensor<float> t = q.AllocTensor<float>();
    DataCopy(t, gx, n);
    q.EnQue<TPosition::GM, TPosition::VECIN, float>(t);
    t = q.DeQue<TPosition::GM, TPosition::VECIN, float>();
    Muls(t, t, 2.0f, n);
    q.EnQue<TPosition::VECOUT, TPosition::GM, float>(t);
    t = q.DeQue<TPosition::VECOUT, TPosition::GM, float>();
    DataCopy(gy, t, n);
    q.FreeTensor(t);
  });
  ASSERT_FALSE(r.error.has_value()) << r.error->to_string();
  for (std::uint32_t i = 0; i < n; ++i) EXPECT_EQ(y.as<float>()[i], in[i] * 2.0f) << i;
  // Flags in program order: the first EnQue/DeQue pair syncs MTE2 -> V, the second V -> MTE3.
  std::vector<std::pair<spipe, spipe>> sets, waits;
  for (const auto& rec : r.cores[0].recs) {
    if (rec.kind == rec_kind::set_flag && rec.src != spipe::mte3) sets.emplace_back(rec.src, rec.dst);
    if (rec.kind == rec_kind::wait_flag && rec.dst != spipe::mte2) waits.emplace_back(rec.src, rec.dst);
  }
  const std::vector<std::pair<spipe, spipe>> want = {{spipe::mte2, spipe::v}, {spipe::v, spipe::mte3}};
  EXPECT_EQ(sets, want);
  EXPECT_EQ(waits, want);
}

TEST(Issue34Queue, PlainEnQueOfADeQuedTensorIsAllowed) {
  auto r = run(1, [] {
    TPipe pipe;
    TQue<TPosition::VECOUT, 1> q;
    pipe.InitBuffer(q, 1, 256);
    LocalTensor<half> t = q.AllocTensor<half>();
    q.EnQue(t);
    t = q.DeQue<half>();
    q.EnQue(t);
    t = q.DeQue<half>();
    q.FreeTensor(t);
  });
  ASSERT_FALSE(r.error.has_value()) << r.error->to_string();
}

TEST(Issue34Queue, EnQueOfAQueuedTensorIsStillAnError) {
  auto r = run(1, [] {
    TPipe pipe;
    TQue<TPosition::VECOUT, 2> q;
    pipe.InitBuffer(q, 2, 256);
    LocalTensor<half> t = q.AllocTensor<half>();
    q.EnQue(t);
    q.EnQue(t);
  });
  ASSERT_TRUE(r.error.has_value());
  EXPECT_EQ(r.error->kind, aopt::sim::hw_error_kind::invalid_use);
  EXPECT_NE(r.error->message.find("already in the queue"), std::string::npos) << r.error->message;
}

TEST(Issue34Queue, HandleFormsAllocEnQueDeQueFree) {
  auto r = run(1, [] {
    TPipe pipe;
    TQue<TPosition::VECIN, 2> q;
    pipe.InitBuffer(q, 2, 128);
    TBufHandle a = q.AllocBuffer();
    TBufHandle b = q.AllocBuffer();
    q.EnQue(a);
    q.EnQue(b);
    TBufHandle first = q.DeQue();  // the handle form: no template argument
    q.DeQue();                     // a kernel may drop the handle (it waits for the data)
    if (first != a) aopt::sim::fail(aopt::sim::hw_error_kind::invalid_use, "FIFO", aopt::sim::src_loc::current(), "t");
    q.FreeBuffer(a);
    q.FreeBuffer(b);
    LocalTensor<float> again = q.AllocTensor<float>();
    q.FreeTensor(again);
  });
  ASSERT_FALSE(r.error.has_value()) << r.error->to_string();
  int waits = 0;
  for (const auto& rec : r.cores[0].recs) waits += rec.kind == rec_kind::wait_flag && rec.dst == spipe::v;
  EXPECT_EQ(waits, 2);  // the two DeQue waits for MTE2
}

}  // namespace

// Session 28 (rms_norm_grad's idiom): a tensor of one VECOUT queue EnQue'd into another goes
// through that queue (the EnQue documentation sets no limit; on the chip the buffer's state
// travels with its handle): its DeQue returns the same buffer, its FreeTensor there ends it.
TEST(Issue34Queue, ATensorOfAnotherQueueGoesThroughThisOne) {
  gm_buffer x(n * 4, "x"), y(n * 4, "y");
  const auto in = ramp();
  for (std::uint32_t i = 0; i < n; ++i) x.as<float>()[i] = in[i];
  auto r = run(1, [&] {
    TPipe pipe;
    TQue<TPosition::VECIN, 1> qin;
    TQue<TPosition::VECOUT, 1> middle, out;
    pipe.InitBuffer(qin, 1, n * 4);
    pipe.InitBuffer(middle, 1, n * 4);
    pipe.InitBuffer(out, 1, n * 4);
    GlobalTensor<float> gx, gy;
    gx.SetGlobalBuffer(x.as<float>(), n);
    gy.SetGlobalBuffer(y.as<float>(), n);
    LocalTensor<float> a = qin.AllocTensor<float>();
    DataCopy(a, gx, n);
    qin.EnQue(a);
    a = qin.DeQue<float>();
    LocalTensor<float> m = middle.AllocTensor<float>();
    Muls(m, a, 3.0f, n);
    qin.FreeTensor(a);
    out.EnQue(m);  // middle's buffer, through `out`
    LocalTensor<float> o = out.DeQue<float>();
    if (o.GetPhyAddr() != m.GetPhyAddr() || o.GetSize() != n) {
      aopt::sim::fail(aopt::sim::hw_error_kind::invalid_use, "another buffer", aopt::sim::src_loc::current(), "t");
    }
    DataCopy(gy, o, n);
    out.FreeTensor(o);
  });
  ASSERT_FALSE(r.error.has_value()) << r.error->to_string();
  for (std::uint32_t i = 0; i < n; ++i) EXPECT_EQ(y.as<float>()[i], in[i] * 3.0f) << i;
  // The buffer's trip through `out` is one V -> MTE3 set and its wait, on an event of its own.
  std::uint32_t sets = 0, waits = 0;
  for (const auto& rec : r.cores[0].recs) {
    if (rec.src != spipe::v || rec.dst != spipe::mte3) continue;
    sets += rec.kind == rec_kind::set_flag;
    waits += rec.kind == rec_kind::wait_flag;
  }
  EXPECT_EQ(sets, waits);
  EXPECT_GE(sets, 1u);
}
