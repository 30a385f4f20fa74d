// The trace of a small double-buffered kernel (record kinds and flag ids in order), and the
// emulation speed of a large elementwise kernel.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "kernel_operator.h"
#include "kernels17.h"
#include "sim_core_test_util.h"

using spipe = aopt::sim::pipe;
using aopt::sim::rec_kind;
using aopt::sim::trace_rec;
using aopt::sim::test::gm_buffer;
using aopt::sim::test::run;

namespace {

struct want {
  rec_kind kind;
  spipe src = spipe::s;  // flags only
  spipe dst = spipe::s;
  int event = -1;      // flags only
};

std::string describe(const trace_rec& r) {
  return std::to_string(static_cast<int>(r.kind)) + " src=" + std::to_string(static_cast<int>(r.src)) +
         " dst=" + std::to_string(static_cast<int>(r.dst)) + " ev=" + std::to_string(r.event);
}

TEST(Trace, DoubleBufferedAddKernel) {
  constexpr std::uint32_t tile = 128, tiles = 4;
  gm_buffer x(tile * tiles * 2, "x"), y(tile * tiles * 2, "y"), z(tile * tiles * 2, "z");
  for (std::uint32_t i = 0; i < tile * tiles; ++i) {
    x.as<half>()[i] = static_cast<half>(static_cast<float>(i % 50));
    y.as<half>()[i] = static_cast<half>(0.5f);
  }
  auto r = run(1, [&] { aopt::sim::test::k17_add_fp16(x.get(), y.get(), z.get(), tile * tiles, tile, 2); });
  ASSERT_FALSE(r.error.has_value()) << r.error->to_string();
  for (std::uint32_t i = 0; i < tile * tiles; ++i) {
    ASSERT_EQ(static_cast<float>(z.as<half>()[i]), static_cast<float>(i % 50) + 0.5f) << i;
  }

  const auto set = rec_kind::set_flag;
  const auto wait = rec_kind::wait_flag;
  std::vector<want> w;
  // InitBuffer pre-sets each slot's "free" flag: inX 64,65 and inY 66,67 on V->MTE2,
  // outZ 64,65 on MTE3->V.
  for (int id : {64, 65, 66, 67}) w.push_back({set, spipe::v, spipe::mte2, id});
  for (int id : {64, 65}) w.push_back({set, spipe::mte3, spipe::v, id});
  for (std::uint32_t i = 0; i < tiles; ++i) {
    const int s = static_cast<int>(i % 2);
    const int ex = 64 + s, ey = 66 + s, ez = 64 + s;
    w.push_back({wait, spipe::v, spipe::mte2, ex});     // inX.AllocTensor
    w.push_back({wait, spipe::v, spipe::mte2, ey});     // inY.AllocTensor
    w.push_back({rec_kind::copy_in});                 // DataCopy x
    w.push_back({rec_kind::copy_in});                 // DataCopy y
    w.push_back({set, spipe::mte2, spipe::v, ex});      // inX.EnQue
    w.push_back({set, spipe::mte2, spipe::v, ey});      // inY.EnQue
    w.push_back({wait, spipe::mte2, spipe::v, ex});     // inX.DeQue
    w.push_back({wait, spipe::mte2, spipe::v, ey});     // inY.DeQue
    w.push_back({wait, spipe::mte3, spipe::v, ez});     // outZ.AllocTensor
    w.push_back({rec_kind::vector});                  // Add
    w.push_back({set, spipe::v, spipe::mte3, ez});      // outZ.EnQue
    w.push_back({set, spipe::v, spipe::mte2, ex});      // inX.FreeTensor
    w.push_back({set, spipe::v, spipe::mte2, ey});      // inY.FreeTensor
    w.push_back({wait, spipe::v, spipe::mte3, ez});     // outZ.DeQue
    w.push_back({rec_kind::copy_out});                // DataCopy z
    w.push_back({set, spipe::mte3, spipe::v, ez});      // outZ.FreeTensor
  }
  const auto& recs = r.cores[0].recs;
  ASSERT_EQ(recs.size(), w.size());
  for (std::size_t k = 0; k < w.size(); ++k) {
    const trace_rec& got = recs[k];
    ASSERT_EQ(got.kind, w[k].kind) << "record " << k << ": " << describe(got);
    if (w[k].event >= 0) {
      EXPECT_EQ(got.src, w[k].src) << "record " << k << ": " << describe(got);
      EXPECT_EQ(got.dst, w[k].dst) << "record " << k << ": " << describe(got);
      EXPECT_EQ(got.event, w[k].event) << "record " << k << ": " << describe(got);
      EXPECT_EQ(got.p, got.kind == set ? got.src : got.dst) << "record " << k;
    }
  }
  // Copies alternate between the two slots of each queue; GM offsets advance by one tile.
  EXPECT_EQ(recs[6 + 2].ub_addr, 0u);
  EXPECT_EQ(recs[6 + 16 + 2].ub_addr, tile * 2);
  EXPECT_EQ(recs[6 + 16 + 2].gm_addr, tile * 2);
  EXPECT_EQ(r.cores[0].ub_peak_bytes, 6 * tile * 2);
  const auto& site = r.cores[0].sites[recs[6].site];
  EXPECT_EQ(site.api, "AllocTensor");
  EXPECT_TRUE(aopt::sim::test::file_is(site.file, "kernels17.cpp"));
}

TEST(Trace, UserFlagsAndBarriers) {
  auto r = run(1, [] {
    using namespace AscendC;
    TPipe pipe;
    event_t e = static_cast<event_t>(GetTPipePtr()->FetchEventID(HardEvent::V_MTE3));
    SetFlag<HardEvent::V_MTE3>(e);
    WaitFlag<HardEvent::V_MTE3>(e);
    PipeBarrier<PIPE_V>();
    PipeBarrier<PIPE_ALL>();
    PipeBarrier<PIPE_MTE1>();  // a Cube pipe: recorded since issue 38 (the Cube unit)
    pipe_barrier(PIPE_MTE2);
    set_flag(PIPE_S, PIPE_V, EVENT_ID3);
    wait_flag(PIPE_S, PIPE_V, EVENT_ID3);
  });
  ASSERT_FALSE(r.error.has_value()) << r.error->to_string();
  const auto& recs = r.cores[0].recs;
  ASSERT_EQ(recs.size(), 8u);
  EXPECT_EQ(recs[0].kind, rec_kind::set_flag);
  EXPECT_EQ(recs[0].p, spipe::v);
  EXPECT_EQ(recs[1].kind, rec_kind::wait_flag);
  EXPECT_EQ(recs[1].p, spipe::mte3);
  EXPECT_EQ(recs[1].event, 0u);
  EXPECT_EQ(recs[2].kind, rec_kind::barrier);
  EXPECT_EQ(recs[2].p, spipe::v);
  EXPECT_EQ(recs[3].p, spipe::all);
  EXPECT_EQ(recs[4].kind, rec_kind::barrier);
  EXPECT_EQ(recs[4].p, spipe::mte1);
  EXPECT_EQ(recs[5].p, spipe::mte2);
  EXPECT_EQ(recs[6].src, spipe::s);
  EXPECT_EQ(recs[7].dst, spipe::v);
  EXPECT_EQ(recs[7].event, 3u);
}

TEST(Speed, Fp16Elementwise16M) {
  constexpr std::uint32_t total = 16u << 20, blocks = 32, tile = 8192;
  gm_buffer x(total * 2, "x"), y(total * 2, "y"), z(total * 2, "z");
  const std::uint32_t seed = 99u;
  std::printf("[ seed ] %u\n", seed);
  std::mt19937 rng(seed);
  std::vector<half> pattern(1024);
  for (auto& v : pattern) v = static_cast<half>(static_cast<float>(rng() % 64));
  for (std::uint32_t i = 0; i < total; ++i) {
    x.as<half>()[i] = pattern[i % 1024];
    y.as<half>()[i] = static_cast<half>(1.0f);
  }
  const auto t0 = std::chrono::steady_clock::now();
  auto r = run(blocks, [&] { aopt::sim::test::k17_add_fp16(x.get(), y.get(), z.get(), total, tile, 2); });
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("[ time ] 16M fp16 elementwise kernel emulated in %.3f s\n", secs);
  ASSERT_FALSE(r.error.has_value()) << r.error->to_string();
  for (std::uint32_t i = 0; i < total; i += 4099) {
    ASSERT_EQ(static_cast<float>(z.as<half>()[i]), static_cast<float>(pattern[i % 1024]) + 1.0f) << i;
  }
  // Generous bound: the machine is shared; the target is well under 1 s.
  EXPECT_LT(secs, 3.0);
}

}  // namespace
