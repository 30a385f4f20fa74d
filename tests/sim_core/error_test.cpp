// Every hardware error the kernel-core layer raises names the operator's file and line.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <string>

#include "kernel_operator.h"
#include "sim_core_test_util.h"

using namespace AscendC;
using aopt::sim::hw_error_kind;
using aopt::sim::test::gm_buffer;
using aopt::sim::test::run;

namespace {

// Expects `r` to hold an error of `kind` raised at error_test.cpp:`line`, whose message
// contains `needle`.
void expect_error(const aopt::sim::launch_result& r, hw_error_kind kind, unsigned line,
                  const std::string& needle = "") {
  ASSERT_TRUE(r.error.has_value()) << "expected " << aopt::sim::hw_error_kind_name(kind);
  EXPECT_EQ(r.error->kind, kind) << r.error->to_string();
  EXPECT_TRUE(aopt::sim::test::file_is(r.error->site.file, "error_test.cpp")) << r.error->to_string();
  EXPECT_EQ(r.error->site.line, line) << r.error->to_string();
  EXPECT_NE(r.error->message.find(needle), std::string::npos) << r.error->to_string();
  EXPECT_NE(r.error->to_string().find("error_test.cpp:" + std::to_string(line)), std::string::npos);
}

// The chip's InitBuffer does not check: a buffer placed past the end of UB is a warning, and
// the error comes with the first access past the end. One request bigger than UB fails at once.
TEST(HwErrors, UbOverflowNamesRequestAndCapacity) {
  unsigned init_line = 0, line = 0;
  auto r = run(1, [&] {
    TPipe pipe;
    TQue<QuePosition::VECIN, 2> a;
    TBuf<TPosition::VECCALC> b;
    pipe.InitBuffer(a, 2, 64 * 1024);
    init_line = __LINE__; pipe.InitBuffer(b, 80 * 1024);  // bytes 131072..212992
    Duplicate(b.Get<float>(), 1.0f, 1024);                // its start: inside UB
    line = __LINE__; Duplicate(b.Get<float>(), 1.0f, 20480);
  });
  expect_error(r, hw_error_kind::ub_overflow, line, "past the end of the 196608 bytes of UB");
  ASSERT_EQ(r.warnings.size(), 1u);
  EXPECT_EQ(r.warnings[0].site.line, init_line);
  EXPECT_NE(r.warnings[0].message.find("212992 bytes, over the 196608 bytes"), std::string::npos) << r.warnings[0].message;
  auto whole = run(1, [&] {
    TPipe pipe;
    TBuf<TPosition::VECCALC> big;
    line = __LINE__; pipe.InitBuffer(big, 256 * 1024);
  });
  expect_error(whole, hw_error_kind::ub_overflow, line, "more than the 196608 bytes of UB");
}

TEST(HwErrors, MisalignedUb) {
  gm_buffer g(4096);
  unsigned line = 0;
  auto r = run(1, [&] {
    TPipe pipe;
    TBuf<TPosition::VECCALC> b;
    pipe.InitBuffer(b, 1024);
    GlobalTensor<half> gt;
    gt.SetGlobalBuffer(reinterpret_cast<__gm__ half*>(g.get()));
    LocalTensor<half> t = b.Get<half>();
    line = __LINE__; DataCopy(t[3], gt, 16);
  });
  expect_error(r, hw_error_kind::misaligned, line, "not 32-byte aligned");
}

TEST(HwErrors, MisalignedGm) {
  gm_buffer g(4096);
  unsigned line = 0;
  auto r = run(1, [&] {
    TPipe pipe;
    TBuf<TPosition::VECCALC> b;
    pipe.InitBuffer(b, 1024);
    GlobalTensor<float> gt;
    gt.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(g.get() + 2));
    line = __LINE__; DataCopy(b.Get<float>(), gt, 8);
  });
  expect_error(r, hw_error_kind::misaligned, line, "element size");
}

TEST(HwErrors, GetWithOffsetMisaligned) {
  unsigned line = 0;
  auto r = run(1, [&] {
    TPipe pipe;
    TBuf<TPosition::VECCALC> b;
    pipe.InitBuffer(b, 1024);
    line = __LINE__; b.GetWithOffset<half>(16, 48);
  });
  expect_error(r, hw_error_kind::misaligned, line);
}

