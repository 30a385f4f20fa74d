// The Cube's mode registers and raw intrinsics that cann-ops' convolution-gradient kernels call
// (branch s32-conv): SetHF32Mode / SetHF32TransMode (conv3d_backprop_filter_v2) and their effect on
// a float Mmad, copy_gm_to_cbuf / asc_copy_gm2l1 (conv2d_backprop_filter_v2) with the burst
// parameters of asc_copy_gm2l1_arch_2201.md, and the Cube's address-space qualifiers.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "aopt_sim/runtime.h"
#include "aopt_sim/timing.h"
#include "kernel_operator.h"
#include "sim_core_test_util.h"

using namespace AscendC;
using aopt::sim::hw_error_kind;
using aopt::sim::test::gm_buffer;
using aopt::sim::test::run;

namespace {

// One 16 x 16 x 8 float Mmad (one fractal each: A Zz a[m * 8 + k], B Zn b[n * 8 + k], C Nz
// c[m * 16 + n]) with values that are not exact in fewer mantissa bits; `hf32` sets the mode first.
std::vector<float> float_mmad(bool hf32) {
  std::vector<float> out(256);
  auto r = run(1, [&] {
    TPipe pipe;
    TBuf<TPosition::A2> a2;
    TBuf<TPosition::B2> b2;
    TBuf<TPosition::CO1> c;
    pipe.InitBuffer(a2, 16 * 8 * 4);
    pipe.InitBuffer(b2, 16 * 8 * 4);
    pipe.InitBuffer(c, 256 * 4);
    float* a = a2.Get<float>().aopt_ptr();
    float* b = b2.Get<float>().aopt_ptr();
    for (int i = 0; i < 128; ++i) {
      a[i] = 1.0f + static_cast<float>(i) * 1.0e-6f;
      b[i] = 1.0f / static_cast<float>(i + 3);
    }
    if (hf32) SetHF32Mode(true);
    MmadParams p;
    p.m = 16; p.n = 16; p.k = 8;
    Mmad(c.Get<float>(), a2.Get<float>(), b2.Get<float>(), p);
    std::memcpy(out.data(), c.Get<float>().aopt_ptr(), sizeof(float) * 256);
  });
  EXPECT_FALSE(r.error) << (r.error ? r.error->to_string() : "");
  return out;
}

TEST(CubeHf32, TheModeRegisterTakesBothDocumentedForms) {
  auto r = run(1, [] {
    EXPECT_FALSE(aopt_hf32_enabled());  // DISABLE at the start of a core
    SetHF32Mode(HF32Mode::ENABLE);
    EXPECT_TRUE(aopt_hf32_enabled());
    SetHF32Mode(false);  // the earlier bool form: false = the ordinary fp32 Mmad
    EXPECT_FALSE(aopt_hf32_enabled());
    const std::uint32_t tilingFlag = 1;  // as conv3d_backprop_filter_v2 passes its tiling's hf32Flag
    SetHF32Mode(tilingFlag);
    EXPECT_TRUE(aopt_hf32_enabled());
    SetHF32TransMode(HF32TransMode::NEAREST_ZERO);
    EXPECT_TRUE(aopt_hf32_toward_zero());
    SetHF32TransMode(false);  // bool form: false = to nearest even
    EXPECT_FALSE(aopt_hf32_toward_zero());
  });
  EXPECT_FALSE(r.error) << (r.error ? r.error->to_string() : "");
  // A new core starts with the mode off again.
  auto r2 = run(1, [] { EXPECT_FALSE(aopt_hf32_enabled()); });
  EXPECT_FALSE(r2.error);
}

TEST(CubeHf32, FloatMmadKeepsFp32ValuesUnderHf32) {
  // The HF32 mantissa width of 910B-class chips is not public: the values stay fp32 [ASSUMED].
  const auto plain = float_mmad(false);
  const auto hf32 = float_mmad(true);
  for (int m = 0; m < 16; ++m) {
    for (int n = 0; n < 16; ++n) {
      double want = 0;
      for (int k = 0; k < 8; ++k) {
        want += static_cast<double>(1.0f + static_cast<float>(m * 8 + k) * 1.0e-6f) /
                static_cast<double>(n * 8 + k + 3);
      }
      EXPECT_NEAR(plain[m * 16 + n], want, 1e-5) << m << "," << n;
      EXPECT_EQ(plain[m * 16 + n], hf32[m * 16 + n]) << m << "," << n;
    }
  }
}

TEST(CubeHf32, Hf32DoublesTheFloatMmadRate) {
  static const auto profile = aopt::sim::load_profile("910b4");
  auto timed = [&](bool hf32) {
    auto r = run(1, [hf32] {
      TPipe pipe;
      TBuf<TPosition::A2> a2;
      TBuf<TPosition::B2> b2;
      TBuf<TPosition::CO1> c;
      pipe.InitBuffer(a2, 64 * 1024);
      pipe.InitBuffer(b2, 64 * 1024);
      pipe.InitBuffer(c, 128 * 1024);
      SetHF32Mode(hf32 ? HF32Mode::ENABLE : HF32Mode::DISABLE);
      MmadParams p;
      p.m = 128; p.n = 128; p.k = 128;
      Mmad(c.Get<float>(), a2.Get<float>(), b2.Get<float>(), p);
    });
    EXPECT_FALSE(r.error) << (r.error ? r.error->to_string() : "");
    return aopt::sim::simulate(r.cores, profile).mac_us;
  };
  // 910b4, 1.5 GHz: 8 x 16 x 8 fractal steps (k-blocks of 8 floats), 2 cycles each for fp32 and
  // 1 under HF32 (asc_enable_hf32.md: cube_k 4 -> 8), + 10 head cycles.
  EXPECT_NEAR(timed(false), (1024.0 * 2 + 10.0) / 1500.0, 1e-6);
  EXPECT_NEAR(timed(true), (1024.0 + 10.0) / 1500.0, 1e-6);
}

// GM bytes 0, 1, 2, ... copied into L1 with copy_gm_to_cbuf; returns L1's first `n` bytes.
std::vector<std::uint8_t> gm_to_l1(std::uint16_t n_burst, std::uint16_t len_burst, std::uint16_t src_gap,
                                   std::uint16_t dst_gap, std::size_t n, bool c_api = false) {
  gm_buffer g(4096, "src");
  for (int i = 0; i < 4096; ++i) g.get()[i] = static_cast<std::uint8_t>(i % 251);
  std::vector<std::uint8_t> out(n);
  auto r = run(1, [&] {
    TPipe pipe;
    TBuf<TPosition::A1> a1;
    pipe.InitBuffer(a1, 4096);
    auto l1 = a1.Get<std::uint8_t>();
    std::memset(l1.aopt_ptr(), 0xEE, 4096);
    if (c_api) {
      asc_copy_gm2l1((__cbuf__ void*)l1.GetPhyAddr(), (__gm__ void*)g.get(), n_burst, len_burst, src_gap, dst_gap);
    } else {
      copy_gm_to_cbuf((__cbuf__ void*)l1.GetPhyAddr(), (__gm__ void*)g.get(), (int8_t)0, n_burst, len_burst, src_gap,
                      dst_gap, PAD_NONE);
    }
    std::memcpy(out.data(), l1.aopt_ptr(), n);
  });
  EXPECT_FALSE(r.error) << (r.error ? r.error->to_string() : "");
  return out;
}

TEST(CopyGmToCbuf, BurstsAndGapsAreDataBlocksOf32Bytes) {
  // 3 bursts of 2 blocks; 1 block skipped in GM and 2 left in L1 between bursts.
  const auto l1 = gm_to_l1(3, 2, 1, 2, 3 * (2 + 2) * 32);
  for (int burst = 0; burst < 3; ++burst) {
    for (int i = 0; i < 64; ++i) {
      EXPECT_EQ(l1[burst * 128 + i], (burst * 96 + i) % 251) << "burst " << burst << " byte " << i;
    }
    if (burst < 2) {
      for (int i = 64; i < 128; ++i) EXPECT_EQ(l1[burst * 128 + i], 0xEE) << "the dst gap is left alone";
    }
  }
  // The C API's form moves the same bytes.
  EXPECT_EQ(gm_to_l1(3, 2, 1, 2, 3 * 4 * 32, true), l1);
}

// The removing pad modes (asc_copy_gm2l1_pad6/7/8: of every 32-byte block the lowest 4/8/16 bytes
// are stored one after another), by the intrinsic's PAD_MODEn and by the C API's name; src_gap
// still counts 32-byte source blocks.
TEST(CopyGmToCbuf, RemovingPadModesKeepTheLowBytesOfEachBlock) {
  gm_buffer g(4096, "src");
  for (int i = 0; i < 4096; ++i) g.get()[i] = static_cast<std::uint8_t>(i % 251);
  for (const auto& [mode, keep] : {std::pair{PAD_MODE6, 4}, std::pair{PAD_MODE7, 8}, std::pair{PAD_MODE8, 16}}) {
    for (const bool c_api : {false, true}) {
      std::vector<std::uint8_t> out(512);
      auto r = run(1, [&] {
        TPipe pipe;
        TBuf<TPosition::B1> b1;
        pipe.InitBuffer(b1, 1024);
        auto l1 = b1.Get<std::uint8_t>();
        std::memset(l1.aopt_ptr(), 0xEE, 1024);
        void* dst = (__cbuf__ void*)l1.GetPhyAddr();
        if (!c_api) {
          copy_gm_to_cbuf(dst, (__gm__ void*)g.get(), (int8_t)0, 2, 3, 1, 0, mode);
        } else if (mode == PAD_MODE6) {
          asc_copy_gm2l1_pad6(dst, (__gm__ void*)g.get(), 2, 3, 1, 0);
        } else if (mode == PAD_MODE7) {
          asc_copy_gm2l1_pad7(dst, (__gm__ void*)g.get(), 2, 3, 1, 0);
        } else {
          asc_copy_gm2l1_pad8(dst, (__gm__ void*)g.get(), 2, 3, 1, 0);
        }
        std::memcpy(out.data(), l1.aopt_ptr(), out.size());
      });
      ASSERT_FALSE(r.error) << r.error->to_string();
      SCOPED_TRACE("PAD_MODE" + std::to_string(static_cast<int>(mode)) + (c_api ? " (C API)" : ""));
      // 2 bursts of 3 blocks, one block skipped in GM between them: source blocks 0, 1, 2, 4, 5, 6.
      const int blocks[] = {0, 1, 2, 4, 5, 6};
      for (int b = 0; b < 6; ++b) {
        for (int i = 0; i < keep; ++i) EXPECT_EQ(out[b * keep + i], (blocks[b] * 32 + i) % 251) << "block " << b << " byte " << i;
      }
      EXPECT_EQ(out[6 * keep], 0xEE) << "nothing past the kept bytes";
    }
  }
}

TEST(CopyGmToCbuf, UndocumentedPadModesAndNonL1DestinationsAreRefused) {
  gm_buffer g(1024, "src");
  // The inserting modes (asc_copy_gm2l1_pad1..5) do not say what the inserted bytes hold.
  auto padded = run(1, [&] {
    TPipe pipe;
    TBuf<TPosition::B1> b1;
    pipe.InitBuffer(b1, 1024);
    copy_gm_to_cbuf((__cbuf__ void*)b1.Get<half>().GetPhyAddr(), (__gm__ void*)g.get(), (int8_t)0, 1, 4, 0, 0,
                    PAD_MODE3);
  });
  ASSERT_TRUE(padded.error);
  EXPECT_EQ(padded.error->kind, hw_error_kind::invalid_use);
  EXPECT_NE(padded.error->message.find("PAD_MODE3"), std::string::npos) << padded.error->message;
  // A removing mode with a destination gap: its unit is not documented.
  auto gap = run(1, [&] {
    TPipe pipe;
    TBuf<TPosition::B1> b1;
    pipe.InitBuffer(b1, 1024);
    copy_gm_to_cbuf((__cbuf__ void*)b1.Get<half>().GetPhyAddr(), (__gm__ void*)g.get(), (int8_t)0, 2, 4, 0, 1,
                    PAD_MODE7);
  });
  ASSERT_TRUE(gap.error);
  EXPECT_NE(gap.error->message.find("dst_gap"), std::string::npos) << gap.error->message;
  auto in_ub = run(1, [&] {
    TPipe pipe;
    TBuf<TPosition::VECCALC> ub;
    pipe.InitBuffer(ub, 1024);
    copy_gm_to_cbuf((__cbuf__ void*)ub.Get<half>().GetPhyAddr(), (__gm__ void*)g.get(), (int8_t)0, 1, 4, 0, 0,
                    PAD_NONE);
  });
  ASSERT_TRUE(in_ub.error);
  EXPECT_NE(in_ub.error->message.find("L1"), std::string::npos) << in_ub.error->message;
  auto zero = run(1, [&] {
    TPipe pipe;
    TBuf<TPosition::A1> a1;
    pipe.InitBuffer(a1, 1024);
    asc_copy_gm2l1((__cbuf__ void*)a1.Get<half>().GetPhyAddr(), (__gm__ void*)g.get(), 0, 4, 0, 0);
  });
  ASSERT_TRUE(zero.error);
  EXPECT_EQ(zero.error->kind, hw_error_kind::param_out_of_range);
}

TEST(CubePositions, TscmAllocatesFromL1) {
  // "L1 Buffer同时映射到A1、B1、C1和TSCM" (基础API/数据搬运导览/概览/数据通路.md): a TSCM buffer larger
  // than UB (conv3d_backprop_filter_v2's init-output buffer) comes from L1.
  auto r = run(1, [] {
    TPipe pipe;
    TBuf<TPosition::TSCM> l1;
    pipe.InitBuffer(l1, 256 * 1024);
    EXPECT_EQ(aopt::sim::local_mem_of(l1.Get<float>().aopt_addr()), aopt::sim::local_mem::l1);
  });
  EXPECT_FALSE(r.error) << (r.error ? r.error->to_string() : "");
}

TEST(CubeQualifiers, TheAddressSpaceQualifiersCompile) {
  // SIMD-BuiltIn关键字.md: __ca__ L0A, __cb__ L0B, __cc__ L0C, __cbuf__ L1, __fbuf__ fixpipe buffer.
  __ca__ half* a = nullptr;
  __cb__ half* b = nullptr;
  __cc__ float* c = nullptr;
  __cbuf__ half* l1 = nullptr;
  __fbuf__ std::uint64_t* fb = nullptr;
  EXPECT_EQ(a, nullptr);
  EXPECT_EQ(b, nullptr);
  EXPECT_EQ(c, nullptr);
  EXPECT_EQ(l1, nullptr);
  EXPECT_EQ(fb, nullptr);
}

}  // namespace

