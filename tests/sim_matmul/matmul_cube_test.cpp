// The kernel Matmul on the cube primitives: its trace holds the cube pipes' records (Nd2Nz copies
// on MTE2, LoadData on MTE1, one Mmad per block and K step on M, Fixpipe on FIX), CFG_MDL loads
// L1 in fewer, larger copies than CFG_NORM, and on the timing model larger base blocks with L0
// double buffering beat small single-buffered ones (the two suite variants' tilings).
#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <iostream>
#include <vector>

#include "aopt_sim/profile.h"
#include "aopt_sim/runtime.h"
#include "aopt_sim/timing.h"
#include "matmul_kernels17.h"
#include "tiling/tiling_api.h"

namespace {

using aopt::sim::test::mm_args;
using matmul_tiling::CubeFormat;
using matmul_tiling::DataType;
using matmul_tiling::TPosition;

struct gm_buf {
  void* p = nullptr;
  explicit gm_buf(std::size_t bytes, const char* name) : p(aopt::sim::gm_alloc(bytes, name)) {}
  ~gm_buf() { aopt::sim::gm_free(p); }
  gm_buf(const gm_buf&) = delete;
  gm_buf& operator=(const gm_buf&) = delete;
  std::uint8_t* u8() const { return static_cast<std::uint8_t*>(p); }
};

optiling::TCubeTiling tiling(int M, int N, int K, int fix, bool db) {
  matmul_tiling::MatmulApiTiling mm;
  mm.SetAType(TPosition::GM, CubeFormat::ND, DataType::DT_FLOAT16);
  mm.SetBType(TPosition::GM, CubeFormat::ND, DataType::DT_FLOAT16);
  mm.SetCType(TPosition::GM, CubeFormat::ND, DataType::DT_FLOAT);
  mm.SetShape(M, N, K);
  if (fix > 0) mm.SetFixSplit(fix, fix, fix);
  mm.SetDoubleBuffer(db, db, false, false);
  optiling::TCubeTiling t;
  EXPECT_EQ(mm.GetTiling(t), 0);
  return t;
}

struct run_out {
  aopt::sim::launch_result r;
  aopt::sim::timing_report rep;
};

run_out run_one(int M, int N, int K, const optiling::TCubeTiling& t, void (*kernel)(const mm_args&)) {
  gm_buf a(2 * M * K, "a"), b(2 * K * N, "b"), c(4 * M * N, "c");
  mm_args x;
  x.a = a.u8();
  x.b = b.u8();
  x.c = c.u8();
  x.tiling = &t;
  aopt::sim::launch_options o;
  o.block_dim = 1;
  run_out out;
  out.r = aopt::sim::launch(o, [&] { kernel(x); });
  EXPECT_FALSE(out.r.error) << out.r.error->to_string();
  static const auto profile = aopt::sim::load_profile("910b4");
  out.rep = aopt::sim::simulate(out.r.cores, profile);
  EXPECT_FALSE(out.rep.error) << out.rep.error->to_string();
  return out;
}

std::size_t count(const aopt::sim::launch_result& r, aopt::sim::rec_kind k, aopt::sim::pipe p) {
  std::size_t n = 0;
  for (const auto& rec : r.cores.at(0).recs) n += rec.kind == k && rec.p == p;
  return n;
}
TEST(MatmulCube, TheTraceHoldsTheCubePipes) {
  const auto t = tiling(64, 64, 64, 32, true);
  const auto o = run_one(64, 64, 64, t, aopt::sim::test::mm17_f16_f32_norm);
  // 2 x 2 blocks of 32 x 32, 2 K steps each.
  EXPECT_EQ(count(o.r, aopt::sim::rec_kind::mmad, aopt::sim::pipe::m), 8u);
  EXPECT_GT(count(o.r, aopt::sim::rec_kind::cube_move, aopt::sim::pipe::mte1), 0u);
  EXPECT_EQ(count(o.r, aopt::sim::rec_kind::copy_in, aopt::sim::pipe::mte2), 16u);  // A and B per block and K step
  EXPECT_EQ(count(o.r, aopt::sim::rec_kind::copy_out, aopt::sim::pipe::fix), 4u);  // one Fixpipe per block
  EXPECT_GT(o.rep.mac_us, 0.0);
}

TEST(MatmulCube, MdlLoadsL1InFewerCopies) {
  const auto t = tiling(128, 128, 1024, 64, true);
  ASSERT_GT(t.stepKa, 1);
  const auto norm = run_one(128, 128, 1024, t, aopt::sim::test::mm17_f16_f32_norm);
  const auto mdl = run_one(128, 128, 1024, t, aopt::sim::test::mm17_f16_f32_mdl);
  const auto n_norm = count(norm.r, aopt::sim::rec_kind::copy_in, aopt::sim::pipe::mte2);
  const auto n_mdl = count(mdl.r, aopt::sim::rec_kind::copy_in, aopt::sim::pipe::mte2);
  std::cout << "[sim_matmul] L1 copies: CFG_NORM " << n_norm << ", CFG_MDL " << n_mdl << " (stepKa " << t.stepKa
            << "); aiv time " << norm.rep.aiv_time_us << " vs " << mdl.rep.aiv_time_us << " us\n";
  EXPECT_EQ(n_norm, n_mdl * static_cast<std::size_t>(t.stepKa));
}

TEST(MatmulCube, LargerBaseBlocksWithL0DoubleBufferingAreFaster) {
  const int M = 256, N = 256, K = 512;
  const auto small = tiling(M, N, K, 32, false);
  const auto large = tiling(M, N, K, -1, true);
  ASSERT_EQ(large.baseM, 128);
  ASSERT_EQ(large.dbL0A, 2);
  ASSERT_EQ(small.dbL0A, 1);
  const auto s = run_one(M, N, K, small, aopt::sim::test::mm17_f16_f32_norm);
  const auto l = run_one(M, N, K, large, aopt::sim::test::mm17_f16_f32_mdl);
  std::cout << "[sim_matmul] " << M << "x" << N << "x" << K << " fp16 on one core: base 32 single-buffered "
            << s.rep.aiv_time_us << " us (mte2 " << s.rep.mte2_us << ", mte1 " << s.rep.mte1_us << ", mac "
            << s.rep.mac_us << ", fix " << s.rep.fix_us << "); base 128 double-buffered MDL " << l.rep.aiv_time_us
            << " us (mte2 " << l.rep.mte2_us << ", mte1 " << l.rep.mte1_us << ", mac " << l.rep.mac_us << ", fix "
            << l.rep.fix_us << ")\n";
  EXPECT_LT(l.rep.aiv_time_us * 1.5, s.rep.aiv_time_us);
}

}  // namespace
