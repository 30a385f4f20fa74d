// Mixed AIC/AIV kernels on sim (issue 38 item 1): the cores of KERNEL_TYPE_MIX_AIC_1_2 / _1_1
// launches and what each reads (GetBlockIdx, GetBlockNum, GetSubBlockIdx, GetSubBlockNum,
// GetTaskRation, g_coreType, ASCEND_IS_AIC / ASCEND_IS_AIV), the kernel types a kernel declares,
// CrossCoreSetFlag / CrossCoreWaitFlag modes 0, 1 and 2 with their counters and deadlocks, the
// Matmul API in a mixed kernel, and the timing model's critical path through a group.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <iostream>
#include <mutex>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "aopt_sim/runtime.h"
#include "aopt_sim/timing.h"
#include "kernel_operator.h"
#include "lib/matmul_intf.h"
#include "platform/platform_infos_def.h"
#include "tiling/tiling_api.h"

using namespace AscendC;
using aopt::sim::core_kind;
using aopt::sim::hw_error_kind;
using aopt::sim::kernel_type;

namespace {

aopt::sim::launch_result run_mix(kernel_type t, std::uint32_t blocks, const std::function<void()>& body) {
  aopt::sim::launch_options o;
  o.kernel = t;
  o.block_dim = blocks;
  return aopt::sim::launch(o, body);
}

struct seen_core {
  bool aic = false;
  std::int64_t idx = 0, num = 0, sub = 0, sub_num = 0, ratio = 0;
  bool g_aic = false, is_aiv = false;
  bool operator<(const seen_core& o) const { return std::tie(aic, idx) < std::tie(o.aic, o.idx); }
};

std::vector<seen_core> cores_of(kernel_type t, std::uint32_t blocks) {
  std::mutex mu;
  std::vector<seen_core> seen;
  const auto r = run_mix(t, blocks, [&] {
    seen_core s;
    s.aic = ASCEND_IS_AIC;
    s.is_aiv = ASCEND_IS_AIV;
    s.g_aic = g_coreType == AIC;
    s.idx = GetBlockIdx();
    s.num = GetBlockNum();
    s.sub = GetSubBlockIdx();
    s.sub_num = GetSubBlockNum();
    s.ratio = GetTaskRation();
    std::lock_guard lk(mu);
    seen.push_back(s);
  });
  EXPECT_FALSE(r.error) << r.error->to_string();
  std::sort(seen.begin(), seen.end());
  return seen;
}

// KERNEL_TYPE_MIX_AIC_1_2 with block dim 3: three AICs (block index 0..2) and six AIVs (0..5, the
// two of AI Core g at 2g and 2g + 1, sub-blocks 0 and 1); GetBlockNum is 3 on all of them; ratio
// and sub-block number 2 on the AIVs, 1 on the AICs (the reference's tables).
TEST(MixLaunch, OneAicAndTwoAivsPerBlock) {
  const auto seen = cores_of(kernel_type::mix_aic_1_2, 3);
  ASSERT_EQ(seen.size(), 9u);
  for (int i = 0; i < 6; ++i) {
    const auto& s = seen[static_cast<std::size_t>(i)];
    SCOPED_TRACE("AIV " + std::to_string(i));
    EXPECT_FALSE(s.aic);
    EXPECT_TRUE(s.is_aiv);
    EXPECT_FALSE(s.g_aic);
    EXPECT_EQ(s.idx, i);
    EXPECT_EQ(s.num, 3);
    EXPECT_EQ(s.sub, i % 2);
    EXPECT_EQ(s.sub_num, 2);
    EXPECT_EQ(s.ratio, 2);
  }
  for (int i = 0; i < 3; ++i) {
    const auto& s = seen[static_cast<std::size_t>(6 + i)];
    SCOPED_TRACE("AIC " + std::to_string(i));
    EXPECT_TRUE(s.aic);
    EXPECT_FALSE(s.is_aiv);
    EXPECT_TRUE(s.g_aic);
    EXPECT_EQ(s.idx, i);
    EXPECT_EQ(s.num, 3);
    EXPECT_EQ(s.sub, 0);
    EXPECT_EQ(s.sub_num, 1);
    EXPECT_EQ(s.ratio, 1);
  }
}

TEST(MixLaunch, OneToOneAndTheSingleKinds) {
  const auto mix11 = cores_of(kernel_type::mix_aic_1_1, 2);
  ASSERT_EQ(mix11.size(), 4u);
  EXPECT_EQ(std::count_if(mix11.begin(), mix11.end(), [](const seen_core& s) { return s.aic; }), 2);
  for (const auto& s : mix11) {
    EXPECT_EQ(s.sub, 0);
    EXPECT_EQ(s.ratio, 1);
    EXPECT_LT(s.idx, 2);
  }
  const auto aic = cores_of(kernel_type::aic_only, 2);
  ASSERT_EQ(aic.size(), 2u);
  EXPECT_TRUE(aic[0].aic && aic[1].aic);
  const auto aiv = cores_of(kernel_type::aiv_only, 2);
  ASSERT_EQ(aiv.size(), 2u);
  EXPECT_TRUE(!aiv[0].aic && !aiv[1].aic);
  EXPECT_EQ(aiv[1].ratio, 1);
}

// The kernel type is read when the kernel is loaded, wherever the macro stands: this function
// never runs, yet its declarations are known.
[[maybe_unused]] void declaring_kernel() {
  KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_MIX_AIC_1_2);
  if (TILING_KEY_IS(777)) {
    KERNEL_TASK_TYPE(777, KERNEL_TYPE_MIX_AIC_1_1);
  }
}