namespace {
TEST(CubeKernelType, CubeUseInfersAicOnlyAndTheMatmulApiMixWins) {
  using aopt::sim::kernel_type;
  aopt::sim::clear_declared_kernel_types();
  EXPECT_FALSE(aopt::sim::declared_kernel_type(0).has_value());
  aopt::sim::declare_inferred_kernel_type(kernel_type::aic_only);  // a kernel's Mmad (cube_use_mark)
  EXPECT_EQ(aopt::sim::declared_kernel_type(0), kernel_type::aic_only);
  aopt::sim::declare_inferred_kernel_type(kernel_type::mix_aic_1_2);  // its Matmul API (matmul_use_mark)
  aopt::sim::declare_inferred_kernel_type(kernel_type::aic_only);     // in either order
  EXPECT_EQ(aopt::sim::declared_kernel_type(0), kernel_type::mix_aic_1_2);
  aopt::sim::clear_declared_kernel_types();
}
}  // namespace

namespace {
// Launches one block of kernel type `k` and replays its trace on the timing model (where a wait
// that never goes on is found): the first error of either.
std::optional<aopt::sim::hw_error> run_kind(aopt::sim::kernel_type k, const std::function<void()>& body) {
  aopt::sim::launch_options o;
  o.kernel = k;
  o.block_dim = 1;
  const auto r = aopt::sim::launch(o, body);
  if (r.error) return r.error;
  static const auto profile = aopt::sim::load_profile("910b4");
  return aopt::sim::simulate(r.cores, profile).error;
}

// A TPipe made on the Cube core holds the M_MTE1 event ids 0, 1, 2 with their flags set, and its
// end waits on them: the tree's convolution kernels open their L0 ping-pong with
// WaitFlag<M_MTE1>(0) and leave the flag set (conv3d_backprop_filter_v2's conv_bp_func.h); a
// kernel's own AllocEventID<M_MTE1> starts at 3 (weight_quant_batch_matmul_v2).
TEST(CubeTPipe, TheAicPipeHoldsTheMMte1FlagsSet) {
  int first_alloc = -1;
  const auto aic = run_kind(aopt::sim::kernel_type::aic_only, [&] {
    TPipe pipe;
    for (int round = 0; round < 3; ++round) {
      WaitFlag<HardEvent::M_MTE1>(round % 2);
      SetFlag<HardEvent::M_MTE1>(round % 2);
    }
    first_alloc = GetTPipePtr()->AllocEventID<HardEvent::M_MTE1>();
    GetTPipePtr()->ReleaseEventID<HardEvent::M_MTE1>(first_alloc);
  });
  ASSERT_FALSE(aic) << aic->to_string();
  EXPECT_EQ(first_alloc, 3);
  // Not on a vector core: its pipe holds no M_MTE1 id.
  int aiv_alloc = -1;
  const auto aiv = run_kind(aopt::sim::kernel_type::aiv_only, [&] {
    TPipe pipe;
    aiv_alloc = GetTPipePtr()->AllocEventID<HardEvent::M_MTE1>();
  });
  ASSERT_FALSE(aiv) << aiv->to_string();
  EXPECT_EQ(aiv_alloc, 0);
  // Without the held flags the AIC's first wait would deadlock: a kernel that releases them
  // (Destroy waits on them) and waits again never goes on.
  const auto released = run_kind(aopt::sim::kernel_type::aic_only, [] {
    TPipe pipe;
    pipe.Destroy();
    WaitFlag<HardEvent::M_MTE1>(0);
  });
  ASSERT_TRUE(released);
  EXPECT_EQ(released->kind, hw_error_kind::deadlock) << released->to_string();
  // On the AIC a set of a held id without its wait is a second SetFlag (undefined on the chip).
  const auto twice = run_kind(aopt::sim::kernel_type::aic_only, [] {
    TPipe pipe;
    SetFlag<HardEvent::M_MTE1>(0);
  });
  ASSERT_TRUE(twice);
  EXPECT_NE(twice->message.find("still set"), std::string::npos) << twice->to_string();
}
}  // namespace

