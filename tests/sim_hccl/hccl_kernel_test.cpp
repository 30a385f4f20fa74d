// The kernel side of the HCCL API on sim, one rank (lib/hccl/hccl.h; docs/sim.md "HCCL on one
// rank"): the context and windows, each collective's copy and when it happens (Commit), repeat
// rounds, which core is served, and the errors that fail a run.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "aopt_sim/runtime.h"
#include "kernel_operator.h"
#include "lib/hccl/hccl.h"
#include "tiling/hccl/hccl_tiling.h"

using namespace AscendC;
using aopt::sim::hw_error_kind;
using aopt::sim::kernel_type;

namespace {

struct TestTiling {
  Mc2InitTiling init;
  Mc2CcTiling cc;
};

TestTiling make_tiling(std::uint32_t op, std::uint8_t skipLocal = 0, std::uint8_t debug = 0) {
  TestTiling t{};
  Mc2CcTilingConfig cfg("test_group", op, "", HCCL_REDUCE_SUM);
  EXPECT_EQ(cfg.SetSkipLocalRankCopy(skipLocal), 0u);
  EXPECT_EQ(cfg.SetDebugMode(debug), 0u);
  EXPECT_EQ(cfg.GetTiling(t.init), 0u);
  EXPECT_EQ(cfg.GetTiling(t.cc), 0u);
  return t;
}

aopt::sim::launch_result run(const std::function<void()>& body, std::uint32_t blocks = 1,
                             kernel_type k = kernel_type::aiv_only) {
  aopt::sim::launch_options o;
  o.block_dim = blocks;
  o.kernel = k;
  return aopt::sim::launch(o, body);
}

// A GM buffer of `n` floats holding base, base + step, ...
struct gm_floats {
  float* p;
  std::size_t n;
  gm_floats(std::size_t count, float base, float step = 1.0f)
      : p(static_cast<float*>(aopt::sim::gm_alloc(count * 4, "test"))), n(count) {
    for (std::size_t i = 0; i < n; ++i) p[i] = base + step * static_cast<float>(i);
  }
  ~gm_floats() { aopt::sim::gm_free(p); }
  GM_ADDR addr() const { return reinterpret_cast<GM_ADDR>(p); }
};

// Runs `body` on one AIV core with an initialised client whose task tiling is `op`'s; returns the
// error kind, or nothing.
std::optional<aopt::sim::hw_error> with_client(std::uint32_t op, const std::function<void(Hccl<>&)>& body,
                                               std::uint8_t skipLocal = 0, std::uint8_t debug = 0) {
  TestTiling t = make_tiling(op, skipLocal, debug);
  const auto r = run([&] {
    Hccl hccl;
    hccl.Init(GetHcclContext<HCCL_GROUP_ID_0>(), &t.init);
    EXPECT_EQ(hccl.SetCcTiling(&t.cc), HCCL_SUCCESS);
    body(hccl);
  });
  return r.error;
}

}  // namespace

// "GetRankId", "GetRankDim", "GetWindowsInAddr", "GetWindowsOutAddr", "GetHcclContext": one
// rank; its two windows are distinct GM the kernel may use; another rank's window is nullptr.
TEST(HcclContext, OneRankWithTwoWindowsInGm) {
  const auto e = with_client(HCCL_CMD_ALLREDUCE, [](Hccl<>& h) {
    EXPECT_EQ(h.GetRankId(), 0u);
    EXPECT_EQ(h.GetRankDim(), 1u);
    GM_ADDR in = h.GetWindowsInAddr(0);
    GM_ADDR out = h.GetWindowsOutAddr(0);
    ASSERT_NE(in, nullptr);
    ASSERT_NE(out, nullptr);
    EXPECT_NE(in, out);
    EXPECT_NE(aopt::sim::gm_find(in, aopt::sim::hccl::window_bytes), nullptr);
    EXPECT_NE(aopt::sim::gm_find(out, aopt::sim::hccl::window_bytes), nullptr);
    EXPECT_EQ(h.GetWindowsInAddr(1), nullptr);
    EXPECT_EQ(h.GetWindowsOutAddr(1), nullptr);
    in[0] = 7;  // the kernel writes its results there
    EXPECT_EQ(in[0], 7);
  });
  EXPECT_FALSE(e) << e->to_string();
  EXPECT_NE(aopt::sim::gm_find(GetHcclContext<HCCL_GROUP_ID_0>(), 1), nullptr);
  EXPECT_NE(GetHcclContext<HCCL_GROUP_ID_0>(), GetHcclContext<HCCL_GROUP_ID_1>());
}