TEST(MixLaunch, KernelTypesAreDeclaredWhenTheKernelLoads) {
  EXPECT_EQ(aopt::sim::declared_kernel_type(777), kernel_type::mix_aic_1_1);
  EXPECT_EQ(aopt::sim::declared_kernel_type(1), kernel_type::mix_aic_1_2);
  aopt::sim::clear_declared_kernel_types();
  EXPECT_FALSE(aopt::sim::declared_kernel_type(1).has_value());
}

// A kernel that instantiates the Matmul API and declares nothing runs MIX AIC:AIV 1:2 (the
// toolchain's inference, runtime.h); any declaration wins over it, and clearing forgets it.
TEST(MixLaunch, AnInferredKernelTypeYieldsToADeclaration) {
  aopt::sim::clear_declared_kernel_types();
  aopt::sim::declare_inferred_kernel_type(kernel_type::mix_aic_1_2);
  EXPECT_EQ(aopt::sim::declared_kernel_type(5), kernel_type::mix_aic_1_2);
  aopt::sim::declare_kernel_type(kernel_type::aiv_only, false, 0);
  EXPECT_EQ(aopt::sim::declared_kernel_type(5), kernel_type::aiv_only);
  aopt::sim::declare_kernel_type(kernel_type::mix_aic_1_1, true, 5);
  EXPECT_EQ(aopt::sim::declared_kernel_type(5), kernel_type::mix_aic_1_1);
  aopt::sim::clear_declared_kernel_types();
  EXPECT_FALSE(aopt::sim::declared_kernel_type(5).has_value());
}