namespace {
// Fixpipe with NZ2ND takes an nSize that is not whole 16-column fractals (the NZ2ND page walks
// ceil(nSize / 16) blocks per row; conv3dv2's pointwise kernel writes 24 output channels so): only
// nSize columns of each row are written. The NZ output still needs whole fractals.
TEST(CubeFixpipe, Nz2NdWritesAPartialLastColumnBlock) {
  constexpr std::uint32_t m = 16, n = 24, dst_row = 32;
  gm_buffer gc(m * dst_row * 4, "c");
  std::fill_n(gc.as<float>(), m * dst_row, -1.0f);
  auto r = run(1, [&] {
    TPipe pipe;
    TBuf<TPosition::CO1> cb;
    pipe.InitBuffer(cb, 2 * 256 * 4);
    float* c = cb.Get<float>().aopt_ptr();
    // L0C in NZ: column block j / 16, row i, column j % 16.
    for (std::uint32_t i = 0; i < m; ++i)
      for (std::uint32_t j = 0; j < 32; ++j) c[(j / 16) * 256 + i * 16 + j % 16] = static_cast<float>(i * 100 + j);
    GlobalTensor<float> g;
    g.SetGlobalBuffer(gc.as<float>());
    FixpipeParamsV220 f(n, m, m, dst_row, false);
    Fixpipe<float, float, CFG_ROW_MAJOR>(g, cb.Get<float>(), f);
  });
  ASSERT_FALSE(r.error) << r.error->to_string();
  for (std::uint32_t i = 0; i < m; ++i) {
    for (std::uint32_t j = 0; j < dst_row; ++j) {
      const float want = j < n ? static_cast<float>(i * 100 + j) : -1.0f;
      ASSERT_EQ(gc.as<float>()[i * dst_row + j], want) << i << "," << j;
    }
  }
  auto nz = run(1, [&] {
    TPipe pipe;
    TBuf<TPosition::CO1> cb;
    pipe.InitBuffer(cb, 2 * 256 * 4);
    GlobalTensor<float> g;
    g.SetGlobalBuffer(gc.as<float>());
    FixpipeParamsV220 f(n, m, m, m * 2, false);
    Fixpipe<float, float, CFG_NZ>(g, cb.Get<float>(), f);
  });
  ASSERT_TRUE(nz.error);
  EXPECT_EQ(nz.error->kind, hw_error_kind::param_out_of_range) << nz.error->to_string();
}
}  // namespace

