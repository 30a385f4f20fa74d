// TPipe, TQue/TQueBind, TBuf: allocation, queue protocol, UB accounting, event ids.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "kernel_operator.h"
#include "sim_core_test_util.h"

using namespace AscendC;
using aopt::sim::hw_error_kind;
using aopt::sim::test::run;

namespace {

void check(bool ok, const char* what) {
  if (!ok) aopt::sim::fail(hw_error_kind::invalid_use, what, aopt::sim::src_loc::current(), "check");
}

TEST(Queue, SlotsCycleAndStateQueries) {
  auto r = run(1, [] {
    TPipe pipe;
    TQue<QuePosition::VECIN, 2> q;
    pipe.InitBuffer(q, 2, 1000);  // rounded to 1024 per slot
    check(pipe.aopt_used_bytes() == 2048, "2 slots of 1024 bytes");
    check(q.HasIdleBuffer() && !q.HasTensorInQue() && q.VacantInQue(), "fresh queue");
    LocalTensor<half> a = q.AllocTensor<half>();
    LocalTensor<half> b = q.AllocTensor<half>();
    check(a.aopt_addr() == 0 && b.aopt_addr() == 1024, "slots in order");
    check(a.GetSize() == 512, "slot size in elements");
    check(a.GetPosition() == TPosition::VECIN, "position");
    check(!q.HasIdleBuffer(), "both allocated");
    q.EnQue(a);
    q.EnQue(b);
    check(q.GetTensorCountInQue() == 2 && q.HasTensorInQue(), "two queued");
    LocalTensor<half> c = q.DeQue<half>();
    check(c.aopt_addr() == 0, "FIFO order");
    q.FreeTensor(c);
    LocalTensor<half> d;
    q.DeQue(d);
    check(d.aopt_addr() == 1024, "FIFO order 2");
    q.FreeTensor(d);
    LocalTensor<float> e;
    q.AllocTensor(e);
    check(e.aopt_addr() == 0 && e.GetSize() == 256, "cursor wraps to slot 0");
    q.FreeTensor(e);
  });
  ASSERT_FALSE(r.error.has_value()) << r.error->to_string();
  EXPECT_EQ(r.cores[0].ub_peak_bytes, 2048u);
}

TEST(Queue, BuffersFollowEachOtherAndTBufViews) {
  auto r = run(1, [] {
    TPipe pipe;
    TQue<QuePosition::VECOUT, 1> o;
    TBuf<TPosition::VECCALC> t;
    TQueBind<TPosition::VECIN, TPosition::VECOUT, 1> bind;
    pipe.InitBuffer(o, 1, 64);
    pipe.InitBuffer(t, 100);
    pipe.InitBuffer(bind, 1, 32);
    LocalTensor<float> all = t.Get<float>();
    check(all.aopt_addr() == 64 && all.GetSize() == 32, "TBuf after the queue, rounded to 128 B");
    LocalTensor<float> part = t.Get<float>(10);
    check(part.GetSize() == 10, "Get(len)");
    LocalTensor<std::int16_t> off = t.GetWithOffset<std::int16_t>(16, 64);
    check(off.aopt_addr() == 128 && off.GetSize() == 16, "GetWithOffset");
    LocalTensor<std::int8_t> bt = bind.AllocTensor<std::int8_t>();
    check(bt.aopt_addr() == 192 && bt.GetPosition() == TPosition::VECIN, "TQueBind buffer");
    bind.EnQue(bt);
    bind.FreeTensor(bt = bind.DeQue<std::int8_t>());
    pipe.Reset();
    TQue<QuePosition::VECIN, 1> again;
    pipe.InitBuffer(again, 1, 32);
    check(again.AllocTensor<half>().aopt_addr() == 0, "Reset starts over");
  });
  ASSERT_FALSE(r.error.has_value()) << r.error->to_string();
  EXPECT_EQ(r.cores[0].ub_peak_bytes, 224u);
}

TEST(Queue, EventIdsFromThePipe) {
  auto r = run(1, [] {
    TPipe pipe;
    check(GetTPipePtr() == &pipe, "GetTPipePtr");
    TEventID a = pipe.AllocEventID<HardEvent::V_MTE3>();
    TEventID b = pipe.AllocEventID<HardEvent::V_MTE3>();
    check(a == 0 && b == 1, "alloc in order");
    check(pipe.FetchEventID<HardEvent::V_MTE3>() == 2, "fetch the next free");
    check(pipe.FetchEventID(HardEvent::MTE2_V) == 0, "per event type");
    pipe.ReleaseEventID<HardEvent::V_MTE3>(a);
    check(GetTPipePtr()->FetchEventID(HardEvent::V_MTE3) == 0, "released id reused");
  });
  ASSERT_FALSE(r.error.has_value()) << r.error->to_string();
}

TEST(Queue, MisuseIsReported) {
  struct misuse {
    const char* name;
    void (*body)();
  };
  const misuse cases[] = {
      {"DeQue on empty",
       [] {
         TPipe pipe;
         TQue<QuePosition::VECIN, 1> q;
         pipe.InitBuffer(q, 1, 32);
         q.DeQue<half>();
       }},
      {"Alloc beyond slots",
       [] {
         TPipe pipe;
         TQue<QuePosition::VECIN, 1> q;
         pipe.InitBuffer(q, 1, 32);
         q.AllocTensor<half>();
         q.AllocTensor<half>();
       }},
      {"FreeTensor of a foreign tensor",
       [] {
         TPipe pipe;
         TQue<QuePosition::VECIN, 1> q, p;
         pipe.InitBuffer(q, 1, 32);
         pipe.InitBuffer(p, 1, 32);
         LocalTensor<half> t = p.AllocTensor<half>();
         q.FreeTensor(t);
       }},
      {"FreeTensor twice",
       [] {
         TPipe pipe;
         TQue<QuePosition::VECOUT, 1> q;
         pipe.InitBuffer(q, 1, 32);
         LocalTensor<half> t = q.AllocTensor<half>();
         q.FreeTensor(t);
         q.FreeTensor(t);
       }},
      {"queue without InitBuffer",
       [] {
         TPipe pipe;
         TQue<QuePosition::VECIN, 1> q;
         q.AllocTensor<half>();
       }},
      {"GetTPipePtr without a pipe", [] { GetTPipePtr(); }},
  };
  for (const auto& c : cases) {
    auto r = run(1, c.body);
    ASSERT_TRUE(r.error.has_value()) << c.name;
    EXPECT_EQ(r.error->kind, hw_error_kind::invalid_use) << c.name;
    EXPECT_TRUE(aopt::sim::test::file_is(r.error->site.file, "queue_test.cpp"))
        << c.name << ": " << r.error->to_string();
  }
}

}  // namespace