// Mode 2 both ways: the AIVs write their part, set; the AIC waits for both, sums, sets back; each
// AIV waits and reads the AIC's answer. Repeated, so the counters must pair each round.
TEST(CrossCore, Mode2PairsAnAicWithItsTwoAivs) {
  constexpr int blocks = 2, rounds = 3;
  std::vector<int> part(blocks * 2, 0), sum(blocks, 0), got(blocks * 2 * rounds, -1);
  const auto r = run_mix(kernel_type::mix_aic_1_2, blocks, [&] {
    for (int k = 0; k < rounds; ++k) {
      if ASCEND_IS_AIV {
        part[static_cast<std::size_t>(GetBlockIdx())] = 10 * k + static_cast<int>(GetBlockIdx());
        CrossCoreSetFlag<2, PIPE_MTE3>(4);
        CrossCoreWaitFlag(5);
        got[static_cast<std::size_t>(GetBlockIdx() * rounds + k)] = sum[static_cast<std::size_t>(GetBlockIdx() / 2)];
      }
      if ASCEND_IS_AIC {
        CrossCoreWaitFlag(4);
        const auto g = static_cast<std::size_t>(GetBlockIdx());
        sum[g] = part[2 * g] + part[2 * g + 1];
        CrossCoreSetFlag<2, PIPE_FIX>(5);
      }
    }
  });
  ASSERT_FALSE(r.error) << r.error->to_string();
  for (int v = 0; v < blocks * 2; ++v)
    for (int k = 0; k < rounds; ++k) {
      const int g = v / 2;
      EXPECT_EQ(got[static_cast<std::size_t>(v * rounds + k)], 20 * k + 4 * g + 1) << "AIV " << v << " round " << k;
    }
}

// Mode 1: the two AIVs of one AI Core meet; another AI Core's AIVs are not involved (block 1's
// AIVs never set, and block 0 still goes on).
TEST(CrossCore, Mode1SynchronisesTheAivsOfOneAiCore) {
  std::vector<int> v(2, 0), seen(2, -1);
  const auto r = run_mix(kernel_type::mix_aic_1_2, 2, [&] {
    if (!(ASCEND_IS_AIV) || GetBlockIdx() >= 2) return;
    const auto me = static_cast<std::size_t>(GetSubBlockIdx());
    v[me] = 7 + static_cast<int>(me);
    CrossCoreSetFlag<1, PIPE_MTE3>(0);
    CrossCoreWaitFlag(0);
    seen[me] = v[1 - me];
  });
  ASSERT_FALSE(r.error) << r.error->to_string();
  EXPECT_EQ(seen, (std::vector<int>{8, 7}));
}

// Mode 0 on the AICs of a mixed kernel: all AICs meet, the AIVs are not counted.
TEST(CrossCore, Mode0SynchronisesEveryAicAlone) {
  std::vector<int> v(3, 0), seen(3, -1);
  const auto r = run_mix(kernel_type::mix_aic_1_2, 3, [&] {
    if (!(ASCEND_IS_AIC)) return;
    const auto me = static_cast<std::size_t>(GetBlockIdx());
    v[me] = 1 + static_cast<int>(me);
    CrossCoreSetFlag<0, PIPE_FIX>(3);
    CrossCoreWaitFlag(3);
    seen[me] = v[0] + v[1] + v[2];
  });
  ASSERT_FALSE(r.error) << r.error->to_string();
  EXPECT_EQ(seen, (std::vector<int>{6, 6, 6}));
}

// A wait no core will ever satisfy is a named error, not a hang: the AIC waits for its AIVs, which
// return without setting; an AIV waits for one AIV of a pair that never sets (mode 2 needs both).
TEST(CrossCore, AWaitNoCoreSatisfiesIsADeadlock) {
  const auto r = run_mix(kernel_type::mix_aic_1_2, 2, [&] {
    if ASCEND_IS_AIC {
      CrossCoreWaitFlag(6);
    }
  });
  ASSERT_TRUE(r.error);
  EXPECT_EQ(r.error->kind, hw_error_kind::deadlock) << r.error->to_string();
  EXPECT_NE(r.error->message.find("the AIC of block"), std::string::npos) << r.error->message;
  EXPECT_NE(r.error->message.find("CrossCoreWaitFlag(6)"), std::string::npos) << r.error->message;
  const auto half = run_mix(kernel_type::mix_aic_1_2, 1, [&] {
    if ASCEND_IS_AIV {
      if (GetSubBlockIdx() == 0) CrossCoreSetFlag<2, PIPE_V>(2);
    }
    if ASCEND_IS_AIC {
      CrossCoreWaitFlag(2);  // needs both AIVs' sets
    }
  });
  ASSERT_TRUE(half.error);
  EXPECT_EQ(half.error->kind, hw_error_kind::deadlock) << half.error->to_string();
}

