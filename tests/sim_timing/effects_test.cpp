// The ten effects of MODEL.md section 4, each on a small kernel written against the AscendC
// API, run by the emulator, its traces replayed by the timing model (profile 910b4).
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "aopt_sim/profile.h"
#include "aopt_sim/runtime.h"
#include "aopt_sim/timing.h"
#include "sim_test_support.h"
#include "kernel_operator.h"
#include "ladder_kernel.h"

namespace {

using namespace aopt::sim;

const timing_params& b4() { return test::params_of("910b4"); }

using test::gm;

struct outcome {
  launch_result launch;
  timing_report rep;
};

// fp16 Add of rows x 8192 on `blocks` blocks with BUFS buffers (ladder_kernel.h).
outcome run_add(ladder::add_cfg c, std::uint32_t blocks, int bufs, bool scalar = false) {
  const std::uint64_t n = static_cast<std::uint64_t>(c.rows) * c.cols + 4096;
  gm x(n * 2, "x"), y(n * 2, "y"), z(n * 2, "z");
  launch_options o;
  o.block_dim = blocks;
  o.core_count = b4().aiv_cores;
  outcome out;
  out.launch = launch(o, [&] {
    if (scalar) {
      ladder::scalar_add_kernel k;
      k.Init(x.p, y.p, z.p, static_cast<std::uint64_t>(c.rows) * c.cols, c.tile);
      k.Process();
    } else if (bufs == 2) {
      ladder::add_kernel<2> k;
      k.Init(x.p, y.p, z.p, c);
      k.Process();
    } else {
      ladder::add_kernel<1> k;
      k.Init(x.p, y.p, z.p, c);
      k.Process();
    }
  });
  if (!out.launch.error) out.rep = simulate(out.launch.cores, b4());
  EXPECT_FALSE(out.launch.error) << out.launch.error->to_string();
  EXPECT_FALSE(out.rep.error) << out.rep.error->message;
  return out;
}

ladder::add_cfg cfg(std::uint32_t rows, std::uint32_t tile) {
  ladder::add_cfg c;
  c.rows = rows;
  c.tile = tile;
  return c;
}

// 1. Double buffering overlaps copy and compute; little gain when one pipe dominates.
TEST(Effects, E01DoubleBuffering) {
  auto balanced = cfg(64, 8192);
  balanced.compute_reps = 24;  // vector time comparable to the copies
  const double s1 = run_add(balanced, 1, 1).rep.aiv_time_us, s2 = run_add(balanced, 1, 2).rep.aiv_time_us;
  // 40 cores streaming 32 KB tiles: the chip bandwidth (MTE2) dominates, as in ladder case 3 -> 4.
  auto mte2_bound = cfg(640, 16384);
  const double m1 = run_add(mte2_bound, 40, 1).rep.aiv_time_us, m2 = run_add(mte2_bound, 40, 2).rep.aiv_time_us;
  std::printf("balanced: %.1f -> %.1f us; MTE2-bound: %.1f -> %.1f us\n", s1, s2, m1, m2);
  EXPECT_LT(s2, 0.8 * s1);
  EXPECT_GT(m2, 0.9 * m1);
  EXPECT_LT(m2, m1 * 1.001);
}

// 2. PipeBarrier<PIPE_ALL> in the loop serialises the stages.
TEST(Effects, E02PipeAllSerialises) {
  auto c = cfg(64, 8192);
  c.compute_reps = 8;
  const auto free = run_add(c, 1, 2).rep;
  c.pipe_all = true;
  const auto serial = run_add(c, 1, 2).rep;
  std::printf("double buffered %.1f us, with PIPE_ALL %.1f us (mte2 %.1f + vec %.1f + mte3 %.1f)\n", free.aiv_time_us,
              serial.aiv_time_us, serial.mte2_us, serial.vec_us, serial.mte3_us);
  EXPECT_GT(serial.aiv_time_us, 1.3 * free.aiv_time_us);
  EXPECT_GT(serial.aiv_time_us, 0.98 * (serial.mte2_us + serial.vec_us + serial.mte3_us));
}

// 3. Many small copies are much slower than one large copy (plateau near 16-32 KB).
TEST(Effects, E03SmallCopiesAreSlow) {
  const double t512 = run_add(cfg(16, 512), 1, 2).rep.mte2_us;
  const double t8k = run_add(cfg(16, 4096), 1, 2).rep.mte2_us;
  const double t16k = run_add(cfg(16, 8192), 1, 2).rep.mte2_us;
  const double t32k = run_add(cfg(16, 16384), 1, 2).rep.mte2_us;
  std::printf("MTE2 time by copy size: 1 KB %.1f, 8 KB %.1f, 16 KB %.1f, 32 KB %.1f us\n", t512, t8k, t16k, t32k);
  EXPECT_GT(t512, 4 * t32k);
  EXPECT_GT(t8k, 1.4 * t32k);
  EXPECT_LT(t16k, 1.15 * t32k);  // plateau
}

// 4. Misaligned GM addresses lose bandwidth; a contiguous copy that is not a multiple of 32 B is
// an error.
TEST(Effects, E04MisalignedAndTruncated) {
  const double aligned = run_add(cfg(16, 8192), 1, 2).rep.aiv_time_us;
  auto c = cfg(16, 8192);
  c.gm_shift = 16;  // 32 B
  const double shifted = run_add(c, 1, 2).rep.aiv_time_us;
  std::printf("aligned %.1f us, 32 B-shifted %.1f us\n", aligned, shifted);
  EXPECT_GT(shifted, 1.2 * aligned);

  gm x(4096, "x");
  launch_options o;
  auto res = launch(o, [&] {
    AscendC::TPipe pipe;
    AscendC::TBuf<AscendC::TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, 1024);
    AscendC::GlobalTensor<half> g;
    g.SetGlobalBuffer(reinterpret_cast<__gm__ half*>(x.p), 2048);
    AscendC::LocalTensor<half> l = buf.Get<half>();
    AscendC::DataCopy(l, g, 15);  // 30 bytes
  });
  ASSERT_FALSE(res.error) << "the chip drops the tail silently";
  ASSERT_EQ(res.warnings.size(), 1u);
  EXPECT_EQ(res.warnings[0].kind, hw_error_kind::truncated_copy);
}