// "SetHcclContext": GetHcclContext answers what was set.
TEST(HcclContext, SetHcclContextReplacesTheDomainsContext) {
  std::uint8_t* mine = GetHcclContext<HCCL_GROUP_ID_0>();
  SetHcclContext<HCCL_GROUP_ID_1>(mine);
  EXPECT_EQ(GetHcclContext<HCCL_GROUP_ID_1>(), mine);
}

// "AllReduce" with commit = false: nothing moves at Prepare; Commit runs the round; Wait returns 0
// and Query counts the round.
TEST(HcclAllReduce, CopiesAtCommit) {
  gm_floats src(64, 1.0f), dst(64, -1.0f, 0.0f);
  const auto e = with_client(HCCL_CMD_ALLREDUCE, [&](Hccl<>& h) {
    const HcclHandle id = h.AllReduce<false>(src.addr(), dst.addr(), 64, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM);
    EXPECT_EQ(id, 0);
    EXPECT_EQ(dst.p[0], -1.0f);
    EXPECT_EQ(h.Query(id), 0);
    h.Commit(id);
    EXPECT_EQ(dst.p[63], 64.0f);
    EXPECT_EQ(h.Wait(id), 0);
    EXPECT_EQ(h.Query(id), 1);
    h.Finalize();
  });
  EXPECT_FALSE(e) << e->to_string();
  for (int i = 0; i < 64; ++i) EXPECT_EQ(dst.p[i], src.p[i]);
}

// commit = true commits at Prepare.
TEST(HcclAllReduce, CommitTrueCopiesAtPrepare) {
  gm_floats src(8, 1.0f), dst(8, 0.0f, 0.0f);
  const auto e = with_client(HCCL_CMD_ALLREDUCE, [&](Hccl<>& h) {
    const HcclHandle id = h.AllReduce<true>(src.addr(), dst.addr(), 8, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_MAX);
    EXPECT_EQ(dst.p[7], 8.0f);
    EXPECT_EQ(h.Wait(id), 0);
    h.Finalize();
  });
  EXPECT_FALSE(e) << e->to_string();
}

// repeat rounds: round i moves count elements at offset count x i, one round per Commit.
TEST(HcclAllReduce, RepeatRoundsAdvanceByCount) {
  gm_floats src(12, 1.0f), dst(12, 0.0f, 0.0f);
  const auto e = with_client(HCCL_CMD_ALLREDUCE, [&](Hccl<>& h) {
    const HcclHandle id = h.AllReduce(src.addr(), dst.addr(), 4, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, 3);
    h.Commit(id);
    EXPECT_EQ(dst.p[3], 4.0f);
    EXPECT_EQ(dst.p[4], 0.0f);  // round 1 not yet committed
    h.Commit(id);
    h.Commit(id);
    EXPECT_EQ(h.Query(id), 3);
    for (int i = 0; i < 3; ++i) EXPECT_EQ(h.Wait(id), 0);
    h.Finalize();
  });
  EXPECT_FALSE(e) << e->to_string();
  for (int i = 0; i < 12; ++i) EXPECT_EQ(dst.p[i], src.p[i]);
}