// Each counter holds 0..15: the 16th set the receivers have not waited for is an error.
TEST(CrossCore, ACounterPast15IsAnError) {
  const auto r = run_mix(kernel_type::mix_aic_1_1, 1, [&] {
    if ASCEND_IS_AIC {
      for (int i = 0; i < 16; ++i) CrossCoreSetFlag<2, PIPE_FIX>(1);
    }
  });
  ASSERT_TRUE(r.error);
  EXPECT_EQ(r.error->kind, hw_error_kind::param_out_of_range) << r.error->to_string();
  EXPECT_NE(r.error->message.find("past 15"), std::string::npos) << r.error->message;
  const auto fifteen = run_mix(kernel_type::mix_aic_1_1, 1, [&] {
    if ASCEND_IS_AIC {
      for (int i = 0; i < 15; ++i) CrossCoreSetFlag<2, PIPE_FIX>(1);
    }
  });
  EXPECT_FALSE(fifteen.error) << fifteen.error->to_string();
}

TEST(CrossCore, Modes1And2NeedAMixedKernel) {
  const auto r = run_mix(kernel_type::aic_only, 1, [] { CrossCoreSetFlag<2, PIPE_FIX>(1); });
  ASSERT_TRUE(r.error);
  EXPECT_EQ(r.error->kind, hw_error_kind::invalid_use);
  EXPECT_NE(r.error->message.find("KERNEL_TYPE_MIX_AIC_1_2"), std::string::npos) << r.error->message;
}

// SyncAll<true> in a mixed kernel meets the AIVs only (the AICs returned long before).
TEST(CrossCore, SyncAllInAMixedKernelMeetsTheAivs) {
  std::vector<int> v(4, 0), seen(4, -1);
  const auto r = run_mix(kernel_type::mix_aic_1_2, 2, [&] {
    if ASCEND_IS_AIC {
      return;
    }
    const auto me = static_cast<std::size_t>(GetBlockIdx());
    v[me] = 1;
    SyncAll();
    seen[me] = v[0] + v[1] + v[2] + v[3];
  });
  ASSERT_FALSE(r.error) << r.error->to_string();
  EXPECT_EQ(seen, (std::vector<int>{4, 4, 4, 4}));
}

// ---- the Matmul API in a mixed kernel --------------------------------------------------------

std::uint32_t seed() {
  static const std::uint32_t s = [] {
    const char* e = std::getenv("AOPT_TEST_SEED");
    const std::uint32_t v = e ? static_cast<std::uint32_t>(std::strtoul(e, nullptr, 10)) : 3838u;
    std::cout << "[sim_mix] random seed " << v << " (set AOPT_TEST_SEED to change)\n";
    return v;
  }();
  return s;
}

struct gm_buf {
  void* p = nullptr;
  explicit gm_buf(std::size_t bytes, const char* name) : p(aopt::sim::gm_alloc(bytes, name)) {}
  ~gm_buf() { aopt::sim::gm_free(p); }
  gm_buf(const gm_buf&) = delete;
  gm_buf& operator=(const gm_buf&) = delete;
  template <class T>
  T* as() const {
    return static_cast<T*>(p);
  }
};