// The chip moves whole 32-byte blocks of a contiguous DataCopy and drops the tail without an
// error: the emulator does the same and records one warning per call site.
TEST(HwWarnings, TruncatedCopyDropsTheTail) {
  gm_buffer g(4096);
  auto* src = reinterpret_cast<half*>(g.get());
  for (int i = 0; i < 128; ++i) src[i] = static_cast<half>(i + 1);
  unsigned line = 0;
  std::vector<float> got(32);
  auto r = run(1, [&] {
    TPipe pipe;
    TQue<QuePosition::VECIN, 1> q;
    pipe.InitBuffer(q, 1, 1024);
    GlobalTensor<half> gt;
    gt.SetGlobalBuffer(reinterpret_cast<__gm__ half*>(g.get()));
    LocalTensor<half> t = q.AllocTensor<half>();
    Duplicate(t, static_cast<half>(0), 128);
    PipeBarrier<PIPE_ALL>();
    for (int k = 0; k < 2; ++k) {
      line = __LINE__; DataCopy(t, gt, 25);  // 50 bytes: 32 move, 18 are dropped
    }
    PipeBarrier<PIPE_ALL>();
    for (int i = 0; i < 32; ++i) got[i] = static_cast<float>(t.GetValue(i));
  });
  ASSERT_FALSE(r.error) << r.error->to_string();
  ASSERT_EQ(r.warnings.size(), 1u) << "one warning per call site";
  EXPECT_EQ(r.warnings[0].kind, hw_error_kind::truncated_copy);
  EXPECT_EQ(r.warnings[0].site.line, line);
  EXPECT_NE(r.warnings[0].message.find("50 bytes"), std::string::npos) << r.warnings[0].message;
  for (int i = 0; i < 16; ++i) EXPECT_EQ(got[i], static_cast<float>(i + 1)) << i;
  for (int i = 16; i < 32; ++i) EXPECT_EQ(got[i], 0.0f) << "dropped: " << i;
}

TEST(HwWarnings, TruncatedCopyOutKeepsGmTail) {
  gm_buffer g(4096);
  auto* dst = reinterpret_cast<std::int8_t*>(g.get());
  auto r = run(1, [&] {
    TPipe pipe;
    TBuf<TPosition::VECCALC> b;
    pipe.InitBuffer(b, 1024);
    GlobalTensor<std::int8_t> gt;
    gt.SetGlobalBuffer(reinterpret_cast<__gm__ std::int8_t*>(g.get()));
    Duplicate(b.Get<std::int16_t>(), static_cast<std::int16_t>(0x0707), 512);
    PipeBarrier<PIPE_ALL>();
    DataCopy(gt, b.Get<std::int8_t>(), 33);
  });
  ASSERT_FALSE(r.error) << r.error->to_string();
  ASSERT_EQ(r.warnings.size(), 1u);
  EXPECT_EQ(dst[31], 7);
  EXPECT_EQ(dst[32], 0) << "the 33rd byte is dropped";
}

// Device allocations for an operator's tensors: ALIGN_UP(n, 32) + 32 bytes (aclrtMalloc), the
// padding junk-filled; accesses inside it are allowed. Past it, a read within the allocation's
// last 4 KiB page is what the chip does without a fault: it reads junk and warns; a read past
// the page and any write past the padding are errors.
TEST(HwErrors, DeviceAllocationPadding) {
  EXPECT_EQ(aopt::sim::device_alloc_bytes(26), 64u);
  EXPECT_EQ(aopt::sim::device_alloc_bytes(64), 96u);
  auto* p = static_cast<std::uint8_t*>(aopt::sim::gm_alloc_device(26, "x"));
  EXPECT_EQ(p[25], 0);
  EXPECT_EQ(p[26], aopt::sim::gm_padding_junk);
  EXPECT_EQ(p[63], aopt::sim::gm_padding_junk);
  EXPECT_EQ(p[4095], aopt::sim::gm_padding_junk);
  unsigned line = 0;
  std::uint16_t past = 0;
  auto r = run(1, [&] {
    TPipe pipe;
    TBuf<TPosition::VECCALC> b;
    pipe.InitBuffer(b, 1024);
    GlobalTensor<half> gt;
    gt.SetGlobalBuffer(reinterpret_cast<__gm__ half*>(p), 13);
    DataCopy(b.Get<half>(), gt, 16);      // 6 bytes into the padding: fine
    DataCopy(b.Get<half>(), gt[16], 16);  // bytes 32..63: still the padding
    line = __LINE__; DataCopy(b.Get<half>(), gt[32], 16);  // past the padding, in its page
    past = b.Get<std::uint16_t>().GetValue(0);
  });
  ASSERT_FALSE(r.error) << r.error->to_string();
  ASSERT_EQ(r.warnings.size(), 1u);
  EXPECT_EQ(r.warnings[0].kind, hw_error_kind::gm_out_of_bounds);
  EXPECT_EQ(r.warnings[0].site.line, line);
  EXPECT_NE(r.warnings[0].message.find("past it and its padding"), std::string::npos) << r.warnings[0].message;
  EXPECT_EQ(past, 0xFFFF) << "junk, not zeros";
  // One copy of 16 halves at element `at`, in (write: out of) UB.
  auto copy_at = [&](std::uint64_t at, bool write) {
    return run(1, [&] {
      TPipe pipe;
      TBuf<TPosition::VECCALC> b;
      pipe.InitBuffer(b, 1024);
      GlobalTensor<half> gt;
      gt.SetGlobalBuffer(reinterpret_cast<__gm__ half*>(p), 13);
      line = __LINE__;
      if (write) DataCopy(gt[at], b.Get<half>(), 16);
      else DataCopy(b.Get<half>(), gt[at], 16);
    });
  };
  r = copy_at(2040, false);  // bytes 4080..4111: past the page
  expect_error(r, hw_error_kind::gm_out_of_bounds, line + 2, "x");
  r = copy_at(32, true);  // a write past the padding
  expect_error(r, hw_error_kind::gm_out_of_bounds, line + 1, "x");
  aopt::sim::gm_free(p);
}

