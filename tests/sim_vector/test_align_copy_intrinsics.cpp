// The raw aligned-copy intrinsics under DataCopyPad (issue 38: cann-ops' mat_mul_v3_common.h
// CopyGmToUbufAlign / CopyUbufToGmAlign, shared by mat_mul_v3, gemm_v2 and batch_mat_mul_v3):
// copy_gm_to_ubuf_align_b8/b16/b32 and copy_ubuf_to_gm_align_b8/b16/b32, each checked for the
// layout DataCopyPad gives (lenBurst and the GM gap in bytes, the UB gap in 32 B blocks); and the
// CTRL register's get_ctrl / set_ctrl / sbitset1 / sbitset0 (batch_mat_mul_v3).
#include <concepts>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>

#include "vec_test_util.h"

#include "lib/matmul_intf.h"

using namespace AscendC;

// Two rows of 20 floats, 2 floats apart in GM, into UB rows of 24 (the burst rounds up to 32 B
// blocks, 4 elements of right padding), then back to GM with a 1-float gap between rows.
TEST(AlignCopyIntrinsics, B32RowsWithGapsAndPaddingRoundTrip) {
  constexpr int rows = 2, len = 20, src_pitch = 22, ub_pitch = 24, out_pitch = 21;
  std::vector<float> gm_in(rows * src_pitch);
  for (std::size_t i = 0; i < gm_in.size(); ++i) gm_in[i] = static_cast<float>(i) + 0.25f;
  auto* in = static_cast<float*>(aopt::sim::gm_alloc(gm_in.size() * 4, "in"));
  auto* out = static_cast<float*>(aopt::sim::gm_alloc(rows * out_pitch * 4, "out"));
  std::memcpy(in, gm_in.data(), gm_in.size() * 4);
  std::memset(out, 0, rows * out_pitch * 4);
  std::vector<float> ub;
  vt::run_ok([&] {
    TPipe pipe;
    TBuf<TPosition::VECCALC> b;
    pipe.InitBuffer(b, 1024);
    LocalTensor<float> t = b.Get<float>();
    copy_gm_to_ubuf_align_b32((__ubuf__ void*)t.GetPhyAddr(), (__gm__ void*)in, 0, rows, len * 4, 0, 4,
                              (src_pitch - len) * 4, 0);
    SetFlag<HardEvent::MTE2_V>(0);
    WaitFlag<HardEvent::MTE2_V>(0);
    ub = vt::get(t, rows * ub_pitch);
    SetFlag<HardEvent::MTE2_MTE3>(0);
    WaitFlag<HardEvent::MTE2_MTE3>(0);
    copy_ubuf_to_gm_align_b32((__gm__ void*)out, (__ubuf__ void*)t.GetPhyAddr(), 0, rows, len * 4, 0, 0, 0,
                              (out_pitch - len) * 4);
  });
  for (int r = 0; r < rows; ++r) {
    for (int k = 0; k < len; ++k) {
      const float want = gm_in[static_cast<std::size_t>(r * src_pitch + k)];
      EXPECT_EQ(ub[static_cast<std::size_t>(r * ub_pitch + k)], want) << "UB row " << r << " element " << k;
      EXPECT_EQ(out[r * out_pitch + k], want) << "GM row " << r << " element " << k;
    }
    if (r + 1 < rows) {
      EXPECT_EQ(out[r * out_pitch + len], 0.0f) << "the GM gap is left alone";
    }
  }
  aopt::sim::gm_free(out);
  aopt::sim::gm_free(in);
}