// As real mixed kernels write it: REGIST_MATMUL_OBJ on every core (the AIC serves and returns),
// the AIV sets A and B from GM, iterates, takes C to UB and post-processes it there (ReLU), then
// writes it out. 4 AIVs (2 AI Cores, 1:2) each own a 32-row slice of C = relu(A x B).
TEST(MixMatmul, AivsDriveTheMatmulAndPostProcessInUb) {
  constexpr int M = 128, N = 32, K = 64, aivs = 4, rows = M / aivs;
  matmul_tiling::MultiCoreMatmulTiling host;
  host.SetAType(matmul_tiling::TPosition::GM, matmul_tiling::CubeFormat::ND, matmul_tiling::DataType::DT_FLOAT16);
  host.SetBType(matmul_tiling::TPosition::GM, matmul_tiling::CubeFormat::ND, matmul_tiling::DataType::DT_FLOAT16);
  host.SetCType(matmul_tiling::TPosition::VECCALC, matmul_tiling::CubeFormat::ND, matmul_tiling::DataType::DT_FLOAT);
  host.SetBias(false);
  host.SetDim(1);
  host.SetShape(rows, N, K);
  host.SetOrgShape(M, N, K);
  host.SetFixSplit(rows, N, -1);
  optiling::TCubeTiling t;
  ASSERT_EQ(host.GetTiling(t), 0);
  gm_buf a(sizeof(half) * M * K, "a"), b(sizeof(half) * K * N, "b"), c(sizeof(float) * M * N, "c");
  std::mt19937 g(seed());
  std::uniform_real_distribution<float> d(-1.0f, 1.0f);
  std::vector<double> av(M * K), bv(K * N);
  for (int i = 0; i < M * K; ++i) {
    a.as<half>()[i] = half(d(g));
    av[static_cast<std::size_t>(i)] = static_cast<float>(a.as<half>()[i]);
  }
  for (int i = 0; i < K * N; ++i) {
    b.as<half>()[i] = half(d(g));
    bv[static_cast<std::size_t>(i)] = static_cast<float>(b.as<half>()[i]);
  }
  std::vector<int> aic_after_regist(2, 0);
  const auto r = run_mix(kernel_type::mix_aic_1_2, 2, [&] {
    using A_T = MatmulType<TPosition::GM, CubeFormat::ND, half>;
    using C_T = MatmulType<TPosition::GM, CubeFormat::ND, float>;
    TPipe pipe;
    Matmul<A_T, A_T, C_T, C_T> mm;
    REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, &t);
    if ASCEND_IS_AIC {
      ++aic_after_regist[static_cast<std::size_t>(GetBlockIdx())];  // never: the AIC returned
    }
    const auto me = static_cast<int>(GetBlockIdx());
    GlobalTensor<half> aG, bG;
    GlobalTensor<float> cG;
    aG.SetGlobalBuffer(a.as<half>() + me * rows * K);
    bG.SetGlobalBuffer(b.as<half>());
    cG.SetGlobalBuffer(c.as<float>() + me * rows * N);
    TBuf<TPosition::VECCALC> ub;
    pipe.InitBuffer(ub, rows * N * sizeof(float));
    LocalTensor<float> cl = ub.Get<float>();
    mm.SetTensorA(aG);
    mm.SetTensorB(bG);
    while (mm.Iterate()) mm.GetTensorC(cl);
    mm.End();
    Relu(cl, cl, rows * N);
    DataCopy(cG, cl, rows * N);
  });
  ASSERT_FALSE(r.error) << r.error->to_string();
  EXPECT_EQ(aic_after_regist, (std::vector<int>{0, 0}));
  int bad = 0;
  for (int i = 0; i < M && bad < 5; ++i)
    for (int j = 0; j < N && bad < 5; ++j) {
      double s = 0;
      for (int k = 0; k < K; ++k) s += av[static_cast<std::size_t>(i * K + k)] * bv[static_cast<std::size_t>(k * N + j)];
      const double want = std::max(0.0, s);
      const double got = c.as<float>()[i * N + j];
      if (std::fabs(got - want) > 1e-3) {
        ++bad;
        ADD_FAILURE() << "C[" << i << "][" << j << "] = " << got << ", want " << want;
      }
    }
}

// ---- timing: the group's critical path ---------------------------------------------------------