TEST(HwErrors, ParamsOutOfRange) {
  gm_buffer g(1 << 20);
  for (int which = 0; which < 4; ++which) {
    unsigned line = 0;
    auto r = run(1, [&] {
      TPipe pipe;
      TBuf<TPosition::VECCALC> b;
      pipe.InitBuffer(b, 4096);
      GlobalTensor<half> gt;
      gt.SetGlobalBuffer(reinterpret_cast<__gm__ half*>(g.get()));
      LocalTensor<half> t = b.Get<half>();
      DataCopyParams big_count{5000, 1, 0, 0};
      DataCopyParams zero_len{1, 0, 0, 0};
      DataCopyExtParams long_pad{1, 3000000, 0, 0, 0};
      DataCopyPadExtParams<half> wide_pad{true, 17, 0, static_cast<half>(0)};
      switch (which) {
        case 0: line = __LINE__; DataCopy(t, gt, big_count); break;
        case 1: line = __LINE__; DataCopy(gt, t, zero_len); break;
        case 2: line = __LINE__; DataCopyPad(gt, t, long_pad); break;
        default: line = __LINE__; DataCopyPad(t, gt, DataCopyExtParams{1, 64, 0, 0, 0}, wide_pad); break;
      }
    });
    expect_error(r, hw_error_kind::param_out_of_range, line);
  }
}

// "SetFlag/WaitFlag(ISASI)": ids outside 0..7 fail; 6 and 7 are in range but advised against
// (warnings).
TEST(HwErrors, ReservedEventIds) {
  for (int id : {8, -1}) {
    unsigned line = 0;
    auto r = run(1, [&] {
      line = __LINE__; SetFlag<HardEvent::MTE2_V>(id);
    });
    expect_error(r, hw_error_kind::reserved_event, line, std::to_string(id));
  }
  auto r = run(1, [&] {
    SetFlag<HardEvent::V_MTE3>(EVENT_ID6);
    WaitFlag<HardEvent::V_MTE3>(EVENT_ID6);
  });
  EXPECT_FALSE(r.error) << r.error->to_string();
  ASSERT_FALSE(r.warnings.empty());
  EXPECT_EQ(r.warnings[0].kind, hw_error_kind::reserved_event);
  EXPECT_NE(r.warnings[0].message.find("advises against"), std::string::npos);
}

TEST(HwErrors, GmOutOfBounds) {
  gm_buffer g(1000, "input_x");
  unsigned line = 0;
  auto r = run(1, [&] {
    TPipe pipe;
    TBuf<TPosition::VECCALC> b;
    pipe.InitBuffer(b, 4096);
    GlobalTensor<float> gt;
    gt.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(g.get()), 250);
    line = __LINE__; DataCopy(b.Get<float>(), gt[1000], 64);  // bytes 4000..4255: past its page
  });
  expect_error(r, hw_error_kind::gm_out_of_bounds, line, "input_x");
}