namespace {
// FixpipeParams<T>(cburstNum, burstLen, 0, 0) (conv3d_backprop_input_v2's workspace copy): one burst
// per 16-column block of L0C, burstLen 32-byte blocks of its float rows (M = burstLen * 32 / 64),
// written to GM in NZ with the quantParams' conversion; gaps are refused.
TEST(CubeFixpipe, FixpipeParamsCopiesGaplessBurstsInNz) {
  constexpr std::uint32_t m = 16, blocks = 2;
  gm_buffer gc(m * 16 * blocks * 2, "c");
  auto r = run(1, [&] {
    TPipe pipe;
    TBuf<TPosition::CO1> cb;
    pipe.InitBuffer(cb, blocks * 256 * 4);
    float* c = cb.Get<float>().aopt_ptr();
    for (std::uint32_t i = 0; i < blocks * 256; ++i) c[i] = static_cast<float>(i % 97) * 0.5f;
    GlobalTensor<half> g;
    g.SetGlobalBuffer(reinterpret_cast<half*>(gc.get()));
    FixpipeParams<float> p(blocks, m * 16 * sizeof(float) / 32, 0, 0);
    p.quantParams.quantPre = QuantMode_t::F322F16;
    Fixpipe(g, cb.Get<float>(), p);
  });
  ASSERT_FALSE(r.error) << r.error->to_string();
  for (std::uint32_t i = 0; i < blocks * 256; ++i) {
    ASSERT_EQ(static_cast<float>(reinterpret_cast<half*>(gc.get())[i]), static_cast<float>(i % 97) * 0.5f) << i;
  }
  auto gap = run(1, [&] {
    TPipe pipe;
    TBuf<TPosition::CO1> cb;
    pipe.InitBuffer(cb, blocks * 256 * 4);
    GlobalTensor<half> g;
    g.SetGlobalBuffer(reinterpret_cast<half*>(gc.get()));
    FixpipeParams<float> p(blocks, m * 16 * sizeof(float) / 32, 0, 1);
    Fixpipe(g, cb.Get<float>(), p);
  });
  ASSERT_TRUE(gap.error);
  EXPECT_EQ(gap.error->kind, hw_error_kind::invalid_use) << gap.error->to_string();
}
}  // namespace