// "ReduceScatter", "AllGather", "AlltoAll": on one rank each copies the rank's block (offset 0,
// whatever strideCount), fp16 elements here.
TEST(HcclCollectives, ReduceScatterAllGatherAlltoAllCopyTheRanksBlock) {
  const std::uint32_t ops[] = {HCCL_CMD_REDUCE_SCATTER, HCCL_CMD_ALLGATHER, HCCL_CMD_ALLTOALL};
  for (const std::uint32_t op : ops) {
    SCOPED_TRACE(aopt::sim::hccl::op_type_name(op));
    gm_floats src(16, 3.0f), dst(16, 0.0f, 0.0f);  // 32 halves each
    const auto e = with_client(op, [&](Hccl<>& h) {
      HcclHandle id = INVALID_HANDLE_ID;
      if (op == HCCL_CMD_REDUCE_SCATTER) {
        id = h.ReduceScatter(src.addr(), dst.addr(), 16, HCCL_DATA_TYPE_FP16, HCCL_REDUCE_SUM, 64, 2);
      } else if (op == HCCL_CMD_ALLGATHER) {
        id = h.AllGather(src.addr(), dst.addr(), 16, HCCL_DATA_TYPE_FP16, 64, 2);
      } else {
        id = h.AlltoAll(src.addr(), dst.addr(), 16, HCCL_DATA_TYPE_FP16, 64, 2);
      }
      h.Commit(id);
      h.Commit(id);
      h.Wait(id);
      h.Wait(id);
      h.Finalize();
    });
    EXPECT_FALSE(e) << e->to_string();
    EXPECT_EQ(std::memcmp(src.p, dst.p, 64), 0);
  }
}

// "SetSkipLocalRankCopy" (AllGather and AlltoAll on Atlas A2) and "SetDebugMode" 1 ("关闭HCCL高阶
// API通信功能"): nothing reaches recvBuf.
TEST(HcclCollectives, SkipLocalRankCopyAndDebugModeOneMoveNothing) {
  gm_floats src(8, 1.0f), dst(8, 0.0f, 0.0f);
  auto e = with_client(HCCL_CMD_ALLGATHER, [&](Hccl<>& h) {
    h.Commit(h.AllGather(src.addr(), dst.addr(), 8, HCCL_DATA_TYPE_FP32, 0));
  }, /*skipLocal=*/1);
  EXPECT_FALSE(e) << e->to_string();
  EXPECT_EQ(dst.p[7], 0.0f);
  e = with_client(HCCL_CMD_ALLREDUCE, [&](Hccl<>& h) {
    h.Commit(h.AllReduce(src.addr(), dst.addr(), 8, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM));
  }, 0, /*debug=*/1);
  EXPECT_FALSE(e) << e->to_string();
  EXPECT_EQ(dst.p[7], 0.0f);
}

// Every AIC of a mixed kernel issues the same AllReduce (as cann-ops' MC2 operators do) after each
// wrote its quarter of the window; block 0 is served ("HCCL模板参数": DEFAULT_CFG's blockId 0),
// the others copy nothing, and cores that never commit may still Wait.
TEST(HcclServedCore, EveryAicIssuesTheCollectiveOnceServed) {
  constexpr std::uint32_t blocks = 4, n = 256;
  gm_floats dst(n, -1.0f, 0.0f);
  TestTiling t = make_tiling(HCCL_CMD_ALLREDUCE);
  const auto r = run([&] {
    if (ASCEND_IS_AIV) return;
    Hccl hccl;
    hccl.Init(GetHcclContext<HCCL_GROUP_ID_0>(), &t.init);
    hccl.SetCcTiling(&t.cc);
    auto* win = reinterpret_cast<float*>(hccl.GetWindowsInAddr(hccl.GetRankId()));
    const HcclHandle id = hccl.AllReduce(reinterpret_cast<GM_ADDR>(win), dst.addr(), n, HCCL_DATA_TYPE_FP32,
                                         HCCL_REDUCE_SUM);
    const auto b = static_cast<std::uint32_t>(GetBlockIdx());
    for (std::uint32_t i = 0; i < n / blocks; ++i) win[b * (n / blocks) + i] = static_cast<float>(b * 1000 + i);
    CrossCoreSetFlag<0x0, PIPE_FIX>(0x8);
    CrossCoreWaitFlag(0x8);
    if (b != 3) hccl.Commit(id);  // block 3 never commits, yet waits
    hccl.Wait(id);
    hccl.Finalize();
  }, blocks, kernel_type::mix_aic_1_2);
  ASSERT_FALSE(r.error) << r.error->to_string();
  for (std::uint32_t i = 0; i < n; ++i) {
    const std::uint32_t b = i / (n / blocks);
    EXPECT_EQ(dst.p[i], static_cast<float>(b * 1000 + i % (n / blocks))) << i;
  }
}

