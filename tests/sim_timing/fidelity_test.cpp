// Issue 13's timing-fidelity effects, each on a small kernel written against the AscendC API, run
// by the emulator, its traces replayed by the timing model (profile a2):
//   F01 scalar GM access by pattern (GlobalTensor::GetValue through the core's DataCache)
//   F02 scalar UB access by pattern (a scan of one buffer against jumps between buffers)
//   F03 a scalar GetValue of a vector result waits for the vector pipe
//   F04 plain buffers (TBuf, no queues, no flags) do not overlap copy and compute
//   F05 re-reads within L2 hit L2 (a two-pass kernel)
//   F06 write absorption follows the footprint as the kernel runs
//   F07 raw __gm__ loads and stores are traced and priced like GetValue/SetValue (raw_gm_kernel.cpp)
#include <gtest/gtest.h>

#include <cstdio>
#include <functional>

#include "aopt_sim/profile.h"
#include "aopt_sim/runtime.h"
#include "aopt_sim/timing.h"
#include "sim_test_support.h"
#include "kernel_operator.h"
#include "raw_gm_kernel.h"
#include "trace_builder.h"

namespace {

using namespace aopt::sim;

const timing_params& a2() { return test::params_of("a2"); }

using test::gm;

launch_result run(std::uint32_t blocks, const std::function<void()>& body) {
  launch_options o;
  o.block_dim = blocks;
  o.core_count = a2().aiv_cores;
  launch_result res = launch(o, body);
  EXPECT_FALSE(res.error) << (res.error ? res.error->to_string() : "");
  return res;
}

timing_report timed(const launch_result& res, const timing_params& prm = a2()) {
  timing_report rep = simulate(res.cores, prm);
  EXPECT_FALSE(rep.error) << (rep.error ? rep.error->message : "");
  return rep;
}

std::uint64_t count(const launch_result& res, scalar_access a) {
  std::uint64_t n = 0;
  for (const auto& t : res.cores)
    for (const auto& r : t.recs)
      if (r.kind == rec_kind::scalar) n += r.sacc[static_cast<int>(a)];
  return n;
}

double cycles_us(double cycles) { return cycles / a2().clock_ghz / 1000.0; }

// ---- F01: GM GetValue, sequential against strided ----------------------------------------------
void gm_reads(GM_ADDR x, std::uint32_t n, std::uint32_t stride) {
  AscendC::GlobalTensor<float> g;
  g.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(x), static_cast<std::uint64_t>(n) * stride);
  float acc = 0;
  for (std::uint32_t i = 0; i < n; ++i) acc += g.GetValue(static_cast<std::uint64_t>(i) * stride);
  volatile float sink = acc;
  (void)sink;
}

TEST(Fidelity, F01GmGetValueCostsByStride) {
  constexpr std::uint32_t n = 1024;
  gm x(n * 16 * sizeof(float), "x");
  const launch_result seq = run(1, [&] { gm_reads(x.p, n, 1); });
  const launch_result strided = run(1, [&] { gm_reads(x.p, n, 16); });  // 64 B apart: a new line each
  // Sequential: one miss per 64 B line (16 floats), the other 15 hit the DataCache.
  EXPECT_EQ(count(seq, scalar_access::gm_miss), n / 16);
  EXPECT_EQ(count(seq, scalar_access::gm_hit), n - n / 16);
  EXPECT_EQ(count(strided, scalar_access::gm_miss), n);
  const auto& c = a2().access_cycles;
  const double hit = c[static_cast<int>(scalar_access::gm_hit)], miss = c[static_cast<int>(scalar_access::gm_miss)];
  const timing_report a = timed(seq), b = timed(strided);
  EXPECT_NEAR(a.scalar_us, cycles_us(n / 16 * miss + (n - n / 16) * hit), 0.01);
  EXPECT_NEAR(b.scalar_us, cycles_us(n * miss), 0.01);
  EXPECT_GT(b.aiv_time_us, 3.0 * a.aiv_time_us);
  std::printf("F01 GetValue x%u: sequential %.2f us, stride 64 B %.2f us\n", n, a.aiv_time_us, b.aiv_time_us);
}

