// Cross-core behaviour: atomics with exact sums over 8 cores, SyncAll as a real barrier.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <random>
#include <vector>

#include "kernel_operator.h"
#include "sim_core_test_util.h"

using namespace AscendC;
using aopt::sim::hw_error_kind;
using aopt::sim::test::gm_buffer;
using aopt::sim::test::run;

namespace {

TEST(Atomics, AddMaxMinAcross8Cores) {
  const std::uint32_t seed = 777u;
  std::printf("[ seed ] %u\n", seed);
  constexpr int cores = 8, n = 64, rounds = 20;
  std::vector<std::int32_t> vals(cores * rounds * n);
  std::mt19937 rng(seed);
  for (auto& v : vals) v = static_cast<std::int32_t>(rng() % 2001) - 1000;
  gm_buffer sum_i(n * 4, "sum_i"), sum_f(n * 4, "sum_f"), mx(n * 4, "max"), mn(n * 4, "min");
  auto r = run(cores, [&] {
    TPipe pipe;
    TBuf<TPosition::VECCALC> b;
    pipe.InitBuffer(b, n * 8);
    LocalTensor<std::int32_t> ti = b.Get<std::int32_t>(n);
    LocalTensor<float> tf = b.GetWithOffset<float>(n, n * 4);
    GlobalTensor<std::int32_t> gi, gmx, gmn;
    GlobalTensor<float> gf;
    gi.SetGlobalBuffer(reinterpret_cast<__gm__ std::int32_t*>(sum_i.get()), n);
    gf.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(sum_f.get()), n);
    gmx.SetGlobalBuffer(reinterpret_cast<__gm__ std::int32_t*>(mx.get()), n);
    gmn.SetGlobalBuffer(reinterpret_cast<__gm__ std::int32_t*>(mn.get()), n);
    const auto core = GetBlockIdx();
    for (int rd = 0; rd < rounds; ++rd) {
      for (int i = 0; i < n; ++i) {
        const std::int32_t v = vals[(core * rounds + rd) * n + i];
        ti.SetValue(i, v);
        tf.SetValue(i, static_cast<float>(v));
      }
      SetAtomicAdd<std::int32_t>();
      DataCopy(gi, ti, n);
      SetAtomicAdd<float>();
      DataCopyPad(gf, tf, DataCopyExtParams{1, n * 4, 0, 0, 0});
      SetAtomicMax<std::int32_t>();
      DataCopy(gmx, ti, n);
      SetAtomicMin<std::int32_t>();
      DataCopy(gmn, ti, n);
      SetAtomicNone();
    }
  });
  ASSERT_FALSE(r.error.has_value()) << r.error->to_string();
  for (int i = 0; i < n; ++i) {
    std::int64_t s = 0;
    std::int32_t hi = 0, lo = 0;  // GM starts at 0, so max/min include 0
    for (int c = 0; c < cores; ++c) {
      for (int rd = 0; rd < rounds; ++rd) {
        const std::int32_t v = vals[(c * rounds + rd) * n + i];
        s += v;
        hi = std::max(hi, v);
        lo = std::min(lo, v);
      }
    }
    EXPECT_EQ(sum_i.as<std::int32_t>()[i], s) << i;
    EXPECT_EQ(sum_f.as<float>()[i], static_cast<float>(s)) << i;
    EXPECT_EQ(mx.as<std::int32_t>()[i], hi) << i;
    EXPECT_EQ(mn.as<std::int32_t>()[i], lo) << i;
  }
  // Atomic copies are marked in the trace.
  bool saw_atomic = false;
  for (const auto& rec : r.cores[0].recs) saw_atomic |= rec.atomic;
  EXPECT_TRUE(saw_atomic);
}

TEST(SyncAllBarrier, CoresExchangeDataThroughGm) {
  constexpr int cores = 8, rounds = 10;
  gm_buffer slots(cores * rounds * 4, "slots"), sums(cores * rounds * 4, "sums");
  auto r = run(cores, [&] {
    GlobalTensor<std::int32_t> s, out;
    s.SetGlobalBuffer(reinterpret_cast<__gm__ std::int32_t*>(slots.get()));
    out.SetGlobalBuffer(reinterpret_cast<__gm__ std::int32_t*>(sums.get()));
    const auto me = static_cast<int>(GetBlockIdx());
    for (int rd = 0; rd < rounds; ++rd) {
      s.SetValue(rd * cores + me, (rd + 1) * 100 + me);
      SyncAll();
      std::int32_t total = 0;
      for (int c = 0; c < cores; ++c) total += s.GetValue(rd * cores + c);
      out.SetValue(rd * cores + me, total);
    }
  }, 40);
  ASSERT_FALSE(r.error.has_value()) << r.error->to_string();
  for (int rd = 0; rd < rounds; ++rd) {
    const std::int32_t want = cores * (rd + 1) * 100 + cores * (cores - 1) / 2;
    for (int c = 0; c < cores; ++c) EXPECT_EQ(sums.as<std::int32_t>()[rd * cores + c], want) << rd << "," << c;
  }
  std::size_t n_sync = 0;
  for (const auto& rec : r.cores[3].recs) n_sync += rec.kind == aopt::sim::rec_kind::sync_all;
  EXPECT_EQ(n_sync, static_cast<std::size_t>(rounds));
}

TEST(SyncAllBarrier, ErrorOnOneCoreReleasesTheOthers) {
  auto r = run(6, [&] {
    if (GetBlockIdx() == 4) {
      WaitFlag<HardEvent::V_S>(8);  // outside 0..7: fails this core
    }
    SyncAll();
  });
  ASSERT_TRUE(r.error.has_value());
  EXPECT_EQ(r.error->kind, hw_error_kind::reserved_event);
  EXPECT_EQ(r.error->block_idx, 4u);
}

TEST(SysVars, BlockIdsAndWorkspaces) {
  gm_buffer ws(aopt::sim::sys_workspace_bytes + 4096, "workspace");
  std::vector<int> ok(5, 0);
  auto r = run(5, [&] {
    const auto me = GetBlockIdx();
    SetSysWorkspace(ws.get());
    const bool good = GetBlockNum() == 5 && GetSubBlockIdx() == 0 && GetTaskRation() == 1 &&
                      GetSysWorkSpacePtr() == ws.get() &&
                      GetUserWorkspace(ws.get()) == ws.get() + aopt::sim::sys_workspace_bytes &&
                      GetUserWorkspace(nullptr) == nullptr;
    ok[me] = good ? 1 : 0;
  });
  ASSERT_FALSE(r.error.has_value()) << r.error->to_string();
  for (int i = 0; i < 5; ++i) EXPECT_EQ(ok[i], 1) << i;
}

}  // namespace