// config {ON_AIV, 1}: only AIV block 1's tasks are served.
namespace {
constexpr HcclServerConfig kAiv1 = {CoreType::ON_AIV, 1};
}
TEST(HcclServedCore, ConfigNamesTheServedCore) {
  gm_floats src(4, 5.0f), dst0(4, 0.0f, 0.0f), dst1(4, 0.0f, 0.0f);
  TestTiling t = make_tiling(HCCL_CMD_ALLREDUCE);
  const auto r = run([&] {
    Hccl<HCCL_SERVER_TYPE_AICPU, kAiv1> hccl;
    hccl.Init(GetHcclContext<HCCL_GROUP_ID_0>(), &t.init);
    hccl.SetCcTiling(&t.cc);
    GM_ADDR dst = GetBlockIdx() == 0 ? dst0.addr() : dst1.addr();
    hccl.Commit(hccl.AllReduce(src.addr(), dst, 4, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM));
  }, 2);
  ASSERT_FALSE(r.error) << r.error->to_string();
  EXPECT_EQ(dst0.p[0], 0.0f);
  EXPECT_EQ(dst1.p[3], 8.0f);
}

// ---- errors: each fails the run with a kind and a message saying what to do ----

namespace {
void expect_error(const std::optional<aopt::sim::hw_error>& e, hw_error_kind k, const std::string& says) {
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->kind, k) << e->to_string();
  EXPECT_NE(e->message.find(says), std::string::npos) << e->to_string();
}
}  // namespace

TEST(HcclErrors, CallsBeforeInit) {
  gm_floats src(4, 0.0f);
  const auto r = run([&] {
    Hccl hccl;
    hccl.AllReduce(src.addr(), src.addr(), 4, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM);
  });
  expect_error(r.error, hw_error_kind::invalid_use, "before Init");
  const auto r2 = run([&] {
    Hccl hccl;
    (void)hccl.GetWindowsInAddr(0);
  });
  expect_error(r2.error, hw_error_kind::invalid_use, "before Init");
}

TEST(HcclErrors, InitWithoutAContextOrWithAnEmptyInitTiling) {
  TestTiling t = make_tiling(HCCL_CMD_ALLREDUCE);
  const auto r = run([&] {
    Hccl hccl;
    hccl.Init(nullptr, &t.init);
  });
  expect_error(r.error, hw_error_kind::invalid_use, "GetHcclContext");
  Mc2InitTiling zero{};
  const auto r2 = run([&] {
    Hccl hccl;
    hccl.Init(GetHcclContext<HCCL_GROUP_ID_0>(), &zero);
  });
  expect_error(r2.error, hw_error_kind::invalid_use, "GetTiling");
}

TEST(HcclErrors, PrepareWithoutItsTaskTiling) {
  gm_floats src(4, 0.0f);
  const auto e = with_client(HCCL_CMD_REDUCE_SCATTER, [&](Hccl<>& h) {
    h.AllReduce(src.addr(), src.addr(), 4, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM);
  });
  expect_error(e, hw_error_kind::invalid_use, "no Mc2CcTiling of type HCCL_CMD_ALLREDUCE");
}