// `tiles` rounds: the AIC computes a tile (two Mmads 128 x 128 x 256) and tells its AIVs (mode 2,
// flag 1); each AIV waits for it and post-processes it (an Adds over 128 KiB of UB: shorter). When
// `serial`, the AIC also waits for both AIVs (flag 2) before its next tile; else the next Mmad runs
// while the AIVs work on the previous tile, and the vector work hides behind it.
aopt::sim::timing_report cube_feeds_vector(bool serial, int tiles) {
  const auto r = run_mix(kernel_type::mix_aic_1_2, 1, [&] {
    TPipe pipe;
    if ASCEND_IS_AIC {
      TBuf<TPosition::A2> a2;
      TBuf<TPosition::B2> b2;
      TBuf<TPosition::CO1> co1;
      pipe.InitBuffer(a2, 64 * 1024);
      pipe.InitBuffer(b2, 64 * 1024);
      pipe.InitBuffer(co1, 64 * 1024);
      for (int i = 0; i < tiles; ++i) {
        if (serial && i > 0) CrossCoreWaitFlag(2);
        MmadParams p;
        p.m = 128;
        p.n = 128;
        p.k = 256;
        for (int j = 0; j < 2; ++j) Mmad(co1.Get<float>(), a2.Get<half>(), b2.Get<half>(), p);
        CrossCoreSetFlag<2, PIPE_M>(1);
      }
    }
    if ASCEND_IS_AIV {
      TBuf<TPosition::VECCALC> ub;
      pipe.InitBuffer(ub, 128 * 1024);
      LocalTensor<float> x = ub.Get<float>();  // its values do not matter here
      for (int i = 0; i < tiles; ++i) {
        CrossCoreWaitFlag(1);
        Adds(x, x, 1.0f, 32768);
        if (serial) CrossCoreSetFlag<2, PIPE_V>(2);
      }
    }
  });
  EXPECT_FALSE(r.error) << r.error->to_string();
  static const auto profile = aopt::sim::load_profile("910b4");
  aopt::sim::timing_options o;
  o.cores = 3 * profile.aic_cores;
  return aopt::sim::simulate(r.cores, profile, o);
}

TEST(MixTiming, VectorPostProcessingHidesBehindTheNextMatmul) {
  constexpr int tiles = 6;
  const auto pipelined = cube_feeds_vector(false, tiles);
  const auto serial = cube_feeds_vector(true, tiles);
  ASSERT_FALSE(pipelined.error) << pipelined.error->to_string();
  ASSERT_FALSE(serial.error) << serial.error->to_string();
  ASSERT_EQ(pipelined.blocks.size(), 3u);
  const double mac = pipelined.blocks[0].mac_us;   // the AIC's M pipe
  const double vec = pipelined.blocks[1].vec_us;   // one AIV's V pipe
  std::printf("cube %.2f us, vector %.2f us per core; pipelined %.2f us, serial %.2f us\n", mac, vec,
              pipelined.aiv_time_us, serial.aiv_time_us);
  ASSERT_GT(mac, 0.0);
  ASSERT_GT(vec, 0.0);
  // Serial: every tile's matmul then its vector work, one after the other.
  EXPECT_GT(serial.aiv_time_us, 0.9 * (mac + vec));
  // Pipelined: the critical path is every tile's cube work and the last tile's vector work (the
  // vector work of the others hides behind the next matmul); the AIVs never run ahead of a tile.
  const double one_post = vec / tiles;
  ASSERT_LT(vec, mac) << "the fixture's vector work should be the shorter";
  EXPECT_GT(pipelined.aiv_time_us, 0.97 * (mac + one_post));
  EXPECT_LT(pipelined.aiv_time_us, 1.1 * (mac + one_post));
  EXPECT_LT(pipelined.aiv_time_us, 0.85 * serial.aiv_time_us);
}

// The mixed cube operators' next cause (docs/corpus-cube.md): cann-ops' cube_tiling_runtime.h
// includes platform/platform_infos_def.h for fe::PlatFormInfos (does not compile on main).
TEST(MixOperatorsHost, PlatformInfosDefDeclaresPlatFormInfos) {
  fe::PlatFormInfos info;
  EXPECT_GT(info.aiv_cores, 0u);
}

}  // namespace