// 2-byte and 1-byte elements, one burst each, GM -> UB -> GM unchanged.
TEST(AlignCopyIntrinsics, B16AndB8OneBurst) {
  constexpr int n16 = 16, n8 = 64;
  auto* in16 = static_cast<std::uint16_t*>(aopt::sim::gm_alloc(n16 * 2, "in16"));
  auto* out16 = static_cast<std::uint16_t*>(aopt::sim::gm_alloc(n16 * 2, "out16"));
  auto* in8 = static_cast<std::uint8_t*>(aopt::sim::gm_alloc(n8, "in8"));
  auto* out8 = static_cast<std::uint8_t*>(aopt::sim::gm_alloc(n8, "out8"));
  for (int i = 0; i < n16; ++i) in16[i] = static_cast<std::uint16_t>(1000 + 7 * i);
  for (int i = 0; i < n8; ++i) in8[i] = static_cast<std::uint8_t>(3 * i + 1);
  vt::run_ok([&] {
    TPipe pipe;
    TBuf<TPosition::VECCALC> b;
    pipe.InitBuffer(b, 256);
    LocalTensor<std::uint8_t> t = b.Get<std::uint8_t>();
    copy_gm_to_ubuf_align_b16((__ubuf__ void*)t.GetPhyAddr(), (__gm__ void*)in16, 0, 1, n16 * 2, 0, 0, 0, 0);
    copy_gm_to_ubuf_align_b8((__ubuf__ void*)t[128].GetPhyAddr(), (__gm__ void*)in8, 0, 1, n8, 0, 0, 0, 0);
    SetFlag<HardEvent::MTE2_MTE3>(0);
    WaitFlag<HardEvent::MTE2_MTE3>(0);
    copy_ubuf_to_gm_align_b16((__gm__ void*)out16, (__ubuf__ void*)t.GetPhyAddr(), 0, 1, n16 * 2, 0, 0, 0, 0);
    copy_ubuf_to_gm_align_b8((__gm__ void*)out8, (__ubuf__ void*)t[128].GetPhyAddr(), 0, 1, n8, 0, 0, 0, 0);
  });
  for (int i = 0; i < n16; ++i) EXPECT_EQ(out16[i], in16[i]) << i;
  for (int i = 0; i < n8; ++i) EXPECT_EQ(out8[i], in8[i]) << i;
  aopt::sim::gm_free(out8);
  aopt::sim::gm_free(in8);
  aopt::sim::gm_free(out16);
  aopt::sim::gm_free(in16);
}

// The CTRL register by its intrinsics (batch_mat_mul_v3: `set_ctrl(sbitset1(get_ctrl(), 51))`):
// kept per core, 0 at the start of each core, bits set and cleared.
TEST(CtrlRegisterIntrinsics, SetAndClearBitsPerCore) {
  std::vector<std::uint64_t> first(2, 99), after(2, 0), cleared(2, 0);
  vt::run_ok([&] {
    first[0] = get_ctrl();
    set_ctrl(sbitset1(get_ctrl(), 51));
    set_ctrl(sbitset1(get_ctrl(), 3));
    after[0] = get_ctrl();
    set_ctrl(sbitset0(get_ctrl(), 51));
    cleared[0] = get_ctrl();
  });
  vt::run_ok([&] { first[1] = get_ctrl(); });
  EXPECT_EQ(first[0], 0u);
  EXPECT_EQ(after[0], (std::uint64_t{1} << 51) | 8u);
  EXPECT_EQ(cleared[0], 8u);
  EXPECT_EQ(first[1], 0u) << "a new core starts at 0";
}

// The buffer capacities kernels compile against (mat_mul_v3_common.h: TOTAL_UB_SIZE), the same as
// the default launch's.
TEST(BufferCapacities, TotalSizesAreTheDefaultLaunchs) {
  const aopt::sim::launch_options o;
  EXPECT_EQ(TOTAL_UB_SIZE, o.ub_bytes);
  EXPECT_EQ(TOTAL_L1_SIZE, o.l1_bytes);
  EXPECT_EQ(TOTAL_L0A_SIZE, o.l0a_bytes);
  EXPECT_EQ(TOTAL_L0B_SIZE, o.l0b_bytes);
  EXPECT_EQ(TOTAL_L0C_SIZE, o.l0c_bytes);
  EXPECT_EQ(TOTAL_LOC_SIZE, o.l0c_bytes);
}

// matmul::CeilDiv, which batch_mat_mul_v3 calls unqualified under `using namespace matmul`.
namespace ceil_div_user {
using namespace matmul;
inline std::uint32_t tiles(std::uint32_t n, std::uint32_t per) { return CeilDiv(n, per); }
}  // namespace ceil_div_user

TEST(MatmulNamespace, CeilDivRoundsUp) {
  EXPECT_EQ(ceil_div_user::tiles(10, 3), 4u);
  EXPECT_EQ(ceil_div_user::tiles(9, 3), 3u);
  EXPECT_EQ(ceil_div_user::tiles(0, 3), 0u);
  EXPECT_EQ(ceil_div_user::tiles(5, 0), 0u) << "a zero divisor answers 0";
  EXPECT_EQ(matmul::CeilDiv<std::uint64_t>(std::uint64_t{1} << 40, 3), ((std::uint64_t{1} << 40) + 2) / 3);
}

