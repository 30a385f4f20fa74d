// The Cube's pipes in the timing model (issue 38, items 3 and 5): SetFlag/WaitFlag on MTE1, M
// and FIX with the vector pipes' deadlock and double-set detection; Mmad priced by fractal steps
// (int8 moves twice the MACs of half per step); a double-buffered L0 pipeline overlaps MTE1 and
// M where a single-buffered one serialises them.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <functional>
#include <string>

#include "aopt_sim/timing.h"
#include "kernel_operator.h"
#include "sim_core_test_util.h"

using namespace AscendC;
using aopt::sim::hw_error_kind;
using aopt::sim::test::run;

namespace {

aopt::sim::timing_report simulate_kernel(const std::function<void()>& body) {
  auto r = run(1, body);
  EXPECT_FALSE(r.error) << (r.error ? r.error->to_string() : "");
  static const auto profile = aopt::sim::load_profile("910b4");
  return aopt::sim::simulate(r.cores, profile);
}

TEST(CubeTiming, WaitOnACubePipeNobodySetsIsADeadlock) {
  auto rep = simulate_kernel([] {
    TPipe pipe;
    TBuf<TPosition::A2> a2;
    pipe.InitBuffer(a2, 1024);
    WaitFlag<HardEvent::MTE1_M>(0);  // no SetFlag<MTE1_M>(0) anywhere
  });
  ASSERT_TRUE(rep.error);
  EXPECT_EQ(rep.error->kind, hw_error_kind::deadlock);
  EXPECT_NE(rep.error->message.find("MTE1_M"), std::string::npos) << rep.error->message;
}

TEST(CubeTiming, SettingACubeFlagTwiceIsReported) {
  auto rep = simulate_kernel([] {
    SetFlag<HardEvent::M_FIX>(1);
    SetFlag<HardEvent::M_FIX>(1);
    WaitFlag<HardEvent::M_FIX>(1);
  });
  ASSERT_TRUE(rep.error);
  EXPECT_EQ(rep.error->kind, hw_error_kind::double_set_event);
  EXPECT_NE(rep.error->message.find("M_FIX"), std::string::npos) << rep.error->message;
}

// One Mmad of m x n x k on whatever L0 holds (the values do not matter here).
template <typename In, typename Acc>
void one_mmad(std::uint16_t m, std::uint16_t n, std::uint16_t k) {
  TPipe pipe;
  TBuf<TPosition::A2> a2;
  TBuf<TPosition::B2> b2;
  TBuf<TPosition::CO1> c;
  pipe.InitBuffer(a2, 64 * 1024);
  pipe.InitBuffer(b2, 64 * 1024);
  pipe.InitBuffer(c, 128 * 1024);
  MmadParams p;
  p.m = m; p.n = n; p.k = k;
  Mmad(c.Get<Acc>(), a2.Get<In>(), b2.Get<In>(), p);
}

TEST(CubeTiming, MmadIsPricedByFractalStepsAndInt8DoublesTheRate) {
  const auto half_rep = simulate_kernel([] { one_mmad<half, float>(128, 128, 128); });
  const auto int8_rep = simulate_kernel([] { one_mmad<std::int8_t, std::int32_t>(128, 128, 128); });
  ASSERT_FALSE(half_rep.error);
  ASSERT_FALSE(int8_rep.error);
  // 910b4: 1.5 GHz; half: 8 x 8 x 8 steps of 16x16x16 (one per cycle) + 10 head cycles.
  EXPECT_NEAR(half_rep.mac_us, (512.0 + 10.0) / 1500.0, 1e-6);
  // int8: k-blocks of 32: 8 x 4 x 8 steps.
  EXPECT_NEAR(int8_rep.mac_us, (256.0 + 10.0) / 1500.0, 1e-6);
  // Effective MACs per cycle of the half Mmad: 128^3 / 522 cycles, under the 4096 peak.
  const double macs_per_cycle = 128.0 * 128.0 * 128.0 / (half_rep.mac_us * 1500.0);
  std::printf("half Mmad 128^3: %.0f MACs/cycle (peak 4096)\n", macs_per_cycle);
  EXPECT_LT(macs_per_cycle, 4096.0);
  EXPECT_GT(macs_per_cycle, 3900.0);
  const auto j = half_rep.to_json();
  EXPECT_TRUE(j.contains("aic_mac_time(us)"));
}

// `iters` rounds of: LoadData A (64 x 64 half) and B into L0, then Mmad 64 x 64 x 64, with the
// flags a real kernel writes; `buffers` 1 or 2 L0 buffers (ping-pong event ids).
void l0_pipeline(int iters, int buffers) {
  TPipe pipe;
  TBuf<TPosition::A1> a1;
  TBuf<TPosition::B1> b1;
  TBuf<TPosition::A2> a2;
  TBuf<TPosition::B2> b2;
  TBuf<TPosition::CO1> c;
  pipe.InitBuffer(a1, 64 * 64 * 2);
  pipe.InitBuffer(b1, 64 * 64 * 2);
  pipe.InitBuffer(a2, 2 * 64 * 64 * 2);
  pipe.InitBuffer(b2, 2 * 64 * 64 * 2);
  pipe.InitBuffer(c, 64 * 64 * 4);
  auto A1 = a1.Get<half>();
  auto B1 = b1.Get<half>();
  auto A2 = a2.Get<half>();
  auto B2 = b2.Get<half>();
  auto C = c.Get<float>();
  for (int e = 0; e < buffers; ++e) SetFlag<HardEvent::M_MTE1>(e);
  for (int i = 0; i < iters; ++i) {
    const int e = i % buffers;
    WaitFlag<HardEvent::M_MTE1>(e);
    for (int mb = 0; mb < 4; ++mb) LoadData(A2[e * 4096 + mb * 1024], A1, LoadData2DParams(mb, 4, 4, 0, 0, false, 0));
    for (int kb = 0; kb < 4; ++kb) LoadData(B2[e * 4096 + kb * 1024], B1, LoadData2DParams(kb, 4, 4, 0, 0, true, 0));
    SetFlag<HardEvent::MTE1_M>(e);
    WaitFlag<HardEvent::MTE1_M>(e);
    MmadParams p;
    p.m = 64; p.n = 64; p.k = 64;
    p.cmatrixInitVal = i == 0;
    Mmad(C, A2[e * 4096], B2[e * 4096], p);
    SetFlag<HardEvent::M_MTE1>(e);
  }
  for (int e = 0; e < buffers; ++e) WaitFlag<HardEvent::M_MTE1>(e);
}

TEST(CubeTiming, DoubleBufferedL0OverlapsMte1AndMmad) {
  const auto single = simulate_kernel([] { l0_pipeline(32, 1); });
  const auto dbl = simulate_kernel([] { l0_pipeline(32, 2); });
  ASSERT_FALSE(single.error) << single.error->message;
  ASSERT_FALSE(dbl.error) << dbl.error->message;
  std::printf("L0 pipeline, 32 rounds: single %.3f us, double %.3f us (mte1 %.3f, mac %.3f)\n", single.aiv_time_us,
              dbl.aiv_time_us, dbl.mte1_us, dbl.mac_us);
  // Single: MTE1 and M alternate; double: MTE1 of round i+1 runs under the Mmad of round i.
  EXPECT_LT(dbl.aiv_time_us, 0.85 * single.aiv_time_us);
  // The double-buffered time is bounded below by the busier pipe.
  EXPECT_GE(dbl.aiv_time_us, std::max(dbl.mte1_us, dbl.mac_us));
}

// GM -> L1 with ND2NZ is priced by rows (Huawei's gemm cycle model): 8 cycles per 128-512 B
// package after a 210-cycle start, so a tile of 128-byte rows moves a quarter of the bytes per
// cycle of one of 512-byte rows.
double nd2nz_mte2_us(std::uint32_t rows, std::uint32_t cols) {
  aopt::sim::test::gm_buffer g(std::size_t{rows} * cols * 2, "a");
  const auto rep = simulate_kernel([&] {
    TPipe pipe;
    TBuf<TPosition::A1> a1;
    pipe.InitBuffer(a1, rows * cols * 2);
    GlobalTensor<half> ga;
    ga.SetGlobalBuffer(reinterpret_cast<half*>(g.get()));
    auto l1 = a1.Get<half>();
    DataCopy(l1, ga, Nd2NzParams(1, static_cast<std::uint16_t>(rows), static_cast<std::uint16_t>(cols), 0,
                                 static_cast<std::uint16_t>(cols), static_cast<std::uint16_t>(rows), 1, 0));
  });
  EXPECT_FALSE(rep.error);
  return rep.mte2_us;
}

TEST(CubeTiming, Nd2NzIsPricedByRowPackages) {
  static const auto prm = aopt::sim::parse_timing_params(aopt::sim::load_profile("910b4").raw, "910b4");
  const double narrow = nd2nz_mte2_us(512, 64);  // 64 KiB in 512 rows of 128 B
  const double wide = nd2nz_mte2_us(128, 256);   // 64 KiB in 128 rows of 512 B
  const double cyc = 1.0 / (prm.clock_ghz * 1000.0);  // us per cycle
  EXPECT_NEAR(wide, prm.dma_latency_ns / 1000.0 + (210 + 128 * 8) * cyc, 0.05);
  EXPECT_NEAR(narrow, prm.dma_latency_ns / 1000.0 + (210 + 512 * 8) * cyc, 0.1);
  std::printf("ND2NZ 64 KiB: 128 B rows %.2f us, 512 B rows %.2f us\n", narrow, wide);
}

}  // namespace