TEST(HwErrors, GmScalarOutOfBoundsAndUnknownAddress) {
  gm_buffer g(64, "tiny");
  unsigned line = 0;
  auto r = run(1, [&] {
    GlobalTensor<std::int32_t> gt;
    gt.SetGlobalBuffer(reinterpret_cast<__gm__ std::int32_t*>(g.get()));
    line = __LINE__; gt.GetValue(1024);  // byte 4096: past its page
  });
  expect_error(r, hw_error_kind::gm_out_of_bounds, line, "tiny");
  r = run(1, [&] {
    GlobalTensor<std::int32_t> gt;
    gt.SetGlobalBuffer(reinterpret_cast<__gm__ std::int32_t*>(g.get()));
    line = __LINE__; gt.SetValue(16, 1);  // byte 64: a write past it
  });
  expect_error(r, hw_error_kind::gm_out_of_bounds, line, "tiny");
  std::int32_t host_array[16] = {};
  r = run(1, [&] {
    GlobalTensor<std::int32_t> gt;
    gt.SetGlobalBuffer(host_array);
    line = __LINE__; gt.SetValue(0, 1);
  });
  expect_error(r, hw_error_kind::gm_out_of_bounds, line, "not inside any GM buffer");
}

TEST(HwErrors, UbIndexOutOfBounds) {
  unsigned line = 0;
  auto r = run(1, [&] {
    TPipe pipe;
    TQue<QuePosition::VECOUT, 1> q;
    pipe.InitBuffer(q, 1, 64);
    LocalTensor<float> t = q.AllocTensor<float>();
    line = __LINE__; t.SetValue(16, 1.0f);
  });
  ASSERT_FALSE(r.error) << "inside UB, as on the chip: " << r.error->to_string();
  ASSERT_EQ(r.warnings.size(), 1u);
  EXPECT_EQ(r.warnings[0].kind, hw_error_kind::ub_out_of_bounds);
  EXPECT_EQ(r.warnings[0].site.line, line);
  r = run(1, [&] {
    TPipe pipe;
    TQue<QuePosition::VECOUT, 1> q;
    pipe.InitBuffer(q, 1, 64);
    LocalTensor<float> t = q.AllocTensor<float>();
    line = __LINE__; t.SetValue(196608 / 4, 1.0f);
  });
  expect_error(r, hw_error_kind::ub_overflow, line, "past the end");
}

TEST(HwErrors, CopyOverrunsLocalTensor) {
  gm_buffer g(4096);
  unsigned line = 0;
  auto r = run(1, [&] {
    TPipe pipe;
    TBuf<TPosition::VECCALC> b;
    pipe.InitBuffer(b, 128);
    GlobalTensor<half> gt;
    gt.SetGlobalBuffer(reinterpret_cast<__gm__ half*>(g.get()));
    line = __LINE__; DataCopy(b.Get<half>(32), gt, 128);
  });
  ASSERT_FALSE(r.error) << r.error->to_string();
  ASSERT_EQ(r.warnings.size(), 1u) << "256 bytes into a TBuf of 128: the next buffer, inside UB";
  EXPECT_EQ(r.warnings[0].site.line, line);
  EXPECT_NE(r.warnings[0].message.find("holds 128 from there"), std::string::npos) << r.warnings[0].message;
}

TEST(HwErrors, SyncAllMissingCore) {
  std::atomic<unsigned> line{0};
  auto r = run(4, [&] {
    if (GetBlockIdx() == 0) return;  // block 0 never reaches the barrier
    line = __LINE__; SyncAll();
  });
  expect_error(r, hw_error_kind::sync_all_missing_core, line.load(), "already returned");
}

// The basic API's scalar Ceil(uint32_t, uint32_t) (group_quant, grid_sample call it unqualified on
// int64_t and int32_t counts): ceil of the quotient, beside the vector Ceil of the advanced API.
TEST(KernelHeaders, ScalarCeilOfTwoCounts) {
  const std::int64_t rows = 1000, per = 64;
  const std::int32_t c = 37;
  EXPECT_EQ(Ceil(rows, per), 16u);
  EXPECT_EQ(Ceil(c, std::int64_t{8}), 5u);
  EXPECT_EQ(Ceil(64u, 64u), 1u);
}

// AscendC::Trap() (debug API) stops the kernel: a hardware error at its line, the kernel's later
// statements not run.
TEST(HwErrors, TrapStopsTheKernel) {
  bool after = false;
  unsigned line = 0;
  auto r = run(1, [&] {
    line = __LINE__; Trap();
    after = true;
  });
  expect_error(r, hw_error_kind::invalid_use, line, "Trap()");
  EXPECT_FALSE(after);
}

TEST(HwErrors, SyncAllNeedsResidentBlocks) {
  std::atomic<unsigned> line{0};
  auto r = run(12, [&] { line = __LINE__; SyncAll(); }, 8);
  expect_error(r, hw_error_kind::sync_all_missing_core, line.load(), "12 blocks on 8 cores");
}

}  // namespace