// 5. Tail imbalance across cores, and tiny shapes slowing down when spread over all cores.
TEST(Effects, E05TailImbalanceAndTinyShapes) {
  const auto even = run_add(cfg(80, 8192), 40, 2).rep;  // 2 rows per core
  const auto tail = run_add(cfg(82, 8192), 41, 2).rep;  // one block more than cores: a second wave
  std::printf("40 blocks %.2f us, 41 blocks %.2f us (waves %u)\n", even.aiv_time_us, tail.aiv_time_us, tail.waves);
  EXPECT_EQ(tail.waves, 2u);
  // The lone block of the second wave has the chip to itself, so it runs faster than a
  // first-wave block, but the kernel still pays for the extra wave.
  EXPECT_GT(tail.aiv_time_us, 1.2 * even.aiv_time_us);
  ladder::add_cfg tiny;
  tiny.rows = 40;
  tiny.cols = 16;  // 640 elements
  tiny.tile = 640;  // one tile on one core; 16 elements per core on 40 cores
  const auto one = run_add(tiny, 1, 1).rep, all = run_add(tiny, 40, 1).rep;
  std::printf("tiny shape: 1 core %.2f us, 40 cores %.2f us\n", one.task_duration_us, all.task_duration_us);
  EXPECT_GT(all.task_duration_us, one.task_duration_us);
}

// 6. Scalar element loops are about two orders of magnitude slower than vector instructions.
TEST(Effects, E06ScalarLoop) {
  const double vec = run_add(cfg(8, 4096), 1, 1).rep.aiv_time_us;
  const double sca = run_add(cfg(8, 4096), 1, 1, true).rep.aiv_time_us;
  std::printf("vector %.1f us, scalar loop %.1f us: x%.0f\n", vec, sca, sca / vec);
  EXPECT_GT(sca / vec, 50);
  EXPECT_LT(sca / vec, 2000);
}

// 7. One repeat per instruction is several times slower than batched repeats.
TEST(Effects, E07OneRepeatPerInstruction) {
  auto c = cfg(16, 16384);
  c.compute_reps = 4;
  const double batched = run_add(c, 1, 2).rep.vec_us;
  c.vec_chunk = 128;  // one 256 B repeat per Add
  const double single = run_add(c, 1, 2).rep.vec_us;
  std::printf("vector time batched %.2f us, one repeat per call %.2f us\n", batched, single);
  EXPECT_GT(single, 3 * batched);
}