TEST(HcclErrors, WaitOnAHandleNeverCommitted) {
  gm_floats src(4, 0.0f), dst(4, 0.0f, 0.0f);
  const auto e = with_client(HCCL_CMD_ALLREDUCE, [&](Hccl<>& h) {
    h.Wait(h.AllReduce(src.addr(), dst.addr(), 4, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM));
  });
  expect_error(e, hw_error_kind::deadlock, "never committed");
}

TEST(HcclErrors, RepeatZeroAndTooManyPrepares) {
  gm_floats src(4, 0.0f), dst(4, 0.0f, 0.0f);
  auto e = with_client(HCCL_CMD_ALLREDUCE, [&](Hccl<>& h) {
    h.AllReduce(src.addr(), dst.addr(), 4, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, 0);
  });
  expect_error(e, hw_error_kind::param_out_of_range, "repeat is 0");
  e = with_client(HCCL_CMD_ALLREDUCE, [&](Hccl<>& h) {
    for (int i = 0; i < 64; ++i) h.AllReduce<true>(src.addr(), dst.addr(), 4, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM);
  });
  expect_error(e, hw_error_kind::param_out_of_range, "more than 63 Prepare calls");
}

TEST(HcclErrors, UnsupportedTypeOrReduceOp) {
  gm_floats src(4, 0.0f), dst(4, 0.0f, 0.0f);
  auto e = with_client(HCCL_CMD_ALLREDUCE, [&](Hccl<>& h) {
    h.AllReduce(src.addr(), dst.addr(), 2, HCCL_DATA_TYPE_INT64, HCCL_REDUCE_SUM);
  });
  expect_error(e, hw_error_kind::param_out_of_range, "dataType 5 is not supported");
  e = with_client(HCCL_CMD_REDUCE_SCATTER, [&](Hccl<>& h) {
    h.ReduceScatter(src.addr(), dst.addr(), 4, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_PROD, 0);
  });
  expect_error(e, hw_error_kind::param_out_of_range, "HCCL_REDUCE_SUM");
}

TEST(HcclErrors, BuffersOutsideGm) {
  gm_floats src(4, 0.0f);
  const auto e = with_client(HCCL_CMD_ALLREDUCE, [&](Hccl<>& h) {
    h.AllReduce(src.addr(), src.addr(), 4, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, 2);  // 2 rounds: 32 bytes of 16
  });
  expect_error(e, hw_error_kind::gm_out_of_bounds, "sendBuf");
}

TEST(HcclErrors, CommitBeyondRepeatFinalizeWithRoundsLeftAndUseAfterFinalize) {
  gm_floats src(4, 0.0f), dst(4, 0.0f, 0.0f);
  auto e = with_client(HCCL_CMD_ALLREDUCE, [&](Hccl<>& h) {
    h.Commit(h.AllReduce<true>(src.addr(), dst.addr(), 4, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM));
  });
  expect_error(e, hw_error_kind::invalid_use, "committed more often than its repeat");
  e = with_client(HCCL_CMD_ALLREDUCE, [&](Hccl<>& h) {
    h.AllReduce(src.addr(), dst.addr(), 2, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, 2);
    h.Finalize();
  });
  expect_error(e, hw_error_kind::deadlock, "committed 0 of its 2 rounds");
  e = with_client(HCCL_CMD_ALLREDUCE, [&](Hccl<>& h) {
    h.Finalize();
    h.GetRankId();
  });
  expect_error(e, hw_error_kind::invalid_use, "after Finalize");
}

TEST(HcclErrors, AHandleNotFromPrepare) {
  const auto e = with_client(HCCL_CMD_ALLREDUCE, [&](Hccl<>& h) { h.Commit(3); });
  expect_error(e, hw_error_kind::invalid_use, "not returned by a Prepare call");
}
