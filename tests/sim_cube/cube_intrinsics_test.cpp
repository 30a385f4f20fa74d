// The Cube's mode registers and raw intrinsics that cann-ops' convolution-gradient kernels call
// (branch s32-conv): SetHF32Mode / SetHF32TransMode (conv3d_backprop_filter_v2) and their effect on
// a float Mmad, copy_gm_to_cbuf / asc_copy_gm2l1 (conv2d_backprop_filter_v2) with the burst
// parameters of asc_copy_gm2l1_arch_2201.md, and the Cube's address-space qualifiers.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

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

TEST(CopyGmToCbuf, UndocumentedPadModesAndNonL1DestinationsAreRefused) {
  gm_buffer g(1024, "src");
  auto padded = run(1, [&] {
    TPipe pipe;
    TBuf<TPosition::B1> b1;
    pipe.InitBuffer(b1, 1024);
    copy_gm_to_cbuf((__cbuf__ void*)b1.Get<half>().GetPhyAddr(), (__gm__ void*)g.get(), (int8_t)0, 1, 4, 0, 0,
                    PAD_MODE7);
  });
  ASSERT_TRUE(padded.error);
  EXPECT_EQ(padded.error->kind, hw_error_kind::invalid_use);
  EXPECT_NE(padded.error->message.find("PAD_MODE7"), std::string::npos) << padded.error->message;
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