// 8. Bank-group conflicts double vector time.
TEST(Effects, E08BankConflicts) {
  auto c = cfg(16, 16256);
  const auto conflicted = run_add(c, 1, 2).rep;
  c.bank_pad = true;
  const auto clean = run_add(c, 1, 2).rep;
  std::printf("vec %.2f us (conflict ratio %.2f) vs %.2f us (%.2f)\n", conflicted.vec_us, conflicted.bank_conflict_ratio,
              clean.vec_us, clean.bank_conflict_ratio);
  EXPECT_GT(conflicted.vec_us, 1.6 * clean.vec_us);
  EXPECT_GT(conflicted.bank_conflict_ratio, 0.3);
  EXPECT_LT(clean.bank_conflict_ratio, 0.01);
}

// 9. Streaming kernels are capped by (read + write bytes) / chip bandwidth.
TEST(Effects, E09StreamingCap) {
  auto c = cfg(1280, 16384);  // 20 MiB per tensor: the footprint exceeds no L2, writes hit HBM partly
  // A cold L2: the first launch streams its inputs from HBM. (Warm, the profile's default, the
  // previous launch left these 60 MiB in L2 and the reads hit it: fidelity_test F05.)
  timing_params cold = b4();
  cold.l2_warm = false;
  const auto r = simulate(run_add(c, 40, 2).launch.cores, cold);
  const double bytes = 3.0 * 1280 * 8192 * 2;
  const double floor_us = (2.0 / 3.0) * bytes / b4().hbm_gbs / 1000;  // reads alone
  roofline_input in;
  in.bytes_read = 2.0 / 3.0 * bytes;
  in.bytes_written = (1.0 / 3.0) * bytes;  // roofline() applies the best case of the L2 rule
  in.vector_repeats = 1280.0 * 8192 / 128;
  const auto bound = roofline(in, cold);  // the bound of a cold launch (E09WarmL2StaysAboveTheBound: warm)
  std::printf("aiv %.1f us, reads-only floor %.1f us, roofline %.1f us\n", r.aiv_time_us, floor_us, bound.bound_us);
  EXPECT_GT(r.aiv_time_us, floor_us);
  EXPECT_GT(r.task_duration_us, bound.bound_us);
  EXPECT_LT(r.task_duration_us, 1.3 * bound.bound_us);
  // Doubling the cores does not help a chip-bound kernel.
  const auto more = simulate(run_add(c, 80, 2).launch.cores, cold);
  EXPECT_GT(more.aiv_time_us, 0.9 * r.aiv_time_us);
}

// 9b. With a warm L2 (the profiles' default) the inputs of a kernel whose footprint fits L2 hit
// it, and the roofline still bounds the kernel from below: a correct candidate of a memory-bound
// operator is never faster than its bound (the optimizer's suspect rule).
TEST(Effects, E09WarmL2StaysAboveTheBound) {
  auto c = cfg(1280, 16384);  // 60 MiB in all, within the 910b4's 96 MiB of L2
  const auto warm = simulate(run_add(c, 40, 2).launch.cores, b4());
  timing_params cold_p = b4();
  cold_p.l2_warm = false;
  const auto cold = simulate(run_add(c, 40, 2).launch.cores, cold_p);
  const double bytes = 3.0 * 1280 * 8192 * 2;
  roofline_input in;
  in.bytes_read = 2.0 / 3.0 * bytes;
  in.bytes_written = 1.0 / 3.0 * bytes;
  in.vector_repeats = 1280.0 * 8192 / 128;
  const auto warm_bound = roofline(in, b4());
  const auto cold_bound = roofline(in, cold_p);
  std::printf("warm %.1f us (bound %.1f), cold %.1f us (bound %.1f)\n", warm.task_duration_us, warm_bound.bound_us,
              cold.task_duration_us, cold_bound.bound_us);
  EXPECT_LT(warm.task_duration_us, cold.task_duration_us);  // the hits are real
  EXPECT_GT(warm.task_duration_us, warm_bound.bound_us);
  EXPECT_GT(cold.task_duration_us, cold_bound.bound_us);
  EXPECT_LT(warm_bound.bound_us, cold_bound.bound_us);
}

// 10. UB overflow is an error (one buffer larger than UB fails at InitBuffer).
TEST(Effects, E10UbOverflow) {
  launch_options o;
  auto res = launch(o, [&] {
    AscendC::TPipe pipe;
    AscendC::TQue<AscendC::TPosition::VECIN, 2> q;
    pipe.InitBuffer(q, 2, 120 * 1024);
  });
  ASSERT_TRUE(res.error);
  EXPECT_EQ(res.error->kind, hw_error_kind::ub_overflow);
}

}  // namespace