// ---- F02: UB GetValue, a scan of one buffer against jumps between two --------------------------
void ub_reads(std::uint32_t n, bool interleave) {
  AscendC::TPipe pipe;
  AscendC::TBuf<AscendC::TPosition::VECCALC> a, b;
  pipe.InitBuffer(a, n * sizeof(float));
  pipe.InitBuffer(b, n * sizeof(float));
  AscendC::LocalTensor<float> ta = a.Get<float>(), tb = b.Get<float>();
  float acc = 0;
  if (interleave) {
    for (std::uint32_t i = 0; i < n / 2; ++i) acc += ta.GetValue(i) + tb.GetValue(i);
  } else {
    for (std::uint32_t i = 0; i < n; ++i) acc += ta.GetValue(i);
  }
  volatile float sink = acc;
  (void)sink;
}

TEST(Fidelity, F02UbGetValueScanCheaperThanJumps) {
  constexpr std::uint32_t n = 4096;
  const launch_result scan = run(1, [&] { ub_reads(n, false); });
  const launch_result jumps = run(1, [&] { ub_reads(n, true); });
  EXPECT_EQ(count(scan, scalar_access::ub_scan), n - 1);
  EXPECT_EQ(count(jumps, scalar_access::ub_scan), 0u);
  const double s = timed(scan).scalar_us, j = timed(jumps).scalar_us;
  const double ratio = a2().access_cycles[static_cast<int>(scalar_access::ub_scan)] / a2().elem_access_cycles;
  EXPECT_NEAR(s / j, ratio, 0.02);
  std::printf("F02 %u UB GetValue: scan %.2f us, alternating buffers %.2f us\n", n, s, j);
}

// ---- F03: GetValue of a vector result waits for PIPE_V ------------------------------------------
// Copy in, a long vector chain on plain buffers, then a scalar read of `probe` (the result, or an
// untouched buffer), then a scalar loop. Reading the result must wait for the vector pipe.
void reduce_then_read(GM_ADDR x, bool read_result) {
  constexpr std::uint32_t n = 16384;
  AscendC::TPipe pipe;
  AscendC::TBuf<AscendC::TPosition::VECCALC> in, out, other;
  pipe.InitBuffer(in, n * sizeof(half));
  pipe.InitBuffer(out, n * sizeof(half));
  pipe.InitBuffer(other, 4096);
  AscendC::GlobalTensor<half> xg;
  xg.SetGlobalBuffer(reinterpret_cast<__gm__ half*>(x), n);
  AscendC::LocalTensor<half> ti = in.Get<half>(), to = out.Get<half>(), tx = other.Get<half>();
  AscendC::DataCopy(ti, xg, n);
  for (int r = 0; r < 8; ++r) AscendC::Add(to, ti, ti, n);
  const half v = read_result ? to.GetValue(0) : tx.GetValue(0);
  for (std::uint32_t i = 0; i < 1024; ++i) tx.SetValue(i % 2048, v);
}

TEST(Fidelity, F03GetValueWaitsForThePipeThatWroteTheBuffer) {
  gm x(16384 * 2, "x");
  const timing_report waits = timed(run(1, [&] { reduce_then_read(x.p, true); }));
  const timing_report free = timed(run(1, [&] { reduce_then_read(x.p, false); }));
  // Reading the result: copy, then vector, then the scalar loop, one after another.
  EXPECT_GT(waits.aiv_time_us, 0.97 * (waits.mte2_us + waits.vec_us + waits.scalar_us));
  // Reading an untouched buffer: the scalar loop runs while the copy and the vector work do.
  EXPECT_LT(free.aiv_time_us, 0.8 * waits.aiv_time_us);
  std::printf("F03 GetValue of the vector result: %.2f us; of another buffer: %.2f us\n", waits.aiv_time_us,
              free.aiv_time_us);
}

// ---- F04: plain buffers serialise copy and compute ----------------------------------------------
void plain_buffer_add(GM_ADDR x, GM_ADDR z, std::uint32_t tiles, std::uint32_t tile) {
  AscendC::TPipe pipe;
  AscendC::TBuf<AscendC::TPosition::VECCALC> in, out;
  pipe.InitBuffer(in, tile * sizeof(half));
  pipe.InitBuffer(out, tile * sizeof(half));
  AscendC::GlobalTensor<half> xg, zg;
  xg.SetGlobalBuffer(reinterpret_cast<__gm__ half*>(x), static_cast<std::uint64_t>(tiles) * tile);
  zg.SetGlobalBuffer(reinterpret_cast<__gm__ half*>(z), static_cast<std::uint64_t>(tiles) * tile);
  AscendC::LocalTensor<half> ti = in.Get<half>(), to = out.Get<half>();
  for (std::uint32_t t = 0; t < tiles; ++t) {
    AscendC::DataCopy(ti, xg[static_cast<std::uint64_t>(t) * tile], tile);
    for (int r = 0; r < 4; ++r) AscendC::Add(to, ti, ti, tile);
    AscendC::DataCopy(zg[static_cast<std::uint64_t>(t) * tile], to, tile);
  }
}