// namespace matmul is CANN's alias of AscendC: `using namespace matmul;` alone names the whole
// kernel API (matmul_leakyrelu's unqualified DataCopyParams), and a kernel's own one-parameter
// CeilDiv beside `using namespace AscendC;` (norm/rms_norm) is not ambiguous with the API's.
namespace alias_user {
using namespace matmul;
inline std::uint16_t block_count() {
  DataCopyParams p{4, 2, 0, 0};
  return p.blockCount;
}
}  // namespace alias_user
namespace own_ceil_div_user {
using namespace AscendC;
template <typename T>
inline T CeilDiv(T x, T y) {
  return y == 0 ? T{} : (x + y - 1) / y + 100;  // + 100: shows which one was called
}
inline std::uint32_t tiles(std::uint32_t n, std::uint32_t per) { return CeilDiv(n, per); }
}  // namespace own_ceil_div_user

TEST(MatmulNamespace, MatmulIsAnAliasOfAscendC) {
  EXPECT_EQ(alias_user::block_count(), 4u);
  EXPECT_EQ(own_ceil_div_user::tiles(10, 3), 104u) << "the kernel's own CeilDiv is the one called";
  static_assert(std::is_same_v<matmul::DataCopyParams, AscendC::DataCopyParams>);
  // matmul_leakyrelu's copy out: `baseN * sizeof(cType) / DEFAULT_C0_SIZE` blocks of 32 bytes.
  EXPECT_EQ(matmul::DEFAULT_C0_SIZE, 32);
}

// MatmulImpl<A, B, C, BIAS, MM_CFG, MM_CB> (mat_mul_v3 / gemm_v2's mat_mul_base_kernel.h) is the
// class Matmul names, through namespace AscendC and namespace matmul.
TEST(MatmulNamespace, MatmulImplIsTheMatmulClass) {
  using A = MatmulType<TPosition::GM, CubeFormat::ND, half>;
  using C = MatmulType<TPosition::GM, CubeFormat::ND, float>;
  static_assert(std::is_same_v<matmul::MatmulImpl<A, A, C, C, CFG_MDL, MatmulCallBackFunc<nullptr, nullptr, nullptr>>,
                               Matmul<A, A, C, C, CFG_MDL, MatmulCallBackFunc<nullptr, nullptr, nullptr>>>);
  static_assert(std::is_same_v<MatmulImpl<A, A, C>, Matmul<A, A, C>>);
  SUCCEED();
}

// Matmul::SetSubBlockIdx (mat_mul_base_kernel.h: `mm_.SetSubBlockIdx(0)`) is accepted and kept.
TEST(MatmulNamespace, SetSubBlockIdxIsKept) {
  using A = MatmulType<TPosition::GM, CubeFormat::ND, half>;
  using C = MatmulType<TPosition::GM, CubeFormat::ND, float>;
  MatmulImpl<A, A, C> mm;
  EXPECT_EQ(mm.GetSubBlockIdx(), 0);
  mm.SetSubBlockIdx(1);
  EXPECT_EQ(mm.GetSubBlockIdx(), 1);
}

// Matmul::SetLocalWorkspace(LocalTensor<uint8_t>) (matmul_leakyrelu: the UB staging it offers
// the API when C goes to UB) is declared with the documented signature.
TEST(MatmulNamespace, SetLocalWorkspaceTakesAUbByteTensor) {
  using A = MatmulType<TPosition::GM, CubeFormat::ND, half>;
  using C = MatmulType<TPosition::VECIN, CubeFormat::ND, float>;
  constexpr bool has = requires(Matmul<A, A, C> mm, const LocalTensor<std::uint8_t>& ws) {
    { mm.SetLocalWorkspace(ws) } -> std::same_as<void>;
  };
  // SetUserDefInfo(uint64_t) (batch_mat_mul_v3: the tiling data's address for its copy callbacks).
  Matmul<A, A, C> mm;
  mm.SetUserDefInfo(reinterpret_cast<std::uint64_t>(&mm));
  static_assert(has);
  SUCCEED();
}

// TBuf<> is TBuf<TPosition::VECCALC> (LCM names VECCALC): mat_mul_v3's split-K kernel passes a
// TBuf<> to a function taking TBuf<TPosition::VECCALC>&.
TEST(MatmulNamespace, DefaultTBufIsVecCalc) {
  static_assert(std::is_same_v<TBuf<>, TBuf<TPosition::VECCALC>>);
  static_assert(TPosition::LCM == TPosition::VECCALC);
  SUCCEED();
}

// PRELOAD(len) (mat_mul_v3's split-K kernel) is accepted in a template, as there, and does nothing.
template <typename T>
T preloading(T v) {
  PRELOAD(4);
  return v;
}
TEST(InstructionPreload, PreloadIsAcceptedAndDoesNothing) { EXPECT_EQ(preloading(3), 3); }