TEST(Fidelity, F04PlainBuffersDoNotOverlapCopyAndCompute) {
  constexpr std::uint32_t tiles = 16, tile = 8192;
  gm x(tiles * tile * 2, "x"), z(tiles * tile * 2, "z");
  const launch_result res = run(1, [&] { plain_buffer_add(x.p, z.p, tiles, tile); });
  const timing_report serial = timed(res);
  // The same trace without its UB ranges: the model before issue 13, which let the pipes overlap.
  launch_result blind = res;
  for (auto& t : blind.cores)
    for (auto& r : t.recs) r.ub_bytes = r.src_bytes[0] = r.src_bytes[1] = 0;
  const timing_report overlapped = timed(blind);
  // The vector work waits for each copy in, and the next copy in waits for the vector work that
  // reads its buffer: MTE2 and V never overlap (MTE3 of one tile may overlap MTE2 of the next: they
  // share no buffer).
  EXPECT_GT(serial.aiv_time_us, 0.98 * (serial.mte2_us + serial.vec_us));
  EXPECT_LT(overlapped.aiv_time_us, 0.9 * (overlapped.mte2_us + overlapped.vec_us));
  EXPECT_GT(serial.aiv_time_us, 1.3 * overlapped.aiv_time_us);
  std::printf("F04 TBuf copy/compute/copy x%u: %.2f us serialised, %.2f us if it overlapped\n", tiles,
              serial.aiv_time_us, overlapped.aiv_time_us);
}

// ---- F05: a second pass over data that fits in L2 hits L2 ---------------------------------------
// Each block reads its slice of x `passes` times (a two-pass normalisation reads its input twice),
// summing tiles into an accumulator, and writes one tile of result.
void read_passes(GM_ADDR x, GM_ADDR z, std::uint32_t tiles, int passes) {
  constexpr std::uint32_t tile = 16384;
  AscendC::TPipe pipe;
  AscendC::TQue<AscendC::TPosition::VECIN, 2> inQ;
  AscendC::TBuf<AscendC::TPosition::VECCALC> acc;
  pipe.InitBuffer(inQ, 2, tile * sizeof(half));
  pipe.InitBuffer(acc, tile * sizeof(half));
  const std::uint64_t slice = static_cast<std::uint64_t>(tiles) * tile;
  AscendC::GlobalTensor<half> xg, zg;
  xg.SetGlobalBuffer(reinterpret_cast<__gm__ half*>(x) + AscendC::GetBlockIdx() * slice, slice);
  zg.SetGlobalBuffer(reinterpret_cast<__gm__ half*>(z) + AscendC::GetBlockIdx() * tile, tile);
  AscendC::LocalTensor<half> a = acc.Get<half>();
  AscendC::Duplicate(a, half(0), tile);
  for (int p = 0; p < passes; ++p) {
    for (std::uint32_t t = 0; t < tiles; ++t) {
      AscendC::LocalTensor<half> in = inQ.AllocTensor<half>();
      AscendC::DataCopy(in, xg[static_cast<std::uint64_t>(t) * tile], tile);
      inQ.EnQue(in);
      in = inQ.DeQue<half>();
      AscendC::Add(a, a, in, tile);
      inQ.FreeTensor(in);
    }
  }
  AscendC::DataCopy(zg, a, tile);
}

TEST(Fidelity, F05ReReadsWithinL2HitL2) {
  constexpr std::uint32_t tiles = 8, blocks = 48;
  const std::uint64_t n = std::uint64_t{blocks} * tiles * 16384;  // 12 MiB of fp16: fits in L2
  gm x(n * 2, "x"), z(blocks * 16384 * 2, "z");
  auto passes = [&](int p) { return run(blocks, [&] { read_passes(x.p, z.p, tiles, p); }); };
  timing_params cold = a2();
  cold.l2_warm = false;  // the first pass reads HBM
  const launch_result once = passes(1), twice = passes(2);
  const timing_report one = timed(once, cold), two = timed(twice, cold);
  const double second = two.aiv_time_us - one.aiv_time_us;
  EXPECT_NEAR(two.l2_read_hit_kb, n * 2 / 1024.0, 1.0);  // all of the second pass
  EXPECT_LT(second, 0.8 * one.aiv_time_us);
  timing_params no_l2 = a2();
  no_l2.l2_model = false;
  const timing_report flat = timed(twice, no_l2);
  EXPECT_GT(flat.aiv_time_us, 1.1 * two.aiv_time_us);
  // Warm (the profile's default): the previous launch left x in L2, the first pass hits too.
  EXPECT_NEAR(timed(once).l2_read_hit_kb, n * 2 / 1024.0, 1.0);
  std::printf("F05 two reads of 12 MiB, 48 cores: first pass %.2f us, second %.2f us (%.2f us without L2 hits)\n",
              one.aiv_time_us, second, flat.aiv_time_us - one.aiv_time_us);
}

// ---- F06: write absorption follows the footprint ------------------------------------------------
TEST(Fidelity, F06WriteAbsorptionFollowsTheFootprint) {
  // 48 cores write 64 x 32 KiB each (96 MiB). A 192 MiB L2 absorbs all of it; a 32 MiB one
  // absorbs the first third of the launch cold, nothing once warm (the previous launch's dirty
  // data is evicted as the kernel runs).
  auto make = [] {
    std::vector<core_trace> t;
    for (std::uint32_t core = 0; core < 48; ++core) {
      test::trace_builder b(core);
      for (std::uint64_t i = 0; i < 64; ++i) b.copy_out((i * 48 + core) * 32768, 32768);
      t.push_back(b.build());
    }
    return t;
  };
  const auto traces = make();
  timing_params small = a2(), small_cold = a2();
  small.l2_bytes = small_cold.l2_bytes = 32.0 * 1024 * 1024;
  small_cold.l2_warm = false;
  const timing_report fits = simulate(traces, a2()), warm = simulate(traces, small), cold = simulate(traces, small_cold);
  EXPECT_DOUBLE_EQ(fits.l2_write_hbm_fraction, 0.0);
  EXPECT_NEAR(warm.l2_write_hbm_fraction, 1.0, 0.01);
  EXPECT_NEAR(cold.l2_write_hbm_fraction, 2.0 / 3.0, 0.02);
  EXPECT_LT(fits.aiv_time_us, cold.aiv_time_us);
  EXPECT_LT(cold.aiv_time_us, warm.aiv_time_us);
  std::printf("F06 96 MiB of writes: L2 192 MiB %.2f us; 32 MiB cold %.2f us, warm %.2f us\n", fits.aiv_time_us,
              cold.aiv_time_us, warm.aiv_time_us);
}

// ---- F07: raw __gm__ loads and stores ----------------------------------------------------------
TEST(Fidelity, F07RawGmPointerAccessesAreTracedByPattern) {
  constexpr std::uint32_t n = 1024;
  gm x((n * 16 + 1) * sizeof(float), "x");
  const launch_result seq = run(1, [&] { raw_gm_sum(x.p, n, 1); });
  const launch_result strided = run(1, [&] { raw_gm_sum(x.p, n, 16); });
  // n loads + 1 store; sequential: a miss per 64 B line.
  EXPECT_EQ(count(seq, scalar_access::gm_miss) + count(seq, scalar_access::gm_hit), n + 1);
  EXPECT_EQ(count(seq, scalar_access::gm_miss), n / 16 + 1);
  EXPECT_EQ(count(strided, scalar_access::gm_miss), n + 1);
  const timing_report a = timed(seq), b = timed(strided);
  EXPECT_GT(a.aiv_time_us, 5.0);  // 1,025 scalar GM accesses: microseconds, not the launch alone
  EXPECT_GT(b.aiv_time_us, 3.0 * a.aiv_time_us);
  // Through the API: GetValue/SetValue are traced once each, DataCopy and the vector
  // instruction not as scalar accesses.
  const launch_result api = run(1, [&] { api_gm_sum(x.p, n); });
  EXPECT_EQ(count(api, scalar_access::gm_miss) + count(api, scalar_access::gm_hit), n + 1);
  std::printf("F07 raw __gm__ sum of %u floats: sequential %.2f us, stride 64 B %.2f us\n", n, a.aiv_time_us,
              b.aiv_time_us);
}

}  // namespace

